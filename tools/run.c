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
 * The recording memory (issue 42.2, 42.5; collector/shm.h): a memfd made
 * here, inherited by the child at descriptor 48 or above and named by
 * CUPROF_SHM, where the library keeps each thread's chunk, its names and
 * the flight recorder's ring. A process killed outright leaves them there;
 * cuprof-report --recover (given the descriptor) appends what its run file
 * lacks before it builds the outputs: no recorded call is lost. Processes
 * that completed their run file and are gone have their part of it given
 * back while the program runs.
 *
 * The OOM killer, named (issue 42.6): while it waits, this reads the
 * child's memory cgroup (/proc/PID/cgroup; cgroup v2's memory.events or
 * v1's memory.oom_control: oom_kill), its RSS and peak (/proc/PID/status)
 * every 0.1 s. A child killed by SIGKILL while its cgroup's oom_kill grew
 * was killed by the OOM killer: cuprof-report is told so, with the memory
 * last seen and the cgroup's limit. The run's other recording processes
 * (their process slots in the recording memory) are watched too: their RSS,
 * their death with their slot live (killed outright), an OOM kill counted
 * just before it (watch_others).
 *
 * If this process is killed itself, the child is killed too
 * (PR_SET_PDEATHSIG), as it would have been when prof.sh exec'd it; its run
 * file stays for prof.sh report. Exit status 127/126 when PROGRAM cannot be
 * run, as a shell says.
 */
#include "collector/runfile.h"
#include "collector/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

/* ---- the recording memory (collector/shm.h) ------------------------------------------ */

static int shm_fd = -1;
static uint8_t *shm_map;
static cuprof_shm_header shm_h;

static uint64_t env_size(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    switch (*end) {
    case 'k': case 'K': x <<= 10; end++; break;
    case 'm': case 'M': x <<= 20; end++; break;
    case 'g': case 'G': x <<= 30; end++; break;
    default: break;
    }
    return x ? x : dflt;
}

#define PAGE_UP(x) (((x) + 4095u) & ~(uint64_t)4095u)

/* The memfd and its header; shm_fd stays -1 when it cannot be made (the
 * program then records as without a supervisor). */
static void shm_make(void)
{
    cuprof_shm_header h;
    memset(&h, 0, sizeof h);
    if (getrandom(&h.token, sizeof h.token, 0) != (ssize_t)sizeof h.token)
        h.token = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&h;
    h.nslots = 4096;   /* threads recording at once (more: private memory, as before) */
    h.names_bytes = 4u << 20;
    const char *fr = getenv("CUPROF_FLIGHT_RECORDER");
    if (fr && *fr)     /* the library's ring: CUPROF_FLIGHT_MEMORY, 64 MiB by default */
        h.ring_bytes = PAGE_UP(env_size("CUPROF_FLIGHT_MEMORY", 64ull << 20) & ~(uint64_t)7);
    h.area_bytes = PAGE_UP(h.names_bytes + h.ring_bytes);
    /* processes recording at once: 256, fewer with big rings (only the pages
     * a process touches take memory; the rest is address space) */
    uint64_t np = (16ull << 30) / h.area_bytes;
    h.nprocs = (uint32_t)(np > 256 ? 256 : np < 8 ? 8 : np);
    cuprof_shm_header_layout(&h);
    /* its size counts against a file-size limit (ulimit -f: a test's "full
     * disk"): under one too small, none (the program records as without a
     * supervisor; a SIGXFSZ here would end this process) */
    struct rlimit fsz;
    if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY &&
        fsz.rlim_cur < h.total_bytes)
        return;
    /* at 48 or above here too: the child inherits this number, and the same
     * file is /proc/OUR_PID/fd/NUMBER for an image it execs later */
    int fd0 = memfd_create("cuprof-recording", MFD_CLOEXEC);
    int fd = fd0 >= 0 ? fcntl(fd0, F_DUPFD_CLOEXEC, 48) : -1;
    if (fd0 >= 0)
        close(fd0);
    if (fd < 0)
        return;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)h.total_bytes) != 0 ||
        pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        (m = mmap(NULL, h.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)) ==
            MAP_FAILED) {
        close(fd);
        return;
    }
    shm_fd = fd;
    shm_map = m;
    shm_h = h;
}

/* The parts of processes that completed their run file and are gone given
 * back (their pages punched out): a long run whose processes come and go
 * keeps only what the living ones hold. A killed process's part stays for
 * the recovery at the end. */
