/*
 * process.h - every way a process ends or replaces itself other than
 * return-from-main / exit() (which lifecycle.c handles with atexit):
 * signals, _exit/_Exit/quick_exit, abort and crashes, exec; and the
 * environment an exec'd or spawned image needs to be profiled again.
 *
 * preload/hooks_libc.c interposes the libc functions and calls these; the
 * state (the program's view of its signal dispositions, the exit writer
 * thread, the saved environment) lives here.
 *
 * What each path does (collector/README.md, "Exit paths", has the table):
 *   _exit, _Exit, quick_exit  write the outputs, then the real function runs.
 *   exec*, fexecve            write the outputs (exec runs no atexit), put
 *                             back LD_PRELOAD / CUDA_INJECTION64_PATH /
 *                             CUPROF_* if the program dropped them from the
 *                             environment it passes; if exec fails, recording
 *                             resumes and the exit path rewrites the files.
 *   posix_spawn(p)            the child's environment is fixed the same way.
 *   SIGINT SIGTERM SIGHUP     while the program's disposition is SIG_DFL, our
 *   SIGQUIT                   handler writes the outputs and re-raises the
 *                             signal with SIG_DFL (same death, same status).
 *                             A program's own handler or SIG_IGN is installed
 *                             as it asked (it decides; if it then exits, the
 *                             exit paths above write); sigaction/signal
 *                             report the program's view, never ours.
 *   SIGSEGV SIGBUS SIGFPE     the same, best effort, with the outputs marked
 *   SIGILL SIGABRT (abort)    truncated; skipped when the fault is inside
 *                             libcuprof itself.
 *
 * Async-signal-safety: the outputs are built with malloc and friends, which
 * a signal handler must not call (the interrupted thread may hold malloc's
 * or CUDA's locks). So the handler does not write: it wakes a helper thread
 * ("cuprof-exit", started at init, every signal blocked, its own malloc
 * arena) that runs the exit path, and waits for it with async-signal-safe
 * calls only (write, nanosleep, clock_gettime) for a bounded time; then it
 * lets the signal kill the process. A deadlock in the writer (a lock held by
 * the interrupted thread) costs at most the wait, never a hang; the part
 * that calls into CUDA/CUPTI, where such a lock is most likely (the signal
 * lands on a thread inside a CUDA call), is bounded on its own
 * (CUPROF_EXIT_GPU_WAIT_MS), so the CPU-side outputs are still written; a crash in
 * the writer (corrupted heap) jumps back into the writer's loop
 * (siglongjmp) and the process dies of the original signal. A second
 * SIGINT/SIGTERM while waiting skips the wait.
 */
#ifndef CUPROF_PROCESS_H
#define CUPROF_PROCESS_H

#include <signal.h>

/* How long a signal handler or _exit waits for the outputs: a normal
 * ending (SIGINT & co, _exit, exec) and a crash. Long enough for a run at
 * the default memory limit; a writer stuck on a lock held by the
 * interrupted thread costs at most this. */
#define CUPROF_EXIT_WAIT_MS 60000
#define CUPROF_CRASH_WAIT_MS 10000
/* Of that, what the exit path gives the part that calls into CUDA/CUPTI
 * (device synchronize, forced flush) on these paths: another thread may be
 * stopped inside CUDA holding its locks (the signal landed there), and then
 * the call never returns. After it the CPU-side outputs are written with
 * the GPU records delivered so far, marked partial
 * (cuprof_cupti_finish_within). Well under both waits above. */
#define CUPROF_EXIT_GPU_WAIT_MS 5000

/* Installs our handler for the signals above whose disposition is SIG_DFL
 * and starts the writer thread. From cuprof_collector_init when recording
 * is enabled; once per process (and again in a forked child, below). */
void cuprof_process_init(void);
/* In a forked child (atfork handler): the writer thread did not survive. */
void cuprof_process_fork_child(void);

/* _exit/_Exit/quick_exit are about to end the process: writes the outputs
 * (through the writer thread, bounded wait; ended_by names the function),
 * unless this is a vfork child or nothing was recorded. Keeps errno. */
void cuprof_process_ending(const char *ended_by);

/* exec is about to replace the image: writes the outputs (ended_by
 * "exec"). If exec then fails, call cuprof_process_exec_failed(): recording
 * resumes and the files are written again (same names) at the real end. */
void cuprof_process_exec_begin(void);
void cuprof_process_exec_failed(void);

/* sigaction as the program sees it: for the signals we manage, installing
 * SIG_DFL keeps our handler (and remembers the program's struct), anything
 * else is installed as asked; old gets the program's view. real is libc's
 * sigaction. Returns what sigaction returns (errno as it sets it). */
int cuprof_process_sigaction(int sig, const struct sigaction *act, struct sigaction *old,
                             int (*real)(int, const struct sigaction *, struct sigaction *));

/* The environment for an image about to be exec'd or spawned: envp plus
 * whatever of LD_PRELOAD (our library), CUDA_INJECTION64_PATH and CUPROF_*
 * the process had at start-up and envp lacks. Returns envp itself when
 * nothing is missing (or when memory is short), else a malloc'd array
 * (strings owned by it, or by envp / the saved copy) to release with
 * cuprof_process_env_free. Never fails. */
char **cuprof_process_exec_env(char *const envp[]);
void cuprof_process_env_free(char **env, char *const envp[]);

/* Lets sig do what SIG_DFL does (terminate, dump core) on this thread:
 * restores the default disposition with libc's sigaction, unblocks sig and
 * raises it. Async-signal-safe. Returns only if sig's default is to be
 * ignored or stop. */
void cuprof_process_reraise(int sig);

/* 1 in a vfork child (shares the parent's memory: must not touch state). */
int cuprof_process_is_vfork_child(void);

#endif /* CUPROF_PROCESS_H */
