/*
 * cupti_cbid.c - runtime- and driver-API callback ids: names and which ones
 * launch work.
 *
 * The name tables are generated at build time from the toolkit's own
 * <cupti_runtime_cbid.h> and <cupti_driver_cbid.h> (collector/cupti.mk): each
 * CUPTI_RUNTIME_TRACE_CBID_<name>_v<NNNNN> = <id> (CUPTI_DRIVER_TRACE_CBID_<name>
 * = <id>) becomes [<id>] = "<name>", so a newer toolkit brings its new ids
 * without a code change.
 */
#include <stdio.h>
#include <string.h>

#include "cupti_int.h"

static const char *const cbid_names[] = {
#include "cupti_cbid_names.inc"
};

#define N_CBID_NAMES (sizeof cbid_names / sizeof cbid_names[0])

/* The same for the driver API, from <cupti_driver_cbid.h>. */
static const char *const driver_names[] = {
#include "cupti_driver_names.inc"
};

#define N_DRIVER_NAMES (sizeof driver_names / sizeof driver_names[0])

/* names[cbid] of a generated table, or a stable name of its own for an id
 * the table lacks ("<prefix><id>"): 16 rotating slots keep a returned
 * pointer valid long enough for a caller that copies it. */
static const char *table_name(const char *const *names, size_t n, uint32_t cbid,
                              const char *prefix)
{
    static char unknown[16][32];
    static unsigned slot;

    if (cbid < n && names[cbid] != NULL)
        return names[cbid];
    char *s = unknown[__atomic_fetch_add(&slot, 1, __ATOMIC_RELAXED) % 16];
    snprintf(s, sizeof unknown[0], "%s%u", prefix, cbid);
    return s;
}

const char *cuprof_cupti_cbid_name(uint32_t cbid)
{
    return table_name(cbid_names, N_CBID_NAMES, cbid, "cbid_");
}

const char *cuprof_cupti_driver_cbid_name(uint32_t cbid)
{
    return table_name(driver_names, N_DRIVER_NAMES, cbid, "driver_cbid_");
}

int cuprof_cupti_cbid_is_launch(uint32_t cbid)
{
    /* Every call whose correlation id the kernels it starts carry. Listed by
     * constant, so a renamed id breaks the build instead of the arrows.
     * cudaLaunchHostFunc is left out: it runs a host function, no kernel. */
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    /* CUDA 13: what nvcc's <<<>>> lowers to; some profilers miss these. */
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
        return 1;
    default:
        return 0;
    }
}

int cuprof_cupti_driver_cbid_is_launch(uint32_t cbid)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        return 1;
    default:
        return 0;
    }
}

int cuprof_cupti_driver_cbid_kept(uint32_t cbid)
{
    /* Launches, copies and memsets: the driver calls that put work on the
     * device. The rest (cuGetProcAddress, attribute queries: hundreds per
     * cuBLAS handle) would only crowd the lane under the library call. */
    if (cuprof_cupti_driver_cbid_is_launch(cbid))
        return 1;
    const char *n = cbid < N_DRIVER_NAMES ? driver_names[cbid] : NULL;
    return n != NULL && (strncmp(n, "cuMemcpy", 8) == 0 || strncmp(n, "cuMemset", 8) == 0);
}
