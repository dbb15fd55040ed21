/*
 * cusim_timeline.c - the device timeline: streams, events, and the work
 * queued on them (kernels, copies, memsets), and the calls that wait for it.
 *
 * All times here are host ns (CLOCK_MONOTONIC); they become device-clock
 * times only when reported (to the tool, or as return values). One mutex
 * guards the timeline; it is held for a few arithmetic operations per call.
 *
 * Stream semantics (as in CUDA): work on the legacy default stream starts
 * only after all work queued on blocking streams, and work on a blocking
 * stream only after the legacy stream's work. Non-blocking streams
 * (cudaStreamNonBlocking) ignore the legacy stream. Per-thread default
 * streams are blocking streams (CUDA: "the per-thread default stream is not
 * a non-blocking stream and will synchronize with the legacy default stream
 * if both are used"), but do not synchronize with each other. Streams
 * otherwise run concurrently.
 */
#include "cusim_internal.h"

#include <stdlib.h>
#include <string.h>

/* The timeline lock: every stream tail and the maxima below. */
static pthread_mutex_t dev_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cusim_stream legacy = {
    .magic = CUSIM_STREAM_MAGIC, .id = 7, .type = CUSIM_STREAM_LEGACY,
};
static uint64_t blocking_tail; /* latest end over blocking non-legacy streams */
static uint64_t device_tail;   /* latest end over all streams */
static uint64_t op_seq;        /* operations placed so far: the jitter's input */
static uint32_t next_stream_id = 13; /* CUPTI-style ids; 7 is the legacy stream */
/* Destroyed streams/events kept for reuse, so a stale handle never points at
 * freed memory (it fails the magic check instead, until reused). */
static struct cusim_stream *free_streams[64];
static int nfree_streams;
static struct cusim_event *free_events[256];
static int nfree_events;
/* Every stream and event ever allocated: they are never freed (a stale handle
 * must stay readable), and this keeps them reachable for leak checkers. */
static struct cusim_stream *all_streams;
static struct cusim_event *all_events;

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static int is_blocking(const cusim_stream *s)
{
    return s->type != CUSIM_STREAM_LEGACY && !(s->flags & CUSIM_STREAM_NONBLOCKING);
}

/* Earliest start for new work on s given its stream dependencies. Caller
 * holds dev_mu. */
static uint64_t stream_ready(const cusim_stream *s)
{
    uint64_t t = s->tail;
    if (s->type == CUSIM_STREAM_LEGACY)
        t = max64(t, blocking_tail);
    else if (is_blocking(s))
        t = max64(t, legacy.tail);
    return t;
}

/* Marks s busy until end. Caller holds dev_mu. */
static void stream_advance(cusim_stream *s, uint64_t end)
{
    s->tail = max64(s->tail, end);
    if (is_blocking(s))
        blocking_tail = max64(blocking_tail, end);
    device_tail = max64(device_tail, end);
}

/* Places an operation of dur ns (before jitter) on s, submitted at host time
 * now, ending no earlier than min_end (0: no bound); returns its host start
 * and end. */
static void place_until(cusim_stream *s, uint64_t now, double dur, int outliers, uint64_t min_end,
                        uint64_t *start, uint64_t *end)
{
    pthread_mutex_lock(&dev_mu);
    uint64_t seq = op_seq++;
    double f = cusim_model_jitter(cusim_cfg.seed, seq, outliers);
    uint64_t d = (uint64_t)(dur * f + 0.5);
    uint64_t st = max64(stream_ready(s), now + CUSIM_LAUNCH_LATENCY_NS);
    *start = st;
    *end = max64(st + d, min_end);
    stream_advance(s, *end);
    pthread_mutex_unlock(&dev_mu);
}

static void place(cusim_stream *s, uint64_t now, double dur, int outliers, uint64_t *start,
                  uint64_t *end)
{
    place_until(s, now, dur, outliers, 0, start, end);
}

/* ---- streams ------------------------------------------------------------- */

