/*
 * peak.c - the FLOPs of a GEMM and the dense peaks of the GPUs cuprof knows
 * (peak.h).
 *
 * Sources of the table (dense rates: NVIDIA's datasheets give the tensor
 * formats "with sparsity", twice the dense rate, and the dense rate in a
 * footnote; the dense figure is the one a GEMM can reach):
 *  - H100 SXM5, H100 PCIe, H100 NVL: NVIDIA H100 Tensor Core GPU datasheet
 *    (2023): FP64 tensor 67 / 51 / 60, FP32 67 / 51 / 60, TF32 989 / 756 /
 *    835 sparse, BF16 and FP16 1979 / 1513 / 1671 sparse, FP8 and INT8
 *    3958 / 3026 / 3341 sparse; memory 3.35 / 2.0 / 3.9 TB/s.
 *  - H200 SXM, H200 NVL: NVIDIA H200 Tensor Core GPU datasheet (2024): the
 *    H100's compute (SXM: 67 FP64 tensor, 989 TF32 sparse, 1979 BF16
 *    sparse, 3958 FP8 sparse; NVL: 60, 835, 1671, 3341), memory 4.8 TB/s.
 *  - A100 (SXM4 and PCIe, 40 and 80 GB): NVIDIA A100 Tensor Core GPU
 *    datasheet (2021): FP64 tensor 19.5, FP32 19.5, TF32 156, BF16 and
 *    FP16 312, INT8 624 (all dense); memory 1.555 (40 GB), 1.935 (80 GB
 *    PCIe), 2.039 TB/s (80 GB SXM4). No FP8.
 *  - L4: NVIDIA L4 Tensor Core GPU datasheet (2023): FP32 30.3, TF32 120
 *    sparse, BF16 and FP16 242 sparse, FP8 and INT8 485 sparse; 300 GB/s.
 *    FP64 not given.
 *  - L40S: NVIDIA L40S datasheet (2023): FP32 91.6, TF32 366 sparse, BF16
 *    and FP16 362 (733 sparse), FP8 and INT8 1466 sparse; 864 GB/s. FP64 not given.
 *  - B200: NVIDIA HGX B200 datasheet (per GPU, 1000 W): FP64 and FP64 tensor
 *    40, FP32 80, TF32 2.2 PF sparse, BF16 and FP16 4.5 PF sparse, FP8 and
 *    INT8 9 PF sparse; 8 TB/s.
 * Measured on this project's lent GPUs (bench/H200.md): bf16 GEMMs of
 * 8192^3 at 858 TFLOP/s on an H200 (87% of 989), fp32 at 51.3 (77% of 67).
 */
#include "model/peak.h"

#include <library_types.h>
#include <stdio.h>
#include <string.h>

/* FP64 FP32 TF32 FP16 BF16 FP8 INT8 */
#define HOPPER_SXM {0, 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9}
#define HOPPER_NVL {0, 60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5}
#define AMPERE_A100 {0, 19.5, 19.5, 156, 312, 312, 0, 624}
#define H100_DS "NVIDIA H100 Tensor Core GPU datasheet (dense)"
#define H200_DS "NVIDIA H200 Tensor Core GPU datasheet (dense)"
#define A100_DS "NVIDIA A100 Tensor Core GPU datasheet"

/* Most specific names first: "H100 NVL" and "H100 PCIe" before "H100". */
static const cuprof_peak_gpu table[] = {
    {"H100 NVL", "H100 NVL", 132, HOPPER_NVL, 3900, H100_DS},
    {"H100 PCIe", "H100 PCIe", 114, {0, 51.2, 51.2, 378, 756.5, 756.5, 1513, 1513}, 2000, H100_DS},
    {"H100 SXM5", "H100", 132, HOPPER_SXM, 3350, H100_DS},
    {"H200 NVL", "H200 NVL", 132, HOPPER_NVL, 4800, H200_DS},
    {"H200 SXM", "H200", 132, HOPPER_SXM, 4800, H200_DS},
    {"A100 SXM4 80GB", "A100-SXM4-80GB", 108, AMPERE_A100, 2039, A100_DS},
    {"A100 PCIe 80GB", "A100 80GB PCIe", 108, AMPERE_A100, 1935, A100_DS},
    {"A100 SXM4 40GB", "A100-SXM4-40GB", 108, AMPERE_A100, 1555, A100_DS},
    {"A100 PCIe 40GB", "A100-PCIE-40GB", 108, AMPERE_A100, 1555, A100_DS},
    {"L40S", "L40S", 142, {0, 0, 91.6, 183, 362.05, 362.05, 733, 733}, 864,
     "NVIDIA L40S datasheet (dense)"},
    {"L4", "L4", 58, {0, 0, 30.3, 60, 121, 121, 242.5, 242.5}, 300, "NVIDIA L4 datasheet (dense)"},
    {"B200", "B200", 148, {0, 40, 80, 1100, 2250, 2250, 4500, 4500}, 8000,
     "NVIDIA HGX B200 datasheet, per GPU at 1000 W (dense)"},
};
#define NTABLE (sizeof table / sizeof table[0])

