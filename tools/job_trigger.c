/*
 * job_trigger.c - prof.sh trigger --job DIR (job_trigger.h).
 *
 * Two rounds through DIR, which every host of a job shares (no daemon, no
 * port): an ask (which step is each process in, and how long is a step),
 * then the arm (steps=N from=K): K is past the furthest rank's step by as
 * many steps as the arm request may take to reach them (the time the ask
 * took, plus JOB_LEAD_MS for the flushers' 0.1 s poll, the file system and
 * a loaded host), so
 * every rank opens its window at step K. A rank already past K answers
 * "missed" and records nothing. The answers are the processes' own files
 * (.cuprof-jack.ID.HOST.PID, collector/job.c), read and removed here; what
 * was armed goes to DIR/.cuprof-job-last for prof.sh merge.
 */
#include "tools/job_trigger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JOB_WAIT_MS 3000      /* the longest a round waits for answers */
#define JOB_QUIET_MS 300      /* a round ends this long after the last new answer */
#define JOB_ASK_MAX_MS 10000  /* asking again while no rank knows a step's time */
#define JOB_LEAD_MS 1000      /* beyond the ask's own time: a flusher's 0.1 s poll, the file
                                 system, a loaded host (the steps it covers are not recorded) */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cuprof: trigger: %s\n", line);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One process's answer. */
typedef struct answer {
    char key[160];            /* HOST.PID: who answered */
    char line[1200];          /* as written */
    char host[80], name[300], text[400];
    int rank, standby;
    long pid;
    long long step;
    unsigned long long step_ns, window;
} answer;

typedef struct answers {
    answer *a;
    size_t n, cap;
} answers;

static const char *field(const char *line, const char *key, char *out, size_t n)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    int at_start = !strncmp(line, pat + 1, strlen(pat + 1));
    const char *p = at_start ? line + strlen(pat + 1) : strstr(line, pat);
    if (!p) {
        out[0] = '\0';
        return NULL;
    }
    if (!at_start)
        p += strlen(pat);
    size_t len = !strcmp(key, "answer") ? strcspn(p, "\n") : strcspn(p, " \n");
    if (len >= n)
        len = n - 1;
    memcpy(out, p, len);
    out[len] = '\0';
    return out;
}

static void parse_answer(answer *x)
{
    char v[64];
    x->rank = atoi(field(x->line, "rank", v, sizeof v) ? v : "-1");
    x->pid = atol(field(x->line, "pid", v, sizeof v) ? v : "0");
    x->standby = atoi(field(x->line, "standby", v, sizeof v) ? v : "0");
    x->step = atoll(field(x->line, "step", v, sizeof v) ? v : "-1");
    x->step_ns = strtoull(field(x->line, "step_ns", v, sizeof v) ? v : "0", NULL, 10);
    x->window = strtoull(field(x->line, "window", v, sizeof v) ? v : "0", NULL, 10);
    field(x->line, "host", x->host, sizeof x->host);
    field(x->line, "name", x->name, sizeof x->name);
    field(x->line, "answer", x->text, sizeof x->text);
}

/* Reads the answers to id of this phase that are not in *got yet; removes
 * their files. Returns how many were new. */
static size_t collect(const char *dir, const char *id, const char *phase, answers *got)
{
    char prefix[96];
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, ".cuprof-jack.%s.", id), fresh = 0;
    DIR *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)) != NULL) {
        size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, prefix, plen) != 0 || (l > 4 && !strcmp(de->d_name + l - 4, ".tmp")))
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        answer x;
        memset(&x, 0, sizeof x);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(x.line, sizeof x.line, f))
            x.line[0] = '\0';
        fclose(f);
        char ph[16];
        if (!field(x.line, "phase", ph, sizeof ph) || strcmp(ph, phase) != 0)
            continue;   /* the other round's: left for it (or removed at the end) */
        unlink(path);
        snprintf(x.key, sizeof x.key, "%s", de->d_name + plen);
        parse_answer(&x);
        size_t k = 0;
        while (k < got->n && strcmp(got->a[k].key, x.key) != 0)
            k++;
        if (k < got->n)
            continue;
        if (got->n == got->cap) {
            size_t c = got->cap ? 2 * got->cap : 16;
            answer *g = realloc(got->a, c * sizeof *g);
            if (!g)
                break;
            got->a = g;
            got->cap = c;
        }
        got->a[got->n++] = x;
        fresh++;
    }
    if (dp)
        closedir(dp);
    return fresh;
}

/* Waits for the answers of one round: until expect have come (0: unknown)
 * and none came for JOB_QUIET_MS, or JOB_WAIT_MS. */
