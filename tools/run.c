/*
 * run.c - cuprof-run: what prof.sh execs to run the program, so that a
 * process killed in a way no handler sees (SIGKILL, the OOM killer, a
 * signal whose default ends it, a crash inside a library) still gets its
 * outputs, built from the run file it left.
 *
 *   cuprof-run [--argv0 NAME] [--env VAR=VALUE]... -- PROGRAM [ARGS...]
 *
 * Starts PROGRAM as its child (argv[0] = NAME, as the user typed it; the
 * --env variables set in the child only: this process is not profiled),
 * forwards to it every signal another process sends here (a scheduler's
 * SIGTERM, mpirun's, kill(1): si_code SI_USER or SI_QUEUE) but not those
 * the terminal sends the whole process group (Ctrl-C reaches the child
 * once, from the terminal), and waits for it. Then every run file in
 * CUPROF_OUT_DIR that a process of this run left not completed
 * (.cuprof-run.PID of a process that is gone) is reported by cuprof-report
 * --recover, beside this program. Last, it ends as its child did: the same
 * exit status, or the same signal (no second core dump).
 *
 * If this process is killed itself, the child is killed too
 * (PR_SET_PDEATHSIG), as it would have been when prof.sh exec'd it; its run
 * file stays for prof.sh report. Exit status 127/126 when PROGRAM cannot be
 * run, as a shell says.
 */
#include "collector/runfile.h"

#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile pid_t child = -1;

/* The signals forwarded: those a job's runner or a user sends by hand. */
static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
                                SIGPIPE, SIGWINCH, SIGCONT, SIGURG, SIGVTALRM, SIGPROF,
                                SIGXCPU, SIGPWR};

/* The last relay of each signal: its sender and when (forward). */
#define MERGE_MS 250
static struct {
    pid_t from;
    long long ms;
} relayed[NSIG];

static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    /* from another process (kill, sigqueue): pass it on; from the terminal
     * or the kernel (the whole group got it, the child included): not */
    if (child > 0 && si && (si->si_code == SI_USER || si->si_code == SI_QUEUE)) {
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
            /* sent again by the same sender within MERGE_MS (timeout: to
             * its child, then to its group): passed on once, as the kernel
             * merges a signal sent again before it is delivered */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
            if (relayed[sig].from == si->si_pid && ms - relayed[sig].ms < MERGE_MS) {
                errno = saved;
                return;
            }
            relayed[sig].from = si->si_pid;
            relayed[sig].ms = ms;
            /* tagged with the sender: when it signalled the whole group,
             * the child got it directly too and drops this copy
             * (collector/process_signals.c, relay_duplicate) */
            union sigval v;
            v.sival_ptr = (void *)(uintptr_t)(((uint64_t)CUPROF_RELAY_TAG << 32) |
                                              (uint32_t)si->si_pid);
            if (sigqueue(child, sig, v) != 0)
                kill(child, sig);
        } else {
            kill(child, sig);
        }
    }
    errno = saved;
}

static const char *signame(int sig, char *buf, size_t n)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, n, "SIG%s", abbrev);
    else
        snprintf(buf, n, "signal %d", sig);
    return buf;
}