static void shm_sweep(void)
{
    if (!shm_map)
        return;
    for (uint32_t i = 0; i < shm_h.nprocs; i++) {
        cuprof_shm_proc *p = (cuprof_shm_proc *)(shm_map + shm_h.procs_off + (uint64_t)i * shm_h.proc_bytes);
        uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
        if (st != CUPROF_SHM_DONE || kill((pid_t)p->pid, 0) == 0 ||
            errno != ESRCH ||
            !__atomic_compare_exchange_n(&p->state, &st, CUPROF_SHM_BUSY, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            continue;
        uint32_t *states = (uint32_t *)(shm_map + shm_h.slot_states_off);
        for (uint32_t k = 0; k < shm_h.nslots; k++)
            if (__atomic_load_n(&states[k], __ATOMIC_RELAXED) == i + 1) {
                madvise(shm_map + shm_h.slots_off + (uint64_t)k * CUPROF_SHM_SLOT_BYTES,
                        CUPROF_SHM_SLOT_BYTES, MADV_REMOVE);
                __atomic_store_n(&states[k], 0, __ATOMIC_RELEASE);
            }
        madvise(shm_map + shm_h.area_off + (uint64_t)i * shm_h.area_bytes, shm_h.area_bytes,
                MADV_REMOVE);
        __atomic_store_n(&p->state, CUPROF_SHM_FREE, __ATOMIC_RELEASE);
    }
}

/* ---- the child's memory and its cgroup (the OOM killer) ------------------------------- */

/* A memory cgroup the child was seen in: its oom_kill then. (A process
 * that ends is moved to the root cgroup while it exits: the cgroups it was
 * in before are all kept, and the one named is the last other than the
 * root.) */
#define CG_SEEN 8
typedef struct cg_seen {
    char path[PATH_MAX];                       /* as /proc/PID/cgroup says */
    char events[PATH_MAX + 64];                /* the file its oom_kill is in */
    char limit[PATH_MAX + 64];                 /* its memory limit's */
    long long oom_base;                        /* oom_kill when first seen, -1 unknown */
} cg_seen;

static struct {
    char v2[PATH_MAX], v1mem[PATH_MAX];        /* cgroup2's mount, v1's memory mount */
    char v2root[PATH_MAX], v1root[PATH_MAX];   /* their roots in the hierarchy */
    cg_seen seen[CG_SEEN];
    int nseen;
    int named;                                 /* seen[named]: the one the outputs name, -1 */
    unsigned long long rss, hwm;               /* bytes, last seen */
    long long rss_ns;                          /* when */
} cg = {.named = -1};

static long long mono_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* cgroup2's mount point and v1's memory controller's (/proc/self/mountinfo). */
static void cg_mounts(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char root[PATH_MAX], mnt[PATH_MAX], type[64], src[256], opts[1024];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
            sscanf(dash + 3, "%63s %255s %1023s", type, src, opts) != 3)
            continue;
        if (!strcmp(type, "cgroup2") && !cg.v2[0]) {
            snprintf(cg.v2, sizeof cg.v2, "%s", mnt);
            snprintf(cg.v2root, sizeof cg.v2root, "%s", root);
        } else if (!strcmp(type, "cgroup") && !cg.v1mem[0]) {
            for (char *o = strtok(opts, ","); o; o = strtok(NULL, ","))
                if (!strcmp(o, "memory")) {
                    snprintf(cg.v1mem, sizeof cg.v1mem, "%s", mnt);
                    snprintf(cg.v1root, sizeof cg.v1root, "%s", root);
                }
        }
    }
    if (f)
        fclose(f);
}