const cuprof_peak_gpu *cuprof_peak_table(size_t *n)
{
    *n = NTABLE;
    return table;
}

/* The table's first entry whose match is part of name (NULL: none). */
static const cuprof_peak_gpu *by_name(const char *name)
{
    for (size_t i = 0; name && i < NTABLE; i++)
        if (strstr(name, table[i].match))
            return &table[i];
    return NULL;
}

const cuprof_peak_gpu *cuprof_peak_match(const char *name, uint32_t sms, char *why, size_t n)
{
    const cuprof_peak_gpu *g = by_name(name);
    if (g && g->sms == sms)
        return g;
    if (why && n) {
        if (!name || !name[0])
            snprintf(why, n, "the GPU is not known (CUPTI gave no device record)");
        else if (g)
            snprintf(why, n, "%s has %u SMs, the table's %s %u (a MIG slice or another variant)",
                     name, sms, g->label, g->sms);
        else
            snprintf(why, n, "%s is not in the peak table (model/peak.c)", name);
    }
    return NULL;
}

const cuprof_peak_gpu *cuprof_peak_by_label(const char *label)
{
    for (size_t i = 0; label && i < NTABLE; i++)
        if (!strcmp(label, table[i].label) || !strcmp(label, table[i].match))
            return &table[i];
    return by_name(label);   /* CUDA's own name for it */
}

const char *cuprof_prec_name(int prec)
{
    static const char *const names[CUPROF_PREC_N] = {"unknown", "fp64", "fp32", "tf32",
                                                     "fp16", "bf16", "fp8", "int8"};
    return prec > 0 && prec < CUPROF_PREC_N ? names[prec] : "unknown";
}

int cuprof_gemm_prec(uint8_t atype, uint16_t compute)
{
    switch (compute) {   /* cublasComputeType_t: the FAST modes */
    case 77: return CUPROF_PREC_TF32;   /* CUBLAS_COMPUTE_32F_FAST_TF32 */
    case 74: return CUPROF_PREC_FP16;   /* CUBLAS_COMPUTE_32F_FAST_16F */
    case 75: return CUPROF_PREC_BF16;   /* CUBLAS_COMPUTE_32F_FAST_16BF */
    default: break;
    }
    switch ((int)atype) {
    case CUDA_R_64F: case CUDA_C_64F: return CUPROF_PREC_FP64;
    case CUDA_R_32F: case CUDA_C_32F: return CUPROF_PREC_FP32;
    case CUDA_R_16F: case CUDA_C_16F: return CUPROF_PREC_FP16;
    case CUDA_R_16BF: case CUDA_C_16BF: return CUPROF_PREC_BF16;
    case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: return CUPROF_PREC_FP8;
    case CUDA_R_8I: case CUDA_R_8U: case CUDA_C_8I: case CUDA_C_8U: return CUPROF_PREC_INT8;
    default: return CUPROF_PREC_UNKNOWN;
    }
}

static int is_complex(uint8_t atype)
{
    switch ((int)atype) {
    case CUDA_C_16F: case CUDA_C_16BF: case CUDA_C_32F: case CUDA_C_64F:
    case CUDA_C_8I: case CUDA_C_8U: case CUDA_C_32I: case CUDA_C_32U:
        return 1;
    default:
        return 0;
    }
}

double cuprof_gemm_flops(uint32_t m, uint32_t n, uint32_t k, uint32_t batch, uint8_t atype,
                         uint16_t epilogue)
{
    double per = 2.0 * m * n * k * (is_complex(atype) ? 4.0 : 1.0);
    if (epilogue & 4)   /* CUBLASLT_EPILOGUE_BIAS's bit: BIAS, RELU_BIAS, GELU_BIAS, ... */
        per += (double)m * n;
    return per * (batch ? batch : 1);
}

void cuprof_peak_rate(const char *label, int prec, double flops, uint64_t gpu_ns, double *tflops,
                      const char **prec_name, double *peak, double *pct)
{
    *prec_name = cuprof_prec_name(prec);
    *tflops = *peak = *pct = 0.0;
    if (gpu_ns == 0 || flops <= 0)
        return;
    *tflops = flops / (double)gpu_ns / 1e3;
    const cuprof_peak_gpu *p = label ? cuprof_peak_by_label(label) : NULL;
    double pk = p && prec > 0 ? p->tflops[prec] : 0.0;
    if (prec == CUPROF_PREC_FP32 && pk > 0 && *tflops > pk && p->tflops[CUPROF_PREC_TF32] > 0) {
        *prec_name = "tf32";
        pk = p->tflops[CUPROF_PREC_TF32];
    }
    if (pk > 0) {
        *peak = pk;
        *pct = *tflops / pk * 100.0;
    }
}
