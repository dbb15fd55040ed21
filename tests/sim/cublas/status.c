/*
 * status.c - names and messages of cublasStatus_t, shared by cuBLAS
 * (cublasGetStatusName/String) and cuBLASLt (cublasLtGetStatusName/String).
 */
#include "simblas.h"

#include <cublas_api.h>

typedef struct status_text {
    int status;         /* cublasStatus_t */
    const char *name;   /* the enumerator's name */
    const char *string; /* what cuBLAS says it means */
} status_text;

static const status_text texts[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "the operation completed successfully"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED",
     "the library was not initialized"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
     "an invalid numeric value was used as an argument"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
     "an absent device architectural feature is required"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR",
     "an access to GPU memory space failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the GPU program failed to execute"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED",
     "the functionality requested is not supported"},
    {CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR",
     "error detected trying to check the license"},
};

static const status_text *find(int status)
{
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].status == status)
            return &texts[i];
    return NULL;
}

const char *simblas_status_name(int status)
{
    const status_text *t = find(status);
    return t != NULL ? t->name : "CUBLAS_STATUS_UNKNOWN";
}

const char *simblas_status_string(int status)
{
    const status_text *t = find(status);
    return t != NULL ? t->string : "unknown error";
}