static cusim_stream *stream_new(unsigned flags, int priority, enum cusim_stream_type type)
{
    pthread_mutex_lock(&dev_mu);
    cusim_stream *s = nfree_streams > 0 ? free_streams[--nfree_streams] : NULL;
    uint32_t id = next_stream_id++;
    if (s == NULL && (s = calloc(1, sizeof(*s))) != NULL) {
        s->all_next = all_streams;
        all_streams = s;
    }
    if (s != NULL) {
        s->id = id, s->flags = flags, s->priority = priority, s->type = type, s->tail = 0;
        s->capture = NULL, s->capture_id = 0, s->capture_to = 0, s->capture_joined = 0;
        s->magic = CUSIM_STREAM_MAGIC;
    }
    pthread_mutex_unlock(&dev_mu);
    return s;
}

cusim_stream *cusim_stream_get(const void *cuda_stream, int ptds)
{
    uintptr_t v = (uintptr_t)cuda_stream;
    if (v == 0 && !ptds)
        return &legacy;
    if (v == 1) /* cudaStreamLegacy */
        return &legacy;
    if (v == 0 || v == 2) { /* per-thread default stream */
        if (cusim_self.ptds == NULL)
            cusim_self.ptds = stream_new(0, 0, CUSIM_STREAM_PER_THREAD);
        return cusim_self.ptds;
    }
    cusim_stream *s = (cusim_stream *)cuda_stream;
    return s->magic == CUSIM_STREAM_MAGIC ? s : NULL;
}

cusim_stream *cusim_stream_create(unsigned flags, int priority)
{
    return stream_new(flags, priority, CUSIM_STREAM_CREATED);
}

void cusim_stream_destroy(cusim_stream *s)
{
    /* Work still queued completes anyway, as in CUDA: the tails it left in
     * blocking_tail / device_tail stay. */
    if (s == NULL || s->type != CUSIM_STREAM_CREATED || s->magic != CUSIM_STREAM_MAGIC)
        return;
    /* a capture still open ends with the stream: its own graph goes (no one
     * can have it), the program's graph is the program's again */
    int own = s->capture != NULL && !s->capture_to;
    cusim_graph *g = cusim_stream_end_capture(s);
    if (g != NULL && own)
        cusim_graph_destroy(g);
    pthread_mutex_lock(&dev_mu);
    s->magic = 0;
    if (nfree_streams < (int)(sizeof(free_streams) / sizeof(free_streams[0])))
        free_streams[nfree_streams++] = s;
    pthread_mutex_unlock(&dev_mu);
}

uint32_t cusim_stream_id(const cusim_stream *s)
{
    return s->id;
}

unsigned cusim_stream_flags(const cusim_stream *s)
{
    return s->flags;
}

int cusim_stream_priority(const cusim_stream *s)
{
    return s->priority;
}

/* Reports a host wait [h0, h1] to the tool. */
static void emit_sync(int type, uint64_t h0, uint64_t h1, uint32_t stream_id)
{
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool == NULL || tool->sync == NULL)
        return;
    int64_t d = cusim_gpu_delta();
    cusim_sync_activity a = {
        .type = type,
        .start = h0 + (uint64_t)d,
        .end = h1 + (uint64_t)d,
        .stream_id = stream_id,
        .correlation_id = cusim_current_correlation(),
    };
    tool->sync(&a);
}

void cusim_stream_sync(cusim_stream *s)
{
    uint64_t h0 = cusim_host_ns();
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = s->tail;
    pthread_mutex_unlock(&dev_mu);
    cusim_wait_until_host(t);
    emit_sync(CUSIM_SYNC_STREAM, h0, cusim_host_ns(), s->id);
}

int cusim_stream_query(cusim_stream *s)
{
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = s->tail;
    pthread_mutex_unlock(&dev_mu);
    return cusim_host_ns() >= t;
}

