/*
 * hooks.h - the one list of interposed entry points, and what every hook
 * needs to reach the real function behind it.
 *
 * PRELOAD_HOOKS is the single source of truth: it declares the real_<name>
 * pointer types, the API ids (event.api), the table registered with the
 * collector (name, category) and the class each hook records. preload/
 * exports.map must name exactly these symbols; tests/unit/test_preload.c
 * checks that, and that `nm -D` of the library agrees.
 *
 * Only preload/ and its tests include this file.
 */
#ifndef CUPROF_PRELOAD_HOOKS_H
#define CUPROF_PRELOAD_HOOKS_H

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cuda.h>
/* cuda.h maps cuGetProcAddress to cuGetProcAddress_v2 (and others to their
 * _v2): the hooks are named by the symbols themselves. */
#undef cuGetProcAddress
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <cudaProfiler.h>
#include <cublas_api.h>
#include <cublasLt.h>
#include <nccl.h>
/* The math libraries' headers mark their legacy API deprecated (cuSPARSE's
 * csrsv2 family...): hooked all the same, a program may still call it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cufftXt.h>
#include <curand.h>
#include <cusparse.h>
#include <cusolverDn.h>
#include <cusolverSp.h>
#include <cusolverRf.h>
#include <cusolverMg.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#pragma GCC diagnostic pop

#include "collector/collector.h"
/* build/preload/: preload/gen_lib_hooks.sh, one list per library */
#include "blas_gen.h"
#include "fft_gen.h"
#include "rand_gen.h"
#include "sparse_gen.h"
#include "solver_gen.h"
#include "driver_gen.h"

/* Which library a real function lives in (see preload_libs in resolve.c). */
enum preload_lib {
    PRELOAD_LIB_CUDART = 0, PRELOAD_LIB_CUBLAS = 1, PRELOAD_LIB_CUBLASLT = 2, PRELOAD_LIB_LIBC = 3,
    PRELOAD_LIB_MPI = 4, PRELOAD_LIB_CUDA = 5, PRELOAD_LIB_NCCL = 6, PRELOAD_LIB_CUFFT = 7,
    PRELOAD_LIB_CURAND = 8, PRELOAD_LIB_CUSPARSE = 9, PRELOAD_LIB_CUSOLVER = 10, PRELOAD_LIB_CUSOLVERMG = 11,
    PRELOAD_N_LIBS = 12,
};

/* MPI's handles (MPI_Comm, MPI_Datatype, MPI_Op) without mpi.h: a pointer in
 * Open MPI, an int in MPICH; either is passed in one integer register on
 * x86-64 and arm64, so an integer of pointer width carries it unchanged to
 * the real function whichever library the program linked. */
typedef uintptr_t preload_mpi_handle;

/* A hook that must not record an event (kernel registration runs thousands of
 * times before main() in big programs and is not a call the user made). */
#define PRELOAD_NO_EVENT 0xff

/* Signatures shared by several entry points (the _ptsz/_ptds variants take
 * exactly the arguments of the plain one). */
#define PRELOAD_SIG_LAUNCH (const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream)
#define PRELOAD_SIG_KLAUNCH (cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream)
#define PRELOAD_SIG_LAUNCHEX (const cudaLaunchConfig_t *config, const void *func, void **args)
#define PRELOAD_SIG_MEMCPY (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
#define PRELOAD_SIG_MEMCPYA (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
#define PRELOAD_SIG_MEMCPY2D (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
#define PRELOAD_SIG_MEMCPY2DA (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
#define PRELOAD_SIG_MEMSET (void *devPtr, int value, size_t count)
#define PRELOAD_SIG_MEMSETA (void *devPtr, int value, size_t count, cudaStream_t stream)
#define PRELOAD_SIG_MEMSET2D (void *devPtr, size_t pitch, int value, size_t width, size_t height)
#define PRELOAD_SIG_MEMSET2DA (void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
#define PRELOAD_SIG_STREAM (cudaStream_t stream)
#define PRELOAD_SIG_WAITEV (cudaStream_t stream, cudaEvent_t event, unsigned int flags)
#define PRELOAD_SIG_EVREC (cudaEvent_t event, cudaStream_t stream)
#define PRELOAD_SIG_EVRECF (cudaEvent_t event, cudaStream_t stream, unsigned int flags)
#define PRELOAD_SIG_MALLOCA (void **devPtr, size_t size, cudaStream_t hStream)
#define PRELOAD_SIG_MALLOCPA (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
#define PRELOAD_SIG_FREEA (void *devPtr, cudaStream_t hStream)
#define PRELOAD_SIG_DEP (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus)
#define PRELOAD_SIG_DEPV (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus)
#define PRELOAD_SIG_GPA (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
#define PRELOAD_SIG_OCC (int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize)
#define PRELOAD_SIG_OCCF (int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
/* cublasHgemm is declared for C++ only (__half); __half* is passed as a
 * pointer, so const void * has the same ABI. */
