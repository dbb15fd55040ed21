/*
 * cupti_records.c - CUPTI activity buffers in, run file blocks out.
 *
 * CUPTI asks for empty buffers (request) and hands them back full (complete),
 * on its own worker thread or on the thread that flushes. Each completed
 * buffer is parsed at once into the run file's records (collector/runfile.h:
 * only the fields cuprof reads; kernel and API names become ids of a name
 * table, copied while CUPTI's pointers are certainly valid), each written
 * in its compact form (collector/gpu_compact.h: deltas against the same
 * stream's or thread's previous record, repeats; run file 5.0) into one
 * GPU_RECORDS block per buffer, which is appended to the run file, and the
 * buffer freed: memory holds one buffer's encoded records at most, and the
 * names. The work runs where CUPTI hands buffers over (its own thread, or
 * the flusher's cuptiActivityFlushAll), never on the program's threads. (CUPTI's raw buffer cannot be kept as it
 * is: its records point at names in CUPTI's memory.) Times stay on CUPTI's
 * clock and records keep no external id: the reader converts with the
 * clock map of the GPU_INFO block and joins the EXTMAP blocks. The store's
 * lock is taken only by the completion path and the exit path, never by
 * the hot path (push/pop). Records for calls the process never saw (no
 * external id) are kept.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_int.h"
#include "collector/internal.h"
#include "collector/gpu_compact.h"
#include "collector/runfile.h"
#include "collector/runfile_types.h"   /* the copy and memory kinds' values */

#include <sys/uio.h>

/* Size of one activity buffer handed to CUPTI (CUPTI requires 8-byte
 * alignment; malloc gives 16). */
#define BUF_SIZE ((size_t)4 << 20)

/* A growable array of fixed-size elements. */
typedef struct vec {
    void *p;     /* elements */
    size_t n;    /* used */
    size_t cap;  /* allocated */
} vec;

/* Names the records use (kernels, API entry points), interned: one owned
 * copy per distinct name, with its id (1.., in order of first use). */
typedef struct name_set {
    char **slot;  /* open addressing, NULL = empty */
    uint32_t *sid;/* [slot]: the name's id */
    size_t cap;   /* power of two */
    size_t n;     /* used slots */
    const char **byid; /* [id - 1] */
    size_t byid_cap;
    uint32_t written;  /* ids up to this one are in the run file */
} name_set;

/* The GPU_RECORDS block being filled: u32 count, u32 zero, then the
 * records in their compact form (gpu_compact.h). */
typedef struct gpu_block {
    uint8_t *p;             /* the payload so far (kept between blocks) */
    size_t n, cap;          /* bytes used (0: no record yet), allocated */
    uint32_t count;         /* records in it */
    uint32_t apis;          /* API records among them */
    cuprof_gr_codec codec;  /* the encoder's state, from zero at each block */
} gpu_block;

static struct {
    pthread_mutex_t lock;   /* completion path and exit path only */
    gpu_block blk;          /* this buffer's records, encoded */
    vec nodes;              /* cuprof_rf_node (resource callbacks), until finish */
    name_set names;         /* kernel and API names */
    uint64_t n_apis;        /* API records written (the exit path's "anything?") */
    uint64_t n_records;     /* records of every kind written */
    uint64_t exit_at;       /* CUPTI's clock when the exit path began, 0 before */
    int finished;           /* set by store_finish: later records are late */
    uint64_t dropped;       /* from CUPTI, plus records we had no memory for */
    uint64_t late;          /* records delivered after finish */
} store = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Appends one element; returns a pointer to it, or NULL without memory. */
/* Room for one more record in the block (CUPROF_GR_MAX bytes), its header
 * kept and its codec started when it is empty; NULL without memory. */
static uint8_t *blk_room(gpu_block *b)
{
    if (b->cap - b->n < CUPROF_GR_MAX + 8) {
        size_t cap = b->cap ? b->cap * 2 : (size_t)64 << 10;
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL)
            return NULL;
        b->p = p;
        b->cap = cap;
    }
    if (b->n == 0) {
        memset(b->p, 0, 8);
        b->n = 8;
        cuprof_gr_reset(&b->codec);
    }
    return b->p + b->n;
}