/* The number after "KEY " in a small file, -1 when not there. */
static long long key_value(const char *file, const char *key)
{
    FILE *f = fopen(file, "re");
    char line[256];
    long long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ' ') {
            v = atoll(line + kl + 1);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* dir + (path without the mount's root) */
static void cg_join(char *out, size_t n, const char *mnt, const char *root, const char *path)
{
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && !strncmp(path, root, rl))
        path += rl;
    snprintf(out, n, "%s%s%s", mnt, *path == '/' ? "" : "/", path);
}

/* The child's cgroup (again when it moved), its oom_kill then, its RSS. */
static void cg_poll(pid_t pid)
{
    char file[64], line[PATH_MAX + 64];
    snprintf(file, sizeof file, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(file, "re");
    char v2path[PATH_MAX] = "", v1path[PATH_MAX] = "";
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        *b = '\0';
        if (!strcmp(a + 1, "") && !strncmp(line, "0", 1))
            snprintf(v2path, sizeof v2path, "%s", b + 1);
        else
            for (char *o = strtok(a + 1, ","); o; o = strtok(NULL, ","))
                if (!strcmp(o, "memory"))
                    snprintf(v1path, sizeof v1path, "%s", b + 1);
    }
    if (f)
        fclose(f);
    char dir[PATH_MAX + 64] = "", events[PATH_MAX + 64] = "", limit[PATH_MAX + 64] = "";
    int v1 = 0;
    if (v2path[0] && cg.v2[0]) {   /* v2, when its memory controller is on there */
        cg_join(dir, sizeof dir, cg.v2, cg.v2root, v2path);
        snprintf(events, sizeof events, "%s/memory.events", dir);
        snprintf(limit, sizeof limit, "%s/memory.max", dir);
        if (access(events, R_OK) != 0)
            events[0] = '\0';
    }
    if (!events[0] && v1path[0] && cg.v1mem[0]) {
        cg_join(dir, sizeof dir, cg.v1mem, cg.v1root, v1path);
        snprintf(events, sizeof events, "%s/memory.oom_control", dir);
        snprintf(limit, sizeof limit, "%s/memory.limit_in_bytes", dir);
        v1 = 1;
        if (access(events, R_OK) != 0)
            events[0] = '\0';
    }
    const char *at = v1 ? v1path : v2path;
    int k = 0;
    while (events[0] && k < cg.nseen && strcmp(cg.seen[k].events, events) != 0)
        k++;
    if (events[0] && k == cg.nseen && k < CG_SEEN) {   /* first seen, or moved */
        cg_seen *c = &cg.seen[cg.nseen++];
        snprintf(c->events, sizeof c->events, "%s", events);
        snprintf(c->limit, sizeof c->limit, "%s", limit);
        snprintf(c->path, sizeof c->path, "%s", at);
        c->oom_base = key_value(events, "oom_kill");
    }
    if (events[0] && k < cg.nseen && (strcmp(at, "/") != 0 || cg.named < 0))
        cg.named = k;
    snprintf(file, sizeof file, "/proc/%d/status", (int)pid);
    long long rss = -1, hwm = -1;   /* "VmRSS:\t  1234 kB" */
    f = fopen(file, "re");
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6))
            rss = atoll(line + 6);
        else if (!strncmp(line, "VmHWM:", 6))
            hwm = atoll(line + 6);
    }
    if (f)
        fclose(f);
    if (rss > 0) {
        cg.rss = (unsigned long long)rss << 10;
        cg.hwm = hwm > 0 ? (unsigned long long)hwm << 10 : cg.hwm;
        cg.rss_ns = mono_ns();
    }
}

/* The named cgroup's memory limit in bytes, 0 when none or unknown. */
static unsigned long long cg_limit(void)
{
    FILE *f = cg.named >= 0 ? fopen(cg.seen[cg.named].limit, "re") : NULL;
    char v[64] = "";
    if (f) {
        if (!fgets(v, sizeof v, f))
            v[0] = '\0';
        fclose(f);
    }
    unsigned long long x = strtoull(v, NULL, 10);
    return x >= (1ull << 62) ? 0 : x;   /* "max", or v1's "no limit" */
}

/* ---- the run's other processes (those with a process slot) ---------------------------- */

/* Each recording process of the run other than the child (a forked worker,
 * a rank a launcher started, ...) is watched as the child is, through its
 * process slot: its RSS every 0.1 s, and its death. It is not ours to wait
 * for, so its end is seen as its pid gone (or a zombie); one that dies
 * with its slot live was killed outright (an end that writes its files
 * marks it done first). An OOM kill the child's cgroup counted within a
 * second before is put on it (one kill, one process). */
static struct other {
    int32_t pid;                 /* 0: none */
    uint64_t t_start;            /* its slot's (another process in the slot resets it) */
    unsigned long long rss, hwm; /* bytes, last seen */
    long long rss_ns;
    int dead, oom;
} others[256];
static long long oom_seen = -1;  /* the named cgroup's oom_kill at the last round */
static long long oom_pool, oom_pool_ns;   /* kills counted that no death took yet, and when */

/* root_killed: the last round, after the child's end, which was a
 * SIGKILL: a kill counted since the round before is its own first. */
