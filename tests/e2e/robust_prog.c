/*
 * robust_prog.c - a small CUDA program that ends in every way a process
 * can, for tests/e2e/test_e2e_robust.c.
 *
 *   robust_prog [threads N] [calls N] [live] [rename] [hwm] [pace] END [ARGS...]
 *
 * Makes `calls` (default 20) cudaMalloc/cudaFree pairs on the main thread
 * and, with `threads N`, as many on N other threads (joined first, unless
 * `live`: then they keep calling until the process ends). `rename`: each
 * thread renames itself ("worker-K") after its first call. `hwm`: print the
 * peak resident memory (VmHWM) on stderr just before ending. `pace`: the
 * loops that call until the process ends (live, spin, count-spin) sleep
 * 0.1 ms a call (a few hundred thousand calls in a few seconds, not
 * millions). Prints one line
 * on stdout and one on stderr (the profiled and plain runs are compared
 * byte for byte), then ends by END:
 *
 *   return | exit | exit-thread (exit(3) from another thread) | exit-two
 *   (exit(3) from main and from another thread at once) | sleep-kill MS
 *   (the calls, MS ms idle, then SIGKILL: fewer calls than a chunk holds) | _exit |
 *   _Exit | quick_exit | SIGINT | SIGTERM | SIGHUP | SIGQUIT (raise) |
 *   abort | segv | segv-in-cuda (a fault inside cudaMemcpy) | fpe |
 *   handler-exit (SIGINT handler calls exit(5)) |
 *   handler-_exit (one calling _exit(6)) | ignore (SIGINT ignored, raised,
 *   then return) | count-spin [sysv] (a handler of its own for SIGINT,
 *   SIGTERM, SIGHUP and SIGQUIT, one-shot with sysv: sysv_signal;
 *   "spinning" on stdout, calls until one comes, 0.5 s more, then a line
 *   saying how many came, return) |
 *   handler-return (SIGTERM handler that returns; signal()
 *   reports it back) | spin (calls until killed) | exec PROG ARGS
 *   (exec with an empty environment) | vfork (a vfork child _exits, then
 *   return) | fork N (N forked workers that each
 *   make the calls and exit) | kill SIG KILL_US (another thread sends SIG
 *   to the process 30 ms after the calls while main keeps calling; with
 *   KILL_US >= 0, SIGKILL follows KILL_US microseconds later) |
 *   kill-in-sync SIG (main launches a kernel that runs for hours and waits
 *   in cudaDeviceSynchronize; another thread sends SIG to the process 30 ms
 *   later: the signal lands while a thread is inside a CUDA call that does
 *   not return, so the exit path's own synchronize would not either) |
 *   oom MS (the calls for MS ms, a line "robust_prog: second K" on stdout
 *   each second, then a cudaMalloc too big for any device: its error on
 *   stdout, exit 2) |
 *   fds HOW AT AFTER FILE (a program that handles its descriptors itself:
 *   AT pairs, then HOW: close (close(3..4095)), closefrom (closefrom(3)),
 *   closerange (close_range(3, ~0, 0)), dup2 (nothing closed), rawclose
 *   and rawdup (the same as closerange and dup2, by syscall(2): no libc
 *   function sees them), hammer (nothing closed first: a thread dup2s FILE
 *   onto 40..70 and closes them again, over and over, while the calls
 *   run), cloexec
 *   (FD_CLOEXEC cleared on 3..4095, then exec of robust_prog `listfds
 *   FILE`); then FILE opened (truncated) and, where the profiler's run file
 *   was (found in /proc/self/fd before HOW), the file dup2'ed onto that
 *   number too; AFTER pairs while a line goes to FILE every 1000 pairs
 *   through both numbers, a worker thread making AFTER pairs meanwhile;
 *   return) |
 *   listfds FILE (prints how many descriptors above 2 are open, appends a
 *   line to FILE, then 5 pairs, return) |
 *   churn N (N short-lived threads, 4 at a time, 5 pairs each) | steady N
 *   (4 threads making the same N * 5 pairs between them): then the peak
 *   resident memory (VmHWM) on stderr, return
 *
 * Statuses: return 3, exit 3, _exit 4, _Exit 4, quick_exit 4.
 */
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ncalls = 20;
static int do_rename, do_hwm, pace;
static volatile int live;
static int started;   /* workers past their first call (atomic) */

