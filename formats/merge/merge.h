/*
 * merge.h - prof.sh merge: the files of every rank of a job (NAME.rankR.*)
 * as one run: one trace with a process per rank on one time axis, and a
 * summary of the ranks side by side (per-rank rows, the spread of every API
 * and kernel across ranks, stragglers and load imbalance).
 *
 * Reads what the library wrote (summary.json's "distributed", the JSON
 * trace); jansson; built into build/cuprof-merge only, never the library.
 * Prefix mg_.
 */
#ifndef CUPROF_MERGE_H
#define CUPROF_MERGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* One call to a collective on one rank, on that rank's clock (ns): an MPI
 * collective, or an NCCL one (ncclAllReduce, ...: asynchronous, it returns
 * before the others arrive, so its end says nothing of theirs). */
typedef struct mg_coll {
    const char *name;          /* "MPI_Barrier", ... (owned by the trace); an NCCL call's
                                  names its communicator too, "ncclAllReduce on comm 0x...":
                                  its i-th call is the communicator's sequence number i */
    uint64_t start, end;
    size_t occ;                /* which call of its name it is (0 = the first) */
    int async;                 /* NCCL: its host end is not a meeting point */
    int64_t tid;               /* its thread */
    uint64_t gpu_end;          /* NCCL: the end of the kernels it launched (the trace's
                                  flows), on the rank's clock; 0 none. The ranks' kernels
                                  of one collective end together: a meeting point */
} mg_coll;

/* One collective's calls on a rank, in start order (indexes into coll). */
typedef struct mg_calls {
    const char *name;
    size_t *at, n;
} mg_calls;

typedef struct mg_rank {
    int rank;
    unsigned long window;                   /* its files merged: NAME.rankR.wK.* (K), or
                                               the run's own NAME.rankR.* (0) */
    long pid;
    const char *host, *boot_id, *program;   /* from summary.json; "" unknown */
    char *summary_path, *trace_path;        /* trace_path NULL: no JSON trace */
    json_t *summary, *trace;                /* trace NULL when not read */
    uint64_t base_ns;                       /* the trace's baseTimeNanoseconds */
    uint64_t mono_start, real_start, mono_end, real_end;
    int64_t offset_ns;                      /* aligned time = own clock + offset */
    mg_coll *coll;                          /* collective calls, in start order */
    size_t ncoll;
    mg_calls *by_name;                      /* the same by collective (a few names) */
    size_t nnames;
    char **keys;                            /* NCCL's: "ncclAllReduce on comm 0x..." (owned) */
    size_t nkeys;
    const char *role;                       /* in the merged trace: "straggler", "fastest",
                                               "median", "" (--all-ranks), NULL not in it */
    int64_t late_ns;                        /* sum over the meetings of its arrival minus
                                               the median arrival (mg_trace_ranks) */
    uint64_t wall_ns, self_cpu_ns, gpu_busy_ns, mpi_ns; /* mpi_ns: time in MPI collectives;
                                                         gpu_busy_ns: less NCCL kernel time
                                                         with nothing else on the GPU */
} mg_rank;

/* A meeting: the i-th call of one collective on every rank. */
typedef struct mg_meet {
    const char *name;
    size_t index;               /* i */
    int last_rank;              /* the rank that arrived last (index into ranks) */
    uint64_t late_ns;           /* its arrival minus the median of the others' */
    uint64_t wait_ns;           /* what the others spent waiting in it: sum of
                                   (last arrival - own arrival) */
    const uint64_t *arrival;    /* [n] each rank's aligned arrival (call start) */
} mg_meet;

typedef struct mg_run {
    char *name;                 /* the job's NAME (files NAME.rankR.*) */
    int world_size;             /* as the ranks said; -1 unknown */
    mg_rank *r;                 /* by rank */
    size_t n;
    const char *method;         /* how the clocks were aligned, in words */
    uint64_t error_ns;          /* estimated alignment error (bound) */
    size_t refined_by;          /* meetings used to refine across hosts */
    mg_meet *meets;
    size_t nmeets;
    uint64_t *arrivals;         /* nmeets * n: the meetings' arrival arrays */
    int unmatched;              /* 1: the ranks called the collectives a different
                                   number of times (the first calls were matched) */
    char window_desc[160];      /* which windows were merged, in words; "" the runs' own files */
    char **notes;               /* ranks left out, one line each (owned): a rank that
                                   never reached the job trigger's step, ... */
    size_t nnotes;
    int all_ranks;              /* --all-ranks: every rank in the trace and summary.txt's table */
} mg_run;