static void watch_others(pid_t root, int root_killed)
{
    if (!shm_map)
        return;
    long long now = mono_ns();
    if (cg.named >= 0) {
        long long c = key_value(cg.seen[cg.named].events, "oom_kill");
        if (oom_seen >= 0 && c > oom_seen) {
            oom_pool += c - oom_seen - (root_killed ? 1 : 0);
            oom_pool_ns = now;
        }
        if (c >= 0)
            oom_seen = c;
    }
    if (oom_pool && now - oom_pool_ns > 1000000000LL)
        oom_pool = 0;
    for (uint32_t i = 0; i < shm_h.nprocs && i < sizeof others / sizeof others[0]; i++) {
        const cuprof_shm_proc *p =
            (const cuprof_shm_proc *)(shm_map + shm_h.procs_off + (uint64_t)i * shm_h.proc_bytes);
        struct other *o = &others[i];
        if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != CUPROF_SHM_LIVE || p->pid == root) {
            if (!o->dead)
                o->pid = 0;
            continue;
        }
        if (o->pid != p->pid || o->t_start != p->t_start)
            *o = (struct other){.pid = p->pid, .t_start = p->t_start};
        if (o->dead)
            continue;
        char file[64], line[256];
        snprintf(file, sizeof file, "/proc/%d/status", (int)o->pid);
        FILE *f = fopen(file, "re");
        int gone = !f;
        long long rss = -1, hwm = -1;
        while (f && fgets(line, sizeof line, f)) {
            if (!strncmp(line, "State:", 6))
                gone |= strchr(line + 6, 'Z') != NULL || strchr(line + 6, 'X') != NULL;
            else if (!strncmp(line, "VmRSS:", 6))
                rss = atoll(line + 6);
            else if (!strncmp(line, "VmHWM:", 6))
                hwm = atoll(line + 6);
        }
        if (f)
            fclose(f);
        if (gone) {
            o->dead = 1;
            if (oom_pool > 0) {
                o->oom = 1;
                oom_pool--;
            }
        } else if (rss > 0) {
            o->rss = (unsigned long long)rss << 10;
            o->hwm = hwm > 0 ? (unsigned long long)hwm << 10 : o->hwm;
            o->rss_ns = now;
        }
    }
}

/* cuprof-report --recover DIR ROOT --ended-by HOW (and what this process
 * knows of the child's end, and of the others'), beside this program. */
