/*
 * cbid.c - see cbid.h. The name tables are generated at build time from the
 * toolkit's own <cupti_runtime_cbid.h> and <cupti_driver_cbid.h>
 * (model/model.mk): each
 * CUPTI_RUNTIME_TRACE_CBID_<name>_v<NNNNN> = <id> (CUPTI_DRIVER_TRACE_CBID_<name>
 * = <id>) becomes [<id>] = "<name>", so a newer toolkit brings its new ids
 * without a code change.
 */
#include "collector/cbid.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <string.h>

static const char *const cbid_names[] = {
#include "cbid_runtime_names.inc"
};

#define N_CBID_NAMES (sizeof cbid_names / sizeof cbid_names[0])

/* The same for the driver API, from <cupti_driver_cbid.h>. */
static const char *const driver_names[] = {
#include "cbid_driver_names.inc"
};

#define N_DRIVER_NAMES (sizeof driver_names / sizeof driver_names[0])

const char *cuprof_cbid_runtime_name(uint32_t cbid)
{
    return cbid < N_CBID_NAMES ? cbid_names[cbid] : NULL;
}

const char *cuprof_cbid_driver_name(uint32_t cbid)
{
    return cbid < N_DRIVER_NAMES ? driver_names[cbid] : NULL;
}

int cuprof_cbid_runtime_is_launch(uint32_t cbid)
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

int cuprof_cbid_driver_is_launch(uint32_t cbid)
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

int cuprof_cbid_driver_kept(uint32_t cbid)
{
    /* Launches, copies and memsets: the driver calls that put work on the
     * device. The rest (cuGetProcAddress, attribute queries: hundreds per
     * cuBLAS handle) would only crowd the lane under the library call. */
    if (cuprof_cbid_driver_is_launch(cbid))
        return 1;
    const char *n = cbid < N_DRIVER_NAMES ? driver_names[cbid] : NULL;
    return n != NULL && (strncmp(n, "cuMemcpy", 8) == 0 || strncmp(n, "cuMemset", 8) == 0);
}
