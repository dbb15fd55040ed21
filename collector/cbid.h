/*
 * cbid.h - CUPTI's runtime- and driver-API callback ids: their names and
 * which ones launch work. Constant tables, generated from the toolkit's
 * headers (model/model.mk), so a newer CUDA brings its new ids without a
 * code change. The collector names its CUPTI records with these; the model
 * and the writers read the names from the records.
 */
#ifndef CUPROF_CBID_H
#define CUPROF_CBID_H

#include <stdint.h>

/* Runtime-API id: the name without the CUPTI_RUNTIME_TRACE_CBID_ prefix and
 * the _vNNNNN suffix ("cudaLaunchKernel_ptsz", "__cudaLaunchKernel"); NULL
 * for an id this build does not know. Static storage. */
const char *cuprof_cbid_runtime_name(uint32_t cbid);

/* 1 if the runtime call launches device work with the call's correlation id
 * (kernel launches of every flavour, ptsz, ExC, cooperative, CUDA 13's
 * __cudaLaunchKernel 505/506, graph launches), else 0. The writers draw
 * launch -> kernel arrows for these. */
int cuprof_cbid_runtime_is_launch(uint32_t cbid);

/* Driver-API id (CUPTI_DRIVER_TRACE_CBID_*): the name ("cuLaunchKernelEx"),
 * or NULL when unknown. Static storage. */
const char *cuprof_cbid_driver_name(uint32_t cbid);

/* 1 for driver calls that launch kernels with their correlation id
 * (cuLaunchKernel[Ex][_ptsz], cooperative, graph launches). cuBLAS 13
 * launches its GEMMs with cuLaunchKernelEx, so these are how its kernels
 * reach the call that caused them. */
int cuprof_cbid_driver_is_launch(uint32_t cbid);

/* 1 for the driver calls worth a record (launches, cuMemcpy*, cuMemset*). */
int cuprof_cbid_driver_kept(uint32_t cbid);

#endif /* CUPROF_CBID_H */