void cusim_device_sync(void)
{
    uint64_t h0 = cusim_host_ns();
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = device_tail;
    pthread_mutex_unlock(&dev_mu);
    cusim_wait_until_host(t);
    emit_sync(CUSIM_SYNC_CONTEXT, h0, cusim_host_ns(), UINT32_MAX);
}

void cusim_device_drain(void)
{
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = device_tail;
    pthread_mutex_unlock(&dev_mu);
    cusim_wait_until_host(t);
}

void cusim_device_reset(void)
{
    cusim_device_drain();
}

/* ---- events -------------------------------------------------------------- */

cusim_event *cusim_event_create(unsigned flags)
{
    pthread_mutex_lock(&dev_mu);
    cusim_event *e = nfree_events > 0 ? free_events[--nfree_events] : NULL;
    if (e == NULL && (e = calloc(1, sizeof(*e))) != NULL) {
        e->all_next = all_events;
        all_events = e;
    }
    if (e != NULL) {
        e->flags = flags, e->recorded = 0, e->time = 0, e->capture = NULL, e->capture_id = 0;
        e->magic = CUSIM_EVENT_MAGIC;
    }
    pthread_mutex_unlock(&dev_mu);
    return e;
}

cusim_event *cusim_event_get(const void *cuda_event)
{
    cusim_event *e = (cusim_event *)cuda_event;
    return e != NULL && e->magic == CUSIM_EVENT_MAGIC ? e : NULL;
}

void cusim_event_destroy(cusim_event *e)
{
    if (e == NULL || e->magic != CUSIM_EVENT_MAGIC)
        return;
    pthread_mutex_lock(&dev_mu);
    e->magic = 0;
    if (nfree_events < (int)(sizeof(free_events) / sizeof(free_events[0])))
        free_events[nfree_events++] = e;
    pthread_mutex_unlock(&dev_mu);
}

void cusim_event_record(cusim_event *e, cusim_stream *s)
{
    /* In a capture, a record is a point in the graph, not device work: a
     * stream that waits on it joins the capture (CUDA's cross-stream
     * capture, the fork and join of NVIDIA's simpleCudaGraphs). */
    if (s->capture != NULL && !cusim_replaying.active) {
        pthread_mutex_lock(&dev_mu);
        e->capture = s->capture, e->capture_id = s->capture_id;
        pthread_mutex_unlock(&dev_mu);
        return;
    }
    /* A record is a zero-length operation in the stream: it is reached when
     * the stream's earlier work is done, and no earlier than the launch
     * latency after the call. */
    uint64_t now = cusim_host_ns();
    pthread_mutex_lock(&dev_mu);
    e->capture = NULL, e->capture_id = 0;
    uint64_t t = max64(stream_ready(s), now + CUSIM_LAUNCH_LATENCY_NS);
    stream_advance(s, t);
    e->time = t;
    e->recorded = 1;
    pthread_mutex_unlock(&dev_mu);
}

int cusim_streams_leave_capture(struct cusim_graph *g, uint64_t id)
{
    int n = 0;
    pthread_mutex_lock(&dev_mu);
    for (cusim_stream *s = all_streams; s != NULL; s = s->all_next)
        if (s->magic == CUSIM_STREAM_MAGIC && s->capture_joined && s->capture == g && s->capture_id == id) {
            s->capture = NULL, s->capture_id = 0, s->capture_to = 0, s->capture_joined = 0;
            n++;
        }
    pthread_mutex_unlock(&dev_mu);
    return n;
}

void cusim_event_sync(cusim_event *e)
{
    uint64_t h0 = cusim_host_ns();
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = e->recorded ? e->time : 0;
    pthread_mutex_unlock(&dev_mu);
    cusim_wait_until_host(t);
    emit_sync(CUSIM_SYNC_EVENT, h0, cusim_host_ns(), UINT32_MAX);
}

int cusim_event_query(cusim_event *e)
{
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    uint64_t t = e->recorded ? e->time : 0;
    pthread_mutex_unlock(&dev_mu);
    return cusim_host_ns() >= t;
}

