/*
 * results.c - version, result strings and callback names of the simulated
 * CUPTI. The name tables are generated at build time from the CUDA 13
 * headers (see cupti.mk), so they always match the headers compiled against.
 */
#include <stddef.h>

#include "cupti_sim.h"

/* { CUptiResult value, "CUPTI_ERROR_..." } from cupti_result.h */
static const struct {
    int value;
    const char *name;
} cs_results[] = {
#include "cupti_result_names.inc"
};

/* [cbid] = "cudaLaunchKernel_v7000" from cupti_runtime_cbid.h */
static const char *const cs_runtime_names[CUPTI_RUNTIME_TRACE_CBID_SIZE] = {
#include "cupti_runtime_names.inc"
};

/* [cbid] = "cuLaunchKernelEx" from cupti_driver_cbid.h */
static const char *const cs_driver_names[CUPTI_DRIVER_TRACE_CBID_SIZE] = {
#include "cupti_driver_names.inc"
};

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
    if (version == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

static const char *cs_result_name(CUptiResult result)
{
    for (size_t i = 0; i < sizeof cs_results / sizeof cs_results[0]; i++)
        if (cs_results[i].value == (int)result)
            return cs_results[i].name;
    return NULL;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
    if (str == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    const char *name = cs_result_name(result);
    if (name == NULL) {
        *str = "CUPTI_ERROR_UNKNOWN";
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    }
    *str = name;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetErrorMessage(CUptiResult result, const char **str)
{
    if (str == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    switch (result) {
    case CUPTI_SUCCESS:
        *str = "No error.";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        *str = "Another CUPTI client is already subscribed; only one subscriber is supported.";
        return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_OPERATION:
        *str = "The operation is not permitted now (for example a timestamp callback "
               "registered after CUDA was initialized).";
        return CUPTI_SUCCESS;
    default:
        return cuptiGetResultString(result, str);
    }
}

const char *cs_runtime_cbid_name(uint32_t cbid)
{
    return cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE ? cs_runtime_names[cbid] : NULL;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char **name)
{
    if (name == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    const char *n;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        n = cs_runtime_cbid_name(cbid);
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        n = cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? cs_driver_names[cbid] : NULL;
    else
        return cs_error(CUPTI_ERROR_NOT_SUPPORTED); /* no other API domain is simulated */
    if (n == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *name = n;
    return CUPTI_SUCCESS;
}