#define PRELOAD_SIG_SGEMM(I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const float *alpha, const float *A, I lda, const float *B, I ldb, const float *beta, float *C, I ldc)
#define PRELOAD_SIG_HGEMM(I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void *alpha, const void *A, I lda, const void *B, I ldb, const void *beta, void *C, I ldc)
#define PRELOAD_SIG_GEMMEX(I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void *alpha, const void *A, cudaDataType Atype, I lda, const void *B, cudaDataType Btype, I ldb, const void *beta, void *C, cudaDataType Ctype, I ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
#define PRELOAD_SIG_GEMMSB(I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void *alpha, const void *A, cudaDataType Atype, I lda, long long int strideA, const void *B, cudaDataType Btype, I ldb, long long int strideB, const void *beta, void *C, cudaDataType Ctype, I ldc, long long int strideC, I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
#define PRELOAD_SIG_GEMMB(I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const void *alpha, const void *const Aarray[], cudaDataType Atype, I lda, const void *const Barray[], cudaDataType Btype, I ldb, const void *beta, void *const Carray[], cudaDataType Ctype, I ldc, I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
/* The typed GEMMs, element type T (void for H: declared for C++ only, and
 * every operand is passed by pointer, so void * has the same ABI). */
#define PRELOAD_SIG_TGEMM(T, I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc)
#define PRELOAD_SIG_TGEMMSB(T, I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, const T *A, I lda, long long int strideA, const T *B, I ldb, long long int strideB, const T *beta, T *C, I ldc, long long int strideC, I batchCount)
#define PRELOAD_SIG_TGEMMB(T, I) (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, const T *const Aarray[], I lda, const T *const Barray[], I ldb, const T *beta, T *const Carray[], I ldc, I batchCount)
#define PRELOAD_SIG_MPI_GATHERALL (const void *sendbuf, int sendcount, preload_mpi_handle sendtype, void *recvbuf, int recvcount, preload_mpi_handle recvtype, preload_mpi_handle comm)
#define PRELOAD_SIG_MPI_ROOTED (const void *sendbuf, int sendcount, preload_mpi_handle sendtype, void *recvbuf, int recvcount, preload_mpi_handle recvtype, int root, preload_mpi_handle comm)
#define PRELOAD_SIG_LTMATMUL (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)

/* The driver API's (hooks_driver_api.c; cuda.h's parameter names). */
#define PRELOAD_SIG_CU_LAUNCH (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
#define PRELOAD_SIG_CU_LAUNCHCOOP (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
#define PRELOAD_SIG_CU_LAUNCHEX (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
#define PRELOAD_SIG_CU_HTOD (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
#define PRELOAD_SIG_CU_DTOH (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
#define PRELOAD_SIG_CU_DTOD (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
#define PRELOAD_SIG_CU_HTODA (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
#define PRELOAD_SIG_CU_DTOHA (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
#define PRELOAD_SIG_CU_DTODA (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
#define PRELOAD_SIG_CU_2D (const CUDA_MEMCPY2D *pCopy)
#define PRELOAD_SIG_CU_2DA (const CUDA_MEMCPY2D *pCopy, CUstream hStream)
#define PRELOAD_SIG_CU_3D (const CUDA_MEMCPY3D *pCopy)
#define PRELOAD_SIG_CU_3DA (const CUDA_MEMCPY3D *pCopy, CUstream hStream)
#define PRELOAD_SIG_CU_PEER (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount)
#define PRELOAD_SIG_CU_PEERA (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream)
#define PRELOAD_SIG_CU_SET(T) (CUdeviceptr dstDevice, T value, size_t N)
#define PRELOAD_SIG_CU_SETA(T) (CUdeviceptr dstDevice, T value, size_t N, CUstream hStream)
#define PRELOAD_SIG_CU_SET2D(T) (CUdeviceptr dstDevice, size_t dstPitch, T value, size_t Width, size_t Height)
#define PRELOAD_SIG_CU_SET2DA(T) (CUdeviceptr dstDevice, size_t dstPitch, T value, size_t Width, size_t Height, CUstream hStream)
#define PRELOAD_SIG_CU_ALLOCA (CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
#define PRELOAD_SIG_CU_ALLOCPA (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
#define PRELOAD_SIG_CU_FREEA (CUdeviceptr dptr, CUstream hStream)
#define PRELOAD_SIG_CU_STREAM (CUstream hStream)
#define PRELOAD_SIG_CU_EVREC (CUevent hEvent, CUstream hStream)
#define PRELOAD_SIG_CU_EVRECF (CUevent hEvent, CUstream hStream, unsigned int flags)
#define PRELOAD_SIG_CU_WAITEV (CUstream hStream, CUevent hEvent, unsigned int Flags)

/*
 * Every interposed entry point: X(name, library, event class, return type,
 * parameters). The order is the API id order; append, never reorder within a
 * release (ids are only used inside one process, but keep diffs readable).
 */
