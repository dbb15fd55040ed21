/*
 * merge_summary.c - NAME.merged.summary.json and .txt: the ranks side by
 * side (merge.h).
 *
 *  - Per rank: host, pid, wall time, CPU time in the recorded calls, time in
 *    MPI collectives, GPU busy time, how often it arrived last at a
 *    collective and by how much.
 *  - Per API entry point (CPU total) and per kernel (GPU total): the value on
 *    every rank, with the min, median (the lower middle for an even count)
 *    and max across ranks and the ranks that have them.
 *  - Findings: the straggler (per collective, the rank that arrives latest
 *    in the median over its calls, by aligned start times: the one the
 *    others wait for, which is not the one that waits longest), uneven GPU
 *    work, missing ranks, collectives called a different number of times.
 */
#include "formats/merge/merge.h"
#include "formats/units.h"

#include <errno.h>
#include <stdio.h>

/* summary.txt's Ranks table: every rank up to this many (or --all-ranks);
 * past it the SLOWEST_SHOWN latest ranks, the median and the fastest. */
#define RANK_TABLE_ALL 16
#define SLOWEST_SHOWN 10
/* The heatmap's cells at most (summary.txt and summary.json). */
#define HEAT_ROWS 32
#define HEAT_COLS 64
#include <stdlib.h>
#include <string.h>

/* One name (API or kernel) across the ranks. */
typedef struct spread {
    const char *name, *category;
    uint64_t *count, *total;     /* per rank (index into m->r) */
    uint64_t min, median, max;
    size_t min_i, max_i;
} spread;

typedef struct spreads {
    spread *s;
    size_t n, cap;
} spreads;

/* 1 when some rank's files are a window's (its wall time is the window's). */
static int any_window(const mg_run *m)
{
    for (size_t j = 0; j < m->n; j++)
        if (m->r[j].window)
            return 1;
    return 0;
}

static spread *find_or_add(spreads *t, const char *name, size_t nranks)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->s[i].name, name))
            return &t->s[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        spread *g = realloc(t->s, cap * sizeof *g);
        if (!g)
            return NULL;
        t->s = g;
        t->cap = cap;
    }
    spread *s = &t->s[t->n];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->count = calloc(nranks, sizeof *s->count);
    s->total = calloc(nranks, sizeof *s->total);
    if (!s->count || !s->total) {
        free(s->count);
        free(s->total);
        return NULL;
    }
    t->n++;
    return s;
}

static int cmp_spread(const void *a, const void *b)
{
    const spread *x = a, *y = b;
    if (x->max != y->max)
        return x->max < y->max ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The rows of section `key` (api, kernels) of every rank's summary. */
static int build(const mg_run *m, const char *key, const char *count_key, const char *total_key, spreads *t)
{
    memset(t, 0, sizeof *t);
    uint64_t *v = calloc(m->n ? m->n : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t j = 0; j < m->n; j++) {
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(m->r[j].summary, key), i, row) {
            const char *name = json_string_value(json_object_get(row, "name"));
            if (!name)
                continue;
            spread *s = find_or_add(t, name, m->n);
            if (!s) {
                free(v);
                return -1;
            }
            s->category = json_string_value(json_object_get(row, "category"));
            s->count[j] += (uint64_t)json_integer_value(json_object_get(row, count_key));
            s->total[j] += (uint64_t)json_integer_value(json_object_get(row, total_key));
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        spread *s = &t->s[i];
        s->min_i = s->max_i = 0;
        for (size_t j = 0; j < m->n; j++) {
            v[j] = s->total[j];
            if (s->total[j] < s->total[s->min_i])
                s->min_i = j;
            if (s->total[j] > s->total[s->max_i])
                s->max_i = j;
        }
        s->min = s->total[s->min_i];
        s->max = s->total[s->max_i];
        s->median = mg_median(v, m->n);
    }
    if (t->n)
        qsort(t->s, t->n, sizeof *t->s, cmp_spread);
    free(v);
    return 0;
}

static void free_spreads(spreads *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->s[i].count);
        free(t->s[i].total);
    }
    free(t->s);
}

/* ---- findings --------------------------------------------------------------- */

