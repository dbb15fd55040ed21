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

static size_t ptr_slot(const char *p, size_t cap)
{
    return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* raw -> display in the pointer table; -1 when it cannot grow. */
static int ptr_put(cuprof_names *nm, const char *raw, const char *display)
{
    if ((nm->nptr + 1) * 2 > nm->pcap) {
        size_t cap = nm->pcap ? nm->pcap * 2 : 64;
        const char **k = calloc(cap, sizeof *k), **v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return -1;
        }
        for (size_t i = 0; i < nm->pcap; i++)
            if (nm->pkey[i]) {
                size_t j = ptr_slot(nm->pkey[i], cap);
                while (k[j])
                    j = (j + 1) & (cap - 1);
                k[j] = nm->pkey[i], v[j] = nm->pval[i];
            }
        free(nm->pkey);
        free(nm->pval);
        nm->pkey = k, nm->pval = v, nm->pcap = cap;
    }
    size_t j = ptr_slot(raw, nm->pcap);
    while (nm->pkey[j] && nm->pkey[j] != raw)
        j = (j + 1) & (nm->pcap - 1);
    if (!nm->pkey[j])
        nm->nptr++;
    nm->pkey[j] = raw, nm->pval[j] = display;
    return 0;
}

/* raw's display form in the pointer table, NULL when raw is not there. */
static const char *ptr_get(const cuprof_names *nm, const char *raw)
{
    if (!nm || !nm->pcap || !raw)
        return NULL;
    for (size_t j = ptr_slot(raw, nm->pcap); nm->pkey[j]; j = (j + 1) & (nm->pcap - 1))
        if (nm->pkey[j] == raw)
            return nm->pval[j];
    return NULL;
}

const char *cuprof_names_gpu(const cuprof_names *nm, const char *raw)
{
    const char *d = ptr_get(nm, raw);
    return d ? d : raw;
}

int cuprof_names_build(cuprof_names *nm, const cuprof_run *run, const cuprof_gpu_run *gpu,
                       cuprof_demangle_fn demangle)
{
    memset(nm, 0, sizeof *nm);
    uint32_t nk = run->kernel_names ? run->nkernels : 0;
    size_t ng = gpu ? gpu->n_kernels : 0;
    nm->kernel = calloc((size_t)nk + 1, sizeof *nm->kernel);
    unsigned char *used = calloc((size_t)nk + 1, 1);
    if (!nm->kernel || !used) {
        free(used);
        cuprof_names_destroy(nm);
        return -1;
    }
    nm->nkernels = nk;
    nm->ngpu_kernels = ng;
    /* Only the ids some event uses are demangled: a large program (PyTorch)
     * registers many thousands of kernels and launches a few. */
    if (run->kernels_used)   /* the reader's: no pass over the calls */
        memcpy(used, run->kernels_used, (size_t)nk + 1);
    for (size_t t = 0; !run->kernels_used && t < run->nthreads; t++) {
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
        const char *raw = gpu->kernels[i].name;
        if ((i && raw == gpu->kernels[i - 1].name) || ptr_get(nm, raw))
            continue;   /* the same kernel again (records' names come interned) */
        const char *display = intern(nm, raw, demangle);
        if (!display || ptr_put(nm, raw, display) < 0)
            rc = -1;
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
    free(nm->pkey);
    free(nm->pval);
    memset(nm, 0, sizeof *nm);
}

const char *cuprof_names_kernel(const cuprof_names *nm, uint32_t id)
{
    if (id == 0 || id > nm->nkernels || !nm->kernel || !nm->kernel[id])
        return UNKNOWN_KERNEL;
    return nm->kernel[id];
}