#define PRELOAD_HOOKS(X) \
    /* kernel launches and the names behind them */ \
    X(cudaLaunchKernel, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCH) \
    X(cudaLaunchKernel_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCH) \
    X(cudaLaunchKernelExC, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCHEX) \
    X(cudaLaunchKernelExC_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCHEX) \
    X(cudaLaunchCooperativeKernel, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCH) \
    X(cudaLaunchCooperativeKernel_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_LAUNCH) \
    X(__cudaLaunchKernel, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_KLAUNCH) \
    X(__cudaLaunchKernel_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_LAUNCH, cudaError_t, PRELOAD_SIG_KLAUNCH) \
    X(__cudaGetKernel, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (cudaKernel_t *kernel, const void *hostFun)) \
    X(__cudaRegisterFunction, PRELOAD_LIB_CUDART, PRELOAD_NO_EVENT, void, \
      (void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit, \
       uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)) \
    X(cudaOccupancyMaxActiveBlocksPerMultiprocessor, PRELOAD_LIB_CUDART, CUPROF_EV_OCCUPANCY, cudaError_t, PRELOAD_SIG_OCC) \
    X(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, PRELOAD_LIB_CUDART, CUPROF_EV_OCCUPANCY, cudaError_t, PRELOAD_SIG_OCCF) \
    /* copies and memsets (_ptds/_ptsz: built with --default-stream per-thread) */ \
    X(cudaMemcpy, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY) \
    X(cudaMemcpy_ptds, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY) \
    X(cudaMemcpyAsync, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPYA) \
    X(cudaMemcpyAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPYA) \
    X(cudaMemcpy2D, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY2D) \
    X(cudaMemcpy2D_ptds, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY2D) \
    X(cudaMemcpy2DAsync, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY2DA) \
    X(cudaMemcpy2DAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_COPY, cudaError_t, PRELOAD_SIG_MEMCPY2DA) \
    X(cudaMemset, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET) \
    X(cudaMemset_ptds, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET) \
    X(cudaMemsetAsync, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSETA) \
    X(cudaMemsetAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSETA) \
    X(cudaMemset2D, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET2D) \
    X(cudaMemset2D_ptds, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET2D) \
    X(cudaMemset2DAsync, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET2DA) \
    X(cudaMemset2DAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_MEMSET, cudaError_t, PRELOAD_SIG_MEMSET2DA) \
    /* allocation */ \
    X(cudaMalloc, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, (void **devPtr, size_t size)) \
    X(cudaFree, PRELOAD_LIB_CUDART, CUPROF_EV_FREE, cudaError_t, (void *devPtr)) \
    X(cudaMallocHost, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, (void **ptr, size_t size)) \
    X(cudaFreeHost, PRELOAD_LIB_CUDART, CUPROF_EV_FREE, cudaError_t, (void *ptr)) \
    X(cudaHostAlloc, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, (void **pHost, size_t size, unsigned int flags)) \
    X(cudaMallocManaged, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, (void **devPtr, size_t size, unsigned int flags)) \
    /* synchronization and events */ \
    X(cudaDeviceSynchronize, PRELOAD_LIB_CUDART, CUPROF_EV_SYNC, cudaError_t, (void)) \
    X(cudaStreamSynchronize, PRELOAD_LIB_CUDART, CUPROF_EV_SYNC, cudaError_t, PRELOAD_SIG_STREAM) \
    X(cudaStreamSynchronize_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_SYNC, cudaError_t, PRELOAD_SIG_STREAM) \
    X(cudaEventSynchronize, PRELOAD_LIB_CUDART, CUPROF_EV_SYNC, cudaError_t, (cudaEvent_t event)) \
    X(cudaStreamWaitEvent, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_WAITEV) \
    X(cudaStreamWaitEvent_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_WAITEV) \
    X(cudaEventRecord, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_EVREC) \
    X(cudaEventRecord_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_EVREC) \
    X(cudaEventRecordWithFlags, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_EVRECF) \
    X(cudaEventRecordWithFlags_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_EVENT, cudaError_t, PRELOAD_SIG_EVRECF) \
    X(cudaProfilerStart, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (void)) \
    X(cudaProfilerStop, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (void)) \
    /* cuBLAS GEMMs (the exported names: cublasSgemm is #defined to cublasSgemm_v2) */ \
    X(cublasSgemm_v2, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_SGEMM(int)) \
    X(cublasSgemm_v2_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_SGEMM(int64_t)) \
    X(cublasHgemm, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_HGEMM(int)) \
    X(cublasHgemm_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_HGEMM(int64_t)) \
    X(cublasGemmEx, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMEX(int)) \
    X(cublasGemmEx_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMEX(int64_t)) \
    X(cublasGemmStridedBatchedEx, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMSB(int)) \
    X(cublasGemmStridedBatchedEx_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMSB(int64_t)) \
    X(cublasGemmBatchedEx, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMB(int)) \
    X(cublasGemmBatchedEx_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_GEMMB(int64_t)) \
    /* the typed GEMMs beyond S and H, and the typed batched forms */ \
    X(cublasDgemm_v2, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(double, int)) \
    X(cublasDgemm_v2_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(double, int64_t)) \
    X(cublasCgemm_v2, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(cuComplex, int)) \
    X(cublasCgemm_v2_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(cuComplex, int64_t)) \
    X(cublasZgemm_v2, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(cuDoubleComplex, int)) \
    X(cublasZgemm_v2_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMM(cuDoubleComplex, int64_t)) \
    X(cublasSgemmStridedBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(float, int)) \
    X(cublasSgemmStridedBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(float, int64_t)) \
    X(cublasDgemmStridedBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(double, int)) \
    X(cublasDgemmStridedBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(double, int64_t)) \
    X(cublasCgemmStridedBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(cuComplex, int)) \
    X(cublasCgemmStridedBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(cuComplex, int64_t)) \
    X(cublasZgemmStridedBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(cuDoubleComplex, int)) \
    X(cublasZgemmStridedBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(cuDoubleComplex, int64_t)) \
    X(cublasHgemmStridedBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(void, int)) \
    X(cublasHgemmStridedBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMSB(void, int64_t)) \
    X(cublasSgemmBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(float, int)) \
    X(cublasSgemmBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(float, int64_t)) \
    X(cublasDgemmBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(double, int)) \
    X(cublasDgemmBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(double, int64_t)) \
    X(cublasCgemmBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(cuComplex, int)) \
    X(cublasCgemmBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(cuComplex, int64_t)) \
    X(cublasZgemmBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(cuDoubleComplex, int)) \
    X(cublasZgemmBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(cuDoubleComplex, int64_t)) \
    X(cublasHgemmBatched, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(void, int)) \
    X(cublasHgemmBatched_64, PRELOAD_LIB_CUBLAS, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_TGEMMB(void, int64_t)) \
    /* cuBLASLt */ \
    X(cublasLtMatmul, PRELOAD_LIB_CUBLASLT, CUPROF_EV_BLAS, cublasStatus_t, PRELOAD_SIG_LTMATMUL) \
    /* MPI collectives (hooks_mpi.c): where the ranks of a job meet */ \
    X(MPI_Barrier, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, (preload_mpi_handle comm)) \
    X(MPI_Bcast, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, (void *buffer, int count, preload_mpi_handle datatype, int root, preload_mpi_handle comm)) \
    X(MPI_Reduce, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, (const void *sendbuf, void *recvbuf, int count, preload_mpi_handle datatype, preload_mpi_handle op, int root, preload_mpi_handle comm)) \
    X(MPI_Allreduce, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, (const void *sendbuf, void *recvbuf, int count, preload_mpi_handle datatype, preload_mpi_handle op, preload_mpi_handle comm)) \
    X(MPI_Allgather, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, PRELOAD_SIG_MPI_GATHERALL) \
    X(MPI_Alltoall, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, PRELOAD_SIG_MPI_GATHERALL) \
    X(MPI_Gather, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, PRELOAD_SIG_MPI_ROOTED) \
    X(MPI_Scatter, PRELOAD_LIB_MPI, CUPROF_EV_CALL, int, PRELOAD_SIG_MPI_ROOTED) \
    /* stream-ordered and pitched allocations (hooks_memory.c) */ \
    X(cudaMallocAsync, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, PRELOAD_SIG_MALLOCA) \
    X(cudaMallocAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, PRELOAD_SIG_MALLOCA) \
    X(cudaMallocFromPoolAsync, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, PRELOAD_SIG_MALLOCPA) \
    X(cudaMallocFromPoolAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, PRELOAD_SIG_MALLOCPA) \
    X(cudaFreeAsync, PRELOAD_LIB_CUDART, CUPROF_EV_FREE, cudaError_t, PRELOAD_SIG_FREEA) \
    X(cudaFreeAsync_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_FREE, cudaError_t, PRELOAD_SIG_FREEA) \
    X(cudaMallocPitch, PRELOAD_LIB_CUDART, CUPROF_EV_ALLOC, cudaError_t, (void **devPtr, size_t *pitch, size_t width, size_t height)) \
    /* driver entry points (hooks_driver.c): the launch functions they hand out are wrapped */ \
    X(cudaGetDriverEntryPoint, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, PRELOAD_SIG_DEP) \
    X(cudaGetDriverEntryPoint_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, PRELOAD_SIG_DEP) \
    X(cudaGetDriverEntryPointByVersion, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, PRELOAD_SIG_DEPV) \
    X(cudaGetDriverEntryPointByVersion_ptsz, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, PRELOAD_SIG_DEPV) \
    X(cuGetProcAddress_v2, PRELOAD_LIB_CUDA, CUPROF_EV_CALL, CUresult, PRELOAD_SIG_GPA) \
    X(cuGetProcAddress, PRELOAD_LIB_CUDA, CUPROF_EV_CALL, CUresult, \
      (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)) \
    /* the driver API a program links (-lcuda), or gets from the entry points \
     * above (hooks_driver.c hands these hooks out): launches, copies, memsets, \
     * allocations and frees, syncs and events with their arguments \
     * (hooks_driver_api.c); every other libcuda export is generated below */ \
    PRELOAD_DRIVER_HOOKS(X) \
    /* frequent queries whose CUPTI records are switched off (collector/cupti.c, as \
     * torch.profiler drops them): the program's own calls are recorded here \
     * (hooks_sync.c), cheaper than a CUPTI record */ \
    X(cudaGetDevice, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (int *device)) \
    X(cudaSetDevice, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (int device)) \
    X(cudaGetLastError, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (void)) \
    X(cudaEventCreate, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (cudaEvent_t *event)) \
    X(cudaEventCreateWithFlags, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (cudaEvent_t *event, unsigned int flags)) \
    X(cudaEventDestroy, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, (cudaEvent_t event)) \
    /* graph nodes added one by one (hooks_sync.c): each node's CUPTI CREATED callback \
     * comes inside the call, which becomes the node's origin (model/graphs.h) */ \
    X(cudaGraphAddKernelNode, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, \
      (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, \
       const struct cudaKernelNodeParams *pNodeParams)) \
    X(cudaGraphAddMemcpyNode, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, \
      (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, \
       const struct cudaMemcpy3DParms *pCopyParams)) \
    X(cudaGraphAddMemcpyNode1D, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, \
      (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, \
       void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)) \
    X(cudaGraphAddMemsetNode, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, \
      (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, \
       const struct cudaMemsetParams *pMemsetParams)) \
    X(cudaGraphAddNode, PRELOAD_LIB_CUDART, CUPROF_EV_CALL, cudaError_t, \
      (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, \
       const cudaGraphEdgeData *dependencyData, size_t numDependencies, struct cudaGraphNodeParams *nodeParams)) \
    /* every other cuBLAS/cuBLASLt entry point (hooks_lib_gen.c): a row each, \
     * its copies and kernels charged to it */ \
    PRELOAD_BLAS_GEN_HOOKS(X) \
    /* NCCL (hooks_nccl.c): the communicator's life, the collectives and \
     * point-to-point calls with their arguments, the group around them */ \
    X(ncclGetUniqueId, PRELOAD_LIB_NCCL, CUPROF_EV_CALL, ncclResult_t, (ncclUniqueId *uniqueId)) \
    X(ncclCommInitRank, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)) \
    X(ncclCommInitRankConfig, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t *config)) \
    X(ncclCommInitRankScalable, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds, ncclConfig_t *config)) \
    X(ncclCommInitAll, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, (ncclComm_t *comm, int ndev, const int *devlist)) \
    X(ncclCommSplit, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)) \
    X(ncclCommFinalize, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, (ncclComm_t comm)) \
    X(ncclCommDestroy, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, (ncclComm_t comm)) \
    X(ncclCommAbort, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, (ncclComm_t comm)) \
    X(ncclAllReduce, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclBroadcast, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclBcast, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclReduce, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclAllGather, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclReduceScatter, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclAlltoAll, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclGather, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclScatter, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclSend, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclRecv, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, \
      (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream)) \
    X(ncclGroupStart, PRELOAD_LIB_NCCL, CUPROF_EV_CALL, ncclResult_t, (void)) \
    X(ncclGroupEnd, PRELOAD_LIB_NCCL, CUPROF_EV_COLL, ncclResult_t, (void)) \
    /* cuFFT, cuRAND, cuSPARSE, cuSOLVER (hooks_lib_gen.c): every entry point a \
     * row, with the arguments that size its work (collector/event.h, a.math) */ \
    PRELOAD_FFT_GEN_HOOKS(X) \
    PRELOAD_RAND_GEN_HOOKS(X) \
    PRELOAD_SPARSE_GEN_HOOKS(X) \
    PRELOAD_SOLVER_GEN_HOOKS(X) \
    /* every other function libcuda exports (hooks_driver_gen.c): a plain row each */ \
    PRELOAD_DRIVER_GEN_HOOKS(X)