/* Encodes one record (kind: enum cuprof_gr_kind) into the block. */
static void blk_put(int kind, const void *rec)
{
    gpu_block *b = &store.blk;
    uint8_t *p = blk_room(b);
    if (p == NULL) {
        store.dropped++;
        return;
    }
    switch (kind) {
    case CUPROF_GR_KERNEL: p = cuprof_gr_put_kernel(p, &b->codec, rec); break;
    case CUPROF_GR_COPY: p = cuprof_gr_put_copy(p, &b->codec, rec); break;
    case CUPROF_GR_API: p = cuprof_gr_put_api(p, &b->codec, rec); b->apis++; break;
    case CUPROF_GR_SYNC: p = cuprof_gr_put_sync(p, &b->codec, rec); break;
    default: p = cuprof_gr_put_ext(p, &b->codec, rec); break;
    }
    b->n = (size_t)(p - b->p);
    b->count++;
}

static void *vec_add(vec *v, size_t elem)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 256;
        void *p = realloc(v->p, cap * elem);
        if (p == NULL)
            return NULL;
        v->p = p;
        v->cap = cap;
    }
    void *e = (char *)v->p + v->n++ * elem;
    memset(e, 0, elem);
    return e;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int names_grow(name_set *ns)
{
    size_t cap = ns->cap ? ns->cap * 2 : 256;
    char **slot = calloc(cap, sizeof *slot);
    uint32_t *sid = calloc(cap, sizeof *sid);
    if (slot == NULL || sid == NULL) {
        free(slot);
        free(sid);
        return -1;
    }
    for (size_t i = 0; i < ns->cap; i++) {
        if (ns->slot[i] == NULL)
            continue;
        size_t j = hash_str(ns->slot[i]) & (cap - 1);
        while (slot[j] != NULL)
            j = (j + 1) & (cap - 1);
        slot[j] = ns->slot[i];
        sid[j] = ns->sid[i];
    }
    free(ns->slot);
    free(ns->sid);
    ns->slot = slot;
    ns->sid = sid;
    ns->cap = cap;
    return 0;
}

/* The id of name (interned; a new one gets the next id), 0 when out of
 * memory (the reader shows an unknown name). */
static uint32_t names_intern(name_set *ns, const char *name)
{
    if (name == NULL || *name == '\0')
        name = "<unknown kernel>";
    if (ns->n * 2 >= ns->cap && names_grow(ns) != 0)
        return 0;
    size_t j = hash_str(name) & (ns->cap - 1);
    while (ns->slot[j] != NULL) {
        if (strcmp(ns->slot[j], name) == 0)
            return ns->sid[j];
        j = (j + 1) & (ns->cap - 1);
    }
    if (ns->n == ns->byid_cap) {
        size_t cap = ns->byid_cap ? ns->byid_cap * 2 : 256;
        const char **b = realloc(ns->byid, cap * sizeof *b);
        if (b == NULL)
            return 0;
        ns->byid = b;
        ns->byid_cap = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return 0;
    ns->slot[j] = copy;
    ns->byid[ns->n] = copy;
    ns->sid[j] = (uint32_t)++ns->n;
    return ns->sid[j];
}

static const char *name_of_id(uint32_t id)
{
    return id >= 1 && id <= store.names.n ? store.names.byid[id - 1] : "";
}

static void flush_locked(void);

static uint8_t mem_kind(uint32_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return CUPROF_GPU_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return CUPROF_GPU_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return CUPROF_GPU_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return CUPROF_GPU_MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return CUPROF_GPU_MEM_MANAGED;
    default: return CUPROF_GPU_MEM_UNKNOWN;
    }
}

static uint8_t copy_kind(uint32_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return CUPROF_GPU_COPY_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return CUPROF_GPU_COPY_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return CUPROF_GPU_COPY_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CUPROF_GPU_COPY_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CUPROF_GPU_COPY_PTOP;
    default: return CUPROF_GPU_COPY_OTHER;
    }
}

static void add_kernel(const CUpti_ActivityKernel10 *r)
{
    cuprof_rf_kernel rec = {0}, *k = &rec;
    k->start = r->start;
    k->end = r->end;
    k->corr = r->correlationId;
    k->device = r->deviceId;
    k->context = r->contextId;
    k->stream = r->streamId;
    k->name = names_intern(&store.names, r->name);
    k->grid[0] = (uint32_t)r->gridX;
    k->grid[1] = (uint32_t)r->gridY;
    k->grid[2] = (uint32_t)r->gridZ;
    k->block[0] = (uint32_t)r->blockX;
    k->block[1] = (uint32_t)r->blockY;
    k->block[2] = (uint32_t)r->blockZ;
    k->registers = r->registersPerThread;
    k->static_smem = (uint32_t)r->staticSharedMemory;
    k->dynamic_smem = (uint32_t)r->dynamicSharedMemory;
    k->device_launched = r->isDeviceLaunched;
    k->graph = r->graphId != 0;
    k->graph_id = r->graphId;
    k->graph_node_id = r->graphNodeId;
    blk_put(CUPROF_GR_KERNEL, k);
}

