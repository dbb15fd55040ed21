/*
 * report.c - cuprof-report: every output of a run, built from its run file.
 *
 *   cuprof-report [-o DIR] [-n NAME] [--format F] [--compress C] [--gzip]
 *                 [--export sqlite] [--capture-range R] RUN.cuprof
 *   cuprof-report --at-exit RUN.cuprof      (what libcuprof.so runs at exit)
 *   cuprof-report --snapshot [-o DIR] [options] PID|RUNFILE
 *                                           (prof.sh snapshot: a running process's
 *                                            outputs so far, as BASE.snapN)
 *   cuprof-report --trigger [-o DIR] [--duration T|--calls N|--steps N] PID|RUNFILE
 *                                           (prof.sh trigger: a window in a process
 *                                            started with --standby)
 *   cuprof-report --trigger --job DIR [--steps N|--duration T]
 *                                           (prof.sh trigger --job: the same steps on
 *                                            every rank of a job, tools/job_trigger.c)
 *   cuprof-report --recover DIR ROOTPID [--ended-by SIG] [--shm FD] [--died-at NS]
 *                 [--oom-kills N] [--cgroup PATH --mem-limit BYTES]
 *                 [--rss BYTES --rss-peak BYTES --rss-at NS] [--proc-end PID:OOM:RSS:PEAK:NS]...
 *                                           (cuprof-run, after its program ended:
 *                                            the run files of killed processes,
 *                                            completed from the recording memory
 *                                            FD, tools/recover.c; the rest is what
 *                                            cuprof-run saw of the root's end)
 *
 * Reads the run file (formats/runfile/), builds the model (model/) and
 * writes the files (formats/), as the profiled process used to do in its
 * exit path. Without options the run is written as it was recorded (the
 * settings it was recorded with), next to the run file, under the name the
 * process chose; each option overrides one setting. Exit status: 0 written
 * (or nothing to write), 1 the run file cannot be used or nothing could be
 * written, 2 usage error. Messages are one "cuprof: ..." line each on
 * stderr (CUPROF_QUIET=1 silences them at exit, as it silences the
 * library's).
 */
#include "formats/formats.h"
#include "formats/runfile/runfile_read.h"
#include "model/model.h"
#include "model/peak.h"
#include "tools/recut.h"
#include "tools/job_trigger.h"
#include "tools/bigmem.h"
#include "tools/progress.h"
#include "tools/recover.h"
#include "collector/runfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char usage[] =
    "usage: cuprof-report [options] RUN.cuprof\n"
    "Writes the outputs of a recorded run from its run file (the NAME.cuprof a profiled\n"
    "run leaves next to its outputs), with the settings it was recorded with unless:\n"
    "  -o DIR                  write into DIR (default: the run file's directory)\n"
    "  -n NAME                 base name of the files (default: the run's own)\n"
    "  --format F              trace: auto, json, perfetto, both, none\n"
    "  --compress C            the Perfetto trace's blocks: zstd, zlib, none\n"
    "  --gzip                  NAME.trace.json.gz instead of NAME.trace.json\n"
    "  --export sqlite         also NAME.sqlite (Nsight Systems' tables)\n"
    "  --html, --no-html       NAME.report.html (one page, no network: formats/html/) or not\n"
    "  --capture-range R       keep only a window of the run: cudaProfilerApi or\n"
    "                          nvtx:NAME[@DOMAIN] (needs the calls recorded there)\n"
    "  --peak-device GPU       hold the FLOP rates to this GPU's peaks (\"H100 SXM5\", \"H200 SXM\",\n"
    "                          \"A100 SXM4 80GB\", ...: model/peak.c) instead of the recorded GPU's\n"
    "       cuprof-report --snapshot [options] PID|RUNFILE\n"
    "Writes what a running process has recorded so far (it is asked to hand over\n"
    "CUPTI's buffers and its calls first, and runs on) as NAME.snapN.*.\n"
    "       cuprof-report --trigger [-o DIR] [--duration T | --calls N | --steps N\n"
    "                     [--step-range NAME]] PID|RUNFILE\n"
    "Opens a window in a process started with prof.sh --standby (default 10 s); the\n"
    "process writes its outputs when it closes, as NAME.wK.*.\n"
    "       cuprof-report --trigger --job DIR [--steps N | --duration T] [--step-range NAME]\n"
    "Opens a window in every process of a job that writes into DIR (started with --standby),\n"
    "at the same step on every rank: NAME.rankR.wK.*; prof.sh merge DIR merges them.\n"
    "       cuprof-report --trigger --dump [-o DIR] PID|RUNFILE\n"
    "Has a process started with prof.sh --flight-recorder write its last seconds\n"
    "now, as NAME.wK.*; it runs on.\n";

static int quiet;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (quiet)
        return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cuprof_progress_hold();   /* (the progress line cleared first) */
    fprintf(stderr, "cuprof: %s\n", line);
    cuprof_progress_release();
}

/* One of words (NULL-terminated) or -1. */
static int choice(const char *v, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strcasecmp(v, words[i]) == 0)
            return i;
    return -1;
}