float cusim_event_elapsed_ms(cusim_event *a, cusim_event *b)
{
    cusim_defer_drain();
    pthread_mutex_lock(&dev_mu);
    int ra = a->recorded, rb = b->recorded;
    uint64_t ta = a->time, tb = b->time;
    unsigned flags = a->flags | b->flags;
    pthread_mutex_unlock(&dev_mu);
    if (!ra || !rb)
        return -1.0f;
    if (flags & CUSIM_EVENT_DISABLE_TIMING)
        return -2.0f;
    if (cusim_host_ns() < max64(ta, tb))
        return -3.0f;
    return (float)(((double)tb - (double)ta) / 1e6);
}

void cusim_stream_wait_event(cusim_stream *s, cusim_event *e)
{
    pthread_mutex_lock(&dev_mu);
    struct cusim_graph *g = e->capture;
    uint64_t id = e->capture_id;
    pthread_mutex_unlock(&dev_mu);
    if (g != NULL) {
        /* an event of a capture: s joins it, if that capture is still on
         * (a capturing stream already captures; the legacy stream cannot) */
        if (s->capture == NULL && s->type != CUSIM_STREAM_LEGACY)
            cusim_stream_join_capture(s, g, id);
        return;
    }
    uint64_t now = cusim_host_ns();
    pthread_mutex_lock(&dev_mu);
    if (e->recorded)
        stream_advance(s, e->time);
    pthread_mutex_unlock(&dev_mu);
    emit_sync(CUSIM_SYNC_STREAM_WAIT_EVENT, now, now, s->id);
}

/* ---- work ---------------------------------------------------------------- */

/* The stream's capture graph when the work must become a node instead of
 * running (not while a graph is being replayed onto it). */
static struct cusim_graph *capturing(const cusim_stream *s)
{
    return s->capture != NULL && !cusim_replaying.active ? s->capture : NULL;
}

uint64_t cusim_launch(cusim_stream *s, const cusim_kernel_desc *k, uint32_t corr)
{
    return cusim_launch_until(s, k, corr, 0, 0);
}

uint64_t cusim_launch_until(cusim_stream *s, const cusim_kernel_desc *k, uint32_t corr, uint64_t submitted,
                            uint64_t min_end)
{
    struct cusim_graph *g = capturing(s);
    if (g != NULL) {
        cusim_capture_kernel(g, k);
        return 0;
    }
    uint64_t now = submitted ? submitted : cusim_host_ns(), start, end;
    place_until(s, now, cusim_model_kernel_ns(k), 1, min_end, &start, &end);
    int64_t d = cusim_gpu_delta();
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool != NULL && tool->kernel != NULL) {
        uint64_t sub = now + CUSIM_SUBMIT_NS;
        cusim_kernel_activity a = {
            .desc = k,
            .queued = now + (uint64_t)d,
            .submitted = (sub < start ? sub : start) + (uint64_t)d,
            .start = start + (uint64_t)d,
            .end = end + (uint64_t)d,
            .stream_id = s->id,
            .correlation_id = corr,
            .graph_id = cusim_replaying.graph_id,
            .graph_node_id = cusim_replaying.node_id,
        };
        tool->kernel(&a);
    }
    return end + (uint64_t)d;
}

static int on_device(int mem)
{
    return mem == CUSIM_MEM_DEVICE || mem == CUSIM_MEM_MANAGED;
}

/* The bytes of a copy or memset: 2D, `height` rows of `width` bytes. */
typedef struct xfer {
    int is_memset;
    int value;            /* memset: the byte, or the 16/32-bit element */
    int elem;             /* memset: element size, 1, 2 or 4 bytes (0 counts as 1) */
    void *dst;
    const void *src;      /* memcpy */
    size_t dpitch, spitch, width, height;
} xfer;