/* The hand-written driver hooks (hooks_driver_api.c, and the launches in
 * hooks_driver.c), in PRELOAD_HOOKS. The _ptds/_ptsz forms are what a
 * program built with per-thread default streams calls. */
#define PRELOAD_DRIVER_HOOKS(X) \
    X(cuLaunchKernel, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCH) \
    X(cuLaunchKernel_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCH) \
    X(cuLaunchKernelEx, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCHEX) \
    X(cuLaunchKernelEx_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCHEX) \
    X(cuLaunchCooperativeKernel, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCHCOOP) \
    X(cuLaunchCooperativeKernel_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_LAUNCH, CUresult, PRELOAD_SIG_CU_LAUNCHCOOP) \
    X(cuMemcpy, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOD) \
    X(cuMemcpy_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOD) \
    X(cuMemcpyAsync, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTODA) \
    X(cuMemcpyAsync_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTODA) \
    X(cuMemcpyHtoD_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_HTOD) \
    X(cuMemcpyHtoD_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_HTOD) \
    X(cuMemcpyDtoH_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOH) \
    X(cuMemcpyDtoH_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOH) \
    X(cuMemcpyDtoD_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOD) \
    X(cuMemcpyDtoD_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOD) \
    X(cuMemcpyHtoDAsync_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_HTODA) \
    X(cuMemcpyHtoDAsync_v2_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_HTODA) \
    X(cuMemcpyDtoHAsync_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOHA) \
    X(cuMemcpyDtoHAsync_v2_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTOHA) \
    X(cuMemcpyDtoDAsync_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTODA) \
    X(cuMemcpyDtoDAsync_v2_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_DTODA) \
    X(cuMemcpy2D_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2D) \
    X(cuMemcpy2D_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2D) \
    X(cuMemcpy2DUnaligned_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2D) \
    X(cuMemcpy2DUnaligned_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2D) \
    X(cuMemcpy2DAsync_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2DA) \
    X(cuMemcpy2DAsync_v2_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_2DA) \
    X(cuMemcpy3D_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_3D) \
    X(cuMemcpy3D_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_3D) \
    X(cuMemcpy3DAsync_v2, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_3DA) \
    X(cuMemcpy3DAsync_v2_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_3DA) \
    X(cuMemcpyPeer, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_PEER) \
    X(cuMemcpyPeer_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_PEER) \
    X(cuMemcpyPeerAsync, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_PEERA) \
    X(cuMemcpyPeerAsync_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_COPY, CUresult, PRELOAD_SIG_CU_PEERA) \
    X(cuMemsetD8_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned char)) \
    X(cuMemsetD8_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned char)) \
    X(cuMemsetD16_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned short)) \
    X(cuMemsetD16_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned short)) \
    X(cuMemsetD32_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned int)) \
    X(cuMemsetD32_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET(unsigned int)) \
    X(cuMemsetD8Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned char)) \
    X(cuMemsetD8Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned char)) \
    X(cuMemsetD16Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned short)) \
    X(cuMemsetD16Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned short)) \
    X(cuMemsetD32Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned int)) \
    X(cuMemsetD32Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SETA(unsigned int)) \
    X(cuMemsetD2D8_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned char)) \
    X(cuMemsetD2D8_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned char)) \
    X(cuMemsetD2D16_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned short)) \
    X(cuMemsetD2D16_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned short)) \
    X(cuMemsetD2D32_v2, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned int)) \
    X(cuMemsetD2D32_v2_ptds, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2D(unsigned int)) \
    X(cuMemsetD2D8Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned char)) \
    X(cuMemsetD2D8Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned char)) \
    X(cuMemsetD2D16Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned short)) \
    X(cuMemsetD2D16Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned short)) \
    X(cuMemsetD2D32Async, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned int)) \
    X(cuMemsetD2D32Async_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_MEMSET, CUresult, PRELOAD_SIG_CU_SET2DA(unsigned int)) \
    X(cuMemAlloc_v2, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, (CUdeviceptr *dptr, size_t bytesize)) \
    X(cuMemAllocPitch_v2, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, \
      (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes)) \
    X(cuMemAllocManaged, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags)) \
    X(cuMemAllocHost_v2, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, (void **pp, size_t bytesize)) \
    X(cuMemHostAlloc, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, (void **pp, size_t bytesize, unsigned int Flags)) \
    X(cuMemAllocAsync, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, PRELOAD_SIG_CU_ALLOCA) \
    X(cuMemAllocAsync_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, PRELOAD_SIG_CU_ALLOCA) \
    X(cuMemAllocFromPoolAsync, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, PRELOAD_SIG_CU_ALLOCPA) \
    X(cuMemAllocFromPoolAsync_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, PRELOAD_SIG_CU_ALLOCPA) \
    X(cuMemCreate, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, \
      (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)) \
    X(cuMemAddressReserve, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, \
      (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)) \
    X(cuMemMap, PRELOAD_LIB_CUDA, CUPROF_EV_ALLOC, CUresult, \
      (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)) \
    X(cuMemFree_v2, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, (CUdeviceptr dptr)) \
    X(cuMemFreeHost, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, (void *p)) \
    X(cuMemFreeAsync, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, PRELOAD_SIG_CU_FREEA) \
    X(cuMemFreeAsync_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, PRELOAD_SIG_CU_FREEA) \
    X(cuMemRelease, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, (CUmemGenericAllocationHandle handle)) \
    X(cuMemAddressFree, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, (CUdeviceptr ptr, size_t size)) \
    X(cuMemUnmap, PRELOAD_LIB_CUDA, CUPROF_EV_FREE, CUresult, (CUdeviceptr ptr, size_t size)) \
    X(cuCtxSynchronize, PRELOAD_LIB_CUDA, CUPROF_EV_SYNC, CUresult, (void)) \
    X(cuStreamSynchronize, PRELOAD_LIB_CUDA, CUPROF_EV_SYNC, CUresult, PRELOAD_SIG_CU_STREAM) \
    X(cuStreamSynchronize_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_SYNC, CUresult, PRELOAD_SIG_CU_STREAM) \
    X(cuEventSynchronize, PRELOAD_LIB_CUDA, CUPROF_EV_SYNC, CUresult, (CUevent hEvent)) \
    X(cuEventRecord, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_EVREC) \
    X(cuEventRecord_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_EVREC) \
    X(cuEventRecordWithFlags, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_EVRECF) \
    X(cuEventRecordWithFlags_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_EVRECF) \
    X(cuStreamWaitEvent, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_WAITEV) \
    X(cuStreamWaitEvent_ptsz, PRELOAD_LIB_CUDA, CUPROF_EV_EVENT, CUresult, PRELOAD_SIG_CU_WAITEV)


