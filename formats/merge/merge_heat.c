/*
 * merge_heat.c - the rank x step heatmap (merge.h, mg_heat_build): each
 * rank's step times and the time it waited in the collectives in each
 * step, the view that stays readable at a thousand ranks (the merged
 * summary's and page's).
 *
 * A rank's steps are its step_list rows in order (step 1 = its first step
 * in the merged files: with prof.sh trigger --job, the same step number on
 * every rank). A rank waits in a meeting from its own arrival to the last
 * one's; the wait goes to the step whose span (aligned) holds its arrival.
 * Cells of several ranks or steps (past max_rows or max_cols): the step
 * time is the slowest rank's (its steps' mean), the wait the least any of
 * its ranks waited (its steps' mean: the straggler is the rank that waits
 * least, and a mean or a max over 32 ranks would hide it).
 */
#include "formats/merge/merge.h"
#include "formats/units.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* Rank j's step s: aligned start and duration; 0 when it has no such step. */
static int step_of(const mg_rank *r, size_t s, int64_t *start, uint64_t *dur)
{
    json_t *st = json_array_get(json_object_get(r->summary, "step_list"), s);
    if (!st)
        return 0;
    *start = (int64_t)json_integer_value(json_object_get(st, "start_ns")) + r->offset_ns;
    *dur = (uint64_t)json_integer_value(json_object_get(st, "dur_ns"));
    return 1;
}

int mg_heat_build(const mg_run *m, size_t max_rows, size_t max_cols, mg_heat *h)
{
    memset(h, 0, sizeof *h);
    size_t nsteps = 0;
    for (size_t j = 0; j < m->n; j++) {
        size_t k = json_array_size(json_object_get(m->r[j].summary, "step_list"));
        nsteps = k > nsteps ? k : nsteps;
    }
    if (!m->n || !nsteps || !max_rows || !max_cols)
        return 0;
    h->ranks_per_row = (m->n + max_rows - 1) / max_rows;
    h->steps_per_col = (nsteps + max_cols - 1) / max_cols;
    h->nrows = (m->n + h->ranks_per_row - 1) / h->ranks_per_row;
    h->ncols = (nsteps + h->steps_per_col - 1) / h->steps_per_col;
    h->nsteps = nsteps;
    h->step_ns = calloc(h->nrows * h->ncols, sizeof *h->step_ns);
    h->wait_ns = calloc(h->nrows * h->ncols, sizeof *h->wait_ns);
    uint64_t *dur = calloc(nsteps, sizeof *dur), *wait = calloc(nsteps, sizeof *wait);
    int64_t *start = calloc(nsteps, sizeof *start);
    if (!h->step_ns || !h->wait_ns || !dur || !wait || !start) {
        free(dur);
        free(wait);
        free(start);
        mg_heat_free(h);
        return -1;
    }
    for (size_t j = 0; j < m->n; j++) {
        const mg_rank *r = &m->r[j];
        size_t ns = 0;
        while (ns < nsteps && step_of(r, ns, &start[ns], &dur[ns]))
            ns++;
        memset(wait, 0, nsteps * sizeof *wait);
        /* meetings in arrival order on this rank: walk the steps along */
        for (size_t k = 0, s = 0; k < m->nmeets && ns; k++) {
            const mg_meet *mt = &m->meets[k];
            int64_t own = (int64_t)mt->arrival[j];
            uint64_t last = mt->arrival[mt->last_rank];
            size_t t = s;
            while (t < ns && own >= start[t] + (int64_t)dur[t])
                t++;
            if (t == ns || own < start[t]) {   /* between steps, or out of order: look it up */
                for (t = 0; t < ns && !(own >= start[t] && own < start[t] + (int64_t)dur[t]); t++)
                    ;
                if (t == ns)
                    continue;
            }
            s = t;
            wait[t] += last > (uint64_t)own ? last - (uint64_t)own : 0;
        }
        size_t row = j / h->ranks_per_row;
        for (size_t c = 0; c < h->ncols; c++) {
            uint64_t d = 0, w = 0, n = 0;
            for (size_t s = c * h->steps_per_col; s < (c + 1) * h->steps_per_col && s < ns; s++, n++) {
                d += dur[s];
                w += wait[s];
            }
            if (!n)
                continue;
            uint64_t *cell_d = &h->step_ns[row * h->ncols + c], *cell_w = &h->wait_ns[row * h->ncols + c];
            if (d / n > *cell_d)
                *cell_d = d / n;
            if (j % h->ranks_per_row == 0 || w / n < *cell_w)
                *cell_w = w / n;
        }
    }
    free(dur);
    free(wait);
    free(start);
    return 0;
}