static void round_wait(const char *dir, const char *id, const char *phase, answers *got, size_t expect)
{
    uint64_t t0 = now_ms(), last = t0;
    for (;;) {
        nap_ms(20);
        if (collect(dir, id, phase, got))
            last = now_ms();
        uint64_t t = now_ms();
        if (t - t0 >= JOB_WAIT_MS)
            break;
        if (got->n && (expect == 0 || got->n >= expect) && t - last >= JOB_QUIET_MS)
            break;
    }
}

/* Writes the request line as DIR/.cuprof-job-trigger: a 0600 file of ours,
 * made whole under another name first, then renamed into place. */
static int put_request(const char *dir, const char *line)
{
    char tmp[PATH_MAX + 64], to[PATH_MAX + 64];
    snprintf(to, sizeof to, "%s/.cuprof-job-trigger", dir);
    snprintf(tmp, sizeof tmp, "%s/.cuprof-job-trigger.%ld", dir, (long)getpid());
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        say("job %s: cannot write a request there (%s): only the user who started the job, "
            "in a directory it can write, can trigger it", dir, strerror(errno));
        return -1;
    }
    fchmod(fd, 0600);
    size_t len = strlen(line);
    int ok = write(fd, line, len) == (ssize_t)len;
    close(fd);
    if (!ok || rename(tmp, to) != 0) {
        unlink(tmp);
        say("job %s: cannot write its request (%s)", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The run files in dir (.cuprof-run.PID): how many are ours, how many
 * another user's. */
static void run_files(const char *dir, size_t *ours, size_t *others)
{
    *ours = *others = 0;
    DIR *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)) != NULL) {
        if (strncmp(de->d_name, ".cuprof-run.", 12) != 0)
            continue;
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            (st.st_uid == getuid() ? ours : others)[0]++;
    }
    if (dp)
        closedir(dp);
}

static int cmp_answer(const void *a, const void *b)
{
    const answer *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* DIR/.cuprof-job-last: the request, then each rank's answer to the arm. */
static void write_ledger(const char *dir, const char *head, const answers *arm)
{
    char tmp[PATH_MAX + 64], to[PATH_MAX + 64];
    snprintf(to, sizeof to, "%s/.cuprof-job-last", dir);
    snprintf(tmp, sizeof tmp, "%s/.cuprof-job-last.%ld", dir, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "%s", head);
    for (size_t k = 0; k < arm->n; k++)
        fprintf(f, "%s%s", arm->a[k].line, strchr(arm->a[k].line, '\n') ? "" : "\n");
    if (fclose(f) != 0 || rename(tmp, to) != 0)
        unlink(tmp);
}

/* Removes the request and whatever answers to id are left. */
static void clean(const char *dir, const char *id)
{
    char path[PATH_MAX + 300], prefix[96];
    snprintf(path, sizeof path, "%s/.cuprof-job-trigger", dir);
    unlink(path);
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, ".cuprof-jack.%s.", id);
    DIR *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)) != NULL)
        if (!strncmp(de->d_name, prefix, plen)) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (dp)
        closedir(dp);
}

/* The ask round: the processes' answers (asked again every 0.5 s while none
 * has begun a step, up to JOB_ASK_MAX_MS). */
static int ask(const char *dir, const char *id, const char *range, answers *got, uint64_t *asked_at)
{
    uint64_t t0 = now_ms();
    for (int round = 0;; round++) {
        char line[512], rid[64];
        if (round)
            snprintf(rid, sizeof rid, "%s-%d", id, round);
        else
            snprintf(rid, sizeof rid, "%s", id);
        snprintf(line, sizeof line, "id=%s ask=1%s%s\n", rid, range ? " " : "", range ? range : "");
        *asked_at = now_ms();
        if (put_request(dir, line) < 0)
            return -1;
        answers a = {0};
        round_wait(dir, rid, "ask", &a, got->n);
        clean(dir, rid);
        free(got->a);
        *got = a;
        /* a step begun is not enough: without a step's time the lead cannot
         * be counted in steps (a rank 1 step in, fast, ran 18 steps past a
         * lead of one step) */
        int begun = 0;
        for (size_t k = 0; k < got->n; k++)
            begun |= got->a[k].standby && got->a[k].step >= 0 && got->a[k].step_ns > 0;
        if (begun || got->n == 0 || now_ms() - t0 >= JOB_ASK_MAX_MS)
            return 0;
        nap_ms(500);
    }
}

