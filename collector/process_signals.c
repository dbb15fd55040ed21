/*
 * process_signals.c - the exit paths that are not exit(): terminating and
 * fatal signals, _exit/_Exit/quick_exit, and the helper thread that writes
 * the outputs for them (see process.h for the design and its async-signal-
 * safety trade-off).
 */
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/log.h"
#include "collector/process.h"
#include "collector/runfile.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* The signals we manage: the first four end the process cleanly (complete
 * outputs), the others are crashes (outputs marked truncated). */
static const struct {
    int sig;
    const char *name;   /* what summary.json's ended_by says */
    int crash;
} managed[] = {
    {SIGINT, "SIGINT", 0},   {SIGTERM, "SIGTERM", 0}, {SIGHUP, "SIGHUP", 0},
    {SIGQUIT, "SIGQUIT", 0}, {SIGSEGV, "SIGSEGV", 1}, {SIGBUS, "SIGBUS", 1},
    {SIGFPE, "SIGFPE", 1},   {SIGILL, "SIGILL", 1},   {SIGABRT, "SIGABRT", 1},
};
#define N_MANAGED (sizeof managed / sizeof managed[0])

/* Per managed signal. No lock: sigaction may be called from a signal
 * handler (a handler that resets itself to SIG_DFL), and the kernel orders
 * the real installs anyway. */
static struct {
    _Atomic int ours;             /* our handler is installed: the program's
                                     disposition is SIG_DFL */
    _Atomic int wrapped;          /* the program's handler runs behind on_prog_signal
                                     (a terminating signal, under cuprof-run) */
    struct sigaction prog;        /* the program's view while ours or wrapped */
} sigs[N_MANAGED];

static sigaction_fn real_sigaction;   /* libc's, never our interposer */
static _Atomic int signals_on;        /* handlers installed (init ran) */
static _Atomic int presses;           /* terminating signals counted by on_signal (one per
                                         sending, relayed copies paired off) */
static uintptr_t self_lo, self_hi;    /* libcuprof's code, to tell a crash in it */

/* The writer thread ("cuprof-exit"). Woken through a futex, not a pipe: a
 * program that closes every descriptor (daemons do) could have its own file
 * under our pipe's number by the time we write to it. */
static struct {
    _Atomic int req;                  /* 1: run the exit path (futex word) */
    _Atomic int running;              /* the thread runs in this process */
    _Atomic long tid;                 /* its kernel thread id */
    _Atomic int requested;            /* a request was sent (one per process image) */
    const char *_Atomic ended_by;     /* what the request says */
    _Atomic int truncated;
    _Atomic int failed;               /* the writer crashed while writing */
} wr;
static sigjmp_buf writer_jmp;         /* where a crash in the writer lands */

static long my_tid(void)
{
    return (long)syscall(SYS_gettid);
}

/* A line on stderr from a handler: write(2) only, unless CUPROF_QUIET. */
static void say_raw(const char *msg, size_t len)
{
    if (cuprof_g_config.quiet)
        return;
    ssize_t k = write(STDERR_FILENO, msg, len);
    (void)k;
}

static int managed_index(int sig)
{
    for (size_t i = 0; i < N_MANAGED; i++)
        if (managed[i].sig == sig)
            return (int)i;
    return -1;
}

void cuprof_process_reraise(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    if (real_sigaction)
        real_sigaction(sig, &dfl, NULL);
    int i = managed_index(sig);
    if (i >= 0)
        atomic_store(&sigs[i].ours, 0);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
}

/* ---- the writer thread ---------------------------------------------------------- */

static void *writer_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cuprof-exit", 0, 0, 0);
    free(malloc(64));   /* takes its own malloc arena now, not when it is needed */
    atomic_store(&wr.tid, my_tid());
    for (;;) {
        while (!atomic_exchange(&wr.req, 0))
            syscall(SYS_futex, &wr.req, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
        if (sigsetjmp(writer_jmp, 1) == 0)
            cuprof_collector_finish_as(atomic_load(&wr.ended_by), atomic_load(&wr.truncated));
        else
            atomic_store(&wr.failed, 1);   /* crashed in the exit path: see on_signal */
    }
    return NULL;
}

/* Starts the writer with every signal blocked but the synchronous ones (a
 * fault with its signal blocked kills the process outright; ours must land
 * in on_signal, which jumps back to writer_main). */
