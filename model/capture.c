/* capture.c - see capture.h. */
#include "model/capture.h"

#include <stdlib.h>
#include <string.h>

/* A kernels-only run's matched records: correlation id and the start of
 * the call matched to it, by corr. */
typedef struct anchor {
    uint32_t corr;
    uint64_t t0;
} anchor;

static int cmp_anchor(const void *a, const void *b)
{
    uint32_t x = ((const anchor *)a)->corr, y = ((const anchor *)b)->corr;
    return (x > y) - (x < y);
}

/* The anchors of a kernels-only run, sorted; *n 0 for any other run. -1 on
 * out of memory. */
static int anchors_of(const cuprof_run *run, const cuprof_timeline *tl, anchor **out, size_t *n)
{
    const cuprof_gpu_run *g = tl->gpu;
    *out = NULL;
    *n = 0;
    if (!g->kernels_only)
        return 0;
    anchor *a = malloc((g->n_kernels + g->n_copies + 1) * sizeof *a);
    if (!a)
        return -1;
    for (size_t i = 0; i < g->n_kernels + g->n_copies; i++) {
        int copy = i >= g->n_kernels;
        size_t k = copy ? i - g->n_kernels : i;
        uint64_t h = copy ? tl->copy_hooked[k] : tl->kernel_hooked[k];
        const cuprof_event *ev = h ? cuprof_run_find_event(run, h, NULL) : NULL;
        if (ev)
            a[(*n)++] = (anchor){copy ? g->copies[k].corr : g->kernels[k].corr, ev->t0};
    }
    qsort(a, *n, sizeof *a, cmp_anchor);
    *out = a;
    return 0;
}

/* Keeps the device record (corr) caused by c that began at start, by
 * capture.h's rules. */
static int keep_device(const cuprof_run *run, const cuprof_timeline *tl, const char *keep_api,
                       const anchor *an, size_t nan, cuprof_cause c, uint32_t corr, uint64_t start)
{
    if (c.api != CUPROF_CAUSE_NO_API)
        return keep_api[c.api];
    if (c.hooked)   /* its external id, or the call kmatch.h matched it to */
        return cuprof_run_thread_of(run, c.hooked) != NULL;
    if (!tl->gpu->kernels_only || corr == 0)
        return cuprof_capture_contains(&run->capture, start);
    /* Kernels only, matched to no call: kept when the matched records on
     * both sides of it in CUPTI's order of the calls were made in the same
     * window (a device record may start well after its call). */
    size_t lo = 0, hi = nan;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (an[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || lo == nan)
        return 0;
    long w = cuprof_capture_window(&run->capture, an[lo - 1].t0);
    return w >= 0 && w == cuprof_capture_window(&run->capture, an[lo].t0);
}

/* Copies the elements i of src[n] for which cond holds into a new array
 * dst; kept gets their count. dst is NULL only on out of memory (a zero
 * count gives a non-NULL empty array). */
#define CLIP(dst, src, n, kept, cond)                                                      \
    do {                                                                                   \
        dst = malloc(((n) ? (n) : 1) * sizeof *(src));                                     \
        kept = 0;                                                                          \
        for (size_t i = 0; dst && i < (n); i++)                                            \
            if (cond)                                                                      \
                dst[kept++] = (src)[i];                                                    \
    } while (0)

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the records that are hooked calls themselves, sorted and
 * unique, in *names (NULL with a count of 0 when there are none; -1 on out
 * of memory). */
static long hooked_names(const cuprof_timeline *tl, const char ***names)
{
    const cuprof_gpu_run *g = tl->gpu;
    const char **v = malloc((g->n_apis ? g->n_apis : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < g->n_apis; i++)
        if (tl->api_derived[i] == -1 && tl->api_hooked[i] != 0)
            v[n++] = g->apis[i].name;
    qsort(v, n, sizeof *v, cmp_name);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || strcmp(v[u - 1], v[i]) != 0)
            v[u++] = v[i];
    *names = v;
    return (long)u;
}

cuprof_gpu_run *cuprof_capture_clip(const cuprof_run *run, const cuprof_timeline *tl)
{
    const cuprof_gpu_run *g = tl->gpu;
    cuprof_gpu_run *c = calloc(1, sizeof *c);
    char *keep_api = malloc(g->n_apis ? g->n_apis : 1);
    if (!c || !keep_api) {
        free(c);
        free(keep_api);
        return NULL;
    }
    const char **names = NULL;
    long nnames = hooked_names(tl, &names);
    if (nnames < 0) {
        free(c);
        free(keep_api);
        return NULL;
    }
    *c = *g;
    for (size_t i = 0; i < g->n_apis; i++)
        keep_api[i] = tl->api_hooked[i] != 0 ||
                      (!bsearch(&g->apis[i].name, names, (size_t)nnames, sizeof *names, cmp_name) &&
                       cuprof_capture_contains(&run->capture, g->apis[i].start_ns));
    free(names);
    cuprof_gpu_api *apis;
    cuprof_gpu_kernel *kernels;
    cuprof_gpu_copy *copies;
    cuprof_gpu_sync *syncs;
    CLIP(apis, g->apis, g->n_apis, c->n_apis, keep_api[i]);
    size_t nan = 0;
    anchor *an = NULL;
    int an_rc = anchors_of(run, tl, &an, &nan);
    CLIP(kernels, g->kernels, g->n_kernels, c->n_kernels,
         keep_device(run, tl, keep_api, an, nan, cuprof_kernel_cause(tl, i), g->kernels[i].corr,
                     g->kernels[i].start_ns));
    CLIP(copies, g->copies, g->n_copies, c->n_copies,
         keep_device(run, tl, keep_api, an, nan, cuprof_copy_cause(tl, i), g->copies[i].corr,
                     g->copies[i].start_ns));
    CLIP(syncs, g->syncs, g->n_syncs, c->n_syncs,
         keep_device(run, tl, keep_api, an, nan,
                     cuprof_timeline_cause(tl, g->syncs[i].corr, g->syncs[i].ext),
                     g->syncs[i].corr, g->syncs[i].start_ns));
    free(keep_api);
    if (an_rc < 0) {   /* out of memory: fail below */
        free(kernels);
        kernels = NULL;
    }
    free(an);
    c->apis = apis;
    c->kernels = kernels;
    c->copies = copies;
    c->syncs = syncs;
    if (!apis || !kernels || !copies || !syncs) {
        cuprof_capture_clip_free(c);
        return NULL;
    }
    return c;
}

void cuprof_capture_clip_free(cuprof_gpu_run *g)
{
    if (!g)
        return;
    free((void *)g->apis);
    free((void *)g->kernels);
    free((void *)g->copies);
    free((void *)g->syncs);
    free(g);
}
