/*
 * buffers.c - activity buffers of the simulated CUPTI: the client's
 * request/complete callbacks, one current buffer per channel, and the worker
 * thread that hands completed buffers back.
 *
 * As with the real CUPTI, a buffer is given back on a thread of CUPTI's own
 * (never the application thread that filled it) when it is full or flushed;
 * cuptiActivityFlushAll waits until the complete callbacks for everything it
 * flushed have returned.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_sim.h"

#define CS_ALIGN 8                  /* record alignment CUPTI requires */
#define CS_REQUEST_GAP_MIN_NS 20000 /* a buffer request costs the caller 20.. */
#define CS_REQUEST_GAP_SPAN_NS 30000 /* ..50 us, deterministic per request */

/* The buffer a channel is filling. */
typedef struct cs_buffer {
    uint8_t *base;      /* from the client's request callback, NULL if none */
    size_t size;        /* its size in bytes */
    size_t used;        /* bytes holding records */
    size_t max_records; /* the client's limit on records (0: no limit) */
    size_t nrecords;    /* records in it */
} cs_buffer;

/* A buffer waiting for the worker to give it back. */
typedef struct cs_done {
    struct cs_done *next; /* FIFO order */
    uint8_t *base;        /* the client's buffer */
    size_t size, valid;   /* total and valid bytes */
} cs_done;

static struct {
    pthread_mutex_t ch_lock[CS_CH_COUNT]; /* guards cur[ch] */
    cs_buffer cur[CS_CH_COUNT];           /* current buffer per channel */
    CUpti_BuffersCallbackRequestFunc request;   /* client: give me a buffer */
    CUpti_BuffersCallbackCompleteFunc complete; /* client: here it is back */
    atomic_int registered;                /* callbacks registered */
    atomic_size_t dropped;                /* records lost since last query */
    atomic_uint_fast64_t nrequests;       /* buffer requests so far (gap seed) */

    pthread_mutex_t q_lock;  /* guards everything below */
    pthread_cond_t q_work;   /* the worker has something to do */
    pthread_cond_t q_done;   /* the worker delivered a buffer */
    cs_done *head, *tail;    /* buffers to give back */
    uint64_t enqueued;       /* buffers ever queued */
    uint64_t delivered;      /* buffers ever given back */
    int worker_started;      /* the worker thread exists (in this process) */
    pthread_t worker;        /* its id */
    uint32_t period_ms;      /* cuptiActivityFlushPeriod, 0: none */
} g = {
    .ch_lock = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER},
    .q_lock = PTHREAD_MUTEX_INITIALIZER,
    .q_work = PTHREAD_COND_INITIALIZER,
    .q_done = PTHREAD_COND_INITIALIZER,
};

/* ---- the worker -------------------------------------------------------- */

static int cs_on_worker(void)
{
    return g.worker_started && pthread_equal(pthread_self(), g.worker);
}

static void *cs_worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g.q_lock);
    for (;;) {
        if (g.head == NULL) {
            if (g.period_ms == 0) {
                pthread_cond_wait(&g.q_work, &g.q_lock);
                continue;
            }
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)g.period_ms * 1000000u;
            ts.tv_sec += (time_t)(ns / 1000000000u);
            ts.tv_nsec = (long)(ns % 1000000000u);
            if (pthread_cond_timedwait(&g.q_work, &g.q_lock, &ts) != 0) {
                /* Periodic flush: completed device records move into their
                 * buffer; only buffers that fill up are given back. */
                pthread_mutex_unlock(&g.q_lock);
                cs_dev_drain(0);
                pthread_mutex_lock(&g.q_lock);
            }
            continue;
        }
        cs_done *d = g.head;
        g.head = d->next;
        if (g.head == NULL)
            g.tail = NULL;
        pthread_mutex_unlock(&g.q_lock);
        g.complete(NULL, 0, d->base, d->size, d->valid);
        free(d);
        pthread_mutex_lock(&g.q_lock);
        g.delivered++;
        pthread_cond_broadcast(&g.q_done);
    }
    return NULL;
}