/* NAME.sqlite from the JSON trace just written: cuprof-export beside us. */
static void export_sqlite(const char *dir, const char *name, const char *written)
{
    const char *suffix = strstr(written, "trace.json.gz") ? "trace.json.gz"
                         : strstr(written, "trace.json") ? "trace.json" : NULL;
    if (!suffix) {
        say("--export sqlite: no JSON trace was written, so no NAME.sqlite");
        return;
    }
    char self[PATH_MAX], tool[PATH_MAX + 32], trace[PATH_MAX + 400];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(tool, sizeof tool, "%s/cuprof-export", slash ? self : ".");
    snprintf(trace, sizeof trace, "%s/%s.%s", dir, name, suffix);
    char *argv[] = {tool, "sqlite", trace, NULL};
    pid_t pid;
    if (access(tool, X_OK) != 0 || posix_spawn(&pid, tool, NULL, NULL, argv, environ) != 0) {
        say("--export sqlite: cannot run %s; run prof.sh export sqlite %s", tool, trace);
        return;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        say("--export sqlite: cuprof-export failed on %s (see above)", trace);
}

/* What the command line asked. */
typedef struct opts {
    const char *dir, *name, *range;
    const char *peak;        /* --peak-device: the peak table's GPU to hold rates to */
    int format, comp, gzip, sqlite, html, at_exit;
    uint64_t window;         /* --window K: repeating capture window K only (NAME.wK.*) */
    const char *ended_by;    /* --recover: how the root process ended */
    int shm_fd;              /* --recover: the recording memory (--shm), -1 none */
    cuprof_recover_end root_end;   /* --recover: what cuprof-run saw of the root's end */
    struct proc_end {        /* --proc-end PID:OOM:RSS:PEAK:AT: of another process */
        long pid;
        int oom;
        unsigned long long rss, peak;
        long long at;
    } ends[256];
    size_t nends;
} opts;

/* "+1.234s" after the run's start, into buf. */
static const char *since(const cuprof_run *run, uint64_t t, char *buf, size_t n)
{
    uint64_t d = t > run->t_start ? t - run->t_start : 0;
    snprintf(buf, n, "%llu.%03llus after start", (unsigned long long)(d / 1000000000u),
             (unsigned long long)(d / 1000000u % 1000u));
    return buf;
}

/* Whether the calls are streamed (formats/runfile/runfile_read.h: decoded a
 * block at a time from the run file when read, not into an array of every
 * call): CUPROF_REPORT_STREAM=1 always, =0 never; by default when that
 * array would be larger than the memory budget (tools/bigmem.h), where it
 * would go to the spill file, and the run has no GPU timeline (streamed,
 * 50 M and 200 M launches peaked at 226-300 MB against 194-255: the page
 * dropper's bound missed; bench/RESULTS.md). CUPROF_REPORT_STREAM_BLOCK=N, for the tests:
 * blocks of at most N calls, the fewest kept, each freed when put out (a
 * pass that keeps a call too long then reads freed memory, which ASan
 * names). */
static void stream_opts(cuprof_rfread_opts *o)
{
    const char *sv = getenv("CUPROF_REPORT_STREAM"), *bv = getenv("CUPROF_REPORT_STREAM_BLOCK");
    o->stream = sv && strcmp(sv, "1") == 0;
    if (!o->stream && !(sv && strcmp(sv, "0") == 0))
        o->stream_above = cuprof_bigmem_budget();
    long b = bv ? atol(bv) : 0;
    if (b > 0) {
        o->stream_block = (uint32_t)b;
        o->stream_slots = CUPROF_RUN_BLOCKS_HELD + 1;
        o->stream_free = 1;
    }
}

/* The calls and GPU records a recovered run (or a snapshot) holds, in
 * words, into lost: "PREFIX: calls up to ..., GPU records up to ...CUT". */
static void recovered_words(const cuprof_run *run, const char *prefix, const char *cut,
                            char *lost, size_t n)
{
    uint64_t calls = 0, gpu = 0;
    for (size_t i = 0; i < run->nthreads; i++)
        for (uint64_t k = 0; k < run->threads[i].n; k++) {
            const cuprof_event *e = cuprof_run_event(&run->threads[i], k);
            uint64_t t = e->t1 ? e->t1 : e->t0;
            calls = t > calls ? t : calls;
        }
    const cuprof_gpu_run *g = run->gpu_run;
    for (size_t i = 0; g && i < g->n_kernels; i++)
        gpu = g->kernels[i].end_ns > gpu ? g->kernels[i].end_ns : gpu;
    for (size_t i = 0; g && i < g->n_copies; i++)
        gpu = g->copies[i].end_ns > gpu ? g->copies[i].end_ns : gpu;
    char a[64], b[64];
    snprintf(lost, n, "%s: calls up to %s, GPU records up to %s%s", prefix,
             calls ? since(run, calls, a, sizeof a) : "none",
             gpu ? since(run, gpu, b, sizeof b) : "none", cut);
}

/* The spill file's peak per byte of the run file, measured (bench/RESULTS.md,
 * issue 40): 7 without the GPU timeline, 16.6-17.8 with it (10 M to 200 M
 * launches of the sim's CUPTI); the larger, rounded up: the disk a report
 * may need, said up front when the spill directory has less. With the calls
 * streamed (formats/runfile/stream.c), 10.4-11.9 with it (10 M and 50 M
 * launches), next to nothing without. */
#define SPILL_PER_RUN_FILE_BYTE 18
#define SPILL_PER_RUN_FILE_BYTE_STREAMED 12

/* When each stage ended (ns, CLOCK_MONOTONIC), for the stats line
 * (CUPROF_REPORT_BIGMEM_STATS=1): which of the two threads the report
 * waits for, and how long the reading took. */
static struct {
    uint64_t begin, read, start, summary, tables, traced, traces;
} stage;

static uint64_t stage_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The traces' side of build_and_write: the model's traced part, then the
 * trace files, on a thread of their own. */
typedef struct traced_job {
    cuprof_model *model;
    cuprof_formats_job *files;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;               /* the traced part is built and the traces' files opened */
    int ok;                  /* ... and it was built (not out of memory) */
    cuprof_model view;       /* what the trace writers read: the model as the traced
                                part left it (no summary: the caller stores it after
                                ready, while the traces are written) */
} traced_job;

static void *traced_main(void *arg)
{
    traced_job *t = arg;
    cuprof_progress_traces(1);
    int ok = cuprof_model_build_traced(t->model, cuprof_rfread_demangle) == 0;
    stage.traced = stage_now();
    if (ok) {
        t->view = *t->model;
        cuprof_formats_open_group(t->files, &t->view, CUPROF_FORMATS_TRACES);
    }
    pthread_mutex_lock(&t->mu);
    t->ready = 1;
    t->ok = ok;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    if (ok)
        cuprof_formats_write_group(t->files, &t->view, CUPROF_FORMATS_TRACES);
    stage.traces = stage_now();
    cuprof_progress_traces(0);
    return NULL;
}

/* Builds the model of in and writes its files into DIR/NAME.*, as
 * cuprof_model_build and cuprof_formats_write_all would, on two cores: a
 * thread builds what the traces read and writes them (the largest files)
 * while this one builds the summary and the findings and writes the
 * tables (formats.h's groups). *nwritten, written and err as
 * cuprof_formats_write_all's. Returns the model (the caller destroys it),
 * NULL on out of memory (then nothing was written). */
static cuprof_model *build_and_write(const cuprof_run *in, const char *dir, const char *name,
                                     char *written, size_t written_len, char *err,
                                     size_t err_len, int *nwritten)
{
    cuprof_progress_stage(CUPROF_PROGRESS_JOIN);
    cuprof_model *m = cuprof_model_start(in, cuprof_rfread_demangle);
    stage.start = stage_now();
    cuprof_progress_stage(CUPROF_PROGRESS_SUMMARY);
    traced_job *t = m ? calloc(1, sizeof *t) : NULL;
    if (t && !(t->files = cuprof_formats_job_new(dir, name))) {
        free(t);
        t = NULL;
    }
    if (!t) {   /* (out of memory already: as one thread) */
        cuprof_model_destroy(m);
        cuprof_progress_traces(1);
        m = cuprof_model_build(in, cuprof_rfread_demangle);
        if (m)
            *nwritten = cuprof_formats_write_all(m, dir, name, written, written_len, err, err_len);
        return m;
    }
    t->model = m;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    pthread_t th;
    sigset_t all, old;   /* no signals for it: they stay on the main thread */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int threaded = pthread_create(&th, NULL, traced_main, t) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!threaded)
        traced_main(t);   /* (no thread: the traces first, as one loop would) */
    cuprof_summary *sum = cuprof_summary_build(m->run, &m->names, m->timeline);
    stage.summary = stage_now();
    cuprof_progress_stage(CUPROF_PROGRESS_TABLES);
    pthread_mutex_lock(&t->mu);
    while (!t->ready)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    m->summary = sum;
    int ok = t->ok && sum && cuprof_model_finish(m) == 0;
    if (ok) {   /* (none when a trace's file was refused; those before a refused one) */
        cuprof_formats_open_group(t->files, m, CUPROF_FORMATS_TABLES);
        cuprof_formats_write_group(t->files, m, CUPROF_FORMATS_TABLES);
    }
    stage.tables = stage_now();
    cuprof_progress_stage(CUPROF_PROGRESS_DONE);
    if (threaded)
        pthread_join(th, NULL);
    if (ok) {
        *nwritten = cuprof_formats_job_end(t->files, written, written_len, err, err_len);
    } else {
        cuprof_formats_job_cancel(t->files);
        cuprof_model_destroy(m);
        m = NULL;
    }
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
    return m;
}

