/*
 * blas_data.c - cuBLAS's helpers that move matrices and vectors between host
 * and device: cublasSet/GetVector, cublasSet/GetMatrix, their Async forms and
 * the _64 variants of all eight.
 *
 * They are strided copies: a matrix is `cols` columns of `rows * elemSize`
 * bytes, lda / ldb elements apart; a vector is n elements of elemSize bytes,
 * incx / incy elements apart. The simulated library does each as one traced
 * cudaMemcpy2D (blocking, legacy default stream) or cudaMemcpy2DAsync (on the
 * given stream) made through the driver directly, as the real cuBLAS calls its
 * own static cudart: CUPTI sees the runtime call and its memcpy record, an
 * LD_PRELOAD hook on cudaMemcpy2D does not. The bytes move for real. The
 * argument checks and status codes are cuBLAS's (docs: "cublasSetMatrix()").
 */
#include "cublas_handle.h"

#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#define EXPORT __attribute__((visibility("default")))

/* One strided copy: `height` runs of `width` bytes. */
static cublasStatus_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                             size_t width, size_t height, int kind, cudaStream_t stream, int async)
{
    cusim_api_call c;
    cusim_stream *s;
    cusim_init();
    if (async)
        cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, "cudaMemcpy2DAsync",
                        &(cudaMemcpy2DAsync_v3020_params){dst, dpitch, src, spitch, width, height,
                                                          (enum cudaMemcpyKind)kind, stream});
    else
        cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, "cudaMemcpy2D",
                        &(cudaMemcpy2D_v3020_params){dst, dpitch, src, spitch, width, height,
                                                     (enum cudaMemcpyKind)kind});
    s = cusim_stream_get(async ? stream : NULL, 0);
    if (s == NULL) {
        cusim_api_end(&c, cudaErrorInvalidResourceHandle);
        return CUBLAS_STATUS_MAPPING_ERROR;
    }
    if (width != 0 && height != 0)
        cusim_memcpy2d(s, dst, dpitch, src, spitch, width, height, kind, !async,
                       cusim_current_correlation());
    cusim_api_end(&c, cudaSuccess);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t vector(int64_t n, int64_t elem, const void *x, int64_t incx, void *y,
                             int64_t incy, int kind, cudaStream_t stream, int async)
{
    if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (x == NULL || y == NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(y, (size_t)(incy * elem), x, (size_t)(incx * elem), (size_t)elem, (size_t)n,
                  kind, stream, async);
}

static cublasStatus_t matrix(int64_t rows, int64_t cols, int64_t elem, const void *a,
                             int64_t lda, void *b, int64_t ldb, int kind, cudaStream_t stream,
                             int async)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (rows > 0 && cols > 0 && (a == NULL || b == NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(b, (size_t)(ldb * elem), a, (size_t)(lda * elem), (size_t)(rows * elem),
                  (size_t)cols, kind, stream, async);
}

#define VECTOR(NAME, I, KIND, SRC, DST)                                                           \
    EXPORT cublasStatus_t NAME(I n, I elemSize, const void *SRC, I incx, void *DST, I incy)       \
    {                                                                                             \
        return vector(n, elemSize, SRC, incx, DST, incy, KIND, NULL, 0);                          \
    }
#define VECTOR_ASYNC(NAME, I, KIND, SRC, DST)                                                     \
    EXPORT cublasStatus_t NAME(I n, I elemSize, const void *SRC, I incx, void *DST, I incy,       \
                               cudaStream_t stream)                                               \
    {                                                                                             \
        return vector(n, elemSize, SRC, incx, DST, incy, KIND, stream, 1);                        \
    }
#define MATRIX(NAME, I, KIND)                                                                     \
    EXPORT cublasStatus_t NAME(I rows, I cols, I elemSize, const void *A, I lda, void *B, I ldb)  \
    {                                                                                             \
        return matrix(rows, cols, elemSize, A, lda, B, ldb, KIND, NULL, 0);                       \
    }
#define MATRIX_ASYNC(NAME, I, KIND)                                                               \
    EXPORT cublasStatus_t NAME(I rows, I cols, I elemSize, const void *A, I lda, void *B, I ldb,  \
                               cudaStream_t stream)                                               \
    {                                                                                             \
        return matrix(rows, cols, elemSize, A, lda, B, ldb, KIND, stream, 1);                     \
    }

VECTOR(cublasSetVector, int, cudaMemcpyHostToDevice, x, devicePtr)
VECTOR(cublasSetVector_64, int64_t, cudaMemcpyHostToDevice, x, devicePtr)
VECTOR(cublasGetVector, int, cudaMemcpyDeviceToHost, x, y)
VECTOR(cublasGetVector_64, int64_t, cudaMemcpyDeviceToHost, x, y)
VECTOR_ASYNC(cublasSetVectorAsync, int, cudaMemcpyHostToDevice, hostPtr, devicePtr)
VECTOR_ASYNC(cublasSetVectorAsync_64, int64_t, cudaMemcpyHostToDevice, hostPtr, devicePtr)
VECTOR_ASYNC(cublasGetVectorAsync, int, cudaMemcpyDeviceToHost, devicePtr, hostPtr)
VECTOR_ASYNC(cublasGetVectorAsync_64, int64_t, cudaMemcpyDeviceToHost, devicePtr, hostPtr)
MATRIX(cublasSetMatrix, int, cudaMemcpyHostToDevice)
MATRIX(cublasSetMatrix_64, int64_t, cudaMemcpyHostToDevice)
MATRIX(cublasGetMatrix, int, cudaMemcpyDeviceToHost)
MATRIX(cublasGetMatrix_64, int64_t, cudaMemcpyDeviceToHost)
MATRIX_ASYNC(cublasSetMatrixAsync, int, cudaMemcpyHostToDevice)
MATRIX_ASYNC(cublasSetMatrixAsync_64, int64_t, cudaMemcpyHostToDevice)
MATRIX_ASYNC(cublasGetMatrixAsync, int, cudaMemcpyDeviceToHost)
MATRIX_ASYNC(cublasGetMatrixAsync_64, int64_t, cudaMemcpyDeviceToHost)