/* Starts the worker if this process has none. Caller holds q_lock. */
static void cs_worker_start_locked(void)
{
    if (g.worker_started)
        return;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* Detached: nobody joins it; at exit it is simply gone, like CUPTI's. */
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&g.worker, &attr, cs_worker_main, NULL) == 0)
        g.worker_started = 1;
    pthread_attr_destroy(&attr);
}

/* Queues a buffer for the worker. Takes q_lock. */
static void cs_enqueue(uint8_t *base, size_t size, size_t valid)
{
    cs_done *d = malloc(sizeof *d);
    if (d == NULL)
        return; /* out of memory: the buffer is lost, as its records */
    d->next = NULL;
    d->base = base;
    d->size = size;
    d->valid = valid;
    pthread_mutex_lock(&g.q_lock);
    cs_worker_start_locked();
    if (g.tail)
        g.tail->next = d;
    else
        g.head = d;
    g.tail = d;
    g.enqueued++;
    pthread_cond_signal(&g.q_work);
    pthread_mutex_unlock(&g.q_lock);
}

/* A forked child has no worker (only the forking thread survives) and may
 * have inherited locks held by other threads: start over, keeping what was
 * registered, and drop the parent's records (its own copy of the current
 * buffers and of the device queue), which the parent still delivers. */
static void cs_atfork_child(void)
{
    memset(g.cur, 0, sizeof g.cur);
    cs_dev_reset_in_child();
    pthread_mutex_init(&g.q_lock, NULL);
    pthread_cond_init(&g.q_work, NULL);
    pthread_cond_init(&g.q_done, NULL);
    for (int ch = 0; ch < CS_CH_COUNT; ch++)
        pthread_mutex_init(&g.ch_lock[ch], NULL);
    g.head = g.tail = NULL;
    g.enqueued = g.delivered = 0;
    g.worker_started = 0;
}

static void cs_register_atfork(void)
{
    pthread_atfork(NULL, NULL, cs_atfork_child);
}

/* ---- writing records ---------------------------------------------------- */

/* Offset of the first CS_ALIGN-aligned address at or after base+used. */
static size_t cs_aligned_offset(const cs_buffer *b)
{
    uintptr_t p = (uintptr_t)b->base + b->used;
    uintptr_t a = (p + (CS_ALIGN - 1)) & ~(uintptr_t)(CS_ALIGN - 1);
    return b->used + (size_t)(a - p);
}

/* Hands the current buffer to the worker if it holds records. */
static void cs_retire_locked(cs_buffer *b)
{
    if (b->base != NULL && b->nrecords > 0) {
        cs_enqueue(b->base, b->size, b->used);
        memset(b, 0, sizeof *b);
    }
}

/* Asks the client for a new buffer able to hold `need` bytes. The request
 * takes the calling thread a little while, like a real one (which shows in a
 * trace as a gap). Returns 0 on success. Caller holds the channel lock. */
static int cs_request_locked(cs_buffer *b, size_t need)
{
    uint64_t n = atomic_fetch_add(&g.nrequests, 1);
    uint64_t gap = CS_REQUEST_GAP_MIN_NS + (n * 7919u) % (CS_REQUEST_GAP_SPAN_NS + 1);
    cusim_wait_until_host(cusim_host_ns() + gap);

    uint8_t *base = NULL;
    size_t size = 0, max_records = 0;
    g.request(&base, &size, &max_records);
    memset(b, 0, sizeof *b);
    if (base == NULL)
        return -1;
    b->base = base;
    b->size = size;
    b->max_records = max_records;
    if (cs_aligned_offset(b) + need > size) {
        /* Too small for even one record: give it straight back, empty. */
        cs_enqueue(base, size, 0);
        memset(b, 0, sizeof *b);
        return -1;
    }
    return 0;
}

void cs_buf_write(cs_channel ch, const void *rec, size_t size)
{
    if (!atomic_load(&g.registered)) {
        cs_buf_count_dropped(1);
        return;
    }
    pthread_mutex_lock(&g.ch_lock[ch]);
    cs_buffer *b = &g.cur[ch];
    int full = b->base == NULL || cs_aligned_offset(b) + size > b->size ||
               (b->max_records != 0 && b->nrecords >= b->max_records);
    if (full) {
        cs_retire_locked(b);
        if (cs_request_locked(b, size) != 0) {
            pthread_mutex_unlock(&g.ch_lock[ch]);
            cs_buf_count_dropped(1);
            return;
        }
    }
    size_t off = cs_aligned_offset(b);
    memcpy(b->base + off, rec, size);
    b->used = off + size;
    b->nrecords++;
    pthread_mutex_unlock(&g.ch_lock[ch]);
}