/* Builds and writes the outputs of one run file; 0 written, 1 not.
 * recover: the run was not completed because its process was killed, how
 * in words; snapshot: it is still running, what the snapshot cost it in
 * words (then the files are named BASE.snapN). renamed: the run file's
 * name now, when it was renamed. */
static int report_file(const char *file, const opts *o, const char *recover,
                       const char *snapshot, const char *renamed);

static int report_file_at(const char *file, const opts *o, const char *recover,
                          const char *snapshot, const char *renamed)
{
    cuprof_rfread_info info;
    char err[1024];
    cuprof_rfread_opts ropts = {0};
    stream_opts(&ropts);
    {   /* the model's large arrays spill beside the run file (tools/bigmem.h) */
        char fdir[PATH_MAX];
        snprintf(fdir, sizeof fdir, "%s", file);
        char *slash = strrchr(fdir, '/');
        if (slash)
            *(slash == fdir ? slash + 1 : slash) = '\0';
        cuprof_bigmem_dir(slash ? fdir : ".");
        /* a day-long run's spill can outgrow its disk: said before the
         * reading, not an hour into it */
        struct stat fst;
        char room[PATH_MAX + 400];
        /* (by default a run with the GPU timeline is not streamed: 18) */
        uint64_t per = ropts.stream ? SPILL_PER_RUN_FILE_BYTE_STREAMED : SPILL_PER_RUN_FILE_BYTE;
        if (stat(file, &fst) == 0 &&
            cuprof_bigmem_room_for((uint64_t)fst.st_size * per, room, sizeof room))
            say("%s", room);
    }
    cuprof_rfread_progress *progress = cuprof_progress_start(file, quiet);
    stage.begin = stage_now();
    ropts.progress = progress;
    cuprof_run *run = cuprof_rfread_with(file, &info, &ropts, err, sizeof err);
    stage.read = stage_now();
    cuprof_bigmem_reading_done();
    if (!run) {
        say("%s; nothing was written", err);
        return 1;
    }
    char lostbuf[sizeof info.lost];
    if (!recover && info.recovered)   /* a recovered run reported again: as it was */
        recover = run->ended_by ? run->ended_by : "by a signal cuprof cannot catch";
    if (recover) {
        run->ended_by = recover;
        run->truncated = 1;
        char cut[200] = "", prefix[400];   /* a torn or damaged block, beyond the missing end */
        if (strstr(info.lost, "torn") || strstr(info.lost, "damaged"))
            snprintf(cut, sizeof cut, "; %.190s", info.lost);
        if (run->killed.oom)
            snprintf(prefix, sizeof prefix, "the process was killed by the OOM killer (%.60s; its "
                     "memory cgroup %.160s counted it)", recover,
                     run->killed.cgroup ? run->killed.cgroup : "?");
        else
            snprintf(prefix, sizeof prefix, "the process was killed (%.100s)", recover);
        size_t pl = strlen(prefix);
        snprintf(prefix + pl, sizeof prefix - pl, "; recovered from the run file%s",
                 run->killed.from_memory ? " and its recording memory (every call it had "
                                           "completed)"
                                         : "");
        recovered_words(run, prefix, cut, lostbuf, sizeof lostbuf);
        memcpy(info.lost, lostbuf, sizeof info.lost);
        say("%s: %s", file, info.lost);
    } else if (snapshot) {
        char prefix[400];
        snprintf(prefix, sizeof prefix, "a snapshot of the running process (pid %ld; %.300s)",
                 run->pid, snapshot);
        recovered_words(run, prefix, "", lostbuf, sizeof lostbuf);
        memcpy(info.lost, lostbuf, sizeof info.lost);
        run->ended_by = "still running (a snapshot)";
    } else if (o->window && !info.complete && strstr(info.lost, "was not completed")) {
        /* a window written as it closed: the process runs on, its file with it */
        info.lost[0] = '\0';
        run->ended_by = "still running (a window written as it closed)";
    } else if (info.lost[0]) {
        say("%s: %s; the outputs have what came before it", file, info.lost);
    }
    if (!info.complete && !run->ended_by)
        run->ended_by = "unknown (the run file was not completed)";
    run->run_file = renamed ? renamed : file;
    run->run_file_bytes = info.file_bytes;
    run->run_file_lost = info.lost[0] ? info.lost : NULL;
    if (o->format >= 0)
        run->trace_format = o->format;
    if (o->comp >= 0)
        run->trace_compress = o->comp;
    if (o->gzip >= 0)
        run->trace_gzip = o->gzip;
    if (o->sqlite >= 0)
        run->export_sqlite = o->sqlite;
    if (o->html >= 0)
        run->report_html = o->html;
    if (o->peak)
        run->peak_device = o->peak;
    cuprof_recut *cut = NULL;
    /* the flight recorder's run: its outputs are its last window (the end's,
     * or the last written); the others went to NAME.wK.* */
    size_t flight_last = run->capture.flight_ns ? run->capture.nwindows : 0;
    if (flight_last && !o->window && !o->range) {
        char why[256];
        cut = cuprof_recut_window(run, flight_last, why, sizeof why);
        if (!cut) {
            say("the flight recorder's window %zu: %s; nothing was written", flight_last, why);
            cuprof_rfread_free(run);
            return 1;
        }
    } else if (o->window) {
        char why[256];
        cut = cuprof_recut_window(run, o->window, why, sizeof why);
        if (!cut) {
            say("--window %llu: %s; nothing was written", (unsigned long long)o->window, why);
            cuprof_rfread_free(run);
            return 1;
        }
    } else if (o->range) {
        char why[512];
        cut = cuprof_recut_make(run, o->range, why, sizeof why);
        if (!cut) {
            say("--capture-range %s: %s; nothing was written", o->range, why);
            cuprof_rfread_free(run);
            return 1;
        }
    }
    const cuprof_run *in = cut ? cuprof_recut_run(cut) : run;

    /* Where: -o, else the run file's own directory (at exit: the process's). */
    const char *dir = o->dir;
    char dirbuf[PATH_MAX];
    if (!dir) {
        if (o->at_exit && info.out_dir) {
            dir = info.out_dir;
        } else {
            snprintf(dirbuf, sizeof dirbuf, "%s", file);
            char *slash = strrchr(dirbuf, '/');
            if (slash)
                *slash = '\0';
            dir = slash ? dirbuf : ".";
        }
    }
    const char *name = o->name;
    char namebuf[340];
    if (!name && o->window) {   /* NAME.wK: the run's name (its base while it runs) */
        const char *base = info.name ? info.name : info.name_base ? info.name_base : "cuprof";
        snprintf(namebuf, sizeof namebuf, "%.300s.w%llu", base, (unsigned long long)o->window);
        name = namebuf;
    } else if (!name && snapshot) {   /* BASE.snap1, .snap2, ...: never another's files */
        const char *base = info.name_base ? info.name_base : "cuprof";
        for (int i = 1; i < 10000; i++) {
            snprintf(namebuf, sizeof namebuf, "%.300s.snap%d", base, i);
            if (!cuprof_rf_name_taken(dir, namebuf))
                break;
        }
        name = namebuf;
    } else if (!name) {
        if (info.name) {
            name = info.name;
        } else {
            const char *base = strrchr(run->run_file, '/');
            snprintf(namebuf, sizeof namebuf, "%s", base ? base + 1 : run->run_file);
            size_t l = strlen(namebuf);
            if (l > 7 && strcmp(namebuf + l - 7, ".cuprof") == 0)
                namebuf[l - 7] = '\0';
            name = namebuf;
        }
    }
    char wfiles[800];
    size_t nfiles = run->capture.nwindows - (flight_last ? 1 : 0);   /* (flight: the end's is NAME.*) */
    if (o->at_exit && !o->window && run->capture.trigger &&
        (nfiles > 1 || info.windows_written > 0 || flight_last) && nfiles) {
        snprintf(wfiles, sizeof wfiles, "%.300s.w1.*%s%.300s.w%zu.*", name,
                 nfiles > 1 ? " .. " : "", nfiles > 1 ? name : "", nfiles > 1 ? nfiles : (size_t)0);
        if (nfiles == 1)
            snprintf(wfiles, sizeof wfiles, "%.300s.w1.*", name);
        run->window_files = wfiles;
        if (cut)   /* the outputs are the cut's */
            ((cuprof_run *)cuprof_recut_run(cut))->window_files = wfiles;
    }
    if (o->at_exit && !o->window) {
        const cuprof_capture *cap = &in->capture;
        if (cap->trigger && cap->opened == 0)
            say("the capture window never opened (%s: %llu seen, %u to skip); the files "
                "record no calls and say so",
                cap->trigger, (unsigned long long)cap->seen, cap->skip_first);
        if (!in->gpu_run || !in->gpu_run->captured)
            say("GPU timeline not captured (%s); the outputs are CPU-side only", in->gpu.reason);
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        (void)0;   /* the writers say why */
    char written[256];
    int rc = 0;
    cuprof_model *model = build_and_write(in, dir, name, written, sizeof written, err, sizeof err,
                                          &rc);
    cuprof_progress_end();
    if (!model) {
        say("out of memory building the model of %s; nothing was written", file);
        cuprof_recut_free(cut);
        cuprof_rfread_free(run);
        return 1;
    }
    if (getenv("CUPROF_REPORT_BIGMEM_STATS")) {   /* bench/long_run.sh */
        cuprof_bigmem_stats bs;
        cuprof_bigmem_get_stats(&bs);
        fprintf(stderr, "cuprof: spill: allocs=%llu fallbacks=%llu peak_mb=%.1f trims=%llu "
                "budget_mb=%llu rss_seen_mb=%llu longest_gap_ms=%.1f random=%d\n", (unsigned long long)bs.allocs,
                (unsigned long long)bs.fallbacks, (double)bs.bytes_peak / 1048576.0,
                (unsigned long long)bs.trims, (unsigned long long)(bs.budget >> 20),
                (unsigned long long)(bs.rss_seen_max >> 20), (double)bs.longest_gap_ns / 1e6, bs.random);
        size_t streamed = 0;   /* threads whose calls were streamed (runfile_read.h) */
        for (size_t i = 0; i < run->nthreads; i++)
            streamed += run->threads[i].chunks == NULL;
        fprintf(stderr, "cuprof: calls: threads=%zu streamed=%zu\n", run->nthreads, streamed);
        if (stage.tables)   /* seconds from the start of the reading */
            fprintf(stderr, "cuprof: stages: read=%.2f start=%.2f summary=%.2f tables=%.2f "
                    "traced=%.2f traces=%.2f\n", (double)(stage.read - stage.begin) / 1e9,
                    (double)(stage.start - stage.begin) / 1e9,
                    (double)(stage.summary - stage.begin) / 1e9,
                    (double)(stage.tables - stage.begin) / 1e9,
                    (double)(stage.traced - stage.begin) / 1e9,
                    (double)(stage.traces - stage.begin) / 1e9);
    }
    if (rc > 0)
        say("wrote %s/%s.%s (%llu calls, %zu thread%s)%s", dir, name, written,
            (unsigned long long)in->nevents, in->nthreads, in->nthreads == 1 ? "" : "s",
            in->dropped ? "; some calls were counted but not recorded, see the summary" : "");
    if (err[0])
        say("%s%s", err, rc > 0 ? "" : "; no profile was written for this run");
    if (rc > 0 && in->export_sqlite && !in->truncated &&
        !(o->at_exit && in->ended_by && strcmp(in->ended_by, "exec") == 0))
        export_sqlite(dir, name, written);
    /* at the end of a run with repeating windows: the outputs of those the
     * program's flusher had not written yet (the last ones), NAME.wK.* */
    uint64_t nwin = nfiles, from = info.windows_written;
    int windows = o->at_exit && !o->window && run->capture.trigger &&
                  (nwin > 1 || from > 0 || (flight_last && nwin > 0));
    cuprof_model_destroy(model);
    cuprof_recut_free(cut);
    cuprof_rfread_free(run);
    for (uint64_t k = from + 1; windows && rc > 0 && k <= nwin; k++) {
        opts each = *o;
        each.window = k;
        (void)report_file(file, &each, NULL, NULL, NULL);
    }
    if (rc > 0 && o->at_exit && !o->window && !info.keep_run_file)
        unlink(file);
    return rc > 0 ? 0 : 1;
}

/* report_file_at, its progress line (tools/progress.h) gone on every way out */
static int report_file(const char *file, const opts *o, const char *recover,
                       const char *snapshot, const char *renamed)
{
    int rc = report_file_at(file, o, recover, snapshot, renamed);
    cuprof_progress_end();
    return rc;
}

/* --recover DIR ROOT: every run file a process started by that prof.sh
 * (CUPROF_ROOT_PID = ROOT) left not completed in DIR because it was killed
 * (its process is gone), renamed NAME.cuprof and reported. The root
 * process ended as o->ended_by says; the others, killed. Returns 0 when
 * every one found was reported. */
static int recover(const char *dir, long root, const opts *o)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char *end;
        if (strncmp(e->d_name, ".cuprof-run.", 12) != 0)
            continue;
        pid = strtol(e->d_name + 12, &end, 10);
        if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* not ours, or its process still runs */
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cuprof_rfread_info info;
        char err[512];
        cuprof_run *run = cuprof_rfread(path, &info, err, sizeof err);
        if (!run)
            continue;
        int mine = info.root_pid == root || pid == root, complete = info.complete;
        /* NAME as the process would have chosen it, never another run's */
        char base[320], name[340], final[PATH_MAX + 400];
        snprintf(base, sizeof base, "%s", info.name_base ? info.name_base : e->d_name + 1);
        cuprof_rfread_free(run);   /* (info's strings were the run's) */
        if (!mine || complete)
            continue;
        snprintf(name, sizeof name, "%s", base);
        for (int i = 1; i < 10000 && cuprof_rf_name_taken(dir, name); i++)
            snprintf(name, sizeof name, "%s.%d", base, i);
        snprintf(final, sizeof final, "%s/%s.cuprof", dir, name);
        if (rename(path, final) != 0)
            snprintf(final, sizeof final, "%s", path);
        opts each = *o;
        each.dir = dir;
        each.name = name;
        const char *how = pid == root && o->ended_by ? o->ended_by : "by a signal cuprof cannot catch";
        /* what the file lacks, from the recording memory it shared with
         * cuprof-run, and how it ended (what cuprof-run saw: the root's) */
        cuprof_recover_end how_end = {.ended_by = how};
        if (pid == root) {
            how_end = o->root_end;
            how_end.ended_by = how;
        }
        for (size_t k = 0; pid != root && k < o->nends; k++)
            if (o->ends[k].pid == pid) {   /* another process cuprof-run watched */
                how_end.rss = o->ends[k].rss;
                how_end.rss_peak = o->ends[k].peak;
                how_end.rss_ns = (uint64_t)o->ends[k].at;
                if (o->ends[k].oom) {   /* the OOM killer (its signal is SIGKILL) */
                    how = how_end.ended_by = "SIGKILL";
                    how_end.oom_kills = 1;
                    how_end.cgroup = o->root_end.cgroup;   /* (the root's: shared, as a rule) */
                    how_end.mem_limit = o->root_end.mem_limit;
                }
            }
        cuprof_recover_stats rst;
        char rerr[PATH_MAX + 200];
        if (cuprof_recover_append(final, pid, o->shm_fd, info.read_bytes, &how_end, &rst, rerr,
                                  sizeof rerr) != 0)
            say("%s; the outputs have what the run file held", rerr);
        char renamed[PATH_MAX + 400];
        snprintf(renamed, sizeof renamed, "%s", final);
        rc |= report_file(final, &each, how, NULL, renamed);
    }
    closedir(d);
    return rc;
}