static void add_memcpy(const CUpti_ActivityMemcpy6 *r)
{
    cuprof_rf_copy rec = {0}, *c = &rec;
    c->start = r->start;
    c->end = r->end;
    c->bytes = r->bytes;
    c->corr = r->correlationId;
    c->device = r->deviceId;
    c->context = r->contextId;
    c->stream = r->streamId;
    c->kind = copy_kind(r->copyKind);
    c->src_mem = mem_kind(r->srcKind);
    c->dst_mem = mem_kind(r->dstKind);
    c->async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
    c->graph_id = r->graphId;
    c->graph_node_id = r->graphNodeId;
    blk_put(CUPROF_GR_COPY, c);
}

static void add_peer_copy(const CUpti_ActivityMemcpyPtoP4 *r)
{
    cuprof_rf_copy rec = {0}, *c = &rec;
    c->start = r->start;
    c->end = r->end;
    c->bytes = r->bytes;
    c->corr = r->correlationId;
    c->device = r->dstDeviceId;
    c->context = r->contextId;
    c->stream = r->streamId;
    c->kind = CUPROF_GPU_COPY_PTOP;
    c->src_mem = mem_kind(r->srcKind);
    c->dst_mem = mem_kind(r->dstKind);
    c->async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
    blk_put(CUPROF_GR_COPY, c);
}

static void add_memset(const CUpti_ActivityMemset4 *r)
{
    cuprof_rf_copy rec = {0}, *c = &rec;
    c->start = r->start;
    c->end = r->end;
    c->bytes = r->bytes;
    c->corr = r->correlationId;
    c->device = r->deviceId;
    c->context = r->contextId;
    c->stream = r->streamId;
    c->kind = CUPROF_GPU_COPY_MEMSET;
    c->dst_mem = mem_kind(r->memoryKind);
    c->async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
    c->value = r->value;
    c->graph_id = r->graphId;
    c->graph_node_id = r->graphNodeId;
    blk_put(CUPROF_GR_COPY, c);
}

/* Names of ids collector/cbid.h does not know ("cbid_<n>"), made once each
 * and kept until exit: a record holds its name for the rest of the run. */
typedef struct unknown_cbid {
    struct unknown_cbid *next;
    uint32_t cbid;
    int driver;
    char name[32];
} unknown_cbid;

static unknown_cbid *unknown_cbids;
static pthread_mutex_t unknown_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *cbid_label(uint32_t cbid, int driver)
{
    const char *n = driver ? cuprof_cbid_driver_name(cbid) : cuprof_cbid_runtime_name(cbid);
    if (n)
        return n;
    const char *out = driver ? "driver_cbid_unknown" : "cbid_unknown";
    pthread_mutex_lock(&unknown_lock);
    unknown_cbid *u = unknown_cbids;
    while (u && (u->cbid != cbid || u->driver != driver))
        u = u->next;
    if (!u && (u = calloc(1, sizeof *u)) != NULL) {
        u->cbid = cbid;
        u->driver = driver;
        snprintf(u->name, sizeof u->name, "%s%u", driver ? "driver_cbid_" : "cbid_", cbid);
        u->next = unknown_cbids;
        unknown_cbids = u;
    }
    if (u)
        out = u->name;
    pthread_mutex_unlock(&unknown_lock);
    return out;
}

const char *cuprof_cupti_cbid_name(uint32_t cbid)
{
    return cbid_label(cbid, 0);
}

const char *cuprof_cupti_driver_cbid_name(uint32_t cbid)
{
    return cbid_label(cbid, 1);
}

