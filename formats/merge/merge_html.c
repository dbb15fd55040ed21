/*
 * merge_html.c - NAME.merged.report.html (prof.sh merge --html): the job
 * as one self-contained page (formats/html/merged.js): each rank's step
 * times and its waits in the collectives, the ranks side by side, the
 * straggler and the spread of every kernel and call across ranks.
 *
 * The page's data: {"merged": NAME.merged.summary.json's object, "ranks":
 * [{"rank", "steps": [[start ns from the job's first step, host duration,
 * GPU busy ns], ...], "waits": [ns the rank waited in each group of
 * meetings]}], "meetings_per_point": k}: a rank's wait in a meeting is the
 * last arrival minus its own; the meetings are summed k at a time so that a
 * long job gives at most MAX_POINTS points per rank. Past LINES_UPTO ranks
 * "ranks" is [] and "heat" (merge.h's mg_heat as JSON, up to HEAT_ROWS x
 * HEAT_COLS cells) carries the rank x step view instead.
 */
#include "formats/html_page.h"
#include "formats/merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 1000
/* Past this many ranks (and without --all-ranks) the page draws heatmaps,
 * not a line a rank: at most HEAT_ROWS x HEAT_COLS cells. */
#define LINES_UPTO 16
#define HEAT_ROWS 256
#define HEAT_COLS 200

/* The first aligned step start of any rank (UINT64_MAX when none). */
static uint64_t first_step(const mg_run *m)
{
    uint64_t t0 = UINT64_MAX;
    for (size_t j = 0; j < m->n; j++) {
        json_t *st = json_array_get(json_object_get(m->r[j].summary, "step_list"), 0);
        if (st) {
            uint64_t t = (uint64_t)((int64_t)json_integer_value(json_object_get(st, "start_ns")) + m->r[j].offset_ns);
            if (t < t0)
                t0 = t;
        }
    }
    return t0;
}

static char *page_data(const mg_run *m, const char *summary_path, size_t *len)
{
    json_t *merged = json_load_file(summary_path, 0, NULL);
    if (!merged)
        return NULL;
    size_t per = m->nmeets > MAX_POINTS ? (m->nmeets + MAX_POINTS - 1) / MAX_POINTS : 1;
    uint64_t t0 = first_step(m);
    json_t *ranks = json_array(), *heat = NULL;
    int lines = m->all_ranks || m->n <= LINES_UPTO;
    mg_heat h;
    if (!lines && mg_heat_build(m, HEAT_ROWS, HEAT_COLS, &h) == 0) {
        heat = h.nrows ? mg_heat_json(m, &h) : NULL;
        mg_heat_free(&h);
    }
    for (size_t j = 0; lines && ranks && j < m->n; j++) {
        json_t *steps = json_array(), *waits = json_array(), *st;
        size_t i;
        json_array_foreach(json_object_get(m->r[j].summary, "step_list"), i, st) {
            int64_t start = (int64_t)json_integer_value(json_object_get(st, "start_ns")) + m->r[j].offset_ns;
            json_array_append_new(steps, json_pack("[I,I,I]", (json_int_t)(start - (int64_t)t0),
                                                   json_integer_value(json_object_get(st, "dur_ns")),
                                                   json_integer_value(json_object_get(st, "busy_ns"))));
        }
        for (size_t k = 0; k < m->nmeets; k += per) {
            uint64_t sum = 0;
            for (size_t q = k; q < k + per && q < m->nmeets; q++) {
                const mg_meet *mt = &m->meets[q];
                uint64_t last = mt->arrival[mt->last_rank], own = mt->arrival[j];
                sum += last > own ? last - own : 0;
            }
            json_array_append_new(waits, json_integer((json_int_t)sum));
        }
        json_array_append_new(ranks, json_pack("{s:i,s:o,s:o}", "rank", m->r[j].rank, "steps", steps, "waits", waits));
    }
    json_t *root = json_pack("{s:o,s:o,s:I,s:o*}", "merged", merged, "ranks", ranks, "meetings_per_point",
                             (json_int_t)per, "heat", heat);
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    *len = text ? strlen(text) : 0;
    return text;
}

int mg_write_html(const mg_run *m, const char *summary_path, const char *html_path, char *err, size_t errlen)
{
    size_t len;
    char *data = page_data(m, summary_path, &len);
    if (!data) {
        snprintf(err, errlen, "cannot read %s back for the page (out of memory?)", summary_path);
        return -1;
    }
    char title[300];
    snprintf(title, sizeof title, "cuprof merge: %s, %zu rank%s", m->name, m->n, m->n == 1 ? "" : "s");
    int rc = cuprof_html_page_file(html_path, CUPROF_HTML_MERGED, title, data, len, err, errlen);
    free(data);
    return rc;
}