/*
 * Real functions the hooks call themselves (never interposed, never
 * exported): X(name, library, return type, parameters). Always called inside
 * cuprof_guard_enter/leave.
 */
#define PRELOAD_HELPERS(X) \
    X(cudaPointerGetAttributes, PRELOAD_LIB_CUDART, cudaError_t, (struct cudaPointerAttributes *attributes, const void *ptr)) \
    X(cudaPeekAtLastError, PRELOAD_LIB_CUDART, cudaError_t, (void)) \
    X(cublasGetPointerMode_v2, PRELOAD_LIB_CUBLAS, cublasStatus_t, (cublasHandle_t handle, cublasPointerMode_t *mode)) \
    X(ncclCommCount, PRELOAD_LIB_NCCL, ncclResult_t, (const ncclComm_t comm, int *count)) \
    X(ncclCommUserRank, PRELOAD_LIB_NCCL, ncclResult_t, (const ncclComm_t comm, int *rank)) \
    X(cublasLtMatrixLayoutGetAttribute, PRELOAD_LIB_CUBLASLT, cublasStatus_t, \
      (cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten)) \
    X(cublasLtMatmulDescGetAttribute, PRELOAD_LIB_CUBLASLT, cublasStatus_t, \
      (cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten))

/*
 * The libc functions interposed so that no run is lost (how a process ends
 * or replaces itself; preload/hooks_libc.c, collector/process.h):
 * X(name, return type, parameters). Only in libcuprof.so (the hooks-only test
 * library has no collector to hand them to); exports.map lists them after
 * PRELOAD_EXTRA_EXPORTS. execl, execlp and execle are variadic: they are
 * hooked too (exports.map) but call the real execve/execvpe, so they have
 * no entry here (PRELOAD_LIBC_VARIADIC).
 */
