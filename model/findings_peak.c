/*
 * findings_peak.c - the rule "below-peak": the GEMM shapes that take the
 * most GPU time, far from what the device can do (model/peak.h), with what
 * to try for each.
 */
#include "model/findings_int.h"
#include "model/peak.h"

#include <stdio.h>
#include <string.h>

/* Up to this many shapes named in the finding. */
#define BELOW_PEAK_SHOWN 3

/* Appends ", " (when *at > 0) and the text to buf. */
static void append(char *buf, size_t n, size_t *at, const char *text)
{
    int w = snprintf(buf + *at, n - *at, "%s%s", *at ? "; " : "", text);
    if (w > 0)
        *at = *at + (size_t)w < n ? *at + (size_t)w : n - 1;
}

/* What to try for one shape, most likely first. */
static void advice_for(const cuprof_stat_shape *sh, char *adv, size_t n, size_t *at, int *seen)
{
    double work = (double)sh->m * sh->n * sh->k;
    int narrow = !strcmp(sh->prec, "fp16") || !strcmp(sh->prec, "bf16") ||
                 !strcmp(sh->prec, "fp8") || !strcmp(sh->prec, "int8");
    if (work < (double)(1 << 24) && !(seen[0]++))
        append(adv, n, at, "batch the small GEMMs into one (cublasGemmStridedBatched, torch.bmm) or "
                           "fuse them with their neighbours: a small GEMM cannot fill the GPU");
    if (narrow && (sh->m % 16 || sh->n % 16 || sh->k % 16) && !(seen[1]++))
        append(adv, n, at, "pad m, n and k to multiples of 16 so the tensor cores take whole tiles");
    if (!strcmp(sh->prec, "fp32") && !(seen[2]++))
        append(adv, n, at, "run fp32 GEMMs in bf16/fp16, or allow TF32 "
                           "(CUBLAS_COMPUTE_32F_FAST_TF32, torch.backends.cuda.matmul.allow_tf32): "
                           "FP32 has no tensor-core path");
}

void cuprof_findings_rule_below_peak(fctx *c)
{
    const cuprof_summary *s = c->s;
    if (!c->g || !s->device.peak_label)
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < s->nkernels; i++)
        total += s->kernels[i].gpu_total_ns;
    if (total == 0)
        return;
    /* the shapes past the thresholds, most GPU time first */
    const cuprof_stat_shape *pick[BELOW_PEAK_SHOWN];
    const char *api[BELOW_PEAK_SHOWN];
    size_t np = 0;
    for (;;) {
        const cuprof_stat_shape *best = NULL;
        const char *best_api = NULL;
        for (size_t i = 0; i < s->nblas; i++)
            for (size_t j = 0; j < s->blas[i].nshapes; j++) {
                const cuprof_stat_shape *sh = &s->blas[i].shapes[j];
                int taken = 0;
                for (size_t q = 0; q < np; q++)
                    taken |= pick[q] == sh;
                if (taken || sh->peak_tflops <= 0 || sh->peak_pct >= BELOW_PEAK_PCT ||
                    (double)sh->gpu_ns < BELOW_PEAK_MIN_SHARE * (double)total)
                    continue;
                if (!best || sh->gpu_ns > best->gpu_ns)
                    best = sh, best_api = s->blas[i].name;
            }
        if (!best || np == BELOW_PEAK_SHOWN)
            break;
        pick[np] = best;
        api[np++] = best_api;
    }
    if (np == 0)
        return;
    char msg[MSG_MAX], adv[ADV_MAX] = "";
    size_t at = 0, aat = 0;
    int seen[3] = {0, 0, 0};
    uint64_t gpu = 0;
    for (size_t q = 0; q < np; q++) {
        const cuprof_stat_shape *sh = pick[q];
        char t[32], p[32];
        char one[256];
        snprintf(one, sizeof one, "%ux%ux%u%s %s (%s, %llu calls) at %.3g TFLOP/s, %.2g%% of %.0f, "
                 "in %s (%s of the kernel time)",
                 sh->m, sh->n, sh->k, sh->batch > 1 ? " batched" : "", sh->prec, api[q],
                 (unsigned long long)sh->calls, sh->tflops, sh->peak_pct, sh->peak_tflops,
                 cuprof_findings_fmt_ns(t, sizeof t, sh->gpu_ns),
                 cuprof_findings_fmt_pct(p, sizeof p, (double)sh->gpu_ns / (double)total));
        append(msg, sizeof msg, &at, one);
        advice_for(sh, adv, sizeof adv, &aat, seen);
        gpu += sh->gpu_ns;
    }
    if (!aat)
        append(adv, sizeof adv, &aat, "check the layout and algorithm cuBLAS chose (cublasLt "
                                      "heuristics, transposes); a bigger batch or a fused op");
    cuprof_finding *f = cuprof_findings_add(c, "below-peak", "warning", adv,
                                            "GEMMs far below the %s's peak: %s",
                                            s->device.peak_label, msg);
    cuprof_findings_num(f, "pct_of_peak", pick[0]->peak_pct, 0);
    cuprof_findings_num(f, "tflops", pick[0]->tflops, 0);
    cuprof_findings_num(f, "peak_tflops", pick[0]->peak_tflops, 0);
    cuprof_findings_num(f, "gpu_total_ns", (double)gpu, 1);
    cuprof_findings_num(f, "kernels_gpu_total_ns", (double)total, 1);
    cuprof_findings_num(f, "shapes", (double)np, 1);
}