/* cuprof-report --recover DIR ROOT --ended-by HOW, beside this program. */
static void recover(pid_t root, const char *how)
{
    const char *dir = getenv("CUPROF_OUT_DIR");
    if (!dir || !*dir)
        dir = "prof-out";
    char self[PATH_MAX], tool[PATH_MAX + 32], rootbuf[32];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    self[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(tool, sizeof tool, "%s/cuprof-report", slash ? self : ".");
    snprintf(rootbuf, sizeof rootbuf, "%ld", (long)root);
    char *argv[] = {tool, "--recover", (char *)dir, rootbuf, "--ended-by", (char *)how, NULL};
    pid_t pid;
    if (access(tool, X_OK) != 0 || posix_spawn(&pid, tool, NULL, NULL, argv, environ) != 0)
        return;
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
}

/* What --help prints: the command and its signal rules. */
static const char help_text[] =
    "Usage: cuprof-run [--argv0 NAME] [--env VAR=VALUE]... -- PROGRAM [ARGS...]\n"
    "prof.sh runs this (CUPROF_SUPERVISE=0: prof.sh execs PROGRAM itself instead).\n"
    "\n"
    "Runs PROGRAM as its child (argv[0] = NAME, the --env variables in its\n"
    "environment only) and ends as it did: its exit status, or its signal.\n"
    "\n"
    "Signals:\n"
    "  - A signal another process sends to this pid (kill PID, a scheduler,\n"
    "    mpirun; SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,\n"
    "    SIGWINCH, SIGCONT, SIGURG, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR) is passed on\n"
    "    to PROGRAM. One from the terminal (Ctrl-C, Ctrl-\\) reaches PROGRAM by itself\n"
    "    and is not passed on.\n"
    "  - A signal sent to the whole process group (kill -INT -PGID, timeout, a\n"
    "    scheduler's cancel) reaches PROGRAM once: the copy passed on names its\n"
    "    sender, and the profiler in PROGRAM drops it when the group's own copy came\n"
    "    (SIGINT, SIGTERM, SIGHUP, SIGQUIT; PROGRAM's own handler sees one). The\n"
    "    same signal from the same sender twice within 0.25 s (timeout: to its\n"
    "    child, then to its group) is passed on once, as the kernel merges it.\n"
    "  - A signal ignored when this started (nohup, a script's background job)\n"
    "    stays ignored in PROGRAM and is not passed on.\n"
    "  - PROGRAM with no handler of its own for SIGINT, SIGTERM, SIGHUP or\n"
    "    SIGQUIT: the first writes the profile and then ends PROGRAM by that\n"
    "    signal; a second one while the profile is written is absorbed; a third\n"
    "    ends it at once, and the profile is then built from its run file here,\n"
    "    marked TRUNCATED.\n"
    "  - PROGRAM (or a process it started) killed in a way that writes nothing\n"
    "    (SIGKILL, the OOM killer, a signal no handler sees): its profile is built\n"
    "    from its run file once PROGRAM is gone, marked TRUNCATED.\n"
    "  - This process killed (SIGKILL) takes PROGRAM with it; the run file stays\n"
    "    for prof.sh report.\n"
    "\n"
    "Exit status: PROGRAM's; 126 when it cannot be run, 127 when it is not found,\n"
    "2 for a usage error.\n";

int main(int argc, char **argv)
{
    const char *argv0 = NULL;
    char *envs[64];
    int nenv = 0, i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(help_text, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--argv0") && i + 1 < argc) {
            argv0 = argv[++i];
        } else if (!strcmp(argv[i], "--env") && i + 1 < argc && nenv < 64) {
            envs[nenv++] = argv[++i];
        } else {
            fprintf(stderr, "cuprof: run: unknown option %s (prof.sh runs this)\n", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "cuprof: run: no program given (prof.sh runs this)\n");
        return 2;
    }
    char *path = argv[i];
    char **cargv = &argv[i];
    if (argv0)
        cargv[0] = (char *)argv0;

    /* Handlers first: a signal between fork and them would be lost. Blocked
     * until the child's pid is known. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cuprof: run: cannot start %s: %s\n", path, strerror(errno));
        return 126;
    }
    if (pid == 0) {
        /* the child: dies with us, gets the profiler's variables, keeps our
         * dispositions as prof.sh's exec would have */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(137);
        for (int k = 0; k < nenv; k++)
            putenv(envs[k]);
        char pidbuf[32];
        snprintf(pidbuf, sizeof pidbuf, "%ld", (long)getpid());
        setenv("CUPROF_ROOT_PID", pidbuf, 1);
        snprintf(pidbuf, sizeof pidbuf, "%ld", (long)parent);
        setenv("CUPROF_SUPERVISOR_PID", pidbuf, 1);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execv(path, cargv);
        int e = errno;
        fprintf(stderr, "cuprof: %s: %s\n", path, strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    child = pid;
    for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++) {
        struct sigaction cur;
        /* a signal the caller ignores stays ignored (nohup) */
        if (sigaction(forwarded[k], NULL, &cur) == 0 && cur.sa_handler == SIG_IGN)
            continue;
        sigaction(forwarded[k], &sa, NULL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            st = 0;
            break;
        }
    }
    child = -1;
    char how[64];
    if (WIFSIGNALED(st))
        signame(WTERMSIG(st), how, sizeof how);
    else
        snprintf(how, sizeof how, "killed");
    recover(pid, how);

    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);   /* the child dumped its own */
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
        return 128 + sig;   /* a signal that does not end a process (cannot be) */
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