void mg_heat_free(mg_heat *h)
{
    free(h->step_ns);
    free(h->wait_ns);
    memset(h, 0, sizeof *h);
}

/* One heatmap as text: a character a cell, " .:-=+*#%@" from the least to
 * the most. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* from_median: the scale starts at the median cell and spans at least a
 * tenth of it (step times: what stands out, not the noise); else at 0. */
static void txt_one(FILE *f, const mg_run *m, const mg_heat *h, const uint64_t *v, const char *title,
                    int from_median)
{
    static const char shade[] = " .:-=+*#%@";
    size_t nc = h->nrows * h->ncols;
    uint64_t lo = 0, hi = 0, *sorted = malloc(nc * sizeof *sorted);
    for (size_t i = 0; i < nc; i++)
        hi = v[i] > hi ? v[i] : hi;
    if (from_median && sorted) {
        memcpy(sorted, v, nc * sizeof *sorted);
        qsort(sorted, nc, sizeof *sorted, cmp_u64);
        lo = sorted[(nc - 1) / 2];
        if (hi < lo + lo / 10)
            hi = lo + lo / 10;
    }
    free(sorted);
    char a[32], b[32];
    fprintf(f, "\n%s, rank x step (' ' %s .. '@' %s; a row %zu rank%s, a column %zu step%s)\n", title,
            cuprof_fmt_time(a, sizeof a, lo), cuprof_fmt_time(b, sizeof b, hi), h->ranks_per_row,
            h->ranks_per_row == 1 ? "" : "s", h->steps_per_col, h->steps_per_col == 1 ? "" : "s");
    fprintf(f, "  %-11s steps 1..%zu\n", "ranks", h->nsteps);
    for (size_t row = 0; row < h->nrows; row++) {
        size_t j0 = row * h->ranks_per_row, j1 = j0 + h->ranks_per_row - 1;
        if (j1 >= m->n)
            j1 = m->n - 1;
        char label[32];
        if (j0 == j1)
            snprintf(label, sizeof label, "%d", m->r[j0].rank);
        else
            snprintf(label, sizeof label, "%d-%d", m->r[j0].rank, m->r[j1].rank);
        fprintf(f, "  %-11s |", label);
        for (size_t c = 0; c < h->ncols; c++) {
            uint64_t x = v[row * h->ncols + c];
            size_t k = hi > lo && x > lo ? (size_t)((double)(x - lo) * 9.0 / (double)(hi - lo) + 0.5) : 0;
            fputc(shade[k > 9 ? 9 : k], f);
        }
        fputs("|\n", f);
    }
}

void mg_heat_txt(FILE *f, const mg_run *m, const mg_heat *h)
{
    if (!h->nrows)
        return;
    txt_one(f, m, h, h->step_ns, "Step time (a cell: its slowest rank's mean; ' ' the median or less)", 1);
    if (m->nmeets)
        txt_one(f, m, h, h->wait_ns, "Waited in the collectives per step (a cell: the least one of its ranks waited; "
                "the straggler waits least)", 0);
}

json_t *mg_heat_json(const mg_run *m, const mg_heat *h)
{
    json_t *rows = json_array(), *st = json_array(), *wt = json_array();
    for (size_t row = 0; row < h->nrows; row++) {
        json_array_append_new(rows, json_integer(m->r[row * h->ranks_per_row].rank));
        json_t *a = json_array(), *b = json_array();
        for (size_t c = 0; c < h->ncols; c++) {
            json_array_append_new(a, json_integer((json_int_t)h->step_ns[row * h->ncols + c]));
            json_array_append_new(b, json_integer((json_int_t)h->wait_ns[row * h->ncols + c]));
        }
        json_array_append_new(st, a);
        json_array_append_new(wt, b);
    }
    return json_pack("{s:I,s:I,s:I,s:o,s:o,s:o}", "ranks_per_row", (json_int_t)h->ranks_per_row, "steps_per_col",
                     (json_int_t)h->steps_per_col, "steps", (json_int_t)h->nsteps, "rows", rows, "step_ns", st,
                     "wait_ns", wt);
}