void cs_buf_count_dropped(size_t n)
{
    atomic_fetch_add(&g.dropped, n);
}

/* ---- the exported buffer API --------------------------------------------- */

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                                    CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    cs_attach();
    if (funcBufferRequested == NULL || funcBufferCompleted == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    pthread_once(&atfork_once, cs_register_atfork);
    for (int ch = 0; ch < CS_CH_COUNT; ch++)
        pthread_mutex_lock(&g.ch_lock[ch]);
    g.request = funcBufferRequested;
    g.complete = funcBufferCompleted;
    atomic_store(&g.registered, 1);
    for (int ch = CS_CH_COUNT - 1; ch >= 0; ch--)
        pthread_mutex_unlock(&g.ch_lock[ch]);
    /* CUPTI's own thread exists from here on (a periodic flush needs it). */
    pthread_mutex_lock(&g.q_lock);
    cs_worker_start_locked();
    pthread_mutex_unlock(&g.q_lock);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
    cs_attach();
    if (!atomic_load(&g.registered))
        return cs_error(CUPTI_ERROR_INVALID_OPERATION);
    int forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
    /* Device records first: a default flush moves only those that are
     * complete (their kernel has finished on the device clock); a forced one
     * moves them all. Host-side records are complete once written. */
    cs_dev_drain(forced);
    for (int ch = 0; ch < CS_CH_COUNT; ch++) {
        pthread_mutex_lock(&g.ch_lock[ch]);
        cs_retire_locked(&g.cur[ch]);
        pthread_mutex_unlock(&g.ch_lock[ch]);
    }
    /* Synchronous: wait until the worker gave back all that is queued. From
     * inside a complete callback (on the worker itself) that would never
     * happen, so there it only queues. */
    pthread_mutex_lock(&g.q_lock);
    if (!cs_on_worker()) {
        uint64_t target = g.enqueued;
        while (g.delivered < target)
            pthread_cond_wait(&g.q_done, &g.q_lock);
    }
    pthread_mutex_unlock(&g.q_lock);
    return CUPTI_SUCCESS;
}

/* Deprecated form: context and stream are ignored, as in CUDA 13. */
CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext context, uint32_t streamId, uint32_t flag)
{
    (void)context;
    (void)streamId;
    return cuptiActivityFlushAll(flag);
}

CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time)
{
    cs_attach();
    pthread_mutex_lock(&g.q_lock);
    g.period_ms = time;
    pthread_cond_signal(&g.q_work);
    pthread_mutex_unlock(&g.q_lock);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
                                                       size_t *dropped)
{
    (void)context;
    (void)streamId;
    cs_attach();
    if (dropped == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    /* One global queue in the sim; reading resets it, as documented. */
    *dropped = atomic_exchange(&g.dropped, 0);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
                                                CUpti_Activity **record)
{
    if (buffer == NULL || record == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    cs_buffer b = {.base = buffer, .size = validBufferSizeBytes};
    if (*record != NULL) {
        const uint8_t *cur = (const uint8_t *)*record;
        if (cur < buffer || cur >= buffer + validBufferSizeBytes)
            return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
        size_t sz = cs_record_size((*record)->kind);
        if (sz == 0)
            return cs_error(CUPTI_ERROR_INVALID_KIND);
        b.used = (size_t)(cur - buffer) + sz;
    }
    size_t off = cs_aligned_offset(&b);
    if (off + sizeof(CUpti_ActivityKind) > validBufferSizeBytes)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    CUpti_Activity *next = (CUpti_Activity *)(void *)(buffer + off);
    size_t sz = cs_record_size(next->kind);
    if (sz == 0 || off + sz > validBufferSizeBytes)
        return cs_error(CUPTI_ERROR_INVALID_KIND);
    *record = next;
    return CUPTI_SUCCESS;
}