static void calls(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = NULL;
        cudaMalloc(&p, 256);
        cudaFree(p);
    }
}

static void *worker(void *arg)
{
    long k = (long)arg;
    calls(1);
    __atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
    if (do_rename) {
        char name[16];
        snprintf(name, sizeof name, "worker-%ld", k);
        pthread_setname_np(pthread_self(), name);
    }
    calls(ncalls - 1);
    while (live) {
        calls(1);
        if (pace)
            usleep(100);
    }
    return NULL;
}

/* count-spin: the terminating signals that reached the program's handler. */
static int n_counted, first_counted, first_code;
static void on_counted(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (__atomic_fetch_add(&n_counted, 1, __ATOMIC_ACQ_REL) == 0) {
        first_counted = sig;
        first_code = si ? si->si_code : 0;
    }
}

static void on_counted_plain(int sig)
{
    if (__atomic_fetch_add(&n_counted, 1, __ATOMIC_ACQ_REL) == 0) {
        first_counted = sig;
        first_code = SI_USER;   /* (not known without SA_SIGINFO) */
    }
}

static int kill_sig, kill_after_us = -1;
static void *killer(void *arg)
{
    (void)arg;
    usleep(30000);
    kill(getpid(), kill_sig);   /* process-directed, like kill(1) */
    if (kill_after_us >= 0) {
        usleep((useconds_t)kill_after_us);
        kill(getpid(), SIGKILL);
    }
    for (;;)
        pause();
    return NULL;
}

/* What nvcc's generated registration and <<<>>> do, by hand (C, no nvcc):
 * a host stub registered as a kernel, launched through cudaLaunchKernel. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
static void long_kernel_stub(void) {}

static void launch_long_kernel(void)
{
    static char fatbin[16];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterFunction(h, (const char *)long_kernel_stub, (char *)"long_kernel", "long_kernel",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    /* The most threads a launch takes: hours of device time on the sim. */
    dim3 grid = {0x7fffffffu, 65535, 1}, block = {1024, 1, 1};
    cudaLaunchKernel((const void *)long_kernel_stub, grid, block, NULL, 0, 0);
}

/* The descriptor of the profiler's run file (DIR/.cuprof-run.PID), -1 when
 * there is none (a plain run, or not opened yet). */