/* Fills n bytes at p with the element v of elem bytes (2 or 4: cuMemsetD16/D32). */
static void fill_elems(void *p, uint32_t v, int elem, size_t n)
{
    unsigned char *b = p;
    if (elem == 2) {
        uint16_t e = (uint16_t)v;
        for (size_t i = 0; i + 2 <= n; i += 2)
            memcpy(b + i, &e, 2);
    } else {
        for (size_t i = 0; i + 4 <= n; i += 4)
            memcpy(b + i, &v, 4);
    }
}

static void xfer_run(const xfer *x)
{
    size_t h = x->height ? x->height : 1;
    if (x->is_memset && x->elem > 1) {
        for (size_t r = 0; r < h; r++)
            fill_elems((char *)x->dst + r * x->dpitch, (uint32_t)x->value, x->elem, x->width);
    } else if (x->is_memset) {
        if (h == 1 || x->dpitch == x->width)
            memset(x->dst, x->value, x->width * h);
        else
            for (size_t r = 0; r < h; r++)
                memset((char *)x->dst + r * x->dpitch, x->value, x->width);
    } else {
        if (h == 1 || (x->dpitch == x->width && x->spitch == x->width))
            memmove(x->dst, x->src, x->width * h);
        else
            for (size_t r = 0; r < h; r++)
                memmove((char *)x->dst + r * x->dpitch, (const char *)x->src + r * x->spitch,
                        x->width);
    }
}

static void xfer_job(void *arg)
{
    xfer_run(arg);
    free(arg);
}

/* Moves the bytes: a blocking call does it now, after the deferred work queued
 * before it (which it may observe); an asynchronous one queues it behind that
 * work, so it happens in stream order when something can observe it, and
 * the call costs the host no more than a real one does. */
static void xfer_submit(const xfer *x, int blocking)
{
    xfer *j;
    if (blocking || cusim_defer_running() || (j = malloc(sizeof *j)) == NULL) {
        cusim_defer_drain();
        xfer_run(x);
        return;
    }
    *j = *x;
    cusim_defer(xfer_job, j);
}

uint64_t cusim_memcpy2d(cusim_stream *s, void *dst, size_t dpitch, const void *src, size_t spitch,
                        size_t width, size_t height, int kind, int blocking, uint32_t corr)
{
    struct cusim_graph *g = capturing(s);
    if (g != NULL) {
        cusim_capture_copy(g, dst, dpitch, src, spitch, width, height, kind);
        return 0;
    }
    /* Submitted now: the device timeline comes from the model and this
     * instant alone, never from the host time the sim spends moving bytes or
     * running deferred work. */
    uint64_t now = cusim_host_ns(), start, end;
    /* CUPTI's async flag: an *Async call's copy or a graph replay's, whatever
     * pageable memory makes of it (as on an H200) */
    int is_async = cusim_replaying.graph_id != 0 || cusim_current_call_async();
    int src_mem = cusim_mem_kind_of(src), dst_mem = cusim_mem_kind_of(dst);
    if (kind < CUSIM_COPY_HTOH || kind > CUSIM_COPY_DTOD) /* cudaMemcpyDefault */
        kind = on_device(src_mem) ? (on_device(dst_mem) ? CUSIM_COPY_DTOD : CUSIM_COPY_DTOH)
                                  : (on_device(dst_mem) ? CUSIM_COPY_HTOD : CUSIM_COPY_HTOH);
    uint64_t bytes = (uint64_t)width * (height ? height : 1);
    /* Pageable host memory goes through a staging buffer: the call returns
     * only when the copy is done, even for cudaMemcpyAsync. */
    if ((kind == CUSIM_COPY_HTOD && src_mem == CUSIM_MEM_UNKNOWN) ||
        (kind == CUSIM_COPY_DTOH && dst_mem == CUSIM_MEM_UNKNOWN) || kind == CUSIM_COPY_HTOH)
        blocking = 1;
    /* The bytes: a blocking copy moves them now (host code then sees them in
     * program order), an async one in stream order through the defer queue
     * (a program may look only after a synchronization, a query or a
     * blocking copy, all of which run the queue first). */
    xfer x = {.dst = dst, .src = src, .dpitch = dpitch, .spitch = spitch, .width = width,
              .height = height};
    xfer_submit(&x, blocking);
    place(s, now, cusim_model_copy_ns(kind, src_mem, dst_mem, bytes), 0, &start, &end);
    int64_t d = cusim_gpu_delta();
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool != NULL && tool->copy != NULL) {
        cusim_copy_activity a = {
            .is_memset = 0, .copy_kind = kind, .src_mem = src_mem, .dst_mem = dst_mem,
            .bytes = bytes, .start = start + (uint64_t)d, .end = end + (uint64_t)d,
            .stream_id = s->id, .correlation_id = corr,
            .graph_id = cusim_replaying.graph_id, .graph_node_id = cusim_replaying.node_id,
            .is_async = is_async,
        };
        tool->copy(&a);
    }
    if (blocking)
        cusim_wait_until_host(end);
    return end + (uint64_t)d;
}