static void writer_start(void)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t mask, old;
    sigfillset(&mask);
    for (size_t i = 0; i < N_MANAGED; i++)
        if (managed[i].crash)
            sigdelset(&mask, managed[i].sig);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    pthread_t th;
    if (pthread_create(&th, &attr, writer_main, NULL) == 0)
        atomic_store(&wr.running, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

/* Asks the writer for the exit path (once) and waits at most ms for the
 * outputs, whoever writes them (exit() may be running it on another
 * thread). Async-signal-safe. Returns 0 when there is no writer. */
static int write_and_wait(const char *ended_by, int truncated, int ms)
{
    if (!atomic_load(&wr.running))
        return 0;
    if (!atomic_exchange(&wr.requested, 1)) {
        atomic_store(&wr.ended_by, ended_by);
        atomic_store(&wr.truncated, truncated);
        atomic_store(&wr.req, 1);   /* futex: a system call, async-signal-safe */
        syscall(SYS_futex, &wr.req, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    static const char slow[] = "cuprof: still writing the profile before the process ends "
                               "(a third Ctrl-C ends it at once, the profile cut short)\n";
    struct timespec t0, now, nap = {0, 2000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int said = 0;
    while (!atomic_load(&cuprof_g.finish_done) && !atomic_load(&wr.failed)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long el = (long long)(now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= ms)
            break;
        if (!said && el >= 3000) {
            say_raw(slow, sizeof slow - 1);
            said = 1;
        }
        nanosleep(&nap, NULL);
    }
    return 1;
}

/* ---- the handler ---------------------------------------------------------------- */

/* ---- each end once ------------------------------------------------------------- */

/* A signal sent to the whole process group (kill -INT -PGID, GNU timeout, a
 * scheduler's cancel) reaches the program directly and reaches cuprof-run,
 * which relays its copy (sigqueue, CUPROF_RELAY_TAG and the sender's pid). A
 * relayed delivery and a direct one of the same signal from the same sender,
 * within RELAY_PAIR_MS of each other, are one sending: the second of the
 * pair is dropped, so the program sees each signal as often as it would
 * without the supervisor (timeout, which signals its child and then its
 * group, sends twice either way). A sending from the kernel or the terminal
 * (Ctrl-C) is never relayed and always counts. */
#define RELAY_PAIR_MS 3000   /* the supervisor's relay may wait for a CPU */
#define N_SEEN 32            /* deliveries remembered (a ring) */
static struct {
    int sig;
    long origin;             /* the sender's pid */
    int relayed;             /* came through cuprof-run */
    int paired;              /* matched by the other copy */
    long long ms;            /* CLOCK_MONOTONIC, ms */
} seen[N_SEEN];
static unsigned n_seen;                               /* deliveries recorded, all time */
static atomic_flag seen_lock = ATOMIC_FLAG_INIT;      /* try-lock: handlers nest */

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The sender of a terminating signal (0: the kernel, the terminal, or not
 * known) and whether cuprof-run relayed it. Async-signal-safe. */
static long signal_origin(const siginfo_t *si, int *relayed)
{
    *relayed = 0;
    if (!si)
        return 0;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    if (si->si_code == SI_QUEUE && cuprof_g_config.supervisor_pid > 0 &&
        si->si_pid == cuprof_g_config.supervisor_pid && (v >> 32) == CUPROF_RELAY_TAG) {
        *relayed = 1;
        return (long)(uint32_t)v;
    }
    if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
        return si->si_pid;
    return 0;
}

/* 1 when this delivery is the other copy of one already seen (relayed
 * against direct, same signal, same sender): the program must not see it.
 * Async-signal-safe. A delivery that finds the table taken (a handler
 * nested over the one holding it) is not a copy. */
static int relay_duplicate(int sig, const siginfo_t *si)
{
    int relayed;
    long origin = signal_origin(si, &relayed);
    if (!origin || cuprof_g_config.supervisor_pid <= 0 || atomic_flag_test_and_set(&seen_lock))
        return 0;
    long long now = mono_ms();
    int dup = 0;
    unsigned n = n_seen < N_SEEN ? n_seen : N_SEEN;
    for (unsigned k = 0; k < n && !dup; k++)
        if (!seen[k].paired && seen[k].sig == sig && seen[k].origin == origin &&
            seen[k].relayed != relayed && now - seen[k].ms <= RELAY_PAIR_MS)
            seen[k].paired = dup = 1;
    if (!dup) {
        unsigned k = n_seen++ % N_SEEN;
        seen[k].sig = sig;
        seen[k].origin = origin;
        seen[k].relayed = relayed;
        seen[k].paired = 0;
        seen[k].ms = now;
    }
    atomic_flag_clear(&seen_lock);
    return dup;
}

static void our_action(int idx, struct sigaction *sa);

/* 1 when the interrupted instruction is in libcuprof's code. */
static int pc_in_self(void *ucv)
{
    if (!ucv || !self_hi)
        return 0;
    const ucontext_t *uc = ucv;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
#endif
    return pc >= self_lo && pc < self_hi;
}

/* Our handler while the program's disposition is SIG_DFL. A terminating
 * signal: the first starts the exit path and waits for the outputs, then
 * the signal's own end; a second one while they are written is absorbed
 * (one line says so); a third ends the process at once (the run file is
 * left for cuprof-run to recover, marked truncated). Copies of one sending
 * (relay_duplicate) count once. */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    int i = managed_index(sig);
    int crash = i >= 0 && managed[i].crash;
    const char *name = i >= 0 ? managed[i].name : "signal";
    if (crash && my_tid() == atomic_load(&wr.tid))
        siglongjmp(writer_jmp, 1);   /* the writer crashed: give up writing */
    if (cuprof_process_is_vfork_child() || (crash && pc_in_self(ucv))) {
        cuprof_process_reraise(sig);   /* nothing of ours can be trusted here */
        errno = saved;
        return;
    }
    if (!crash && relay_duplicate(sig, si)) {
        errno = saved;   /* the copy of a signal already counted */
        return;
    }
    if (cuprof_collector_finishing_here()) {
        /* This thread is writing (exit()): finish first, then die of it. */
        if (!crash) {
            atomic_store(&cuprof_g.pending_sig, sig);
            errno = saved;
            return;
        }
        cuprof_process_reraise(sig);
        errno = saved;
        return;
    }
    if (crash) {
        write_and_wait(name, 1, CUPROF_CRASH_WAIT_MS);
        cuprof_process_reraise(sig);
        errno = saved;   /* a fault re-executes and kills */
        return;
    }
    int press = atomic_fetch_add(&presses, 1) + 1;
    if (press == 1) {
        write_and_wait(name, 0, CUPROF_EXIT_WAIT_MS);
    } else if (press == 2) {
        static const char again[] = "cuprof: writing the profile before the process ends; "
                                    "one more Ctrl-C (or the signal) ends it at once, the "
                                    "profile cut short\n";
        say_raw(again, sizeof again - 1);
        errno = saved;   /* absorbed: the first one's handler ends the process */
        return;
    }
    cuprof_process_reraise(sig);
    errno = saved;
}

/* The program's own handler for a terminating signal, while cuprof-run may
 * relay copies: a copy is dropped (relay_duplicate), a relayed signal is
 * shown as the sender's (SI_USER, its pid) as without the supervisor, and
 * SA_RESETHAND is done here (it was taken off the installed action, so that
 * the reset puts our handler back, not a bare SIG_DFL). */
static void on_prog_signal(int sig, siginfo_t *si, void *ucv)
{
    int i = managed_index(sig);
    if (i < 0 || !atomic_load(&sigs[i].wrapped))
        return;   /* (cannot be: installed only for managed signals) */
    int saved = errno;
    if (relay_duplicate(sig, si)) {
        errno = saved;
        return;
    }
    struct sigaction prog = sigs[i].prog;
    siginfo_t fixed;
    int relayed = 0;
    if (si) {
        fixed = *si;
        long origin = signal_origin(si, &relayed);
        if (relayed) {
            fixed.si_code = SI_USER;
            fixed.si_pid = (pid_t)origin;
            memset(&fixed.si_value, 0, sizeof fixed.si_value);
        }
    }
    if (prog.sa_flags & SA_RESETHAND) {
        struct sigaction ours;
        our_action(i, &ours);
        memset(&sigs[i].prog, 0, sizeof sigs[i].prog);
        sigs[i].prog.sa_handler = SIG_DFL;
        atomic_store(&sigs[i].wrapped, 0);
        atomic_store(&sigs[i].ours, 1);
        real_sigaction(sig, &ours, NULL);
    }
    errno = saved;   /* the program's handler sees the errno it interrupted */
    if (prog.sa_flags & SA_SIGINFO)
        prog.sa_sigaction(sig, si ? &fixed : NULL, ucv);
    else if (prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN)
        prog.sa_handler(sig);
}

/* Our disposition for sig: SA_NODEFER and an empty mask for the terminating
 * signals (a second Ctrl-C reaches on_signal while it waits). */
static void our_action(int idx, struct sigaction *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sa_sigaction = on_signal;
    sa->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | (managed[idx].crash ? 0 : SA_NODEFER);
    sigemptyset(&sa->sa_mask);
}

/* libcuprof's code range, for pc_in_self and the stacks (stacks.c). */
static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t me = (uintptr_t)data;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (me >= lo && me < hi) {
            self_lo = lo;
            self_hi = hi;
            return 1;
        }
    }
    return 0;
}

void cuprof_self_text(uintptr_t *lo, uintptr_t *hi)
{
    if (!self_hi)
        dl_iterate_phdr(find_self, (void *)(uintptr_t)on_signal);
    *lo = self_lo;
    *hi = self_hi;
}

/* 1 when cuprof-run, this process's parent, may relay signals to it: the
 * program's own handlers for the terminating signals are then wrapped. */
static int relays_possible(void)
{
    return cuprof_g_config.supervisor_pid > 0 && getppid() == cuprof_g_config.supervisor_pid;
}

/* The action installed for the program's handler act of managed signal idx
 * while relays are possible: on_prog_signal in front, with its mask and
 * flags (SA_RESETHAND done by on_prog_signal). */
static void wrapped_action(const struct sigaction *act, struct sigaction *w)
{
    *w = *act;
    w->sa_sigaction = on_prog_signal;
    w->sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
}

static int wants_wrap(int idx, const struct sigaction *act)
{
    return !managed[idx].crash && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN &&
           relays_possible();
}

void cuprof_process_init(void)
{
    if (atomic_exchange(&signals_on, 1))
        return;
    real_sigaction = (sigaction_fn)cuprof_libc_sym("sigaction");
    if (!real_sigaction)
        return;   /* no libc sigaction to be found: the signals are left as they are */
    dl_iterate_phdr(find_self, (void *)(uintptr_t)on_signal);
    for (size_t i = 0; i < N_MANAGED; i++) {
        struct sigaction cur, ours;
        if (real_sigaction(managed[i].sig, NULL, &cur) != 0)
            continue;
        if (wants_wrap((int)i, &cur)) {   /* installed before we were loaded */
            struct sigaction w;
            sigs[i].prog = cur;
            wrapped_action(&cur, &w);
            if (real_sigaction(managed[i].sig, &w, NULL) == 0)
                atomic_store(&sigs[i].wrapped, 1);
            continue;
        }
        if (cur.sa_handler != SIG_DFL)
            continue;   /* the program's handler, or SIG_IGN (nohup, &): leave it */
        sigs[i].prog = cur;
        our_action((int)i, &ours);
        if (real_sigaction(managed[i].sig, &ours, NULL) == 0)
            atomic_store(&sigs[i].ours, 1);
    }
    writer_start();
}

void cuprof_process_fork_child(void)
{
    /* The writer thread is not in the child. */
    if (!atomic_load(&signals_on))
        return;
    atomic_store(&wr.running, 0);
    atomic_store(&wr.tid, 0);
    atomic_store(&wr.requested, 0);
    atomic_store(&wr.failed, 0);
    atomic_store(&presses, 0);
    n_seen = 0;
    atomic_store(&wr.req, 0);
    writer_start();
}

int cuprof_process_sigaction(int sig, const struct sigaction *act, struct sigaction *old,
                             sigaction_fn real)
{
    int i = managed_index(sig);
    if (i < 0 || !atomic_load(&signals_on))
        return real(sig, act, old);
    if (!act) {   /* a query: the program's view */
        if (atomic_load(&sigs[i].ours) || atomic_load(&sigs[i].wrapped)) {
            if (old)
                *old = sigs[i].prog;
            return 0;
        }
        return real(sig, NULL, old);
    }
    struct sigaction prev;
    int was_ours = atomic_load(&sigs[i].ours), was_wrapped = atomic_load(&sigs[i].wrapped);
    int had_view = was_ours || was_wrapped;
    if (had_view)
        prev = sigs[i].prog;
    int rc;
    if (act->sa_handler == SIG_DFL) {
        struct sigaction ours;
        our_action(i, &ours);
        atomic_store(&sigs[i].wrapped, 0);
        rc = real(sig, &ours, had_view ? NULL : &prev);
        if (rc == 0) {
            sigs[i].prog = *act;
            atomic_store(&sigs[i].ours, 1);
        } else if (was_wrapped) {
            atomic_store(&sigs[i].wrapped, 1);
        }
    } else if (wants_wrap(i, act)) {
        /* The program's handler, behind on_prog_signal (relayed copies
         * dropped); the view is set first: a signal may come at once. */
        struct sigaction w;
        wrapped_action(act, &w);
        struct sigaction keep = sigs[i].prog;
        sigs[i].prog = *act;
        atomic_store(&sigs[i].wrapped, 1);
        atomic_store(&sigs[i].ours, 0);
        rc = real(sig, &w, had_view ? NULL : &prev);
        if (rc != 0) {
            sigs[i].prog = keep;
            atomic_store(&sigs[i].wrapped, was_wrapped);
            atomic_store(&sigs[i].ours, was_ours);
        }
    } else {
        /* The program's handler or SIG_IGN, as asked: it decides what the
         * signal does (if it exits, the exit paths write the outputs). */
        atomic_store(&sigs[i].ours, 0);
        atomic_store(&sigs[i].wrapped, 0);
        rc = real(sig, act, had_view ? NULL : &prev);
        if (rc != 0) {
            atomic_store(&sigs[i].ours, was_ours);
            atomic_store(&sigs[i].wrapped, was_wrapped);
        }
    }
    if (rc == 0 && old)
        *old = prev;
    return rc;
}

static _Atomic int exit_calls;   /* exit() calls so far (cuprof_process_exit_call) */

void cuprof_process_exit_calls_reset(void)
{
    atomic_store(&exit_calls, 0);   /* a forked child's first exit() is its own */
}

void cuprof_process_exit_call(void)
{
    if (atomic_fetch_add(&exit_calls, 1) == 0 || atomic_load(&cuprof_g.init) != 2 ||
        !cuprof_g_config.enabled || cuprof_process_is_vfork_child() ||
        cuprof_collector_finishing_here())
        return;
    /* Another thread is in exit(): it ends the process once its handlers,
     * ours among them, have run. Until then this one sleeps (signals still
     * handled). */
    for (;;)
        pause();
}

/* Another thread is running the exit path: waits (bounded) until it is done,
 * so the process does not end with the outputs half written. */
static void wait_for_other_finish(void)
{
    struct timespec nap = {0, 1000000};
    for (int ms = 0; ms < CUPROF_EXIT_WAIT_MS && !atomic_load(&cuprof_g.finish_done); ms++)
        nanosleep(&nap, NULL);
}

void cuprof_process_ending(const char *ended_by)
{
    if (atomic_load(&cuprof_g.init) != 2 || cuprof_process_is_vfork_child())
        return;
    if (atomic_load(&cuprof_g.finished)) {
        if (!cuprof_collector_finishing_here()) {
            int saved = errno;
            wait_for_other_finish();
            errno = saved;
        }
        return;
    }
    int saved = errno;
    /* Through the writer: _exit is often called from a signal handler (or
     * a forked child) where running the exit path here could deadlock. */
    if (cuprof_collector_finishing_here() ||
        !write_and_wait(ended_by, 0, CUPROF_EXIT_WAIT_MS))
        cuprof_collector_finish_as(ended_by, 0);
    errno = saved;
}

void cuprof_process_exec_begin(void)
{
    cuprof_process_ending("exec");
}

void cuprof_process_exec_failed(void)
{
    if (cuprof_process_is_vfork_child() || atomic_load(&cuprof_g.init) != 2)
        return;
    int saved = errno;   /* what exec failed with is the program's answer */
    atomic_store(&wr.requested, 0);
    cuprof_collector_resume();
    errno = saved;
}