#define PRELOAD_LIBC_HOOKS(X) \
    X(exit, void, (int status)) \
    X(_exit, void, (int status)) \
    X(_Exit, void, (int status)) \
    X(quick_exit, void, (int status)) \
    X(sigaction, int, (int sig, const struct sigaction *act, struct sigaction *oact)) \
    X(signal, __sighandler_t, (int sig, __sighandler_t handler)) \
    X(sysv_signal, __sighandler_t, (int sig, __sighandler_t handler)) \
    X(bsd_signal, __sighandler_t, (int sig, __sighandler_t handler)) \
    X(execve, int, (const char *path, char *const argv[], char *const envp[])) \
    X(execv, int, (const char *path, char *const argv[])) \
    X(execvp, int, (const char *file, char *const argv[])) \
    X(execvpe, int, (const char *file, char *const argv[], char *const envp[])) \
    X(fexecve, int, (int fd, char *const argv[], char *const envp[])) \
    X(posix_spawn, int, (pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, \
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[])) \
    X(posix_spawnp, int, (pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, \
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])) \
    X(close, int, (int fd)) \
    X(close_range, int, (unsigned int lo, unsigned int hi, int flags)) \
    X(closefrom, void, (int lo)) \
    X(dup2, int, (int from, int to)) \
    X(dup3, int, (int from, int to, int flags))