uint64_t cusim_memcpy(cusim_stream *s, void *dst, const void *src, size_t bytes, int kind,
                      int blocking, uint32_t corr)
{
    return cusim_memcpy2d(s, dst, bytes, src, bytes, bytes, 1, kind, blocking, corr);
}

uint64_t cusim_memset(cusim_stream *s, void *dst, int value, size_t bytes, int blocking,
                      uint32_t corr)
{
    return cusim_memset2d(s, dst, bytes, value, bytes, 1, blocking, corr);
}

uint64_t cusim_memset2d(cusim_stream *s, void *dst, size_t pitch, int value, size_t width,
                        size_t height, int blocking, uint32_t corr)
{
    return cusim_memset_elems(s, dst, pitch, (uint32_t)value, 1, width, height, blocking, corr);
}

uint64_t cusim_memset_elems(cusim_stream *s, void *dst, size_t pitch, uint32_t value, int elem,
                            size_t width, size_t height, int blocking, uint32_t corr)
{
    struct cusim_graph *g = capturing(s);
    if (g != NULL && elem <= 1) {
        cusim_capture_memset(g, dst, pitch, value, width, height);
        return 0;
    }
    uint64_t now = cusim_host_ns(), start, end; /* see cusim_memcpy2d */
    int dst_mem = cusim_mem_kind_of(dst);
    uint64_t bytes = (uint64_t)width * (height ? height : 1);
    xfer x = {.is_memset = 1, .value = (int)value, .elem = elem, .dst = dst, .dpitch = pitch,
              .width = width, .height = height};
    xfer_submit(&x, blocking);
    place(s, now, cusim_model_memset_ns(bytes), 0, &start, &end);
    int64_t d = cusim_gpu_delta();
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool != NULL && tool->copy != NULL) {
        cusim_copy_activity a = {
            .is_memset = 1, .dst_mem = dst_mem, .value = (int)value, .bytes = bytes,
            .start = start + (uint64_t)d, .end = end + (uint64_t)d,
            .stream_id = s->id, .correlation_id = corr,
            .graph_id = cusim_replaying.graph_id, .graph_node_id = cusim_replaying.node_id,
            .is_async = cusim_replaying.graph_id != 0 || cusim_current_call_async(),
        };
        tool->copy(&a);
    }
    if (blocking)
        cusim_wait_until_host(end);
    return end + (uint64_t)d;
}

/* ---- memory records ------------------------------------------------------- */

void cusim_report_memory(cusim_memory_activity *a)
{
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool == NULL || tool->memory == NULL)
        return;
    a->timestamp = cusim_gpu_ns();
    a->correlation_id = cusim_current_correlation();
    tool->memory(a);
}

void cusim_report_pool(cusim_pool_activity *a)
{
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool == NULL || tool->pool == NULL)
        return;
    a->timestamp = cusim_gpu_ns();
    a->correlation_id = cusim_current_correlation();
    tool->pool(a);
}