/* --snapshot PID|RUNFILE: asks the running process to write what it has
 * (DIR/.cuprof-ctl.PID; its flusher answers within 0.1 s, renaming it
 * .cuprof-ack.PID with what the flush took), then reports its run file as
 * BASE.snapN while it runs on. */
/* The run file of a running process (PID, or the run file's own path): its
 * directory (the process's CUPROF_OUT_DIR, from its environment; else ours,
 * else the default) and pid (0 when the name does not say). */
static void locate(const char *target, char dir[PATH_MAX], char file[PATH_MAX + 64], long *pidp)
{
    long pid = 0;
    char *end;
    long v = strtol(target, &end, 10);
    if (*target && !*end && v > 0) {
        pid = v;
        const char *d = NULL;
        char envp[64], *env = NULL;
        snprintf(envp, sizeof envp, "/proc/%ld/environ", pid);
        FILE *f = fopen(envp, "r");
        size_t cap = 0;
        ssize_t n;
        while (f && (n = getdelim(&env, &cap, '\0', f)) > 0)
            if (!strncmp(env, "CUPROF_OUT_DIR=", 15)) {
                snprintf(dir, PATH_MAX, "%s", env + 15);
                d = dir;
                break;
            }
        if (f)
            fclose(f);
        free(env);
        if (!d)
            snprintf(dir, PATH_MAX, "%s", getenv("CUPROF_OUT_DIR") ? getenv("CUPROF_OUT_DIR")
                                                                   : "prof-out");
        snprintf(file, PATH_MAX + 64, "%s/.cuprof-run.%ld", dir, pid);
    } else {
        snprintf(file, PATH_MAX + 64, "%s", target);
        snprintf(dir, PATH_MAX, "%s", target);
        char *slash = strrchr(dir, '/');
        const char *base = slash ? slash + 1 : dir;
        if (!strncmp(base, ".cuprof-run.", 12))
            pid = strtol(base + 12, NULL, 10);
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, PATH_MAX, ".");
    }
    *pidp = pid;
}