typedef struct finding {
    const char *rule, *severity;
    char message[512], advice[512];
    json_t *numbers;
} finding;

/* A rank's part in the meetings: how often it came last, by how much in all
 * (its arrival minus the median of the others'), the waiting it caused. */
typedef struct rank_stats {
    uint64_t last, late_total, wait_caused;
} rank_stats;

/* A straggler arrives, in the median, at least this late (100 us: below
 * it, scheduling noise on a loaded host). */
#define STRAGGLER_MIN_LATE_NS 100000ull
/* GPU busy time uneven: the max at least 1.5x the median and 0.5 ms more. */
#define IMBALANCE_RATIO 1.5
#define IMBALANCE_MIN_NS 500000ull

/* The straggler of one collective: the rank whose arrivals at its calls are
 * latest in the median, by how much (its arrival minus the median arrival of
 * the others, 0 when early), how often it came last, and the waiting it
 * caused. Per collective, because arrival order at a call that follows
 * another (a barrier right after an allreduce) is only the order the first
 * one released the ranks, and one preempted arrival must not name a rank:
 * the median over the calls does not move for it. */
typedef struct straggler {
    const char *name;
    size_t rank;            /* index into m->r */
    size_t calls, last;
    uint64_t median_late, wait;
} straggler;

/* The worst straggler over the collectives: a rank whose median lateness at
 * one of them is at least STRAGGLER_MIN_LATE_NS and that came last at more
 * than half of its 2 or more calls; the one that caused most waiting. */
typedef struct arrival {
    uint64_t t;
    size_t j;
} arrival;

