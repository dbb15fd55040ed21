/*
 * cupti_sim.h - internals shared by the modules of the simulated CUPTI
 * (libcupti.so.13). Nothing declared here is exported: the library is built
 * with -fvisibility=hidden and only the real <cupti*.h> prototypes (made
 * visible by CUPTI_LIB) and the version script reach the dynamic table.
 *
 * How the pieces fit:
 *   hooks.c      attaches to the simulated driver (cusim_tool_set) and turns
 *                what it reports into CUPTI records and callbacks
 *   activity.c   the activity API: enabled kinds, attributes, external
 *                correlation stacks, record layout helpers
 *   buffers.c    user buffers (request/complete callbacks), the worker
 *                thread that hands completed buffers back, flush
 *   devqueue.c   the "device buffer": device-timed records (kernels, copies,
 *                memsets) wait here until they complete and are drained into
 *                user buffers; its capacity is where records get dropped
 *   callbacks.c  the callback API (subscribe, enable, runtime-domain calls)
 *   results.c    version, result strings, callback names
 */
#ifndef CUPTI_SIM_H
#define CUPTI_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "cusim.h"

/* ---- per-thread state (hooks.c) ---------------------------------------- */

#define CS_EXT_DEPTH 64   /* external ids per kind a thread can push */
#define CS_FRAME_DEPTH 32 /* runtime calls a thread can have open at once */

/* One open runtime API call, from api_enter to api_exit. */
typedef struct cs_frame {
    const cusim_api_call *call; /* the driver's call this frame belongs to */
    uint64_t correlation_data;  /* where CUpti_CallbackData.correlationData points */
    int32_t ret;                /* cudaError_t copy for functionReturnValue */
} cs_frame;

/* Everything the simulated CUPTI keeps per thread. */
typedef struct cs_thread {
    uint64_t ext_ids[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][CS_EXT_DEPTH]; /* pushed ids */
    unsigned ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE]; /* stack heights */
    cs_frame frames[CS_FRAME_DEPTH]; /* open calls, innermost last */
    unsigned nframes;                /* open calls (may exceed CS_FRAME_DEPTH) */
    CUptiResult last_error;          /* for cuptiGetLastError */
} cs_thread;

/* The calling thread's state (zeroed on first use). */
cs_thread *cs_thread_get(void);
/* Records `r` as the thread's last error (cuptiGetLastError) and returns it. */
CUptiResult cs_error(CUptiResult r);

/* ---- hooks.c ----------------------------------------------------------- */

/* Attaches to the simulated driver once (idempotent, thread-safe). Every
 * exported entry point calls it first, so the library works however it was
 * loaded (linked, dlopen'ed, or as an injection library). */
void cs_attach(void);

/* ---- activity.c -------------------------------------------------------- */

/* 1 if records of `kind` are being collected. */
int cs_kind_enabled(CUpti_ActivityKind kind);
/* Whether an API call of this domain and callback id makes a record: its
 * per-cbid switch (cuptiActivityEnableRuntimeApi / EnableDriverApi), else
 * its kind. */
int cs_api_enabled(int driver, uint32_t cbid);
/* Size in bytes of one record of `kind` as the sim writes it, or 0 for kinds
 * the sim never writes (cuptiActivityGetNextRecord uses it to walk buffers). */
size_t cs_record_size(CUpti_ActivityKind kind);
/* Calls `fn(kind, id)` for the top of every non-empty external-correlation
 * stack of the calling thread, in kind order. */
void cs_ext_for_each(void (*fn)(CUpti_ExternalCorrelationKind kind, uint64_t id, void *arg),
                     void *arg);
/* 1 if queued/submitted kernel timestamps are collected
 * (cuptiActivityEnableLatencyTimestamps before the driver started). */
int cs_latency_timestamps(void);
/* 1 if CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM was selected (gettid), else the
 * default (pthread_self truncated to 32 bits, as the real CUPTI on Linux). */
int cs_thread_id_is_system(void);

/* ---- buffers.c --------------------------------------------------------- */

/* Where a record goes: host-side records (API, external correlation,
 * synchronization) and device-side ones (kernels, copies, memsets) fill
 * separate user buffers, so a client sees them complete in different orders,
 * as with the real CUPTI. */
typedef enum cs_channel {
    CS_CH_HOST = 0,
    CS_CH_DEVICE = 1,
    CS_CH_COUNT
} cs_channel;

/* Copies one record (its first field is its CUpti_ActivityKind) into the
 * current buffer of `ch`, asking the client for a new buffer when it is full
 * (that request costs the calling thread a few tens of microseconds, as a
 * real buffer request does). Without a buffer the record is dropped and
 * counted. Thread-safe. */
void cs_buf_write(cs_channel ch, const void *rec, size_t size);
/* Counts records lost for lack of space (cuptiActivityGetNumDroppedRecords). */
void cs_buf_count_dropped(size_t n);

/* ---- devqueue.c -------------------------------------------------------- */

/* Queues a device-timed record that completes at device time `end`. Drops
 * and counts it when the device buffer already holds its capacity. */
void cs_dev_push(const void *rec, size_t size, uint64_t end);
/* Moves device records into user buffers: those complete at the device's
 * current time, or all of them if `forced`. */
void cs_dev_drain(int forced);
/* In a forked child: forgets the parent's waiting records, frees the lock. */
void cs_dev_reset_in_child(void);
/* Sets how many records the device buffer holds between drains. activity.c
 * calls it only while the driver has not started, as the real CUPTI applies
 * device-buffer attributes only to buffers it allocates at context creation. */
void cs_dev_set_capacity(size_t records);

/* ---- callbacks.c ------------------------------------------------------- */

/* Gives an API call (runtime or driver domain, by c->driver) to the
 * subscriber if it enabled that callback.
 * `corr_data` is the per-call slot CUpti_CallbackData.correlationData points
 * to; `ret` points to the call's return value (meaningful at exit). */
void cs_cb_api(const cusim_api_call *c, CUpti_ApiCallbackSite site, uint64_t *corr_data,
               void *ret);

/* Gives a graph event (a node created or cloned, an exec created) to the
 * subscriber as CUPTI's resource callbacks GRAPHNODE_CREATED,
 * GRAPHNODE_CLONED, GRAPHEXEC_CREATED, if it enabled them. */
void cs_cb_graph(const cusim_graph_event *e);

/* Drops the subscriber, if any (cuptiFinalize). */
void cs_cb_detach(void);

/* ---- results.c --------------------------------------------------------- */

/* Name of a runtime API callback id without the CUPTI prefix
 * ("cudaLaunchKernel_v7000"), or NULL if unknown. */
const char *cs_runtime_cbid_name(uint32_t cbid);

#endif /* CUPTI_SIM_H */
