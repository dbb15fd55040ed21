/*
 * peak.h - how far a call is from what the device can do: the FLOPs of a
 * library call, counted as torch's flop counter and LAPACK's operation
 * counts count them, and the device's dense peak per precision, from a
 * table by GPU (peak.c, its sources cited there).
 *
 * A GPU is matched by its name (as CUDA gives it: "NVIDIA H100 80GB HBM3")
 * and its SM count; a GPU the table does not have, or one whose SM count
 * differs from the table's (a MIG slice, another variant), has no peak,
 * and the outputs say so rather than guess.
 */
#ifndef CUPROF_PEAK_H
#define CUPROF_PEAK_H

#include <stddef.h>
#include <stdint.h>

/* The precisions the table gives a peak for. FP64 is the tensor-core
 * rate where the GPU has one (cuBLAS's DGEMM runs there on A100 and later). */
enum cuprof_prec {
    CUPROF_PREC_UNKNOWN = 0,
    CUPROF_PREC_FP64, CUPROF_PREC_FP32, CUPROF_PREC_TF32, CUPROF_PREC_FP16,
    CUPROF_PREC_BF16, CUPROF_PREC_FP8, CUPROF_PREC_INT8,
    CUPROF_PREC_N
};

/* One GPU of the table. */
typedef struct cuprof_peak_gpu {
    const char *label;        /* "H100 SXM5" */
    const char *match;        /* a part of CUDA's name for it: "H100 PCIe" */
    uint32_t sms;             /* its SM count (a match needs it) */
    double tflops[CUPROF_PREC_N]; /* dense peak, TFLOP/s (TOP/s for INT8); 0 = not given */
    double mem_gbps;          /* device memory bandwidth, GB/s */
    const char *source;       /* where the numbers come from */
} cuprof_peak_gpu;

/* The table's entry for a GPU named name with sms SMs, or NULL; why (may
 * be NULL) then says why in a few words ("not in the table", "132 SMs, the
 * table's H100 PCIe has 114 (a MIG slice or another variant)"). */
const cuprof_peak_gpu *cuprof_peak_match(const char *name, uint32_t sms, char *why, size_t n);
/* The entry whose label or match is label (prof.sh report --peak-device), or NULL. */
const cuprof_peak_gpu *cuprof_peak_by_label(const char *label);
/* The table itself (for --help and tests): *n entries. */
const cuprof_peak_gpu *cuprof_peak_table(size_t *n);

/* "fp64", "fp32", "tf32", ...; "unknown". */
const char *cuprof_prec_name(int prec);

/* The precision a GEMM runs at, from A's cudaDataType_t and the
 * cublasComputeType_t (0 when the call has none): the FAST_TF32 / FAST_16F
 * / FAST_16BF compute types choose tensor cores over an FP32 input. */
int cuprof_gemm_prec(uint8_t atype, uint16_t compute);
/* FLOPs of one GEMM call: 2mnk per matrix (x4 complex), times batch, plus
 * m*n per matrix for a cuBLASLt epilogue that adds a bias (the activation
 * is not counted, as torch counts addmm). */
double cuprof_gemm_flops(uint32_t m, uint32_t n, uint32_t k, uint32_t batch, uint8_t atype,
                         uint16_t epilogue);

/* The rate of flops FLOPs done in gpu_ns and its share of the peak of the
 * table's entry named label (NULL: none) at precision prec: fills *tflops,
 * *prec_name ("bf16", ...; an fp32 rate above FP32's peak is taken as TF32:
 * tensor cores, cublasSetMathMode or torch's allow_tf32), *peak (0 unknown)
 * and *pct (0 unknown). Nothing but *prec_name without device time. */
void cuprof_peak_rate(const char *label, int prec, double flops, uint64_t gpu_ns, double *tflops,
                      const char **prec_name, double *peak, double *pct);

#endif /* CUPROF_PEAK_H */
