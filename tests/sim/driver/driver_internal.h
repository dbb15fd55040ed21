/*
 * driver_internal.h - what the simulated libcuda.so.1's files share: the
 * export attribute and the traced-call bracket (CUPTI's driver domain).
 */
#ifndef CUSIM_DRIVER_INTERNAL_H
#define CUSIM_DRIVER_INTERNAL_H

#include "cusim.h"

#include <cuda.h>
#undef cuGetProcAddress
#include <cupti_driver_cbid.h>

#define DRV_EXPORT __attribute__((visibility("default")))

/* Opens the traced driver call `name` (its cbid CUPTI_DRIVER_TRACE_CBID_<cbid>)
 * as drv_call_; sym: a launch's kernel name, else NULL. */
#define DRV_CALL(cbid, name, sym)                                                            \
    cusim_init();                                                                            \
    cusim_api_call drv_call_;                                                                \
    cusim_api_begin_driver(&drv_call_, CUPTI_DRIVER_TRACE_CBID_##cbid, name, NULL, sym)
/* Closes it with r and returns r. */
#define DRV_RETURN(r)                                                                        \
    do {                                                                                     \
        CUresult drv_r_ = (r);                                                               \
        cusim_api_end(&drv_call_, (int)drv_r_);                                              \
        return drv_r_;                                                                       \
    } while (0)

#define MODULE_MAGIC 0x4d4f444cu /* "MODL" */
#define FUNC_MAGIC 0x46554e43u   /* "FUNC" */

/* A kernel of a loaded module (cuda_driver_module.c); launched by cuda_driver.c. */
typedef struct drv_func {
    uint32_t magic;   /* FUNC_MAGIC while its module is loaded */
    char *name;       /* the device name, owned */
    int registers;    /* per thread, for the occupancy checks */
} drv_func;

/* The name and message of a CUresult (cuda_driver_errors.c), NULL when it is none. */
const char *drv_error_name(CUresult e);
const char *drv_error_string(CUresult e);

#endif /* CUSIM_DRIVER_INTERNAL_H */