static int snapshot(const char *target, const opts *o)
{
    char dir[PATH_MAX], file[PATH_MAX + 64];
    long pid = 0;
    locate(target, dir, file, &pid);
    if (access(file, R_OK) != 0) {
        say("snapshot: no run file %s (%s): is process %s profiled by prof.sh, writing to that "
            "directory?", file, strerror(errno), target);
        return 1;
    }
    char how[256];
    snprintf(how, sizeof how, "the process is gone: what its run file held");
    if (pid > 0 && kill((pid_t)pid, 0) == 0) {
        char ctl[PATH_MAX + 64], ack[PATH_MAX + 64];
        snprintf(ctl, sizeof ctl, "%s/.cuprof-ctl.%ld", dir, pid);
        snprintf(ack, sizeof ack, "%s/.cuprof-ack.%ld", dir, pid);
        unlink(ack);
        int fd = open(ctl, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
        snprintf(how, sizeof how, "it did not answer within 5 s: what its run file held");
        for (int ms = 0; ms < 5000; ms += 10) {
            char *t = NULL;
            size_t cap = 0;
            FILE *f = fopen(ack, "r");
            if (!f) {
                struct timespec nap = {0, 10 * 1000000L};
                nanosleep(&nap, NULL);
                continue;
            }
            unsigned long long ns = 0, cupti = 0;
            if (getline(&t, &cap, f) > 0)
                sscanf(t, "flush_ns=%llu cupti_ns=%llu", &ns, &cupti);
            free(t);
            fclose(f);
            unlink(ack);
            snprintf(how, sizeof how, "the flush cost it %llu.%03llu ms, CUPTI's %llu.%03llu ms of "
                     "it, on a thread of ours", ns / 1000000, ns / 1000 % 1000, cupti / 1000000,
                     cupti / 1000 % 1000);
            break;
        }
        unlink(ctl);
    }
    return report_file(file, o, NULL, how, NULL);
}

/* --trigger PID|RUNFILE: opens a window in a process started with --standby
 * (prof.sh trigger). The request goes in DIR/.cuprof-trigger.PID, created
 * 0600 by this user (the process reads only such a file); its flusher answers
 * within 0.1 s, renaming it .cuprof-tack.PID with what it did. The window's
 * outputs are written by the process when it closes (NAME.wK.*). */
static int trigger(const char *target, const char *request)
{
    char dir[PATH_MAX], file[PATH_MAX + 64];
    long pid = 0;
    locate(target, dir, file, &pid);
    struct stat st;
    if (stat(file, &st) != 0) {
        say("trigger: no run file %s (%s): is process %s profiled by prof.sh --standby, writing "
            "to that directory (-o DIR), and has it called CUDA yet?", file, strerror(errno), target);
        return 1;
    }
    if (st.st_uid != getuid()) {
        say("trigger: process %ld's run file %s belongs to another user: only the user who "
            "started the program can open a window in it", pid, file);
        return 1;
    }
    if (pid <= 0 || kill((pid_t)pid, 0) != 0) {
        say("trigger: process %ld is not running", pid);
        return 1;
    }
    char req[PATH_MAX + 64], tack[PATH_MAX + 64];
    snprintf(req, sizeof req, "%s/.cuprof-trigger.%ld", dir, pid);
    snprintf(tack, sizeof tack, "%s/.cuprof-tack.%ld", dir, pid);
    unlink(tack);
    int fd = open(req, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        say("trigger: cannot create %s (%s): another trigger is under way, or the directory is "
            "not ours", req, strerror(errno));
        return 1;
    }
    fchmod(fd, 0600);
    size_t len = strlen(request);
    int ok = write(fd, request, len) == (ssize_t)len;
    close(fd);
    if (!ok) {
        unlink(req);
        say("trigger: cannot write %s", req);
        return 1;
    }
    for (int ms = 0; ms < 5000; ms += 10) {
        FILE *f = fopen(tack, "r");
        if (!f) {
            struct timespec nap = {0, 10 * 1000000L};
            nanosleep(&nap, NULL);
            continue;
        }
        char line[512] = "";
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
        unlink(tack);
        line[strcspn(line, "\n")] = '\0';
        int refused = strncmp(line, "refused", 7) == 0;
        say("trigger: process %ld: %s%s", pid, line,
            refused ? "" : !strncmp(request, "dump=", 5)
                               ? " (NAME.wK.* beside the run file, within a second)"
                               : "; its outputs are written when it closes (NAME.wK.* beside the run file)");
        return refused ? 1 : 0;
    }
    unlink(req);
    say("trigger: process %ld did not answer within 5 s (is it stopped?); no window opened", pid);
    return 1;
}

/* "10", "10s", "500ms", "2m" as nanoseconds; 0 when malformed. */
static unsigned long long parse_span(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    double mul = !strcmp(end, "") || !strcmp(end, "s") ? 1e9 : !strcmp(end, "ms") ? 1e6
                 : !strcmp(end, "m") ? 60e9 : -1;
    return end == v || mul < 0 || !(x > 0) ? 0 : (unsigned long long)(x * mul);
}

/* 1 when option a is one of those that take a value (the next argument). */
static int takes_value(const char *a)
{
    static const char *const with_value[] = {"-o", "-n", "--format", "--compress", "--export",
                                             "--capture-range", "--recover", "--duration",
                                             "--calls", "--steps", "--step-range", "--window",
                                             "--ended-by", "--job", "--shm", "--died-at", "--oom-kills",
                                             "--cgroup", "--mem-limit", "--rss", "--rss-peak",
                                             "--rss-at", "--proc-end"};
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (strcmp(a, with_value[k]) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const formats[] = {"auto", "json", "perfetto", "both", "none", NULL};
    static const char *const compress[] = {"auto", "zstd", "zlib", "none", NULL};
    opts o = {.format = -1, .comp = -1, .gzip = -1, .sqlite = -1, .html = -1, .shm_fd = -1};
    const char *file = NULL, *recover_dir = NULL;
    int snap = 0, trig = 0;
    char trig_req[320] = "";
    const char *step_range = NULL, *job = NULL;
    long root = 0;
    const char *q = getenv("CUPROF_QUIET");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--at-exit") == 0) {
            o.at_exit = 1;
        } else if (strcmp(a, "--gzip") == 0) {
            o.gzip = 1;
        } else if (strcmp(a, "--html") == 0) {   /* NAME.report.html too */
            o.html = 1;
        } else if (strcmp(a, "--no-html") == 0) {
            o.html = 0;
        } else if (strcmp(a, "--snapshot") == 0) {
            snap = 1;
        } else if (strcmp(a, "--trigger") == 0) {
            trig = 1;
        } else if (strcmp(a, "--dump") == 0) {   /* the flight recorder's last seconds */
            snprintf(trig_req, sizeof trig_req, "dump=1");
        } else if (takes_value(a) && (!v || (strcmp(a, "--recover") == 0 && i + 2 >= argc))) {
            fprintf(stderr, "cuprof: report: %s needs %s; run cuprof-report --help\n", a,
                    strcmp(a, "--recover") == 0 ? "a directory and a pid" : "a value");
            return 2;
        } else if (strcmp(a, "-o") == 0) {
            o.dir = argv[++i];
        } else if (strcmp(a, "-n") == 0) {
            o.name = argv[++i];
        } else if (strcmp(a, "--format") == 0) {
            if ((o.format = choice(v, formats)) < 0) {
                fprintf(stderr, "cuprof: report: --format %s: use auto, json, perfetto, both "
                                "or none\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--compress") == 0) {
            if ((o.comp = choice(v, compress)) < 0) {
                fprintf(stderr, "cuprof: report: --compress %s: use zstd, zlib or none\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--export") == 0) {
            if (strcasecmp(v, "sqlite") != 0 && strcasecmp(v, "none") != 0) {
                fprintf(stderr, "cuprof: report: --export %s: use sqlite or none\n", v);
                return 2;
            }
            o.sqlite = strcasecmp(v, "sqlite") == 0;
            i++;
        } else if (strcmp(a, "--capture-range") == 0) {
            o.range = argv[++i];
        } else if (strcmp(a, "--peak-device") == 0) {
            if (!cuprof_peak_by_label(v)) {
                size_t n;
                const cuprof_peak_gpu *t = cuprof_peak_table(&n);
                fprintf(stderr, "cuprof: report: --peak-device %s: not in the peak table; use one of", v);
                for (size_t k = 0; k < n; k++)
                    fprintf(stderr, "%s '%s'", k ? "," : "", t[k].label);
                fputc('\n', stderr);
                return 2;
            }
            o.peak = argv[++i];
        } else if (strcmp(a, "--recover") == 0 && i + 2 < argc) {
            recover_dir = argv[++i];
            root = strtol(argv[++i], NULL, 10);

        } else if (strcmp(a, "--duration") == 0 || strcmp(a, "--calls") == 0 ||
                   strcmp(a, "--steps") == 0) {
            unsigned long long n = a[2] == 'd' ? parse_span(v) : strtoull(v, NULL, 10);
            if (n == 0 || (a[2] != 'd' && strspn(v, "0123456789") != strlen(v))) {
                fprintf(stderr, "cuprof: trigger: %s %s: expected %s\n", a, v,
                        a[2] == 'd' ? "a time like 10s, 500ms or 2m" : "a count of 1 or more");
                return 2;
            }
            snprintf(trig_req, sizeof trig_req, "%s=%llu", a[2] == 'd' ? "duration_ns" : a + 2, n);
            i++;
        } else if (strcmp(a, "--step-range") == 0) {
            step_range = argv[++i];
        } else if (strcmp(a, "--job") == 0) {   /* trigger: every process writing into DIR */
            job = argv[++i];
        } else if (strcmp(a, "--window") == 0) {
            o.window = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--ended-by") == 0) {
            o.ended_by = argv[++i];
        } else if (strcmp(a, "--shm") == 0) {   /* cuprof-run's: --recover's other inputs */
            o.shm_fd = atoi(argv[++i]);
        } else if (strcmp(a, "--died-at") == 0) {
            o.root_end.died_ns = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--oom-kills") == 0) {
            o.root_end.oom_kills = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--cgroup") == 0) {
            o.root_end.cgroup = argv[++i];
        } else if (strcmp(a, "--mem-limit") == 0) {
            o.root_end.mem_limit = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--rss") == 0) {
            o.root_end.rss = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--rss-peak") == 0) {
            o.root_end.rss_peak = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--rss-at") == 0) {
            o.root_end.rss_ns = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--proc-end") == 0) {
            struct proc_end e = {0};
            if (sscanf(argv[++i], "%ld:%d:%llu:%llu:%lld", &e.pid, &e.oom, &e.rss, &e.peak,
                       &e.at) == 5 && o.nends < sizeof o.ends / sizeof o.ends[0])
                o.ends[o.nends++] = e;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "cuprof: report: unknown option %s%s; run cuprof-report --help\n", a,
                    strcmp(a, "--no-report-html") == 0 ? " (here it is --no-html)" : "");
            return 2;
        } else if (file) {
            fprintf(stderr, "cuprof: report: one run file at a time (%s and %s)\n", file, a);
            return 2;
        } else {
            file = a;
        }
    }
    quiet = (o.at_exit || recover_dir) && q && strcmp(q, "1") == 0;
    if (recover_dir)
        return recover(recover_dir, root, &o);
    if (trig && job) {
        if (file) {
            fprintf(stderr, "cuprof: trigger: --job %s or a process (%s), not both\n", job, file);
            return 2;
        }
        if (!trig_req[0])
            snprintf(trig_req, sizeof trig_req, "duration_ns=10000000000");   /* 10 s */
        if (strncmp(trig_req, "steps=", 6) && strncmp(trig_req, "duration_ns=", 12)) {
            fprintf(stderr, "cuprof: trigger: --job takes --steps N or --duration T (the ranks' calls "
                            "differ; --dump is per process)\n");
            return 2;
        }
        return job_trigger(job, trig_req, step_range);
    }
    if (!file) {
        fprintf(stderr, "cuprof: report: no run file given; usage: cuprof-report [options] "
                        "NAME.cuprof\n");
        return 2;
    }
    if (snap)
        return snapshot(file, &o);
    if (trig) {
        if (!trig_req[0])
            snprintf(trig_req, sizeof trig_req, "duration_ns=10000000000");   /* 10 s */
        if (step_range && !strncmp(trig_req, "steps=", 6)) {
            size_t l = strlen(trig_req);
            snprintf(trig_req + l, sizeof trig_req - l, " %.255s", step_range);
        }
        size_t l = strlen(trig_req);
        snprintf(trig_req + l, sizeof trig_req - l, "\n");
        return trigger(file, trig_req);
    }
    return report_file(file, &o, NULL, NULL, NULL);
}