static void add_api(const CUpti_ActivityAPI *r, int driver)
{
    if (driver && !cuprof_cbid_driver_kept(r->cbid))
        return;
    if (store.exit_at && r->start > store.exit_at) {
        store.late++;   /* a call made while the process ends */
        return;
    }
    cuprof_rf_api rec = {0}, *a = &rec;
    a->start = r->start;
    a->end = r->end;
    a->corr = r->correlationId;
    a->cbid = r->cbid;
    a->driver = (uint8_t)driver;
    a->name = names_intern(&store.names, driver ? cuprof_cupti_driver_cbid_name(r->cbid)
                                                : cuprof_cupti_cbid_name(r->cbid));
    a->thread_id = r->threadId;
    a->process_id = r->processId;
    a->result = (int32_t)r->returnValue;
    a->is_launch = (uint8_t)(driver ? cuprof_cbid_driver_is_launch(r->cbid)
                                    : cuprof_cbid_runtime_is_launch(r->cbid));
    blk_put(CUPROF_GR_API, a);
}

static void add_sync(const CUpti_ActivitySynchronization2 *r)
{
    if (store.exit_at && r->start > store.exit_at) {
        store.late++;
        return;
    }
    cuprof_rf_sync rec = {0}, *s = &rec;
    s->start = r->start;
    s->end = r->end;
    s->corr = r->correlationId;
    s->context = r->contextId;
    s->stream = r->streamId;
    s->event = r->cudaEventId;
    s->type = (uint8_t)r->type;
    blk_put(CUPROF_GR_SYNC, s);
}

/* A GPU as CUPTI describes it: written at once, a block of its own (the
 * peak table matches the name and SM count; model/peak.h). */
static void add_device(const CUpti_ActivityDevice5 *r)
{
    cuprof_tags b = {0};
    cuprof_tags_u64(&b, CUPROF_RT_DEV_ID, r->id);
    cuprof_tags_str(&b, CUPROF_RT_DEV_NAME, r->name ? r->name : "");
    cuprof_tags_u64(&b, CUPROF_RT_DEV_SMS, r->numMultiprocessors);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_CLOCK_KHZ, r->coreClockRate);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_CC_MAJOR, r->computeCapabilityMajor);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_CC_MINOR, r->computeCapabilityMinor);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_MEM_BYTES, r->globalMemorySize);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_MEM_BW_KBPS, r->globalMemoryBandwidth);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_L2_BYTES, r->l2CacheSize);
    cuprof_tags_u64(&b, CUPROF_RT_DEV_MIG, r->isMigEnabled);
    if (cuprof_tags_write(&b, CUPROF_RF_GPU_DEVICE) != 0)
        store.dropped++;
}

static void add_ext(const CUpti_ActivityExternalCorrelation *r)
{
    if (r->externalKind != CUPROF_CUPTI_EXT_KIND)
        return; /* someone else's ids (Kineto, OpenACC) */
    cuprof_rf_extmap m = {.ext = r->externalId, .corr = r->correlationId};
    blk_put(CUPROF_GR_EXTMAP, &m);
}

/* Stores one record; store.lock held. */
static void add_record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        add_kernel((const CUpti_ActivityKernel10 *)r);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        add_memcpy((const CUpti_ActivityMemcpy6 *)r);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        add_peer_copy((const CUpti_ActivityMemcpyPtoP4 *)r);
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        add_memset((const CUpti_ActivityMemset4 *)r);
        break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        add_api((const CUpti_ActivityAPI *)r, 0);
        break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
        add_api((const CUpti_ActivityAPI *)r, 1);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        add_sync((const CUpti_ActivitySynchronization2 *)r);
        break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        add_ext((const CUpti_ActivityExternalCorrelation *)r);
        break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
        add_device((const CUpti_ActivityDevice5 *)r);
        break;
    default:
        break; /* kinds we did not ask for */
    }
}

void CUPTIAPI cuprof_cupti_buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* A NULL buffer makes CUPTI drop records and count them: never crash. */
    *buffer = malloc(BUF_SIZE);
    *size = *buffer != NULL ? BUF_SIZE : 0;
    *max_records = 0; /* as many as fit */
}

