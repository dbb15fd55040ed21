/*
 * cuda_driver_errors.c - cuGetErrorName and cuGetErrorString: every CUresult
 * of the toolkit's cuda.h by name (build/sim/driver/errnames.h, generated
 * from the header), and the messages the real driver gives for the common
 * ones; the others' message is their name. An unknown code is
 * CUDA_ERROR_INVALID_VALUE with *str set to NULL, as the driver does.
 */
#include "driver_internal.h"

#include <stddef.h>

static const struct {
    CUresult code;
    const char *name;
} names[] = {
#define X(n) {n, #n},
#include "errnames.h"
#undef X
};

static const struct {
    CUresult code;
    const char *text;
} texts[] = {
    {CUDA_SUCCESS, "no error"},
    {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "device not ready"},
    {CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"},
    {CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNKNOWN, "unknown error"},
};

const char *drv_error_name(CUresult e)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == e)
            return names[i].name;
    return NULL;
}

const char *drv_error_string(CUresult e)
{
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].code == e)
            return texts[i].text;
    return drv_error_name(e);
}

DRV_EXPORT CUresult cuGetErrorName(CUresult error, const char **str)
{
    DRV_CALL(cuGetErrorName, "cuGetErrorName", NULL);
    if (str == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *str = drv_error_name(error);
    DRV_RETURN(*str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

DRV_EXPORT CUresult cuGetErrorString(CUresult error, const char **str)
{
    DRV_CALL(cuGetErrorString, "cuGetErrorString", NULL);
    if (str == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *str = drv_error_string(error);
    DRV_RETURN(*str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