static void recover(pid_t root, const char *how, long long died_ns, long long oom_kills)
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
    char fdbuf[16], died[32], ooms[32], rss[32], hwm[32], lim[32], at[32];
    static char ends[256][96];
    char *argv[32 + 2 * 256] = {tool, "--recover", (char *)dir, rootbuf, "--ended-by", (char *)how};
    int n = 6;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (others[i].pid && others[i].dead) {   /* PID:OOM:RSS:PEAK:AT */
            snprintf(ends[i], sizeof ends[i], "%d:%d:%llu:%llu:%lld", (int)others[i].pid,
                     others[i].oom, others[i].rss, others[i].hwm, others[i].rss_ns);
            argv[n++] = "--proc-end";
            argv[n++] = ends[i];
        }
    if (shm_fd >= 0 && fcntl(shm_fd, F_SETFD, 0) == 0) {   /* the report reads it */
        snprintf(fdbuf, sizeof fdbuf, "%d", shm_fd);
        argv[n++] = "--shm";
        argv[n++] = fdbuf;
    }
    snprintf(died, sizeof died, "%lld", died_ns);
    argv[n++] = "--died-at";
    argv[n++] = died;
    if (oom_kills > 0) {
        snprintf(ooms, sizeof ooms, "%lld", oom_kills);
        argv[n++] = "--oom-kills";
        argv[n++] = ooms;
    }
    if (cg.named >= 0) {
        argv[n++] = "--cgroup";
        argv[n++] = cg.seen[cg.named].path;
        snprintf(lim, sizeof lim, "%llu", cg_limit());
        argv[n++] = "--mem-limit";
        argv[n++] = lim;
    }
    if (cg.rss) {
        snprintf(rss, sizeof rss, "%llu", cg.rss);
        snprintf(hwm, sizeof hwm, "%llu", cg.hwm);
        snprintf(at, sizeof at, "%lld", cg.rss_ns);
        argv[n++] = "--rss";
        argv[n++] = rss;
        argv[n++] = "--rss-peak";
        argv[n++] = hwm;
        argv[n++] = "--rss-at";
        argv[n++] = at;
    }
    argv[n] = NULL;
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
    "    once PROGRAM is gone from its run file and the recording memory this\n"
    "    process shares with it (every call it had recorded, the flight recorder's\n"
    "    window), marked TRUNCATED; killed by the OOM killer (its memory cgroup\n"
    "    counted the kill), the profile says so.\n"
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
    shm_make();   /* (before the fork: the child inherits it) */
    cg_mounts();
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
        /* the recording memory, inherited at its number (48 or above: the
         * program's own open() calls get the numbers they would without us;
         * the library closes it at load) */
        if (shm_fd >= 0 && fcntl(shm_fd, F_SETFD, 0) == 0) {
            char shm[96];
            snprintf(shm, sizeof shm, "%d:%ld:%llx", shm_fd, (long)parent,
                     (unsigned long long)shm_h.token);
            setenv(CUPROF_SHM_ENV, shm, 1);
        } else {
            unsetenv(CUPROF_SHM_ENV);
        }
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

    /* Waits, looking at the child every 0.1 s: its cgroup and memory (the
     * OOM killer's victim is named by them), and the recording memory of
     * processes that completed and are gone. */
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            st = 0;
            break;
        }
        cg_poll(pid);
        watch_others(pid, 0);
        shm_sweep();
        struct timespec nap = {0, 100 * 1000000L};
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigprocmask(SIG_BLOCK, &chld, NULL);
        if (waitpid(pid, &st, WNOHANG) == pid)
            break;
        sigtimedwait(&chld, NULL, &nap);   /* the child's end wakes this at once */
    }
    long long died = mono_ns();
    /* the others once more: one that ended just before the child did */
    watch_others(pid, WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_UNBLOCK, &chld, NULL);
    child = -1;
    long long ooms = 0;
    /* killed by the OOM killer: SIGKILL while a memory cgroup it was in
     * counted a kill (its own cgroup's count covers a limit set above it) */
    for (int k = 0; k < cg.nseen && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL; k++) {
        long long now = key_value(cg.seen[k].events, "oom_kill");
        if (cg.seen[k].oom_base >= 0 && now > cg.seen[k].oom_base) {
            ooms += now - cg.seen[k].oom_base;
            if (strcmp(cg.seen[k].path, "/") != 0)
                cg.named = k;
        }
    }
    const char *dbg = getenv("CUPROF_DEBUG");
    if (dbg && (strstr(dbg, "collector") || strstr(dbg, "all")))   /* (the library's areas) */
        fprintf(stderr, "cuprof: debug: run: child %s; memory cgroup %s (of %d seen); oom_kill "
                "%lld more at its end; RSS %llu (peak %llu)\n",
                WIFSIGNALED(st) ? "killed" : "exited", cg.named >= 0 ? cg.seen[cg.named].path : "(none)",
                cg.nseen, ooms, cg.rss, cg.hwm);
    for (size_t i = 0; dbg && (strstr(dbg, "collector") || strstr(dbg, "all")) &&
                       i < sizeof others / sizeof others[0]; i++)
        if (others[i].pid)
            fprintf(stderr, "cuprof: debug: run: process %d %s%s, RSS %llu when last seen\n",
                    (int)others[i].pid, others[i].dead ? "gone with its slot live" : "running",
                    others[i].oom ? " (the OOM killer)" : "", others[i].rss);
    char how[64];
    if (WIFSIGNALED(st))
        signame(WTERMSIG(st), how, sizeof how);
    else
        snprintf(how, sizeof how, "killed");
    if (ooms > 0) {
        /* said here when the program left no run file to say it in */
        const char *dir = getenv("CUPROF_OUT_DIR");
        char rf[PATH_MAX + 64];
        snprintf(rf, sizeof rf, "%s/.cuprof-run.%ld", dir && *dir ? dir : "prof-out", (long)pid);
        const char *q = getenv("CUPROF_QUIET");
        if (access(rf, F_OK) != 0 && !(q && !strcmp(q, "1")))
            fprintf(stderr, "cuprof: %s was killed by the OOM killer (its cgroup %s counted it; "
                    "RSS %llu MiB when last seen); it had recorded nothing, no profile was "
                    "written\n", argv0 ? argv0 : path, cg.named >= 0 ? cg.seen[cg.named].path : "?",
                    cg.rss >> 20);
    }
    recover(pid, how, died, ooms);

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