void CUPTIAPI cuprof_cupti_buffer_complete(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                           size_t size, size_t valid_size)
{
    (void)size;
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    /* The store's lock and the run file's are held here, on whatever thread
     * CUPTI (or a flush) runs this: no signal may be handled meanwhile (our
     * handler would wait for the exit path, which needs them). */
    sigset_t old;
    cuprof_block_async(&old);
    if (buffer != NULL && valid_size > 0 && f->cuptiActivityGetNextRecord != NULL) {
        CUpti_Activity *r = NULL;
        pthread_mutex_lock(&store.lock);
        while (f->cuptiActivityGetNextRecord(buffer, valid_size, &r) == CUPTI_SUCCESS) {
            if (store.finished)
                store.late++;
            else
                add_record(r);
        }
        flush_locked();
        pthread_mutex_unlock(&store.lock);
        cuprof_runfile_new_names();
    }
    free(buffer);
    size_t dropped = 0;
    if (f->cuptiActivityGetNumDroppedRecords != NULL &&
        f->cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
        cuprof_cupti_store_add_dropped(dropped);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cuprof_cupti_store_add_dropped(uint64_t n)
{
    if (n == 0)
        return;
    pthread_mutex_lock(&store.lock);
    store.dropped += n;
    pthread_mutex_unlock(&store.lock);
}

/* ---- to the run file ---------------------------------------------------------- */

/* One block of v's records (element size elem), then v emptied. A record
 * the file could not take is counted as dropped. */
static void put_vec(uint32_t type, vec *v, size_t elem)
{
    if (v->n == 0)
        return;
    uint32_t head[2] = {(uint32_t)elem, (uint32_t)v->n};
    struct iovec parts[2] = {{head, sizeof head}, {v->p, v->n * elem}};
    if (cuprof_runfile_append(type, parts, 2) != 0)
        store.dropped += v->n;
    else
        store.n_records += v->n;
    v->n = 0;
}

/* The block of this buffer's records, then an empty one started. A block
 * the file could not take counts its records as dropped. */
static void put_block(void)
{
    gpu_block *b = &store.blk;
    if (b->count == 0)
        return;
    uint32_t head[2] = {b->count, 0};
    memcpy(b->p, head, sizeof head);
    struct iovec part = {b->p, b->n};
    store.n_apis += b->apis;
    if (cuprof_runfile_append(CUPROF_RF_GPU_RECORDS, &part, 1) != 0)
        store.dropped += b->count;
    else
        store.n_records += b->count;
    b->n = 0;
    b->count = b->apis = 0;
}

/* The names first used since the last flush, then this buffer's records;
 * store.lock held. */
static void flush_locked(void)
{
    name_set *ns = &store.names;
    if (ns->n > ns->written &&
        cuprof_runfile_names(CUPROF_RF_GPU_NAMES, ns->written + 1, (uint32_t)ns->n - ns->written,
                             name_of_id) == 0)
        ns->written = (uint32_t)ns->n;
    put_block();
}

void cuprof_cupti_store_finish(void)
{
    pthread_mutex_lock(&store.lock);
    if (store.finished) {
        pthread_mutex_unlock(&store.lock);
        return;
    }
    store.finished = 1;
    flush_locked();
    put_vec(CUPROF_RF_GPU_NODES, &store.nodes, sizeof(cuprof_rf_node));
    pthread_mutex_unlock(&store.lock);
}

void cuprof_cupti_store_exit_at(uint64_t cupti_t)
{
    pthread_mutex_lock(&store.lock);
    store.exit_at = cupti_t ? cupti_t : 1;
    pthread_mutex_unlock(&store.lock);
}

void cuprof_cupti_store_counts(uint64_t *records, uint64_t *apis, uint64_t *dropped)
{
    pthread_mutex_lock(&store.lock);
    *records = store.n_records;
    *apis = store.n_apis;
    *dropped = store.dropped;
    pthread_mutex_unlock(&store.lock);
}

void cuprof_cupti_store_graph_node(uint64_t id, uint64_t original, uint64_t origin, uint32_t graph)
{
    pthread_mutex_lock(&store.lock);
    cuprof_rf_node *n = store.finished ? NULL : vec_add(&store.nodes, sizeof *n);
    if (n)
        *n = (cuprof_rf_node){.id = id, .original = original, .origin = origin, .graph = graph};
    pthread_mutex_unlock(&store.lock);
}

void cuprof_cupti_store_atfork_child(void)
{
    /* CUPTI's thread may have held the lock at fork: a fresh one. The
     * parent's records stay the parent's; the child keeps none. */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    store.lock = fresh;
    store.blk.n = 0;
    store.blk.count = store.blk.apis = 0;
    store.nodes.n = 0;
    store.dropped = store.late = 0;
    store.n_apis = store.n_records = 0;
    store.exit_at = 0;
    store.names.written = 0;   /* the child's run file has none of the names yet */
    store.finished = 1;
}

/* The late count can grow after finish; the run reads it on request. */
uint64_t cuprof_cupti_store_late(void)
{
    pthread_mutex_lock(&store.lock);
    uint64_t n = store.late;
    pthread_mutex_unlock(&store.lock);
    return n;
}
