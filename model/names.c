/*
 * names.c - kernel names demangled once and interned (see names.h).
 */
#include "model/names.h"

#include <stdlib.h>
#include <string.h>

static const char UNKNOWN_KERNEL[] = "(unknown kernel)";

/* FNV-1a of a string. */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int grow(cuprof_names *nm)
{
    size_t cap = nm->cap ? nm->cap * 2 : 256;
    cuprof_name_entry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < nm->cap; i++) {
        if (!nm->entries[i].raw)
            continue;
        size_t j = hash_str(nm->entries[i].raw) & (cap - 1);
        while (e[j].raw)
            j = (j + 1) & (cap - 1);
        e[j] = nm->entries[i];
    }
    free(nm->entries);
    nm->entries = e;
    nm->cap = cap;
    return 0;
}

/* The display form of raw, demangled the first time raw is seen; NULL on
 * out of memory. */
static const char *intern(cuprof_names *nm, const char *raw, cuprof_demangle_fn demangle)
{
    if ((nm->nentries + 1) * 2 > nm->cap && grow(nm) < 0)
        return NULL;
    size_t j = hash_str(raw) & (nm->cap - 1);
    while (nm->entries[j].raw) {
        if (nm->entries[j].raw == raw || !strcmp(nm->entries[j].raw, raw))
            return nm->entries[j].display;
        j = (j + 1) & (nm->cap - 1);
    }
    cuprof_name_entry *e = &nm->entries[j];
    e->raw = raw;
    e->owned = demangle && !strncmp(raw, "_Z", 2) ? demangle(raw) : NULL;
    e->display = e->owned ? e->owned : raw;
    nm->nentries++;
    return e->display;
}

int cuprof_names_build(cuprof_names *nm, const cuprof_run *run, const cuprof_gpu_run *gpu,
                       cuprof_demangle_fn demangle)
{
    memset(nm, 0, sizeof *nm);
    uint32_t nk = run->kernel_names ? run->nkernels : 0;
    size_t ng = gpu ? gpu->n_kernels : 0;
    nm->kernel = calloc((size_t)nk + 1, sizeof *nm->kernel);
    nm->gpu_kernel = calloc(ng ? ng : 1, sizeof *nm->gpu_kernel);
    unsigned char *used = calloc((size_t)nk + 1, 1);
    if (!nm->kernel || !nm->gpu_kernel || !used) {
        free(used);
        cuprof_names_destroy(nm);
        return -1;
    }
    nm->nkernels = nk;
    nm->ngpu_kernels = ng;
    /* Only the ids some event uses are demangled: a large program (PyTorch)
     * registers many thousands of kernels and launches a few. */
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            uint32_t id = ev->cls == CUPROF_EV_LAUNCH ? ev->a.launch.kernel
                        : ev->cls == CUPROF_EV_OCCUPANCY ? ev->a.occ.kernel : 0;
            if (id <= nk)
                used[id] = 1;
        }
    }
    nm->kernel[0] = UNKNOWN_KERNEL;
    int rc = 0;
    for (uint32_t id = 1; id <= nk; id++) {
        const char *raw = run->kernel_names[id];
        if (!raw)
            nm->kernel[id] = UNKNOWN_KERNEL;
        else if (!used[id])
            nm->kernel[id] = raw;
        else if (!(nm->kernel[id] = intern(nm, raw, demangle)))
            rc = -1, nm->kernel[id] = raw;
    }
    for (size_t i = 0; i < ng; i++) {
        if (i && gpu->kernels[i].name == gpu->kernels[i - 1].name) {
            /* the same kernel again (records' names come interned): no hash */
            nm->gpu_kernel[i] = nm->gpu_kernel[i - 1];
            continue;
        }
        if (!(nm->gpu_kernel[i] = intern(nm, gpu->kernels[i].name, demangle)))
            rc = -1, nm->gpu_kernel[i] = gpu->kernels[i].name;
    }
    free(used);
    return rc;
}

void cuprof_names_destroy(cuprof_names *nm)
{
    for (size_t i = 0; nm->entries && i < nm->cap; i++)
        free(nm->entries[i].owned);
    free(nm->entries);
    free(nm->kernel);
    free(nm->gpu_kernel);
    memset(nm, 0, sizeof *nm);
}

const char *cuprof_names_kernel(const cuprof_names *nm, uint32_t id)
{
    if (id == 0 || id > nm->nkernels || !nm->kernel || !nm->kernel[id])
        return UNKNOWN_KERNEL;
    return nm->kernel[id];
}
