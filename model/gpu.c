/*
 * gpu.c - reading the GPU side of a run (see gpu.h): the correlation ->
 * external id map, and the record enums in words.
 */
#include "model/gpu.h"

#include <stdio.h>

uint64_t cuprof_gpu_extmap_find(const cuprof_gpu_extmap *m, size_t n, uint32_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && m[lo].corr == corr ? m[lo].ext : 0;
}

uint64_t cuprof_gpu_ext_of(const cuprof_gpu_run *run, uint32_t corr)
{
    return run ? cuprof_gpu_extmap_find(run->extmap, run->n_extmap, corr) : 0;
}

const char *cuprof_gpu_copy_kind_name(int kind)
{
    static const char *const names[] = {"HtoH", "HtoD", "DtoH", "DtoD", "PtoP", "Other",
                                         "Memset"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "Other";
}

const char *cuprof_gpu_mem_name(int mem)
{
    static const char *const names[] = {"unknown", "pageable", "pinned", "device", "array",
                                        "managed"};
    return mem >= 0 && mem < (int)(sizeof names / sizeof names[0]) ? names[mem] : "unknown";
}

const char *cuprof_gpu_sync_name(int type)
{
    static const char *const names[] = {"sync", "event sync", "stream wait event",
                                        "stream sync", "context sync"};
    return type >= 0 && type < (int)(sizeof names / sizeof names[0]) ? names[type] : "sync";
}

const char *cuprof_gpu_copy_label(const cuprof_gpu_copy *c, char *buf, size_t len)
{
    if (c->kind == CUPROF_GPU_COPY_MEMSET)
        snprintf(buf, len, "Memset (%s)", cuprof_gpu_mem_name(c->dst_mem));
    else
        snprintf(buf, len, "Memcpy %s (%s -> %s)", cuprof_gpu_copy_kind_name(c->kind),
                 cuprof_gpu_mem_name(c->src_mem), cuprof_gpu_mem_name(c->dst_mem));
    return buf;
}