int job_trigger(const char *dir, const char *request, const char *range)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        say("job %s: no such directory: give the -o DIR the job's ranks write into", dir);
        return 1;
    }
    size_t ours, others;
    run_files(dir, &ours, &others);
    if (!ours && others) {
        say("job %s: its processes belong to another user: only the user who started the job "
            "can open windows in it", dir);
        return 1;
    }
    if (!ours) {
        say("job %s: no process writes there (no .cuprof-run.PID): start the ranks with prof.sh "
            "--standby -o %s", dir, dir);
        return 1;
    }
    char id[40];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(id, sizeof id, "%llx%04lx", (unsigned long long)ts.tv_sec * 1000ull + (unsigned long long)ts.tv_nsec / 1000000,
             (long)getpid() & 0xffff);
    answers got = {0};
    uint64_t asked_at = 0;
    if (ask(dir, id, range, &got, &asked_at) < 0)
        return 1;
    size_t ready = 0;
    long long furthest = -1;
    unsigned long long step_ns = 0;
    for (size_t k = 0; k < got.n; k++) {
        answer *x = &got.a[k];
        if (!x->standby)
            continue;
        ready++;
        if (x->step > furthest)
            furthest = x->step;
        if (x->step_ns && (!step_ns || x->step_ns < step_ns))
            step_ns = x->step_ns;
    }
    if (!ready) {
        say("job %s: %s within %.1f s", dir,
            got.n ? "no process there was started with --standby (they answered: not in standby)"
                  : "no process answered (are they running, started with --standby -o DIR, and have they called CUDA?)",
            JOB_WAIT_MS / 1000.0);
        free(got.a);
        return 1;
    }
    /* room for the arm to reach every rank: the ask's own time, plus a poll
     * and the file system's delay, in steps of the fastest rank */
    uint64_t lead_ms = now_ms() - asked_at + JOB_LEAD_MS;
    /* no rank has a step's time yet (the ask gave up waiting): a lead of 10
     * steps rather than 1 */
    unsigned long long ahead = step_ns ? (lead_ms * 1000000ull + step_ns - 1) / step_ns : 10;
    if (ahead < 1)
        ahead = 1;
    if (ahead > 1000)
        ahead = 1000;
    long long from = furthest + 1 + (long long)ahead;
    char line[512], aid[48];
    snprintf(aid, sizeof aid, "%sa", id);
    snprintf(line, sizeof line, "id=%s %s from=%lld%s%s\n", aid, request, from, range ? " " : "",
             range ? range : "");
    if (put_request(dir, line) < 0) {
        free(got.a);
        return 1;
    }
    answers arm = {0};
    round_wait(dir, aid, "arm", &arm, ready);
    clean(dir, aid);
    qsort(arm.a, arm.n, sizeof *arm.a, cmp_answer);
    unsigned long long nsteps = 0, dur = 0;
    sscanf(request, "steps=%llu", &nsteps);
    sscanf(request, "duration_ns=%llu", &dur);
    char head[512];
    snprintf(head, sizeof head, "job=%s from=%lld steps=%llu duration_ns=%llu range=%s ranks_asked=%zu\n", aid,
             from, nsteps, dur, range ? range : "", ready);
    size_t armed = 0;
    char missed[1024] = "";
    for (size_t k = 0; k < arm.n; k++) {
        answer *x = &arm.a[k];
        if (!strncmp(x->text, "window", 6)) {
            armed++;
            continue;
        }
        size_t l = strlen(missed);
        if (l < sizeof missed - 64)
            snprintf(missed + l, sizeof missed - l, "%srank %d (pid %ld): %.200s", l ? "; " : "", x->rank, x->pid,
                     x->text);
    }
    char what[128];
    if (nsteps)
        snprintf(what, sizeof what, "step%s %lld..%lld", nsteps == 1 ? "" : "s", from, from + (long long)nsteps - 1);
    else
        snprintf(what, sizeof what, "%.3f s from step %lld", dur / 1e9, from);
    if (armed)   /* the record prof.sh merge reads: a trigger that armed no one leaves the last one */
        write_ledger(dir, head, &arm);
    if (armed)
        say("job %s: %zu of %zu process%s armed for %s (the furthest rank was at step %lld when asked)%s%s%s; "
            "each writes NAME.rankR.wK.* as its window closes, and prof.sh merge %s merges them",
            dir, armed, ready, ready == 1 ? "" : "es", what, furthest, missed[0] ? "; not armed: " : "",
            missed, arm.n < ready ? "; some did not answer in time" : "", dir);
    else
        say("job %s: no process armed for %s%s%s%s", dir, what, missed[0] ? ": " : "", missed,
            arm.n < ready ? (arm.n ? "; some did not answer in time" : ": none answered in time") : "");
    free(got.a);
    free(arm.a);
    return armed ? 0 : 1;
}