#define PRELOAD_LIBC_VARIADIC(X) X(execl) X(execlp) X(execle)
/* dlsym (preload/hooks_dlsym.c, libcuprof.so only): a lookup on a CUDA
 * library's own handle gives the hook, as linking does. An assembly entry,
 * no entry here either. */
#define PRELOAD_LIBC_LOOKUP(X) X(dlsym)

/*
 * Symbols the library exports besides the hooks, defined elsewhere in it:
 * X(name). InitializeInjection: the CUDA injection entry point
 * (CUDA_INJECTION64_PATH, preload/inject.c), which starts the collector and
 * CUPTI while the driver initializes. InitializeInjectionNvtx2 and
 * InitializeInjectionNvtxExtension: NVTX's (preload/nvtx.c,
 * nvtx_payload.c). ncclProfiler_v5: NCCL's profiler plugin. exports.map lists them after the
 * hooks, and the export test allows exactly these.
 */
#define PRELOAD_EXTRA_EXPORTS(X)                                                            \
    X(InitializeInjection) X(InitializeInjectionNvtx2) X(InitializeInjectionNvtxExtension) \
    X(ncclProfiler_v5)

/*
 * NVTX entry points (preload/nvtx.c), recorded as instant events but not
 * interposed: a program's NVTX header calls them through the function tables
 * InitializeInjectionNvtx2 fills (NVTX_INJECTION64_PATH). X(name): the API
 * ids after the hooks' (PRELOAD_API_<name>), in the same API table.
 */
#define PRELOAD_NVTX_APIS(X) \
    X(nvtxRangePush) X(nvtxRangePop) X(nvtxRangeStart) X(nvtxRangeEnd) X(nvtxMark)

/* Ids: hooks first (id = event.api), then helpers. */
enum preload_fn {
#define PRELOAD_X_ID(name, lib, cls, ret, params) PRELOAD_FN_##name,
    PRELOAD_HOOKS(PRELOAD_X_ID)
#undef PRELOAD_X_ID
    PRELOAD_N_HOOKS,
    PRELOAD_FN_HELPERS_BEFORE_ = PRELOAD_N_HOOKS - 1,
#define PRELOAD_X_ID(name, lib, ret, params) PRELOAD_FN_##name,
    PRELOAD_HELPERS(PRELOAD_X_ID)
#undef PRELOAD_X_ID
#define PRELOAD_X_ID(name, ret, params) PRELOAD_FN_##name,
    PRELOAD_LIBC_HOOKS(PRELOAD_X_ID)
#undef PRELOAD_X_ID
    PRELOAD_N_FNS
};

/* API ids of the NVTX entry points: after the hooks'. */
enum preload_api_nvtx {
    PRELOAD_API_NVTX_BEFORE_ = PRELOAD_N_HOOKS - 1,
#define PRELOAD_X_ID(name) PRELOAD_API_##name,
    PRELOAD_NVTX_APIS(PRELOAD_X_ID)
#undef PRELOAD_X_ID
    PRELOAD_N_APIS
};

/* The class each hook records, as constants the compiler folds. */
enum preload_cls {
#define PRELOAD_X_CLS(name, lib, cls, ret, params) PRELOAD_CLS_##name = cls,
    PRELOAD_HOOKS(PRELOAD_X_CLS)
#undef PRELOAD_X_CLS
};

/* preload_<name>_fn: pointer type of every real function (the legacy
 * cuSPARSE types are deprecated: see the includes). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define PRELOAD_X_TYPE(name, lib, cls, ret, params) typedef ret(*preload_##name##_fn) params;
PRELOAD_HOOKS(PRELOAD_X_TYPE)
#undef PRELOAD_X_TYPE
#define PRELOAD_X_TYPE(name, lib, ret, params) typedef ret(*preload_##name##_fn) params;
PRELOAD_HELPERS(PRELOAD_X_TYPE)
#undef PRELOAD_X_TYPE
#define PRELOAD_X_TYPE(name, ret, params) typedef ret(*preload_##name##_fn) params;
PRELOAD_LIBC_HOOKS(PRELOAD_X_TYPE)
#undef PRELOAD_X_TYPE

/* The hooks are defined with the real CUDA signatures; the per-thread
 * variants are not declared by the CUDA headers unless the program is built
 * with per-thread default stream, so declare them here. */
