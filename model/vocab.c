/*
 * vocab.c - the collector's vocabulary in words: copy directions, event
 * classes, and the CUDA enum values the hooks store (data types, compute
 * types, cuBLASLt epilogues) as the tables print them.
 *
 * The CUDA headers are used for their enum values only (nothing is linked),
 * so a renumbering in a future toolkit is picked up at compile time.
 */
#include "model/vocab.h"
#include "collector/event.h"

#include <cublasLt.h>
#include <library_types.h>

const char *cuprof_dir_name(uint8_t dir)
{
    switch (dir) {
    case CUPROF_DIR_HTOH: return "HtoH";
    case CUPROF_DIR_HTOD: return "HtoD";
    case CUPROF_DIR_DTOH: return "DtoH";
    case CUPROF_DIR_DTOD: return "DtoD";
    case CUPROF_DIR_PTOP: return "PtoP";
    case CUPROF_DIR_MEMSET: return "memset";
    default: return "unknown";
    }
}

const char *cuprof_class_name(uint8_t cls)
{
    switch (cls) {
    case CUPROF_EV_CALL: return "call";
    case CUPROF_EV_LAUNCH: return "launch";
    case CUPROF_EV_COPY: return "copy";
    case CUPROF_EV_MEMSET: return "memset";
    case CUPROF_EV_ALLOC: return "alloc";
    case CUPROF_EV_FREE: return "free";
    case CUPROF_EV_SYNC: return "sync";
    case CUPROF_EV_OCCUPANCY: return "occupancy";
    case CUPROF_EV_BLAS: return "blas";
    case CUPROF_EV_EVENT: return "event";
    case CUPROF_EV_COLL: return "coll";
    case CUPROF_EV_MATH: return "math";
    default: return "unknown";
    }
}

const char *cuprof_dtype_name(uint8_t dtype)
{
    switch ((int)dtype) {
    case CUDA_R_16F: return "fp16";
    case CUDA_R_16BF: return "bf16";
    case CUDA_R_32F: return "fp32";
    case CUDA_R_64F: return "fp64";
    case CUDA_R_8I: return "int8";
    case CUDA_R_8U: return "uint8";
    case CUDA_R_16I: return "int16";
    case CUDA_R_16U: return "uint16";
    case CUDA_R_32I: return "int32";
    case CUDA_R_32U: return "uint32";
    case CUDA_R_64I: return "int64";
    case CUDA_R_64U: return "uint64";
    case CUDA_R_4I: return "int4";
    case CUDA_R_4U: return "uint4";
    case CUDA_R_8F_E4M3: return "fp8_e4m3";
    case CUDA_R_8F_E5M2: return "fp8_e5m2";
    case CUDA_R_8F_UE8M0: return "fp8_ue8m0";
    case CUDA_R_6F_E2M3: return "fp6_e2m3";
    case CUDA_R_6F_E3M2: return "fp6_e3m2";
    case CUDA_R_4F_E2M1: return "fp4_e2m1";
    case CUDA_C_16F: return "complex_fp16";
    case CUDA_C_16BF: return "complex_bf16";
    case CUDA_C_32F: return "complex_fp32";
    case CUDA_C_64F: return "complex_fp64";
    case CUDA_C_8I: return "complex_int8";
    case CUDA_C_8U: return "complex_uint8";
    case CUDA_C_32I: return "complex_int32";
    case CUDA_C_32U: return "complex_uint32";
    default: return "other";
    }
}

const char *cuprof_compute_name(uint16_t ct)
{
    if (ct < 64)   /* cublasGemmEx's legacy form passes a cudaDataType_t */
        return cuprof_dtype_name((uint8_t)ct);
    switch ((int)ct) {
    case CUBLAS_COMPUTE_16F: return "16F";
    case CUBLAS_COMPUTE_16F_PEDANTIC: return "16F_PEDANTIC";
    case CUBLAS_COMPUTE_32F: return "32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "32F_FAST_16BF";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "32F_FAST_TF32";
    case CUBLAS_COMPUTE_64F: return "64F";
    case CUBLAS_COMPUTE_64F_PEDANTIC: return "64F_PEDANTIC";
    case CUBLAS_COMPUTE_32I: return "32I";
    case CUBLAS_COMPUTE_32I_PEDANTIC: return "32I_PEDANTIC";
    default: return "other";
    }
}

const char *cuprof_epilogue_name(uint16_t epi)
{
    switch ((int)epi) {
    case 0: /* plain cuBLAS: no epilogue */
    case CUBLASLT_EPILOGUE_DEFAULT: return "DEFAULT";
    case CUBLASLT_EPILOGUE_RELU: return "RELU";
    case CUBLASLT_EPILOGUE_RELU_AUX: return "RELU_AUX";
    case CUBLASLT_EPILOGUE_BIAS: return "BIAS";
    case CUBLASLT_EPILOGUE_RELU_BIAS: return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS: return "RELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DRELU: return "DRELU";
    case CUBLASLT_EPILOGUE_DRELU_BGRAD: return "DRELU_BGRAD";
    case CUBLASLT_EPILOGUE_GELU: return "GELU";
    case CUBLASLT_EPILOGUE_GELU_AUX: return "GELU_AUX";
    case CUBLASLT_EPILOGUE_GELU_BIAS: return "GELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return "GELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DGELU: return "DGELU";
    case CUBLASLT_EPILOGUE_DGELU_BGRAD: return "DGELU_BGRAD";
    case CUBLASLT_EPILOGUE_BGRADA: return "BGRADA";
    case CUBLASLT_EPILOGUE_BGRADB: return "BGRADB";
    default: return "other";
    }
}

const char *cuprof_trans_name(uint8_t op)
{
    switch (op) {
    case 0: return "N";
    case 1: return "T";
    case 2: return "C";
    default: return "?";
    }
}

/* ncclDataType_t's values, in order (nccl.h 2.28). */
static const char *const nccl_dtypes[] = {"i8", "u8", "i32", "u32", "i64", "u64", "f16",
                                          "f32", "f64", "bf16", "f8e4m3", "f8e5m2"};
static const unsigned nccl_dtype_size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};

const char *cuprof_nccl_dtype_name(uint8_t t)
{
    return t < sizeof nccl_dtypes / sizeof nccl_dtypes[0] ? nccl_dtypes[t] : "unknown";
}

unsigned cuprof_nccl_dtype_bytes(uint8_t t)
{
    return t < sizeof nccl_dtype_size / sizeof nccl_dtype_size[0] ? nccl_dtype_size[t] : 0;
}

const char *cuprof_nccl_op_name(uint8_t op)
{
    static const char *const ops[] = {"sum", "prod", "max", "min", "avg"};
    return op < sizeof ops / sizeof ops[0] ? ops[op] : "premulsum";
}