static int cmp_arrival(const void *a, const void *b)
{
    const arrival *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

static int find_straggler(const mg_run *m, straggler *out)
{
    int found = 0;
    size_t n = m->n;
    arrival *sorted = calloc(n ? n : 1, sizeof *sorted);
    size_t *pos = calloc(n ? n : 1, sizeof *pos);
    if (!sorted || !pos || n < 2) {
        free(sorted);
        free(pos);
        return 0;
    }
    for (size_t k = 0; k < m->nmeets; k++) {
        if (m->meets[k].index != 0)
            continue;   /* each collective once, from its first call */
        const char *name = m->meets[k].name;
        size_t nc = 0;
        for (size_t q = k; q < m->nmeets; q++)
            nc += strcmp(m->meets[q].name, name) == 0;
        /* each rank's lateness at each call: its arrival minus the lower
         * median of the others' (the sorted arrivals less its own) */
        uint64_t *late = calloc(n * nc, sizeof *late), *wait = calloc(n, sizeof *wait);
        size_t *last = calloc(n, sizeof *last);
        if (!late || !wait || !last) {
            free(late);
            free(wait);
            free(last);
            break;
        }
        size_t c = 0, mid = (n - 2) / 2;
        for (size_t q = k; q < m->nmeets; q++) {
            const mg_meet *mt = &m->meets[q];
            if (strcmp(mt->name, name) != 0)
                continue;
            for (size_t j = 0; j < n; j++)
                sorted[j] = (arrival){mt->arrival[j], j};
            qsort(sorted, n, sizeof *sorted, cmp_arrival);
            for (size_t p = 0; p < n; p++)
                pos[sorted[p].j] = p;
            for (size_t j = 0; j < n; j++) {
                uint64_t med = mid < pos[j] ? sorted[mid].t : sorted[mid + 1].t;
                late[j * nc + c] = mt->arrival[j] > med ? mt->arrival[j] - med : 0;
            }
            last[mt->last_rank]++;
            wait[mt->last_rank] += mt->wait_ns;
            c++;
        }
        for (size_t j = 0; j < n; j++) {
            straggler s = {name, j, c, last[j], mg_median(&late[j * nc], c), wait[j]};
            if (s.calls >= 2 && 2 * s.last > s.calls && s.median_late >= STRAGGLER_MIN_LATE_NS &&
                (!found || s.wait > out->wait)) {
                *out = s;
                found = 1;
            }
        }
        free(late);
        free(wait);
        free(last);
    }
    free(sorted);
    free(pos);
    return found;
}

static size_t findings(const mg_run *m, finding *f, size_t cap)
{
    size_t n = 0;
    char a[32], b[32], c[32];
    if (m->nnotes && n < cap) {   /* ranks whose window is not there (merge_window.c) */
        finding *x = &f[n++];
        x->rule = "missed_window";
        x->severity = "warning";
        snprintf(x->message, sizeof x->message, "%zu rank%s not in this merge: %s%s", m->nnotes,
                 m->nnotes == 1 ? " is" : "s are", m->notes[0], m->nnotes > 1 ? " (the others: numbers.notes)" : "");
        snprintf(x->advice, sizeof x->advice,
                 "a rank that ended before the step, or a step the rank had begun: trigger again "
                 "(prof.sh trigger --job DIR --steps N) while every rank still has the steps ahead");
        json_t *notes = json_array();
        for (size_t k = 0; k < m->nnotes; k++)
            json_array_append_new(notes, json_string(m->notes[k]));
        x->numbers = json_pack("{s:I,s:o}", "ranks", (json_int_t)m->nnotes, "notes", notes);
    }
    if (m->world_size > 0 && (size_t)m->world_size > m->n && n < cap) {
        finding *x = &f[n++];
        x->rule = "missing_ranks";
        x->severity = "warning";
        snprintf(x->message, sizeof x->message, "%zu of %d ranks wrote files: the rest are not in this view",
                 m->n, m->world_size);
        snprintf(x->advice, sizeof x->advice,
                 "run every rank under prof.sh with the same -o DIR (mpirun ... ./prof.sh -o DIR -- PROGRAM)");
        x->numbers = json_pack("{s:I,s:i}", "ranks", (json_int_t)m->n, "world_size", m->world_size);
    }
    if (m->unmatched && n < cap) {
        finding *x = &f[n++];
        x->rule = "unmatched_collectives";
        x->severity = "info";
        snprintf(x->message, sizeof x->message,
                 "the ranks called the collectives (MPI's, NCCL's) a different number of times "
                 "(several communicators?): only the calls every rank made were matched");
        snprintf(x->advice, sizeof x->advice, "read the straggler figures as a guide only");
        x->numbers = json_object();
    }
    /* straggler */
    straggler st;
    if (m->n >= 2 && find_straggler(m, &st) && n < cap) {
        finding *x = &f[n++];
        x->rule = "straggler";
        x->severity = "warning";
        snprintf(x->message, sizeof x->message,
                 "rank %d arrives last at %zu of %zu %s calls, a median %s after the other ranks' "
                 "median arrival; they wait %s for it there in all",
                 m->r[st.rank].rank, st.last, st.calls, st.name, cuprof_fmt_time(a, sizeof a, st.median_late),
                 cuprof_fmt_time(b, sizeof b, st.wait));
        uint64_t *busy = calloc(m->n, sizeof *busy);
        for (size_t j = 0; busy && j < m->n; j++)
            busy[j] = m->r[j].gpu_busy_ns;
        uint64_t bmed = busy ? mg_median(busy, m->n) : 0;
        free(busy);
        snprintf(x->advice, sizeof x->advice,
                 "look at what rank %d does before its %s calls (its GPU was busy %s, the median rank's %s); "
                 "give it less work, or look for a slower GPU, host or input on it",
                 m->r[st.rank].rank, st.name, cuprof_fmt_time(c, sizeof c, m->r[st.rank].gpu_busy_ns),
                 cuprof_fmt_time(a, sizeof a, bmed));
        x->numbers = json_pack("{s:i,s:s,s:I,s:I,s:I,s:I}", "rank", m->r[st.rank].rank, "collective", st.name,
                               "last_arrivals", (json_int_t)st.last, "calls", (json_int_t)st.calls,
                               "median_late_ns", (json_int_t)st.median_late, "wait_caused_ns",
                               (json_int_t)st.wait);
    }
    /* uneven GPU work */
    if (m->n >= 2 && n < cap) {
        uint64_t *busy = calloc(m->n, sizeof *busy);
        size_t hi = 0;
        for (size_t j = 0; busy && j < m->n; j++) {
            busy[j] = m->r[j].gpu_busy_ns;
            if (busy[j] > busy[hi])
                hi = j;
        }
        uint64_t max = busy ? busy[hi] : 0, med = busy ? mg_median(busy, m->n) : 0;
        free(busy);
        if (max >= med + IMBALANCE_MIN_NS && (double)max >= IMBALANCE_RATIO * (double)med) {
            finding *x = &f[n++];
            x->rule = "load_imbalance";
            x->severity = "warning";
            snprintf(x->message, sizeof x->message,
                     "GPU work is uneven across ranks: rank %d's GPU was busy %s, the median rank's %s (%.1fx)",
                     m->r[hi].rank, cuprof_fmt_time(a, sizeof a, max), cuprof_fmt_time(b, sizeof b, med),
                     med ? (double)max / (double)med : 0.0);
            snprintf(x->advice, sizeof x->advice,
                     "split the work evenly (batch sizes, sequence lengths, the data each rank reads); "
                     "the kernels table below shows which kernels differ");
            x->numbers = json_pack("{s:i,s:I,s:I}", "rank", m->r[hi].rank, "gpu_busy_ns", (json_int_t)max,
                                   "median_gpu_busy_ns", (json_int_t)med);
        }
    }
    return n;
}

/* ---- output ------------------------------------------------------------------- */

static json_t *per_rank(const mg_run *m, const uint64_t *v)
{
    json_t *a = json_array();
    for (size_t j = 0; j < m->n; j++)
        json_array_append_new(a, json_integer((json_int_t)v[j]));
    return a;
}

static json_t *spread_rows(const mg_run *m, const spreads *t, const char *count_key, const char *total_key)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < t->n; i++) {
        const spread *s = &t->s[i];
        json_t *o = json_pack("{s:s}", "name", s->name);
        if (s->category)
            json_object_set_new(o, "category", json_string(s->category));
        json_object_set_new(o, count_key, per_rank(m, s->count));
        json_object_set_new(o, total_key, per_rank(m, s->total));
        json_object_set_new(o, "min_ns", json_integer((json_int_t)s->min));
        json_object_set_new(o, "median_ns", json_integer((json_int_t)s->median));
        json_object_set_new(o, "max_ns", json_integer((json_int_t)s->max));
        json_object_set_new(o, "min_rank", json_integer(m->r[s->min_i].rank));
        json_object_set_new(o, "max_rank", json_integer(m->r[s->max_i].rank));
        json_array_append_new(rows, o);
    }
    return rows;
}

