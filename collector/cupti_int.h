/*
 * cupti_int.h - private to collector/cupti*.c: the table of CUPTI entry
 * points, the host clock, and the record store's interface.
 *
 *   cupti_load.c     finding and loading libcupti, the entry-point table, errors
 *   cupti.c          start, clock offset, hot path, finish, exit order
 *   cupti_records.c  buffer callbacks, parsing into compact records, normalizing,
 *                    the names of the records' cbids (tables: collector/cbid.h)
 */
#ifndef CUPROF_CUPTI_INT_H
#define CUPROF_CUPTI_INT_H

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "cupti.h"
#include "collector/cbid.h"

/* Every CUPTI entry point we use: X(required, name). A library missing a
 * required one is not used; optional ones may be NULL. */
#define CUPROF_CUPTI_FUNCS(X)                           \
    X(1, cuptiActivityRegisterCallbacks)                \
    X(1, cuptiActivityEnable)                           \
    X(1, cuptiActivityGetNextRecord)                    \
    X(1, cuptiActivityFlushAll)                         \
    X(1, cuptiActivityPushExternalCorrelationId)        \
    X(1, cuptiActivityPopExternalCorrelationId)         \
    X(1, cuptiGetTimestamp)                             \
    X(0, cuptiGetResultString)                          \
    X(0, cuptiGetVersion)                               \
    X(0, cuptiActivitySetAttribute)                     \
    X(0, cuptiActivityRegisterTimestampCallback)        \
    X(0, cuptiActivityDisable)                          \
    X(0, cuptiActivityGetNumDroppedRecords)             \
    X(0, cuptiSetThreadIdType)                          \
    X(0, cuptiSubscribe)                                \
    X(0, cuptiSubscribe_v2)                             \
    X(0, cuptiUnsubscribe)                              \
    X(0, cuptiEnableDomain)                             \
    X(0, cuptiEnableCallback)                           \
    X(0, cuptiGetGraphNodeId)                           \
    X(0, cuptiGetGraphId)                               \
    X(0, cuptiActivityEnableDriverApi) \
    X(0, cuptiActivityFlushPeriod) \
    X(0, cuptiActivityEnableRuntimeApi)

/* The loaded CUPTI: one pointer per entry point, named like the function. */
typedef struct cuprof_cupti_api {
    void *lib;          /* dlopen handle, NULL when none loaded */
    char path[512];     /* what was loaded (dladdr's answer or the name tried) */
#define CUPROF_CUPTI_FIELD(req, name) __typeof__(&name) name;
    CUPROF_CUPTI_FUNCS(CUPROF_CUPTI_FIELD)
#undef CUPROF_CUPTI_FIELD
} cuprof_cupti_api;

/* Filled once by cuprof_cupti_start, read-only afterwards. */
extern cuprof_cupti_api cuprof_cupti_fn;

/* The external-correlation kind we push. Not CUSTOM0/CUSTOM1: PyTorch's
 * Kineto pushes those, and a program profiled by both must not mix ids. */
#define CUPROF_CUPTI_EXT_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2
/* External id pushed around the profiler's own CUDA calls (the exit-time
 * synchronize): records carrying it are dropped while normalizing. */
#define CUPROF_CUPTI_EXT_OWN UINT64_MAX
/* CUPTI's flush period (cuptiActivityFlushPeriod), ms. */
#define CUPROF_CUPTI_FLUSH_MS 1000u

/* cuprof_cupti_start, but loading CUPTI from `path` only (NULL: the normal
 * search order). For tests that must pick the real or the simulated CUPTI. */
int cuprof_cupti_start_path(const char *path);

/* The host clock: CLOCK_MONOTONIC ns, the clock of cuprof_event.t0/t1.
 * (Kept here as the single place to switch to collector/clock.h.) */
uint64_t cuprof_cupti_host_ns(void);

/* Loads CUPTI into cuprof_cupti_fn: from `path` only, or the search order
 * of cupti_load.c when NULL. Returns 0, or -1 with the reason in words in
 * reason[len]. */
int cuprof_cupti_load(const char *path, char *reason, size_t len);
/* CUPTI error name ("CUPTI_ERROR_UNKNOWN"), never NULL. */
const char *cuprof_cupti_err(CUptiResult r);
/* What a user can do about an error (" (no NVIDIA driver ...?)"), or "". */
const char *cuprof_cupti_err_hint(CUptiResult r);

/* ---- record store (cupti_records.c) ------------------------------------ */

/* Buffer callbacks handed to cuptiActivityRegisterCallbacks. complete runs
 * on CUPTI's thread (or the flushing thread): it parses the buffer into
 * compact records under a lock that only it and the exit path take. */
void CUPTIAPI cuprof_cupti_buffer_request(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI cuprof_cupti_buffer_complete(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                           size_t size, size_t valid_size);

/* Clock map: host = cupti + offset, the offset interpolated linearly
 * between two calibration points (a = at start, b = at finish); written to
 * the run file's GPU_INFO, applied by its reader (formats/runfile/). */
typedef struct cuprof_cupti_clockmap {
    uint64_t cupti_a, off_a;  /* CUPTI time of calibration a, host - cupti (mod 2^64) */
    uint64_t cupti_b, off_b;  /* the same at b; cupti_b == 0: only a */
    uint64_t err_ns;          /* half-width of the best sample */
} cuprof_cupti_clockmap;

/* Adds CUPTI's dropped count. Thread-safe. */
void cuprof_cupti_store_add_dropped(uint64_t n);
/* Stops storing (later buffers only count as late), writes what is left
 * and the graph nodes to the run file. Called once, by cuprof_cupti_finish. */
void cuprof_cupti_store_finish(void);
/* From the exit path: API and sync records that start after cupti_t (on
 * CUPTI's clock) are counted as late, not kept. */
void cuprof_cupti_store_exit_at(uint64_t cupti_t);
/* Records written to the run file, of them API records, and records
 * dropped (by CUPTI, or not written). Thread-safe. */
void cuprof_cupti_store_counts(uint64_t *records, uint64_t *apis, uint64_t *dropped);
/* In a forked child: a usable lock, no records, nothing stored later. */
void cuprof_cupti_store_atfork_child(void);
/* A graph node CUPTI told of (resource callback): kept for the run until
 * store_finish. Thread-safe. */
void cuprof_cupti_store_graph_node(uint64_t id, uint64_t original, uint64_t origin, uint32_t graph);
/* Records delivered after store_finish (not kept). Thread-safe. */
uint64_t cuprof_cupti_store_late(void);

#endif /* CUPROF_CUPTI_INT_H */
