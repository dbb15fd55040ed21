/* capture.c - see capture.h. */
#include "model/capture.h"

#include <stdlib.h>
#include <string.h>

/* Keeps the device record (corr, ext, start) by capture.h's rules. */
static int keep_device(const cuprof_run *run, const cuprof_timeline *tl, const char *keep_api,
                       uint32_t corr, uint64_t ext, uint64_t start)
{
    const cuprof_gpu_api *a = cuprof_timeline_api(tl, corr);
    if (a)
        return keep_api[a - tl->gpu->apis];
    if (ext)
        return cuprof_run_find_event(run, ext, NULL) != NULL;
    return cuprof_capture_contains(&run->capture, start);
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
    CLIP(kernels, g->kernels, g->n_kernels, c->n_kernels,
         keep_device(run, tl, keep_api, g->kernels[i].corr, g->kernels[i].ext,
                     g->kernels[i].start_ns));
    CLIP(copies, g->copies, g->n_copies, c->n_copies,
         keep_device(run, tl, keep_api, g->copies[i].corr, g->copies[i].ext,
                     g->copies[i].start_ns));
    CLIP(syncs, g->syncs, g->n_syncs, c->n_syncs,
         keep_device(run, tl, keep_api, g->syncs[i].corr, g->syncs[i].ext,
                     g->syncs[i].start_ns));
    free(keep_api);
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
