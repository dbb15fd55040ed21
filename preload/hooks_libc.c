/*
 * hooks_libc.c - the libc functions through which a process ends or
 * replaces itself without running atexit handlers, changes what a signal
 * does, or closes and replaces descriptors (ours among them: issue 42.3)
 * (PRELOAD_LIBC_HOOKS in hooks.h). Each hands the decision to the
 * collector (collector/process.h: the state and the reasons live there),
 * then calls the real function with its arguments untouched (but for an
 * environment that lost our variables) and returns what it returned, errno
 * included.
 *
 * Only in libcuprof.so. Inside the library nothing calls these names (the
 * collector uses libc's functions through dlsym(RTLD_NEXT)).
 */
#include "preload/hooks.h"
#include "collector/collector.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* ---- ending without atexit ------------------------------------------------------- */

/* The real _exit is missing only in a broken process: end it anyway. */
static __attribute__((noreturn)) void exit_group(int status)
{
    for (;;)
        syscall(SYS_exit_group, status);
}

/* exit() from a second thread while one is exiting: it waits for the
 * process to end (glibc 2.36's exit would end it at once, before the first
 * one's exit path has written anything; glibc 2.41 makes the second wait
 * too). The first goes on as always: atexit handlers, ours among them. */
PRELOAD_EXPORT void exit(int status)
{
    cuprof_process_exit_call();
    preload_exit_fn real = PRELOAD_REAL(exit);
    if (real)
        real(status);
    exit_group(status);
}

PRELOAD_EXPORT void _exit(int status)
{
    cuprof_process_ending("_exit");
    preload__exit_fn real = PRELOAD_REAL(_exit);
    if (real)
        real(status);
    exit_group(status);
}

PRELOAD_EXPORT void _Exit(int status)
{
    cuprof_process_ending("_Exit");
    preload__Exit_fn real = PRELOAD_REAL(_Exit);
    if (real)
        real(status);
    exit_group(status);
}

/* at_quick_exit handlers run after the outputs are written. */
PRELOAD_EXPORT void quick_exit(int status)
{
    cuprof_process_ending("quick_exit");
    preload_quick_exit_fn real = PRELOAD_REAL(quick_exit);
    if (real)
        real(status);
    exit_group(status);
}

/* ---- signal dispositions ----------------------------------------------------------- */

PRELOAD_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
    preload_sigaction_fn real = PRELOAD_REAL(sigaction);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return cuprof_process_sigaction(sig, act, oact, real);
}

/* signal() and its variants install through glibc's internal sigaction,
 * which no interposer sees: each is rebuilt on ours, with the flags glibc
 * uses (signal/bsd_signal: BSD semantics; sysv_signal: one-shot). */
static __sighandler_t signal_as(int sig, __sighandler_t handler, int flags, int mask_self)
{
    struct sigaction act, old;
    if (handler == SIG_ERR || sig <= 0 || sig >= NSIG) {
        errno = EINVAL;
        return SIG_ERR;
    }
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    if (mask_self)
        sigaddset(&act.sa_mask, sig);
    act.sa_flags = flags;
    if (sigaction(sig, &act, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}

PRELOAD_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
    return signal_as(sig, handler, SA_RESTART, 1);
}

PRELOAD_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
    return signal_as(sig, handler, SA_RESTART, 1);
}

PRELOAD_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
    return signal_as(sig, handler, (int)(SA_RESETHAND | SA_NODEFER), 0);
}

/* ---- exec and spawn ------------------------------------------------------------------ */

/* Every exec: the outputs of this image first (exec runs no atexit), the
 * environment fixed; if exec returns it failed: record on. */
#define EXEC_WRAP(call_real, envp_in)                                       \
    do {                                                                    \
        if (cuprof_process_is_vfork_child()) {                              \
            char *const *env = (envp_in);                                   \
            cuprof_process_fds_cloexec();                                   \
            return call_real;                                               \
        }                                                                   \
        char **env = cuprof_process_exec_env(envp_in);                      \
        cuprof_process_exec_begin();                                        \
        cuprof_process_fds_cloexec();                                       \
        int r_ = call_real;                                                 \
        int e_ = errno;                                                     \
        cuprof_process_env_free(env, envp_in);                              \
        cuprof_process_exec_failed();                                       \
        errno = e_;                                                         \
        return r_;                                                          \
    } while (0)

#define REAL_OR_ENOSYS(name)                                                \
    preload_##name##_fn real = PRELOAD_REAL(name);                          \
    if (!real) {                                                            \
        errno = ENOSYS;                                                     \
        return -1;                                                          \
    }

PRELOAD_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    REAL_OR_ENOSYS(execve);
    EXEC_WRAP(real(path, argv, env), envp);
}

PRELOAD_EXPORT int execv(const char *path, char *const argv[])
{
    REAL_OR_ENOSYS(execve);
    EXEC_WRAP(real(path, argv, env), environ);
}

