/*
 * findings.h - the trace-reading cheatsheet, automated: rules that look at a
 * run (threads' calls in order, the GPU records) and its summary and say
 * what they notice, with the numbers behind it and one line on what to try.
 *
 * Rules (thresholds are named constants in findings.c, each with why):
 *   overhead-bound / compute-bound   Self CPU vs Self CUDA total, GPU idle share
 *   hotspot                          one kernel holds most of the GPU kernel time
 *   many-calls                       one entry point called a huge number of times
 *   cold-start                       an entry point's first call far slower than
 *                                    its median, not separated from the steady
 *                                    state by a synchronization (no warm-up)
 *   cuda-startup                     one call before the first launch holding a
 *                                    large share of Self CPU (context creation)
 *   heavyweight-kernels              kernels launched after an occupancy query
 *                                    or by a cuBLAS/cuBLASLt call (GEMM/conv-like)
 *                                    vs the others
 *   sync-wait                        a synchronize blocking much longer than the
 *                                    GPU worked during it
 *   addmm-pattern                    DtoD copy of the output's size right before
 *                                    a GEMM with beta != 0
 *   fusion-candidate                 an output-sized kernel launched right after a GEMM
 *   kernel-spread                    max and mean of a kernel far above its median
 *   launch-latency / launch-gaps     CPU-to-GPU offset; GPU idle between kernels
 *   pageable-copy / blocking-copy    in the middle of the GPU work
 *   step-cold-start                  the first step far slower than the steady steps
 *   step-outlier                     a steady step far slower than their median
 *   step-host-bound / step-gpu-bound the GPU's busy share of the median step
 *   out-of-memory                    a device allocation failed for lack of
 *                                    memory: what was held then, and by whom
 *   graph-gaps                       a CUDA graph's replays idle a large share
 *                                    of their span between nodes
 */
#ifndef CUPROF_FINDINGS_H
#define CUPROF_FINDINGS_H

#include "model/summary.h"

/* Runs every rule on run, its kernel names, its GPU records joined to the
 * calls (tl, may be NULL), its steps (model/steps.h; may be NULL), its
 * device memory (model/memory.h; may be NULL), its graphs (model/graphs.h;
 * may be NULL), its collectives (model/collectives.h, built from run, tl
 * and steps; NULL: the rules build them) and its summary s (built from
 * them), and stores
 * the findings in s->findings / s->nfindings (one malloc block, freed by
 * cuprof_summary_destroy), most important first. Rules that need the GPU
 * timeline stay silent without one. Returns 0, or -1 on out of memory (then
 * s has no findings). Replaces findings already there. */
struct cuprof_steps;
struct cuprof_memory;
struct cuprof_graphs;
struct cuprof_collectives;
int cuprof_findings_build(const cuprof_run *run, const cuprof_names *names,
                          const struct cuprof_timeline *tl, const struct cuprof_steps *steps,
                          const struct cuprof_memory *mem, const struct cuprof_graphs *graphs,
                          const struct cuprof_collectives *colls, cuprof_summary *s);

#endif /* CUPROF_FINDINGS_H */