static int run_file_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = -1;
    while (d && (e = readdir(d))) {
        char link[300], to[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, to, sizeof to - 1);
        if (n > 0) {
            to[n] = '\0';
            if (strstr(to, "/.cuprof-run."))
                found = atoi(e->d_name);
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* fds hammer: dup2s the program's file onto 40..70 and closes them again,
 * over and over, until told to stop (the run file's number is among them,
 * and so is every number it is opened again on). */
static volatile int hammer_stop, hammer_fd;
static void *hammer(void *arg)
{
    (void)arg;
    while (!hammer_stop) {
        for (int fd = 40; fd <= 70; fd++)
            if (fd != hammer_fd)
                dup2(hammer_fd, fd);
        for (int fd = 40; fd <= 70; fd++)
            if (fd != hammer_fd)
                close(fd);
    }
    return NULL;
}

static void *fds_worker(void *arg)
{
    calls((int)(long)arg);
    return NULL;
}

static void *five_pairs(void *arg)
{
    calls((int)(long)arg);
    return NULL;
}

static void print_hwm(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            fprintf(stderr, "robust_prog: hwm_kb=%ld\n", atol(line + 6));
    if (f)
        fclose(f);
}

/* churn N / steady N (see the top). */
static int threads_mode(int churn, int n)
{
    pthread_t th[4];
    if (churn) {
        for (int k = 0; k < n; k += 4) {
            int m = n - k < 4 ? n - k : 4;
            for (int j = 0; j < m; j++)
                pthread_create(&th[j], NULL, five_pairs, (void *)5L);
            for (int j = 0; j < m; j++)
                pthread_join(th[j], NULL);
        }
    } else {
        for (int j = 0; j < 4; j++)
            pthread_create(&th[j], NULL, five_pairs, (void *)(long)(5 * (n / 4 + (j < n % 4))));
        for (int j = 0; j < 4; j++)
            pthread_join(th[j], NULL);
    }
    print_hwm();
    return 3;
}

/* fds HOW AT AFTER FILE (see the top). */
static int fds_mode(const char *self, const char *how, int at, int after, const char *file)
{
    calls(at);
    int ours = run_file_fd();
    if (!strcmp(how, "close")) {
        for (int fd = 3; fd < 4096; fd++)
            close(fd);
    } else if (!strcmp(how, "closefrom")) {
        closefrom(3);
    } else if (!strcmp(how, "closerange")) {
        close_range(3, ~0u, 0);
    } else if (!strcmp(how, "rawclose")) {   /* no libc function: the system call itself */
        syscall(SYS_close_range, 3u, ~0u, 0u);
    } else if (!strcmp(how, "cloexec")) {
        for (int fd = 3; fd < 4096; fd++) {
            int fl = fcntl(fd, F_GETFD);
            if (fl >= 0)
                fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
        }
        execl(self, self, "calls", "0", "listfds", file, (char *)NULL);
        perror("execl");
        return 8;
    }
    int f = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0) {
        perror(file);
        return 9;
    }
    int w = f;
    int raw = !strcmp(how, "rawclose") || !strcmp(how, "rawdup");
    if (ours >= 0 && ours != f && strcmp(how, "hammer") != 0 &&   /* the profiler's number, ours now */
        (raw ? syscall(SYS_dup3, f, ours, 0) : dup2(f, ours)) == ours)
        w = ours;
    dprintf(w, "robust_prog: %s after %d pairs\n", how, at);
    pthread_t t, h;
    int hammering = !strcmp(how, "hammer");
    hammer_fd = f;
    if (hammering)
        pthread_create(&h, NULL, hammer, NULL);
    pthread_create(&t, NULL, fds_worker, (void *)(long)after);
    for (int k = 0; k < after; k += 1000) {
        calls(after - k < 1000 ? after - k : 1000);
        dprintf(k / 1000 % 2 ? f : w, "robust_prog: %d pairs\n", k + 1000);
    }
    pthread_join(t, NULL);
    if (hammering) {
        hammer_stop = 1;
        pthread_join(h, NULL);
    }
    if (w != f)
        close(w);
    close(f);
    return 3;
}

static void *exit_from_thread(void *arg)
{
    (void)arg;
    calls(ncalls);
    exit(3);
}

static void on_int_exit(int sig)
{
    (void)sig;
    exit(5);
}

static void on_int__exit(int sig)
{
    (void)sig;
    _exit(6);
}

static volatile sig_atomic_t got_term;
static void on_term_return(int sig)
{
    (void)sig;
    got_term = 1;
}

int main(int argc, char **argv)
{
    int nthreads = 0, i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "threads") && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "calls") && i + 1 < argc)
            ncalls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "live"))
            live = 1;
        else if (!strcmp(argv[i], "rename"))
            do_rename = 1;
        else if (!strcmp(argv[i], "hwm"))
            do_hwm = 1;
        else if (!strcmp(argv[i], "pace"))
            pace = 1;
        else
            break;
    }
    const char *end = i < argc ? argv[i] : "return";
    printf("robust_prog: %s\n", end);
    fprintf(stderr, "robust_prog: stderr line\n");
    fflush(stdout);

    if (!strcmp(end, "handler-exit"))
        signal(SIGINT, on_int_exit);
    else if (!strcmp(end, "handler-_exit"))
        signal(SIGINT, on_int__exit);

    calls(ncalls);
    pthread_t th[64];
    if (nthreads > 64)
        nthreads = 64;
    for (long k = 0; k < nthreads; k++)
        pthread_create(&th[k], NULL, worker, (void *)k);
    if (!live)
        for (int k = 0; k < nthreads; k++)
            pthread_join(th[k], NULL);
    else {
        /* Every worker has made a call (however loaded the machine; at
         * most 10 s) and they are calling when the process ends. */
        for (int w = 0; w < 10000 && __atomic_load_n(&started, __ATOMIC_ACQUIRE) < nthreads; w++)
            usleep(1000);
        usleep(20000);
    }

    if (do_hwm)   /* peak memory while recording, before any exit path */
        print_hwm();
    if (!strcmp(end, "exit")) exit(3);
    if (!strcmp(end, "_exit")) _exit(4);
    if (!strcmp(end, "_Exit")) _Exit(4);
    if (!strcmp(end, "quick_exit")) quick_exit(4);
    if (!strcmp(end, "SIGINT")) raise(SIGINT);
    if (!strcmp(end, "SIGTERM")) raise(SIGTERM);
    if (!strcmp(end, "SIGHUP")) raise(SIGHUP);
    if (!strcmp(end, "SIGQUIT")) raise(SIGQUIT);
    if (!strcmp(end, "abort")) abort();
    if (!strcmp(end, "segv")) {
        volatile int *volatile bad = NULL;   /* a real fault, not raise() */
        *bad = 1;
    }
    if (!strcmp(end, "segv-in-cuda"))   /* a fault inside a CUDA library call (its memcpy) */
        cudaMemcpy((void *)16, (void *)32, 4096, cudaMemcpyHostToHost);
    if (!strcmp(end, "fpe")) raise(SIGFPE);
    if (!strcmp(end, "handler-exit") || !strcmp(end, "handler-_exit")) raise(SIGINT);
    if (!strcmp(end, "ignore")) {
        signal(SIGINT, SIG_IGN);
        raise(SIGINT);
    }
    if (!strcmp(end, "handler-return")) {
        signal(SIGTERM, on_term_return);
        raise(SIGTERM);
        if (!got_term || signal(SIGTERM, SIG_DFL) != on_term_return)
            return 9;
        struct sigaction sa;
        sigaction(SIGTERM, NULL, &sa);
        if (sa.sa_handler != SIG_DFL)
            return 10;   /* the program must see SIG_DFL, not our handler */
    }
    if (!strcmp(end, "vfork")) {   /* a vfork child that _exits: not our exit */
        pid_t c = vfork();
        if (c == 0)
            _exit(0);
        waitpid(c, NULL, 0);
        return 3;
    }
    if (!strcmp(end, "sleep-kill") && i + 1 < argc) {   /* idle MS ms, then SIGKILL */
        usleep((useconds_t)atoi(argv[i + 1]) * 1000u);
        kill(getpid(), SIGKILL);
    }
    if (!strcmp(end, "exit-two")) {   /* exit(3) from two threads at about the same time */
        pthread_t t;
        pthread_create(&t, NULL, exit_from_thread, NULL);
        exit(3);
    }
    if (!strcmp(end, "exit-thread")) {
        pthread_t t;
        pthread_create(&t, NULL, exit_from_thread, NULL);
        for (;;)
            calls(1);
    }
    if (!strcmp(end, "kill") && i + 2 < argc) {
        kill_sig = atoi(argv[i + 1]);
        kill_after_us = atoi(argv[i + 2]);
        pthread_t t;
        pthread_create(&t, NULL, killer, NULL);
        for (;;)
            calls(1);
    }
    if (!strcmp(end, "kill-in-sync") && i + 1 < argc) {
        kill_sig = atoi(argv[i + 1]);
        launch_long_kernel();
        pthread_t t;
        pthread_create(&t, NULL, killer, NULL);
        cudaDeviceSynchronize();
        return 11;   /* the kernel ended: not what the test is about */
    }
    if (!strcmp(end, "oom") && i + 1 < argc) {
        struct timespec t0, now;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long ms = atol(argv[i + 1]), second = 0;
        for (;;) {
            calls(1);
            clock_gettime(CLOCK_MONOTONIC, &now);
            long el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
            if (el / 1000 > second) {
                second = el / 1000;
                printf("robust_prog: second %ld\n", second);
                fflush(stdout);
            }
            if (el >= ms)
                break;
        }
        if (do_hwm) {
            char line[256];
            FILE *f = fopen("/proc/self/status", "r");
            while (f && fgets(line, sizeof line, f))
                if (!strncmp(line, "VmHWM:", 6))
                    fprintf(stderr, "robust_prog: hwm_kb=%ld\n", atol(line + 6));
            if (f)
                fclose(f);
        }
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, (size_t)1 << 60);
        printf("robust_prog: cudaMalloc: %s\n", cudaGetErrorString(e));
        fflush(stdout);
        exit(2);
    }
    if ((!strcmp(end, "churn") || !strcmp(end, "steady")) && i + 1 < argc)
        return threads_mode(!strcmp(end, "churn"), atoi(argv[i + 1]));
    if (!strcmp(end, "fds") && i + 4 < argc)
        return fds_mode(argv[0], argv[i + 1], atoi(argv[i + 2]), atoi(argv[i + 3]), argv[i + 4]);
    if (!strcmp(end, "listfds") && i + 1 < argc) {
        int n = 0;
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        while (d && (e = readdir(d)))
            n += e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d);
        if (d)
            closedir(d);
        printf("robust_prog: %d descriptor(s) above 2 open after exec\n", n);
        fflush(stdout);
        FILE *f = fopen(argv[i + 1], "a");
        if (f) {
            fprintf(f, "robust_prog: the exec'd image ran\n");
            fclose(f);
        }
        calls(5);
        return 3;
    }
    if (!strcmp(end, "spin")) {
        printf("spinning\n");
        fflush(stdout);
        for (;;) {
            calls(1);
            if (pace)
                usleep(100);
        }
    }
    if (!strcmp(end, "count-spin")) {   /* its own handler: how often did a signal come? */
        int sysv = i + 1 < argc && !strcmp(argv[i + 1], "sysv");
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_counted;
        sa.sa_flags = SA_SIGINFO;
        int four[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        for (int k = 0; k < 4; k++)
            if (sysv)   /* one-shot: a second one would end the process */
                sysv_signal(four[k], on_counted_plain);
            else
                sigaction(four[k], &sa, NULL);
        printf("spinning\n");
        fflush(stdout);
        while (!__atomic_load_n(&n_counted, __ATOMIC_ACQUIRE)) {
            calls(1);
            if (pace)
                usleep(100);
        }
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {   /* the copies a second sending would bring have time to come */
            calls(1);
            if (pace)
                usleep(100);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 500);
        printf("robust_prog: %d signal(s), the first %s, si_code %s\n",
               __atomic_load_n(&n_counted, __ATOMIC_ACQUIRE), strsignal(first_counted),
               first_code == SI_USER ? "SI_USER" : "not SI_USER");
        return 3;
    }
    if (!strcmp(end, "exec") && i + 1 < argc) {
        char *const env[] = {NULL};   /* a program that clears its environment */
        execve(argv[i + 1], argv + i + 1, env);
        perror("execve");
        return 8;
    }
    if (!strcmp(end, "fork") && i + 1 < argc) {
        int n = atoi(argv[i + 1]);
        for (int k = 0; k < n; k++) {
            pid_t c = fork();
            if (c == 0) {
                calls(ncalls);
                exit(0);
            }
        }
        int bad = 0, st;
        while (wait(&st) > 0)
            bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        return bad ? 7 : 3;
    }
    return 3;
}