static void txt_spreads(FILE *f, const mg_run *m, const spreads *t, const char *title, size_t limit)
{
    char a[32], b[32], c[32];
    fprintf(f, "\n%s\n", title);
    fprintf(f, "  %-44s %12s %12s %12s %12s %9s %9s\n", "Name", "Calls", "Min", "Median", "Max", "Max rank",
            "Max/med");
    for (size_t i = 0; i < t->n && i < limit; i++) {
        const spread *s = &t->s[i];
        uint64_t cmin = UINT64_MAX, cmax = 0;
        for (size_t j = 0; j < m->n; j++) {
            cmin = s->count[j] < cmin ? s->count[j] : cmin;
            cmax = s->count[j] > cmax ? s->count[j] : cmax;
        }
        char calls[48];
        if (cmin == cmax)
            snprintf(calls, sizeof calls, "%llu", (unsigned long long)cmin);
        else
            snprintf(calls, sizeof calls, "%llu-%llu", (unsigned long long)cmin, (unsigned long long)cmax);
        char ratio[16] = "-";
        if (s->median)
            snprintf(ratio, sizeof ratio, "%.2fx", (double)s->max / (double)s->median);
        fprintf(f, "  %-44.44s %12s %12s %12s %12s %9d %9s\n", s->name, calls, cuprof_fmt_time(a, sizeof a, s->min),
                cuprof_fmt_time(b, sizeof b, s->median), cuprof_fmt_time(c, sizeof c, s->max),
                m->r[s->max_i].rank, ratio);
    }
    if (t->n > limit)
        fprintf(f, "  (%zu more in the merged summary.json)\n", t->n - limit);
}

