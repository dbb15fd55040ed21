/*
 * graphs.h - CUDA graphs in the run: each graph that was replayed, how often,
 * its GPU time, and that time by where each node came from.
 *
 * A replayed kernel, copy or memset carries the exec's graph id and its
 * node's id (CUPTI). The node is an instantiation's clone of a node that
 * was created by an API call or captured from one: CUPTI's resource
 * callback told the collector which hooked call was open on the thread then
 * (cuprof_gpu_graph_node.origin). So each record is charged to its graph
 * (whose launch holds it in the table's rows) and to its origin: the
 * captured cublasGemmEx with its shape (and cuBLASLt epilogue), the <<<>>>
 * launch with its kernel; with the NVTX range it was captured in and, with
 * --stacks, its launch site.
 * Work whose node has no known origin (an explicit cudaGraphAddKernelNode,
 * or no resource callbacks: another CUPTI client holds the subscriber) is
 * grouped by what ran.
 */
#ifndef CUPROF_MODEL_GRAPHS_H
#define CUPROF_MODEL_GRAPHS_H

#include "model/names.h"
#include "model/ranges.h"
#include "model/run.h"
#include "model/stacks.h"

#include <stddef.h>
#include <stdint.h>

/* The work of one graph that came from one origin. */
typedef struct cuprof_graph_origin {
    uint64_t event;              /* the origin call's event id, 0 = unknown */
    char *label;                 /* "cublasGemmEx 64x64x64 bf16", "__cudaLaunchKernel
                                    bias_add<...>", or what ran when unknown */
    const char *work;            /* what ran: the first record's kernel or copy kind */
    const char *range;           /* the innermost NVTX push range around the origin call
                                    when it was captured, NULL none */
    const char *site;            /* with --stacks: the origin call's launch site, NULL none */
    uint64_t records;            /* kernels, copies and memsets replayed */
    uint64_t gpu_total_ns;
} cuprof_graph_origin;

typedef struct cuprof_graph {
    uint32_t id;                 /* the exec's graph id (CUPTI's graphId) */
    uint64_t launches;           /* replays: distinct launch correlation ids */
    uint64_t nodes;              /* distinct nodes that ran */
    uint64_t records, gpu_total_ns;
    uint64_t replay_span_ns;     /* median over replays: first record's start to last's end */
    double replay_idle_share;    /* median over replays: share of that span no record ran */
    int replay_sketched;         /* 1: those medians are approximate (model/quantile.h) */
    cuprof_graph_origin *origins; /* most GPU time first */
    size_t norigins;
} cuprof_graph;

/* Which origin a node's replays were charged to. */
typedef struct cuprof_graph_node_origin {
    uint64_t node;
    const char *label;           /* its cuprof_graph_origin's label */
    int captured;                /* 1: the call it came from is known */
    uint64_t event;              /* that call's event id, 0 unknown */
} cuprof_graph_node_origin;

typedef struct cuprof_graphs {
    cuprof_graph *g;             /* most GPU time first */
    size_t n;
    cuprof_graph_node_origin *by_node;   /* sorted by node */
    size_t nby_node;
} cuprof_graphs;

/* From run->gpu_run's records and graph nodes; names gives the kernels'
 * display names. An empty one when nothing was replayed; NULL on out of
 * memory. */
cuprof_graphs *cuprof_graphs_build(const cuprof_run *run, const cuprof_names *names,
                                   const cuprof_ranges *ranges, const cuprof_stacks *stacks);
void cuprof_graphs_destroy(cuprof_graphs *gs);
/* The origin label of a node that ran (a record's graph_node_id), NULL if
 * none. */
const char *cuprof_graphs_origin(const cuprof_graphs *gs, uint64_t node);
/* 1 when the call a node that ran came from is known. */
int cuprof_graphs_node_captured(const cuprof_graphs *gs, uint64_t node);
/* The event id of the call a node that ran came from, 0 unknown. */
uint64_t cuprof_graphs_node_origin_event(const cuprof_graphs *gs, uint64_t node);

#endif /* CUPROF_MODEL_GRAPHS_H */