#define PRELOAD_X_DECL(name, lib, cls, ret, params) ret name params;
PRELOAD_HOOKS(PRELOAD_X_DECL)
#undef PRELOAD_X_DECL
#pragma GCC diagnostic pop

/* What a hook returns when the real function cannot be found. */
#define PRELOAD_CUDART_MISSING cudaErrorSharedObjectSymbolNotFound
#define PRELOAD_CUBLAS_MISSING CUBLAS_STATUS_NOT_INITIALIZED   /* and the math libraries': gen_lib_hooks.sh */
#define PRELOAD_CUDA_MISSING CUDA_ERROR_NOT_FOUND
#define PRELOAD_MPI_MISSING 16   /* MPI_ERR_OTHER in Open MPI (MPICH: 15) */
#define PRELOAD_NCCL_MISSING ncclSystemError

/* Only the hooks are visible outside the library (exports.map lists them). */
#define PRELOAD_EXPORT __attribute__((visibility("default")))

/* Real function pointers, indexed by enum preload_fn; NULL until resolved
 * (or while the library is not loaded). Written only by resolve.c. */
extern _Atomic(void *) cuprof_preload_real_fns[PRELOAD_N_FNS];

/* Slow path: resolves everything once (and registers the API table), then
 * retries fn alone if it is still missing (its library may have been loaded
 * since, e.g. with RTLD_LOCAL). Returns the real function or NULL. */
void *cuprof_preload_resolve(unsigned fn);
/* Resolves every real function once; idempotent, thread-safe. */
void cuprof_preload_resolve_all(void);
/* The hook named name (its enum preload_fn, below PRELOAD_N_HOOKS), or -1:
 * for the dlsym hook (hooks_dlsym.c). */
int cuprof_preload_hook_of(const char *name);

/* The real function for fn: one load and a predictable branch once resolved. */
static inline __attribute__((always_inline)) void *preload_real(unsigned fn)
{
    void *p = atomic_load_explicit(&cuprof_preload_real_fns[fn], memory_order_acquire);
    if (__builtin_expect(p == NULL, 0))
        p = cuprof_preload_resolve(fn);
    return p;
}
/* Typed accessor: PRELOAD_REAL(cudaMalloc) has type preload_cudaMalloc_fn. */
#define PRELOAD_REAL(name) ((preload_##name##_fn)preload_real(PRELOAD_FN_##name))
/* Same, for a variant sharing the signature of `base`: real function of fn. */
#define PRELOAD_REAL_AS(base, fn) ((preload_##base##_fn)preload_real(fn))

/*
 * Every hook brackets the real call with hook_begin/hook_end. errno is kept
 * on both sides: the real function sees the caller's errno and the caller
 * sees exactly what the real function left, whatever the collector does.
 */
typedef struct preload_call {
    cuprof_event *ev; /* NULL: not recorded (guarded, recording off, no memory) */
    int *errp;        /* this thread's errno */
} preload_call;

static inline __attribute__((always_inline)) preload_call hook_begin(unsigned api, uint8_t cls)
{
    preload_call c;
    c.errp = &errno;
    int e = *c.errp;
    c.ev = cuprof_begin((uint16_t)api, cls);   /* zeroed: arguments not filled read as 0 */
    *c.errp = e;
    return c;
}

static inline __attribute__((always_inline)) int hook_end(preload_call c, int result)
{
    int e = *c.errp;
    cuprof_end(c.ev, result);
    *c.errp = e;
    return result;
}

#define HOOK_BEGIN(name) hook_begin(PRELOAD_FN_##name, PRELOAD_CLS_##name)

/* The driver's device allocation and free through `real` (the driver's, or the function an
 * entry point handed out), recorded as the hooks of cuMemAlloc_v2 and
 * cuMemFree_v2 record them (hooks_driver_api.c). */
CUresult preload_drv_mem_alloc(void *real, CUdeviceptr *dptr, size_t bytes);
CUresult preload_drv_mem_free(void *real, CUdeviceptr dptr);

/* A device allocation or free that succeeded, told to the collector
 * (collector/memheld.c) after the real call, errno kept as the real call left it. */
static inline __attribute__((always_inline)) void preload_memheld(int is_free, uint64_t ptr, uint64_t bytes,
                                                                   unsigned api)
{
    int *ep = &errno, e = *ep;
    cuprof_memheld_note(is_free, ptr, bytes, (uint16_t)api);
    *ep = e;
}

/* A hook that records the call and keeps none of its arguments: the real
 * function's result, or `missing` when it cannot be found. The locals' names
 * are ones no parameter of the hooked libraries has (cuBLAS calls some c, r
 * or real): preload/hooks_lib_gen.c makes every cuBLAS hook with it, and
 * hooks_driver_gen.c every generated driver hook. */
#define PRELOAD_PLAIN_HOOK(ret, name, params, args, missing)                             \
    PRELOAD_EXPORT ret name params                                                       \
    {                                                                                    \
        preload_##name##_fn preload_gen_real_ = PRELOAD_REAL(name);                      \
        preload_call preload_gen_call_ = HOOK_BEGIN(name);                               \
        ret preload_gen_r_ = preload_gen_real_ ? preload_gen_real_ args : (missing);     \
        return (ret)hook_end(preload_gen_call_, (int)preload_gen_r_);                    \
    }

/* Saturating conversions into the event's narrow fields. */
static inline uint16_t preload_u16(unsigned v) { return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v; }
static inline uint32_t preload_u32(int64_t v)
{
    return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

#endif /* CUPROF_PRELOAD_HOOKS_H */