static int commit(FILE *f, const char *tmp, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int mg_write_summary(const mg_run *m, const char *json_path, const char *txt_path, char *err, size_t errlen)
{
    spreads api, kern;
    rank_stats *rs = calloc(m->n ? m->n : 1, sizeof *rs);
    if (!rs || build(m, "api", "calls", "cpu_total_ns", &api) < 0) {
        free(rs);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (build(m, "kernels", "launches", "gpu_total_ns", &kern) < 0) {
        free_spreads(&api);
        free(rs);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < m->nmeets; k++) {
        rank_stats *s = &rs[m->meets[k].last_rank];
        s->last++;
        s->late_total += m->meets[k].late_ns;
        s->wait_caused += m->meets[k].wait_ns;
    }
    finding fs[8];
    memset(fs, 0, sizeof fs);
    size_t nf = findings(m, fs, 8);

    /* JSON */
    json_t *ranks = json_array();
    for (size_t j = 0; j < m->n; j++) {
        const mg_rank *r = &m->r[j];
        json_array_append_new(
            ranks, json_pack("{s:i,s:I,s:s,s:I,s:s,s:s,s:s?,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "rank", r->rank,
                             "window", (json_int_t)r->window, "host",
                             r->host, "pid", (json_int_t)r->pid, "program", r->program, "summary",
                             r->summary_path, "trace", r->trace_path, "clock_offset_ns", (json_int_t)r->offset_ns,
                             "wall_ns", (json_int_t)r->wall_ns, "self_cpu_total_ns", (json_int_t)r->self_cpu_ns,
                             "mpi_ns", (json_int_t)r->mpi_ns, "gpu_busy_ns", (json_int_t)r->gpu_busy_ns,
                             "last_arrivals", (json_int_t)rs[j].last, "late_ns", (json_int_t)rs[j].late_total));
    }
    json_t *finds = json_array();
    for (size_t i = 0; i < nf; i++)
        json_array_append_new(finds, json_pack("{s:s,s:s,s:s,s:s,s:o}", "rule", fs[i].rule, "severity",
                                               fs[i].severity, "message", fs[i].message, "advice", fs[i].advice,
                                               "numbers", fs[i].numbers ? fs[i].numbers : json_object()));
    mg_heat heat;
    if (mg_heat_build(m, HEAT_ROWS, HEAT_COLS, &heat) < 0)
        memset(&heat, 0, sizeof heat);
    size_t slow[SLOWEST_SHOWN];
    int nslow = mg_slowest(m, slow, SLOWEST_SHOWN);
    json_t *slowest = json_array();
    for (int k = 0; k < nslow; k++)
        json_array_append_new(slowest, json_pack("{s:i,s:I,s:I}", "rank", m->r[slow[k]].rank, "late_ns",
                                                 (json_int_t)m->r[slow[k]].late_ns, "last_arrivals",
                                                 (json_int_t)rs[slow[k]].last));
    json_t *root = json_pack("{s:s,s:s,s:s,s:s,s:i,s:I,s:{s:s,s:I,s:I},s:I,s:o,s:o,s:o,s:o,s:o,s:o*}", "schema",
                             "cuprof.merged/1", "tool", "cuprof", "name", m->name, "windows", m->window_desc,
                             "world_size", m->world_size,
                             "ranks_found", (json_int_t)m->n, "alignment", "method", m->method, "error_ns",
                             (json_int_t)m->error_ns, "refined_by", (json_int_t)m->refined_by, "meetings",
                             (json_int_t)m->nmeets, "ranks", ranks, "api",
                             spread_rows(m, &api, "calls", "cpu_total_ns"), "kernels",
                             spread_rows(m, &kern, "launches", "gpu_total_ns"), "findings", finds,
                             "slowest_ranks", slowest, "heatmap", heat.nrows ? mg_heat_json(m, &heat) : NULL);
    char tmp[4200];
    int rc = -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", json_path);
    FILE *f = root ? fopen(tmp, "w") : NULL;
    if (f) {
        json_dumpf(root, f, JSON_INDENT(1));
        fputc('\n', f);
        rc = commit(f, tmp, json_path, err, errlen);
    } else {
        snprintf(err, errlen, "cannot write %s: %s", json_path, root ? strerror(errno) : "out of memory");
    }
    json_decref(root);

    /* text */
    snprintf(tmp, sizeof tmp, "%s.tmp", txt_path);
    f = rc == 0 ? fopen(tmp, "w") : NULL;
    if (rc == 0 && !f) {
        snprintf(err, errlen, "cannot write %s: %s", txt_path, strerror(errno));
        rc = -1;
    }
    if (f) {
        char a[32], b[32], c[32], d[32], e[32];
        fprintf(f, "cuprof merged summary: %s, %zu rank%s", m->name, m->n, m->n == 1 ? "" : "s");
        if (m->world_size > 0)
            fprintf(f, " of %d", m->world_size);
        fprintf(f, "\n");
        if (m->window_desc[0])
            fprintf(f, "  windows:       %s\n", m->window_desc);
        fprintf(f, "  clocks:        %s\n", m->method);
        if (m->refined_by)
            fprintf(f, "  clock error:   about %s (half the interquartile range of %zu collectives' ends)\n",
                    cuprof_fmt_time(a, sizeof a, m->error_ns), m->refined_by);
        else
            fprintf(f, "  clock error:   %s%s\n", cuprof_fmt_time(a, sizeof a, m->error_ns),
                    m->error_ns ? " (the drift of CLOCK_REALTIME against CLOCK_MONOTONIC during the run)" : "");
        fprintf(f, "  collectives:   %zu calls matched across ranks\n", m->nmeets);
        int whole = m->all_ranks || m->n <= RANK_TABLE_ALL;
        size_t *show = calloc(m->n ? m->n : 1, sizeof *show), nshow = 0;
        if (show && whole)
            for (size_t j = 0; j < m->n; j++)
                show[nshow++] = j;
        else if (show) {   /* the latest ranks, then the median and the fastest */
            for (int k = 0; k < nslow; k++)
                show[nshow++] = slow[k];
            for (size_t j = 0; j < m->n; j++)
                if (m->r[j].role && (!strcmp(m->r[j].role, "median") || !strcmp(m->r[j].role, "fastest")))
                    show[nshow++] = j;
        }
        if (whole)
            fprintf(f, "\nRanks\n");
        else
            fprintf(f, "\nRanks: the %d latest at the collectives, then the median and the fastest (all %zu in "
                       "summary.json; --all-ranks: the whole table)\n", nslow, m->n);
        fprintf(f, "  %4s  %-16s %8s %12s %12s %12s %12s %10s %12s\n", "Rank", "Host", "Pid",
                any_window(m) ? "Window" : "Wall",
                "Self CPU", "In MPI", "GPU busy", "Last at", "Late total");
        for (size_t q = 0; q < nshow; q++) {
            size_t j = show[q];
            const mg_rank *r = &m->r[j];
            fprintf(f, "  %4d  %-16.16s %8ld %12s %12s %12s %12s %10llu %12s%s%s\n", r->rank,
                    r->host[0] ? r->host : "?", r->pid, cuprof_fmt_time(a, sizeof a, r->wall_ns),
                    cuprof_fmt_time(b, sizeof b, r->self_cpu_ns), cuprof_fmt_time(c, sizeof c, r->mpi_ns),
                    cuprof_fmt_time(d, sizeof d, r->gpu_busy_ns), (unsigned long long)rs[j].last,
                    cuprof_fmt_time(e, sizeof e, rs[j].late_total), !whole && r->role && r->role[0] ? "  " : "",
                    !whole && r->role && r->role[0] ? r->role : "");
        }
        free(show);
        mg_heat_txt(f, m, &heat);
        txt_spreads(f, m, &api, "Calls across ranks (CPU total per rank: min, median, max; the rank with the max)",
                    20);
        txt_spreads(f, m, &kern, "Kernels across ranks (GPU total per rank)", 20);
        fprintf(f, "\nFindings\n");
        if (nf == 0)
            fprintf(f, "  none\n");
        for (size_t i = 0; i < nf; i++)
            fprintf(f, "[%s] %s: %s\n  try: %s\n", fs[i].severity, fs[i].rule, fs[i].message, fs[i].advice);
        rc = commit(f, tmp, txt_path, err, errlen);
    }
    mg_heat_free(&heat);
    free(rs);
    free_spreads(&api);
    free_spreads(&kern);
    return rc;
}
