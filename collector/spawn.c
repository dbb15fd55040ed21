/*
 * spawn.c - at exit, once the run file is complete: cuprof-report (the tool
 * beside libcuprof.so, which holds the model and the writers; the library
 * does not) builds every output from it in its own process, and the exit
 * waits for it, so the files are there when the program is gone.
 *
 * The tool runs without our LD_PRELOAD and injection variables (it is not
 * profiled), with its output on our stderr. errno is kept. A program
 * with a SIGCHLD handler sees one more child end while it exits; one that
 * reaps every child (waitpid(-1)) may take the tool's status first, which
 * only costs us the tool's exit status.
 */
#include "collector/spawn.h"
#include "collector/libc.h"
#include "collector/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The environment minus what would profile the tool. */
static char **tool_env(void)
{
    static const char *const drop[] = {"LD_PRELOAD=", "CUDA_INJECTION64_PATH=",
                                       "NVTX_INJECTION64_PATH=", "NCCL_PROFILER_PLUGIN="};
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++) {
        int keep = 1;
        for (size_t d = 0; d < sizeof drop / sizeof drop[0]; d++)
            keep &= strncmp(*e, drop[d], strlen(drop[d])) != 0;
        if (keep)
            env[k++] = *e;
    }
    return env;
}

/* cuprof-report's path: CUPROF_REPORT, else beside libcuprof.so; 0 or -1. */
static int tool_path(char *tool, size_t n)
{
    Dl_info info;
    const char *over = getenv("CUPROF_REPORT");
    if (over && *over) {
        snprintf(tool, n, "%s", over);
        return 0;
    }
    if (!dladdr((void *)tool_path, &info) || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dn = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(tool, n, "%.*s/cuprof-report", dn, slash ? info.dli_fname : ".");
    return 0;
}

/* Runs argv (argv[0]: the tool) without our variables and waits: its exit
 * status, 128 + a signal that ended it, -1 not started (*err: why), 0 when
 * the program reaped it first (waitpid(-1): its status is lost, not its
 * files). errno kept. */
static int spawn_wait(char *const argv[], int *err)
{
    int saved = errno;
    char **env = tool_env();
    pid_t pid;
    /* libc's own: the library's posix_spawn hook would put our preload
     * back into the tool's environment */
    typedef __typeof__(&posix_spawn) spawn_fn;
    spawn_fn spawn = (spawn_fn)(uintptr_t)cuprof_libc_sym("posix_spawn");
    /* SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked in the tool: a second
     * Ctrl-C, or a job's signal sent to the whole group, reaches it too, and
     * the profile being written is not to be cut short (a third Ctrl-C ends
     * the program; the tool then finishes the files on its own). Added to
     * this thread's mask, which the tool inherits: the exit path blocks
     * SIGXFSZ (a file-size limit is an error message, not a death). */
    posix_spawnattr_t attr;
    int have_attr = posix_spawnattr_init(&attr) == 0;
    if (have_attr) {
        sigset_t mask;
        if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
            sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGQUIT);
        if (posix_spawnattr_setsigmask(&attr, &mask) != 0 ||
            posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK) != 0) {
            posix_spawnattr_destroy(&attr);
            have_attr = 0;
        }
    }
    if (!spawn)
        errno = ENOSYS;
    int rc = spawn && access(argv[0], X_OK) == 0 && env
                 ? spawn(&pid, argv[0], NULL, have_attr ? &attr : NULL, argv, env)
                 : -1;
    *err = rc > 0 ? rc : errno;
    if (have_attr)
        posix_spawnattr_destroy(&attr);
    free(env);
    if (rc != 0) {
        errno = saved;
        return -1;
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    errno = saved;
    if (w != pid)
        return 0;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int cuprof_spawn_report(const char *runfile)
{
    char tool[PATH_MAX];
    if (tool_path(tool, sizeof tool) != 0) {
        cuprof_log("cannot find cuprof-report beside libcuprof.so; the run is kept in %s: "
                   "run prof.sh report %s", runfile, runfile);
        return -1;
    }
    char *argv[] = {tool, "--at-exit", (char *)runfile, NULL};
    int err = 0, st = spawn_wait(argv, &err);
    if (st < 0)
        cuprof_log("cannot run %s (%s); the run is kept in %s: run prof.sh report %s", tool,
                   strerror(err), runfile, runfile);
    else if (st > 128)
        cuprof_log("cuprof-report ended by signal %d; the run is kept in %s: run prof.sh report "
                   "%s", st - 128, runfile, runfile);
    return st;
}

void cuprof_spawn_report_window(const char *runfile, uint64_t k)
{
    char tool[PATH_MAX], kbuf[24];
    if (tool_path(tool, sizeof tool) != 0)
        return;
    snprintf(kbuf, sizeof kbuf, "%llu", (unsigned long long)k);
    char *argv[] = {tool, "--at-exit", "--window", kbuf, (char *)runfile, NULL};
    int err = 0;
    (void)spawn_wait(argv, &err);
}