/* Finds NAME.rankR.summary.json (and .trace.json) in dir; name NULL: the
 * one job there; window: which files of each rank (mg_pick_files). Reads
 * them into *m. Returns 0, or -1 with one line in err. */
int mg_load(mg_run *m, const char *dir, const char *name, long window, char *err, size_t errlen);
/* merge_window.c: sets m->name and, in m->r, each rank's number and the
 * window whose files are merged. window: -1 the default (the windows of
 * the last prof.sh trigger --job, recorded in DIR/.cuprof-job-last; else
 * the latest window of each rank; else the runs' own files), 0 the runs'
 * own files, K window K of each rank. Ranks left out get a line in
 * m->notes. 0, or -1 with one line in err. */
int mg_pick_files(mg_run *m, const char *dir, const char *name, long window, char *err, size_t errlen);
/* Reads r's trace (if it wrote one and it is not read yet) and, when
 * collectives is 1, its collective calls from it (a summary without
 * collectives.call_list). 0, or -1 with err. */
int mg_read_trace(mg_rank *r, int collectives, char *err, size_t errlen);
/* merge_window.c: the ranks in the merged trace: every one (all), or the straggler, the
 * fastest and the median rank by their lateness at the collectives (the
 * sum of their arrival minus each meeting's median arrival; by their step
 * time, else wall time, without meetings). Sets each rank's role and
 * lets the others' traces go (mg_write_trace reads the chosen ones one at a
 * time). 0, or -1 with err. */
int mg_trace_ranks(mg_run *m, int all, char *err, size_t errlen);
/* Sets every rank's offset_ns, method and error_ns (see merge.c). */
void mg_align(mg_run *m);
/* Matches the collectives across ranks into meetings (after mg_align). */
void mg_meetings(mg_run *m);
void mg_free(mg_run *m);

/* Outputs in dir: NAME.merged.trace.json, NAME.merged.summary.json,
 * NAME.merged.summary.txt. 0 or -1 with err. */
int mg_write_trace(mg_run *m, const char *path, char *err, size_t errlen);
int mg_write_summary(const mg_run *m, const char *json_path, const char *txt_path, char *err,
                     size_t errlen);

/* NAME.merged.report.html: the page of the job (formats/html/merged.js),
 * from the merged summary just written at summary_path. 0 or -1 with err. */
int mg_write_html(const mg_run *m, const char *summary_path, const char *html_path, char *err, size_t errlen);

/* merge_heat.c: the rank x step heatmap. Row i holds ranks
 * [i * ranks_per_row, ...) (indexes into m->r), column c steps
 * [c * steps_per_col, ...) (each rank's step_list order); a cell's step_ns
 * is the slowest of its ranks' mean step time, wait_ns the least of its
 * ranks' mean time waited in the collectives (last arrival - own) a step. */
typedef struct mg_heat {
    size_t nrows, ncols, ranks_per_row, steps_per_col, nsteps;
    uint64_t *step_ns, *wait_ns;   /* [nrows * ncols], row-major */
} mg_heat;
/* At most max_rows x max_cols cells (after mg_meetings and mg_trace_ranks);
 * nrows 0 when no rank has steps. 0, or -1 out of memory. */
int mg_heat_build(const mg_run *m, size_t max_rows, size_t max_cols, mg_heat *h);
void mg_heat_free(mg_heat *h);
/* The heatmap as text (summary.txt: a character a cell) and as JSON
 * ({ranks_per_row, steps_per_col, steps, rows: first rank of each row,
 * step_ns: [[...]], wait_ns: [[...]]}). */
void mg_heat_txt(FILE *f, const mg_run *m, const mg_heat *h);
json_t *mg_heat_json(const mg_run *m, const mg_heat *h);
/* merge_window.c: the k ranks latest at the collectives (late_ns, mg_trace_ranks), latest
 * first, as indexes into m->r in out[0..k); returns how many (<= n). */
int mg_slowest(const mg_run *m, size_t *out, size_t k);

/* Lower median of v[0..n) (sorted in place); 0 when n == 0. */
uint64_t mg_median(uint64_t *v, size_t n);

#endif /* CUPROF_MERGE_H */