PRELOAD_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    REAL_OR_ENOSYS(execvpe);
    EXEC_WRAP(real(file, argv, env), envp);
}

PRELOAD_EXPORT int execvp(const char *file, char *const argv[])
{
    REAL_OR_ENOSYS(execvpe);
    EXEC_WRAP(real(file, argv, env), environ);
}

PRELOAD_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    REAL_OR_ENOSYS(fexecve);
    EXEC_WRAP(real(fd, argv, env), envp);
}

/* execl & co: argv from the variable arguments (on the stack: exec may be
 * called where malloc must not be), then the vector form. */
#define COLLECT_ARGS(arg0, ap, argv, n, extra)                              \
    size_t n = 1;                                                           \
    va_start(ap, arg0);                                                     \
    while (va_arg(ap, char *) != NULL)                                      \
        n++;                                                                \
    va_end(ap);                                                             \
    char *argv[n + 1];                                                      \
    argv[0] = (char *)(arg0);                                               \
    va_start(ap, arg0);                                                     \
    for (size_t i_ = 1; i_ <= n; i_++)                                      \
        argv[i_] = i_ < n ? va_arg(ap, char *) : (va_arg(ap, char *), NULL); \
    extra;                                                                  \
    va_end(ap)

PRELOAD_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, n, (void)0);
    return execv(path, argv);
}

PRELOAD_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv, n, (void)0);
    return execvp(file, argv);
}

PRELOAD_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char *const *envp;
    COLLECT_ARGS(arg, ap, argv, n, envp = va_arg(ap, char *const *));
    return execve(path, argv, envp);
}

/* A spawned child is a new process: only its environment needs fixing. */
PRELOAD_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                               const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    preload_posix_spawn_fn real = PRELOAD_REAL(posix_spawn);
    if (!real)
        return ENOSYS;
    char **env = cuprof_process_exec_env(envp);
    cuprof_process_fds_cloexec();
    int r = real(pid, path, fa, attr, argv, env);
    int e = errno;
    cuprof_process_env_free(env, envp);
    errno = e;
    return r;
}

PRELOAD_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                                const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    preload_posix_spawnp_fn real = PRELOAD_REAL(posix_spawnp);
    if (!real)
        return ENOSYS;
    char **env = cuprof_process_exec_env(envp);
    cuprof_process_fds_cloexec();
    int r = real(pid, file, fa, attr, argv, env);
    int e = errno;
    cuprof_process_env_free(env, envp);
    errno = e;
    return r;
}

/* ---- descriptors ----------------------------------------------------------------------
 *
 * A program that closes what it inherited (close(3..4095), closefrom(3),
 * Python's os.closerange: close_range) or dup2s a file of its own onto any
 * number may hit the run file's descriptor: the collector gives the number
 * up for the call (no write of ours can reach what the program puts there)
 * and opens the file again by its path when it next writes
 * (collector/runfile.c). Everything else runs as it is: two atomic
 * additions around the real call. */

PRELOAD_EXPORT int close(int fd)
{
    preload_close_fn real = PRELOAD_REAL(close);
    cuprof_fd_call c;
    cuprof_fd_begin(&c, (unsigned)fd, (unsigned)fd);
    int r = real ? real(fd) : (int)syscall(SYS_close, fd);
    cuprof_fd_end(&c);
    return r;
}

PRELOAD_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
    cuprof_fd_call c;
    cuprof_fd_begin(&c, lo, hi);
    preload_close_range_fn real = PRELOAD_REAL(close_range);
    int r = real ? real(lo, hi, flags) : (int)syscall(SYS_close_range, lo, hi, flags);
    cuprof_fd_end(&c);
    return r;
}

PRELOAD_EXPORT void closefrom(int lo)
{
    cuprof_fd_call c;
    cuprof_fd_begin(&c, lo < 0 ? 0u : (unsigned)lo, ~0u);
    preload_closefrom_fn real = PRELOAD_REAL(closefrom);
    if (real)
        real(lo);
    else
        syscall(SYS_close_range, lo < 0 ? 0u : (unsigned)lo, ~0u, 0);
    cuprof_fd_end(&c);
}

PRELOAD_EXPORT int dup2(int from, int to)
{
    REAL_OR_ENOSYS(dup2);
    cuprof_fd_call c;
    cuprof_fd_begin(&c, (unsigned)to, (unsigned)to);
    int r = real(from, to);
    cuprof_fd_end(&c);
    return r;
}

PRELOAD_EXPORT int dup3(int from, int to, int flags)
{
    REAL_OR_ENOSYS(dup3);
    cuprof_fd_call c;
    cuprof_fd_begin(&c, (unsigned)to, (unsigned)to);
    int r = real(from, to, flags);
    cuprof_fd_end(&c);
    return r;
}
