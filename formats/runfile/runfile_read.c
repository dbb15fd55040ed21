/*
 * runfile_read.c - a run file read back as a cuprof_run (runfile_read.h).
 *
 * The file is mapped read-only and walked once: each block's header and
 * payload are checked (length within the file, CRC-32C); the first that
 * fails ends the walk (a kill during its write tears only the last block;
 * a damaged one in the middle ends the run there too, and info->lost says
 * so). Chunks are not copied: each thread keeps the list of its blocks,
 * decoded afterwards in order into 64-byte events (compact.h), the stamps
 * turned into CLOCK_MONOTONIC ns by the line between each chunk's anchor
 * and the next one's, as the recording process would have. The GPU records
 * are gathered, then normalized as model/gpu.h describes.
 */
#include "formats/runfile/runfile_read.h"
#include "formats/runfile/read_int.h"
#include "formats/runfile/srcline.h"
#include "collector/compact.h"
#include "collector/gpu_compact.h"
#include "collector/runfile.h"
#include "model/gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


static void *vec_push(vec *v, size_t elem, size_t k)
{
    if (v->n + k > v->cap) {
        size_t cap = v->cap ? v->cap : 16;
        while (cap < v->n + k)
            cap *= 2;
        void *p = realloc(v->p, cap * elem);
        if (!p)
            return NULL;
        v->p = p;
        v->cap = cap;
    }
    void *e = (char *)v->p + v->n * elem;
    v->n += k;
    return e;
}

/* v's array cut to its first n elements (as it was when that fails). */
static void *fit(vec *v, size_t elem, size_t n)
{
    void *p = n && n < v->cap ? realloc(v->p, n * elem) : NULL;
    if (p) {
        v->p = p;
        v->cap = n;
    }
    v->n = n < v->n ? n : v->n;
    return v->p;
}


static const char *own(rrun *r, const void *p, size_t n)
{
    char *s = malloc(n + 1);
    char **slot = s ? vec_push(&r->strs, sizeof(char *), 1) : NULL;
    if (!slot) {
        free(s);
        return "";
    }
    memcpy(s, p, n);
    s[n] = '\0';
    *slot = s;
    return s;
}

/* The NUL-terminated string at *p (before end), owned; *p moves past it.
 * "" and *p = end when there is no NUL. */
static const char *own_cstr(rrun *r, const uint8_t **p, const uint8_t *end)
{
    const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
    if (!z) {
        *p = end;
        return "";
    }
    const char *s = own(r, *p, (size_t)(z - *p));
    *p = z + 1;
    return s;
}

/* A CUPROF_RT_API_TABLE tag (collector/runfile.h) into r->apis, replacing
 * what an earlier META said. A malformed table ends where it stops making
 * sense (the ids read so far are kept). */
static void read_api_table_into(rrun *r, const void *v, size_t n, vec *into);

static void read_api_table(rrun *r, const void *v, size_t n)
{
    r->apis.n = 0;
    read_api_table_into(r, v, n, &r->apis);
}

/* The table into `into` (appended). */
static void read_api_table_into(rrun *r, const void *v, size_t n, vec *into)
{
    const uint8_t *p = v, *end = p + n;
    if (n < 5)
        return;
    uint32_t count;
    memcpy(&count, p, 4);
    unsigned ncats = p[4];
    p += 5;
    const char *cats[256];
    for (unsigned k = 0; k < ncats; k++)
        cats[k] = own_cstr(r, &p, end);
    char prev[512] = "";
    for (uint32_t a = 0; a < count && end - p >= 2; a++) {
        unsigned cat = p[0], shared = p[1];
        p += 2;
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        size_t pl = strlen(prev);
        if (!z || cat >= ncats || shared > pl || shared + (size_t)(z - p) >= sizeof prev)
            return;
        memcpy(prev + shared, p, (size_t)(z - p) + 1);
        p = z + 1;
        cuprof_api_desc *d = vec_push(into, sizeof *d, 1);
        if (!d)
            return;
        d->category = prev[0] ? cats[cat] : "";   /* an API the run did not use: empty */
        d->name = own(r, prev, strlen(prev));
    }
}

static rthread *thread_of(rrun *r, uint32_t index)
{
    rthread *t = r->threads.p;
    for (size_t i = 0; i < r->threads.n; i++)
        if (t[i].index == index)
            return &t[i];
    t = vec_push(&r->threads, sizeof *t, 1);
    if (t) {
        memset(t, 0, sizeof *t);
        t->index = index;
    }
    return t;
}

/* ---- tagged fields ---------------------------------------------------------- */

typedef struct tag_it {
    const uint8_t *p, *end;
} tag_it;

/* The next field: its tag, value and length; 0 at the end. */
static int tag_next(tag_it *it, uint16_t *tag, const uint8_t **v, uint32_t *len)
{
    if (it->end - it->p < 8)
        return 0;
    uint32_t h[2];
    memcpy(h, it->p, 8);
    if ((uint64_t)(it->end - it->p - 8) < h[1])
        return 0;
    *tag = (uint16_t)h[0];
    *v = it->p + 8;
    *len = h[1];
    it->p += 8 + h[1];
    return 1;
}

/* 1 when a META's tags say the flight recorder ran (its first META, written
 * before any chunk, says so). */
static int meta_is_flight(const uint8_t *p, size_t len)
{
    tag_it it = {p, p + len};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    while (tag_next(&it, &tag, &v, &n))
        if (tag == CUPROF_RT_CAP_FLIGHT_NS)
            return 1;
    return 0;
}

static uint64_t u64_of(const uint8_t *v, uint32_t len)
{
    uint64_t x = 0;
    memcpy(&x, v, len < 8 ? len : 8);
    return x;
}

/* A GPU_DEVICE block: the device's entry, replacing an earlier one of its id. */
static void read_device(rrun *r, const uint8_t *p, size_t len)
{
    cuprof_gpu_device d = {.name = ""};
    tag_it it = {p, p + len};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    while (tag_next(&it, &tag, &v, &n)) {
        uint64_t x = u64_of(v, n);
        switch (tag) {
        case CUPROF_RT_DEV_ID: d.id = (uint32_t)x; break;
        case CUPROF_RT_DEV_NAME: d.name = own(r, v, n); break;
        case CUPROF_RT_DEV_SMS: d.sms = (uint32_t)x; break;
        case CUPROF_RT_DEV_CLOCK_KHZ: d.clock_khz = (uint32_t)x; break;
        case CUPROF_RT_DEV_CC_MAJOR: d.cc_major = (uint32_t)x; break;
        case CUPROF_RT_DEV_CC_MINOR: d.cc_minor = (uint32_t)x; break;
        case CUPROF_RT_DEV_MEM_BYTES: d.mem_bytes = x; break;
        case CUPROF_RT_DEV_MEM_BW_KBPS: d.mem_bw_kbps = x; break;
        case CUPROF_RT_DEV_L2_BYTES: d.l2_bytes = x; break;
        case CUPROF_RT_DEV_MIG: d.mig = x != 0; break;
        default: break;
        }
    }
    cuprof_gpu_device *have = r->devices.p;
    for (size_t i = 0; i < r->devices.n; i++)
        if (have[i].id == d.id) {
            have[i] = d;
            return;
        }
    cuprof_gpu_device *slot = vec_push(&r->devices, sizeof d, 1);
    if (slot)
        *slot = d;
}

/* ---- the walk ------------------------------------------------------------------ */

static void lost(cuprof_rfread_info *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void lost(cuprof_rfread_info *info, const char *fmt, ...)
{
    if (info->lost[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->lost, sizeof info->lost, fmt, ap);
    va_end(ap);
}

/* A names block (ids first .. first + count - 1) into *out ([0] unused),
 * grown to hold them; *count: the highest id set so far. Blocks come as
 * the ids were interned, then whole tables at the end: each sets its ids. */
static int read_names(rrun *r, const uint8_t *p, size_t len, const char ***out, uint32_t *count)
{
    if (len < 8)
        return -1;
    uint32_t head[2];
    memcpy(head, p, 8);
    const uint8_t *q = p + 8, *end = p + len;
    uint32_t first = head[0], n = head[1];
    /* ids are interned densely from 1, each written with 4 bytes at least:
     * an id past a quarter of the file's size is damage, not a table to
     * grow to (4 billion entries) */
    if (first == 0 || n > len || first > UINT32_MAX - n || first + n - 1 > r->map_len / 4)
        return -1;
    uint32_t top = first + n - 1;
    if (top > *count) {
        const char **names = realloc(*out, ((size_t)top + 1) * sizeof *names);
        if (!names)
            return -1;
        for (uint32_t i = *count + 1; i <= top; i++)
            names[i] = NULL;
        names[0] = NULL;
        *out = names;
        *count = top;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l;
        if (end - q < 4)
            break;
        memcpy(&l, q, 4);
        q += 4;
        if ((uint64_t)(end - q) < l)
            break;
        (*out)[first + i] = own(r, q, l);
        q += l;
    }
    return 0;
}

static void read_gpu_names(rrun *r, const uint8_t *p, size_t len)
{
    if (len < 8)
        return;
    uint32_t head[2];
    memcpy(head, p, 8);
    const uint8_t *q = p + 8, *end = p + len;
    if (head[0] == 0 || (uint64_t)head[0] + head[1] > r->map_len / 4 + 1)
        return;   /* ids from 1, no more than the file could name (read_names) */
    for (uint32_t i = 0; i < head[1]; i++) {
        uint32_t l;
        if (end - q < 4)
            return;
        memcpy(&l, q, 4);
        q += 4;
        if ((uint64_t)(end - q) < l)
            return;
        size_t id = (size_t)head[0] + i;
        while (r->gpu_names.n < id) {
            const char **slot = vec_push(&r->gpu_names, sizeof(char *), 1);
            if (!slot)
                return;
            *slot = "<unknown kernel>";
        }
        ((const char **)r->gpu_names.p)[id - 1] = own(r, q, l);
        q += l;
    }
}

/* Appends a records block's elements to v (elem: our size of the struct;
 * a file's larger elements keep their first elem bytes). */
static void read_records(vec *v, size_t elem, const uint8_t *p, size_t len)
{
    if (len < 8)
        return;
    uint32_t head[2];
    memcpy(head, p, 8);
    size_t fe = head[0], n = head[1];
    if (n == 0 || fe < elem || (len - 8) / fe < n)
        return;
    uint8_t *out = vec_push(v, elem, n);
    if (!out)
        return;
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * elem, p + 8 + i * fe, elem);
}

static uint64_t cfg_hash(const cuprof_gpu_launch_cfg *c)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)c;
    for (size_t i = 0; i < sizeof *c; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The index of configuration c in r->cfgs, added the first time; 0 (all 0)
 * when out of memory. */
static uint32_t cfg_index(rrun *r, const cuprof_gpu_launch_cfg *c)
{
    cuprof_gpu_launch_cfg *have = r->cfgs.p;
    if (r->cfgs.n && !memcmp(&have[r->cfg_last], c, sizeof *c))
        return r->cfg_last;
    if (!r->cfgs.n) {   /* [0]: all 0 */
        cuprof_gpu_launch_cfg *zero = vec_push(&r->cfgs, sizeof *c, 1);
        if (!zero)
            return 0;
        memset(zero, 0, sizeof *zero);
    }
    if ((r->cfgs.n + 1) * 2 > r->cfg_cap) {
        size_t cap = r->cfg_cap ? r->cfg_cap * 2 : 64;
        uint32_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return 0;
        have = r->cfgs.p;
        for (size_t i = 0; i < r->cfgs.n; i++) {
            size_t j = (size_t)cfg_hash(&have[i]) & (cap - 1);
            while (slot[j])
                j = (j + 1) & (cap - 1);
            slot[j] = (uint32_t)i + 1;
        }
        free(r->cfg_slot);
        r->cfg_slot = slot, r->cfg_cap = cap;
    }
    size_t j = (size_t)cfg_hash(c) & (r->cfg_cap - 1);
    for (; r->cfg_slot[j]; j = (j + 1) & (r->cfg_cap - 1))
        if (!memcmp(&have[r->cfg_slot[j] - 1], c, sizeof *c))
            return r->cfg_last = r->cfg_slot[j] - 1;
    if (r->cfgs.n >= UINT32_MAX - 1)
        return 0;
    cuprof_gpu_launch_cfg *slot = vec_push(&r->cfgs, sizeof *c, 1);
    if (!slot)
        return 0;
    *slot = *c;
    r->cfg_slot[j] = (uint32_t)r->cfgs.n;
    return r->cfg_last = (uint32_t)r->cfgs.n - 1;
}

/* The file's kernel, copy and API records as the model's, appended as they
 * are read (no copy of the file's structs is kept: 146 bytes a launch with
 * the sim's CUPTI). A name stays its GPU_NAMES id, in the pointer, until
 * read_gpu: the names may come after the records. */
static void add_kernel(rrun *r, const void *rec)
{
    cuprof_rf_kernel rf, *f = &rf;
    memcpy(&rf, rec, sizeof rf);
    cuprof_gpu_launch_cfg cfg;
    memset(&cfg, 0, sizeof cfg);   /* (no padding bytes left to chance: it is compared whole) */
    cfg.grid[0] = f->grid[0], cfg.grid[1] = f->grid[1], cfg.grid[2] = f->grid[2];
    cfg.block[0] = (uint16_t)f->block[0], cfg.block[1] = (uint16_t)f->block[1];
    cfg.block[2] = (uint16_t)f->block[2], cfg.registers = (uint16_t)f->registers;
    cfg.static_smem = f->static_smem, cfg.dynamic_smem = f->dynamic_smem;
    cuprof_gpu_kernel *k = vec_push(&r->kernels, sizeof *k, 1);
    if (k)
        *k = (cuprof_gpu_kernel){
            .start_ns = f->start, .end_ns = f->end, .corr = f->corr, .device = f->device,
            .context = f->context, .stream = f->stream, .name = (const char *)(uintptr_t)f->name,
            .cfg = cfg_index(r, &cfg), .device_launched = f->device_launched, .graph = f->graph,
            .graph_id = f->graph_id, .graph_node_id = f->graph_node_id};
}

static void add_copy(rrun *r, const void *rec)
{
    cuprof_rf_copy rf, *f = &rf;
    memcpy(&rf, rec, sizeof rf);
    cuprof_gpu_copy *c = vec_push(&r->copies, sizeof *c, 1);
    if (c)
        *c = (cuprof_gpu_copy){.start_ns = f->start, .end_ns = f->end, .bytes = f->bytes,
                               .corr = f->corr, .device = f->device, .context = f->context,
                               .stream = f->stream, .kind = f->kind, .src_mem = f->src_mem,
                               .dst_mem = f->dst_mem, .async = f->async, .value = f->value,
                               .graph_id = f->graph_id, .graph_node_id = f->graph_node_id};
}

static void add_api(rrun *r, const void *rec)
{
    cuprof_rf_api rf, *f = &rf;
    memcpy(&rf, rec, sizeof rf);
    cuprof_gpu_api *a = vec_push(&r->gapis, sizeof *a, 1);
    if (a)
        *a = (cuprof_gpu_api){.start_ns = f->start, .end_ns = f->end, .corr = f->corr,
                              .cbid = f->cbid > UINT16_MAX ? UINT16_MAX : (uint16_t)f->cbid,
                              .name = (const char *)(uintptr_t)f->name,
                              .thread_id = f->thread_id,
                              .result = f->result, .is_launch = f->is_launch,
                              .driver = f->driver};
}

/* A records block of the file's structs (before 5.0), each made the
 * model's by add. */
static void read_structs(rrun *r, size_t elem, const uint8_t *p, size_t len,
                         void (*add)(rrun *, const void *))
{
    vec tmp = {0};
    read_records(&tmp, elem, p, len);
    for (size_t i = 0; i < tmp.n; i++)
        add(r, (const char *)tmp.p + i * elem);
    free(tmp.p);
}

static void add_sync(rrun *r, const cuprof_rf_sync *f)
{
    cuprof_gpu_sync *s = vec_push(&r->syncs, sizeof *s, 1);
    if (s)
        *s = (cuprof_gpu_sync){.start_ns = f->start, .end_ns = f->end, .corr = f->corr,
                               .context = f->context, .stream = f->stream, .event = f->event,
                               .type = f->type};
}

/* A GPU_RECORDS block (5.0): its compact records decoded into the file's
 * structs, as the blocks of one kind each held them before 5.0. A record
 * that does not decode ends the block (the ones before it are kept). */
static void read_gpu_records(rrun *r, const uint8_t *p, size_t len)
{
    if (len < 8)
        return;
    uint32_t head[2];
    memcpy(head, p, sizeof head);
    const uint8_t *q = p + 8, *end = p + len;
    cuprof_gr_codec c;
    cuprof_gr_reset(&c);
    cuprof_gr_rec rec;
    for (uint32_t i = 0; i < head[0] && q < end; i++) {
        if (cuprof_gr_get(&q, end, &c, &rec) != 0)
            return;
        void *slot = NULL;
        switch (rec.kind) {
        case CUPROF_GR_KERNEL:
            add_kernel(r, &rec.u.k);
            break;
        case CUPROF_GR_COPY:
            add_copy(r, &rec.u.c);
            break;
        case CUPROF_GR_API:
            add_api(r, &rec.u.a);
            break;
        case CUPROF_GR_SYNC:
            add_sync(r, &rec.u.s);
            break;
        default:
            if ((slot = vec_push(&r->extmap, sizeof rec.u.x, 1)) != NULL)
                memcpy(slot, &rec.u.x, sizeof rec.u.x);
            break;
        }
    }
}

static void block(rrun *r, const cuprof_rf_block *b, const uint8_t *p, cuprof_rfread_info *info)
{
    size_t len = (size_t)b->len;
    switch (b->type) {
    case CUPROF_RF_CHUNK:
    case CUPROF_RF_TAIL: {
        if (len < sizeof(cuprof_rf_chunk))
            return;
        cuprof_rf_chunk h;
        memcpy(&h, p, sizeof h);
        rthread *t = thread_of(r, h.thread);
        if (!t)
            return;
        chunk_ref c = {p + sizeof h, len - sizeof h, h.anchor_stamp, h.anchor_ns};
        /* the chunk_no the thread's next chunk has: 0 first, but for a flight
         * recorder's thread, whose oldest chunks the ring let go, any */
        uint32_t next_no = t->chunks.n ? t->first_no + (uint32_t)t->chunks.n : 0;
        if (b->type == CUPROF_RF_TAIL) {
            /* a chunk no CHUNK block holds yet, in parts: offset 0 starts it
             * (again), a part where the bytes so far end goes on; a part
             * after a gap, or of an older chunk, is left out */
            int fresh = h.offset == 0 && h.chunk_no >= next_no &&
                        (!t->have_tail || h.chunk_no >= t->tail_no);
            int more = t->have_tail && h.chunk_no == t->tail_no && h.offset == t->tail.len;
            if (fresh || more) {
                size_t at = fresh ? 0 : t->tail.len, need = at + c.len;
                if (need > t->tail_cap) {
                    uint8_t *nb = realloc(t->tailbuf, need);
                    if (!nb)
                        return;
                    t->tailbuf = nb;
                    t->tail_cap = need;
                }
                if (c.len)   /* (an empty part: no buffer yet) */
                    memcpy(t->tailbuf + at, c.data, c.len);
                t->tail = (chunk_ref){t->tailbuf, need, h.anchor_stamp, h.anchor_ns};
                t->tail_no = h.chunk_no;
                t->have_tail = 1;
            }
        } else if (h.chunk_no == next_no || (r->flight && (t->chunks.n == 0 || h.chunk_no > next_no))) {
            if (h.chunk_no != next_no || t->chunks.n == 0) {   /* (flight) a gap: from here */
                t->chunks.n = 0;
                t->first_no = h.chunk_no;
            }
            chunk_ref *slot = vec_push(&t->chunks, sizeof c, 1);
            if (slot)
                *slot = c;
        }
        break;
    }
    case CUPROF_RF_THREAD:
        if (len >= sizeof(cuprof_rf_thread)) {
            cuprof_rf_thread th;
            memcpy(&th, p, sizeof th);
            rthread *t = thread_of(r, th.index);
            if (t) {
                t->info = th;
                t->have_info = 1;
            }
        }
        break;
    case CUPROF_RF_KERNEL_NAMES:
        read_names(r, p, len, &r->knames, &r->nknames);
        break;
    case CUPROF_RF_STRINGS:
        read_names(r, p, len, &r->nvtx, &r->nnvtx);
        break;
    case CUPROF_RF_STACKS:
        r->stacks_blk = p, r->stacks_len = len;
        break;
    case CUPROF_RF_GPU_NAMES:
        read_gpu_names(r, p, len);
        break;
    case CUPROF_RF_GPU_KERNELS:   /* before 5.0: the structs as they were */
        read_structs(r, sizeof(cuprof_rf_kernel), p, len, add_kernel);
        break;
    case CUPROF_RF_GPU_COPIES:
        read_structs(r, sizeof(cuprof_rf_copy), p, len, add_copy);
        break;
    case CUPROF_RF_GPU_APIS:
        read_structs(r, sizeof(cuprof_rf_api), p, len, add_api);
        break;
    case CUPROF_RF_GPU_SYNCS: {
        vec tmp = {0};
        read_records(&tmp, sizeof(cuprof_rf_sync), p, len);
        for (size_t i = 0; i < tmp.n; i++)
            add_sync(r, (const cuprof_rf_sync *)tmp.p + i);
        free(tmp.p);
        break;
    }
    case CUPROF_RF_GPU_RECORDS:
        read_gpu_records(r, p, len);
        break;
    case CUPROF_RF_GPU_EXTMAP:
        read_records(&r->extmap, sizeof(cuprof_rf_extmap), p, len);
        break;
    case CUPROF_RF_GPU_NODES:
        read_records(&r->nodes, sizeof(cuprof_rf_node), p, len);
        break;
    case CUPROF_RF_GPU_INFO:
        r->gpu_info = p, r->gpu_info_len = len;
        break;
    case CUPROF_RF_GPU_DEVICE:
        read_device(r, p, len);
        break;
    case CUPROF_RF_META:
        if (!r->meta_start) {
            r->meta_start = p, r->meta_start_len = len;
            r->flight = meta_is_flight(p, len);
        }
        r->meta = p, r->meta_len = len;
        info->have_meta = 1;
        break;
    case CUPROF_RF_MEM_HELD:
        if (len >= sizeof(cuprof_rf_mem_held)) {
            cuprof_rf_mem_held h;
            memcpy(&h, p, sizeof h);
            if ((uint64_t)h.n * sizeof(cuprof_rf_held) <= len - sizeof h) {
                cuprof_held_alloc *a = malloc((h.n ? h.n : 1) * sizeof *a);
                cuprof_mem_held *m = a ? vec_push(&r->mem_held, sizeof *m, 1) : NULL;
                if (!m) {
                    free(a);
                    break;
                }
                for (uint32_t i = 0; i < h.n; i++) {
                    cuprof_rf_held e;
                    memcpy(&e, p + sizeof h + (size_t)i * sizeof e, sizeof e);
                    a[i] = (cuprof_held_alloc){e.ptr, e.bytes, e.api};
                }
                *m = (cuprof_mem_held){h.t, h.window, h.n, a};
            }
        }
        break;
    case CUPROF_RF_CLOCK:
        if (len >= sizeof(cuprof_rf_clock)) {
            cuprof_rf_clock c;
            memcpy(&c, p, sizeof c);
            if (c.ns > r->clock_ns)
                r->clock_ns = c.ns, r->clock_stamp = c.stamp;
        }
        break;
    case CUPROF_RF_RECOVERED:
        r->recovered = p, r->recovered_len = len;
        info->recovered = 1;
        break;
    case CUPROF_RF_END:
        info->complete = 1;
        return;
    default:
        break;   /* a newer minor version's block: skipped */
    }
    info->complete = 0;
}

/* Walks the blocks after the header; stops at the first that fails. */
static void walk(rrun *r, const uint8_t *m, uint64_t size, uint64_t off, cuprof_rfread_info *info)
{
    while (off < size) {
        uint64_t left = size - off;
        cuprof_rf_block b;
        if (left < sizeof b) {
            lost(info, "the last block, at byte %llu, is torn (%llu bytes of its header): "
                 "the run was cut there", (unsigned long long)off, (unsigned long long)left);
            break;
        }
        memcpy(&b, m + off, sizeof b);
        if (cuprof_crc32c(0, &b, offsetof(cuprof_rf_block, hcrc)) != b.hcrc) {
            lost(info, "the block at byte %llu is damaged (its header does not check); the %llu "
                 "bytes from there are left out", (unsigned long long)off,
                 (unsigned long long)left);
            break;
        }
        if (left - sizeof b < b.len) {
            lost(info, "the last block, at byte %llu, is torn (%llu of its %llu bytes): the run "
                 "was cut there", (unsigned long long)off,
                 (unsigned long long)(left - sizeof b), (unsigned long long)b.len);
            break;
        }
        const uint8_t *p = m + off + sizeof b;
        if (cuprof_crc32c(0, p, (size_t)b.len) != b.crc) {
            lost(info, "the block at byte %llu is damaged (its checksum does not match); the "
                 "%llu bytes from there are left out", (unsigned long long)off,
                 (unsigned long long)left);
            break;
        }
        block(r, &b, p, info);
        off += cuprof_rf_block_bytes(b.len) <= left ? cuprof_rf_block_bytes(b.len) : left;
        info->read_bytes = off;
        if (r->progress)
            atomic_store_explicit(&r->progress->walked, off, memory_order_relaxed);
    }
}

/* ---- the run's metadata ------------------------------------------------------------ */

static void read_meta(rrun *r, const uint8_t *p, size_t len, int start_only)
{
    cuprof_run *run = &r->pub;
    cuprof_place *pl = &run->place;
    tag_it it = {p, p + len};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    int args = 0, apis = 0, windows = 0, whys = 0;
    while (tag_next(&it, &tag, &v, &n)) {
        uint64_t x = u64_of(v, n);
        switch (tag) {
        case CUPROF_RT_PROGRAM: run->program = own(r, v, n); break;
        case CUPROF_RT_EXE: run->exe = own(r, v, n); break;
        case CUPROF_RT_ARG: {
            if (!args++)
                r->argv.n = 0;
            const char **a = vec_push(&r->argv, sizeof(char *), 1);
            if (a)
                *a = own(r, v, n);
            break;
        }
        case CUPROF_RT_PID: run->pid = (long)x; break;
        case CUPROF_RT_T_START: run->t_start = x; break;
        case CUPROF_RT_T_END: run->t_end = x; break;
        case CUPROF_RT_CLOCK: run->clock = own(r, v, n); break;
        case CUPROF_RT_VERSION: run->version = own(r, v, n); break;
        case CUPROF_RT_TSC: r->tsc = (int)x; break;
        case CUPROF_RT_EXIT_NS: r->exit_ns = x; break;
        case CUPROF_RT_END_STAMP: r->end_stamp = x; break;
        case CUPROF_RT_END_NS: r->end_ns = x; break;
        case CUPROF_RT_API: {
            if (!apis++)
                r->apis.n = 0;
            cuprof_api_desc *d = vec_push(&r->apis, sizeof *d, 1);
            if (d) {
                const char *cat = own(r, v, n);
                size_t cl = strlen(cat);
                d->category = cat;
                d->name = cl < n ? cat + cl + 1 : "";
            }
            break;
        }
        case CUPROF_RT_API_TABLE:   /* 4.0: front-coded (collector/runfile.h) */
            read_api_table(r, v, n);
            apis = 1;
            break;
        case CUPROF_RT_DROPPED_API:
            if (n == 16 && !start_only) {
                uint64_t a[2];
                memcpy(a, v, 16);
                if (r->dropped_by_api && a[0] < run->napis)
                    r->dropped_by_api[a[0]] = a[1];
            }
            break;
        case CUPROF_RT_RECORD_FAILURE: run->spill_failure = own(r, v, n); break;
        case CUPROF_RT_ENDED_BY: run->ended_by = own(r, v, n); break;
        case CUPROF_RT_TRUNCATED: run->truncated = (int)x; break;
        case CUPROF_RT_CAP_TRIGGER: run->capture.trigger = own(r, v, n); break;
        case CUPROF_RT_CAP_SPEC: run->capture.spec = own(r, v, n); break;
        case CUPROF_RT_CAP_REPEAT: run->capture.repeat = (uint32_t)x; break;
        case CUPROF_RT_CAP_SKIP: run->capture.skip_first = (uint32_t)x; break;
        case CUPROF_RT_CAP_SEEN: run->capture.seen = x; break;
        case CUPROF_RT_CAP_OPENED: run->capture.opened = x; break;
        case CUPROF_RT_CAP_WINDOW:
            if (n == 16) {
                if (!windows++)
                    r->windows.n = 0;
                uint64_t *w = vec_push(&r->windows, 16, 1);
                if (w)
                    memcpy(w, v, 16);
            }
            break;
        case CUPROF_RT_CAP_OPEN_AT_END: run->capture.open_at_end = (int)x; break;
        case CUPROF_RT_CAP_OUTSIDE: run->capture.outside_calls = x; break;
        case CUPROF_RT_CAP_WHY: {
            if (!whys++)
                r->whys.n = 0;
            const char **w = vec_push(&r->whys, sizeof(char *), 1);
            if (w)
                *w = own(r, v, n);
            break;
        }
        case CUPROF_RT_CAP_FLIGHT_NS: run->capture.flight_ns = x; break;
        case CUPROF_RT_CAP_FLIGHT_BYTES: run->capture.flight_bytes = x; break;
        case CUPROF_RT_CAP_FLIGHT_PEAK: run->capture.flight_peak_bytes = x; break;
        case CUPROF_RT_CAP_FLIGHT_EVICTED: run->capture.flight_evicted_until = x; break;
        case CUPROF_RT_STEP_RANGE: run->step_range = own(r, v, n); break;
        case CUPROF_RT_STEP_DOMAIN: run->step_domain = own(r, v, n); break;
        case CUPROF_RT_STEP_FROM: run->step_range_from = own(r, v, n); break;
        case CUPROF_RT_STACKS_MODE: run->stacks_mode = own(r, v, n); break;
        case CUPROF_RT_STACKS_COUNTS: run->stacks_counts = (int)x; break;
        case CUPROF_RT_TRACE_FORMAT: run->trace_format = (int)x; break;
        case CUPROF_RT_TRACE_COMPRESS: run->trace_compress = (int)x; break;
        case CUPROF_RT_TRACE_GZIP: run->trace_gzip = (int)x; break;
        case CUPROF_RT_EXPORT_SQLITE: run->export_sqlite = (int)x; break;
        case CUPROF_RT_REPORT_HTML: run->report_html = (int)x; break;
        case CUPROF_RT_PL_LAUNCHER: pl->launcher = own(r, v, n); break;
        case CUPROF_RT_PL_RANK: pl->rank = (int32_t)x; break;
        case CUPROF_RT_PL_WORLD: pl->world_size = (int32_t)x; break;
        case CUPROF_RT_PL_LOCAL_RANK: pl->local_rank = (int32_t)x; break;
        case CUPROF_RT_PL_LOCAL_SIZE: pl->local_size = (int32_t)x; break;
        case CUPROF_RT_PL_HOST: pl->host = own(r, v, n); break;
        case CUPROF_RT_PL_BOOT_ID: pl->boot_id = own(r, v, n); break;
        case CUPROF_RT_PL_VISIBLE: pl->visible_devices = own(r, v, n); break;
        case CUPROF_RT_PL_MONO_START: pl->mono_start = x; break;
        case CUPROF_RT_PL_REAL_START: pl->real_start = x; break;
        case CUPROF_RT_PL_MONO_END: pl->mono_end = x; break;
        case CUPROF_RT_PL_REAL_END: pl->real_end = x; break;
        case CUPROF_RT_HOOK_NS: run->hook_ns = x; break;
        case CUPROF_RT_GPU_CAPTURED: run->gpu.captured = (int)x; break;
        case CUPROF_RT_GPU_REASON: run->gpu.reason = own(r, v, n); break;
        default: break;
        }
    }
    run->napis = r->apis.n;
    run->apis = r->apis.p;
    run->argc = (int)r->argv.n;
    run->argv = r->argv.p;
    run->capture.nwindows = r->windows.n;
    run->capture.windows = (const uint64_t (*)[2])r->windows.p;
    run->capture.nwhy = r->whys.n;
    run->capture.window_why = (const char *const *)r->whys.p;
    run->nmem_held = r->mem_held.n;
    run->mem_held = r->mem_held.p;
}

/* A RECOVERED block (5.0): how the process ended as prof.sh's supervisor
 * saw it; the APIs its recording memory named (filling the META's table's
 * empty entries); the flight recorder's window that ends at its death. */
static void read_recovered(rrun *r)
{
    cuprof_run *run = &r->pub;
    cuprof_killed *k = &run->killed;
    tag_it it = {r->recovered, r->recovered + r->recovered_len};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    k->recovered = 1;
    run->truncated = 1;
    int window = 0;
    while (tag_next(&it, &tag, &v, &n)) {
        uint64_t x = u64_of(v, n);
        switch (tag) {
        case CUPROF_RT_REC_ENDED_BY: run->ended_by = own(r, v, n); break;
        case CUPROF_RT_REC_DIED_NS: k->died_ns = x; break;
        case CUPROF_RT_REC_OOM_KILLS: k->oom = x > 0; break;
        case CUPROF_RT_REC_CGROUP: k->cgroup = own(r, v, n); break;
        case CUPROF_RT_REC_MEM_LIMIT: k->mem_limit = x; break;
        case CUPROF_RT_REC_RSS: k->rss = x; break;
        case CUPROF_RT_REC_RSS_PEAK: k->rss_peak = x; break;
        case CUPROF_RT_REC_RSS_NS: k->rss_ns = x; break;
        case CUPROF_RT_REC_THREADS: k->from_memory = 1; break;
        case CUPROF_RT_API_TABLE: {
            vec named = {0};
            read_api_table_into(r, v, n, &named);
            const cuprof_api_desc *d = named.p;
            for (size_t a = 0; a < named.n; a++) {
                if (!d[a].name || !d[a].name[0])
                    continue;
                while (r->apis.n <= a) {
                    cuprof_api_desc *e = vec_push(&r->apis, sizeof *e, 1);
                    if (!e)
                        break;
                    *e = (cuprof_api_desc){.category = "", .name = ""};
                }
                cuprof_api_desc *t = r->apis.n > a ? (cuprof_api_desc *)r->apis.p + a : NULL;
                if (t && (!t->name || !t->name[0]))
                    *t = d[a];
            }
            free(named.p);
            break;
        }
        case CUPROF_RT_CAP_WINDOW:
            if (n == 16) {
                while (r->whys.n < r->windows.n) {   /* (the META's own windows' reasons) */
                    const char **w = vec_push(&r->whys, sizeof(char *), 1);
                    if (!w)
                        break;
                    *w = "";
                }
                uint64_t *w = vec_push(&r->windows, 16, 1);
                if (w) {
                    memcpy(w, v, 16);
                    window = 1;
                    run->capture.opened++;
                    run->capture.seen++;
                }
            }
            break;
        case CUPROF_RT_CAP_WHY:
            if (window) {
                const char **w = vec_push(&r->whys, sizeof(char *), 1);
                if (w)
                    *w = own(r, v, n);
            }
            break;
        case CUPROF_RT_CAP_FLIGHT_PEAK: run->capture.flight_peak_bytes = x; break;
        case CUPROF_RT_CAP_FLIGHT_EVICTED: run->capture.flight_evicted_until = x; break;
        default: break;
        }
    }
    if (r->apis.n > run->napis && r->dropped_by_api) {   /* (the META's counts, by id) */
        uint64_t *d = realloc(r->dropped_by_api, r->apis.n * sizeof *d);
        if (d) {
            memset(d + run->napis, 0, (r->apis.n - run->napis) * sizeof *d);
            r->dropped_by_api = d;
        } else {
            r->apis.n = run->napis;
        }
    }
    run->napis = r->apis.n;
    run->apis = r->apis.p;
    run->capture.nwindows = r->windows.n;
    run->capture.windows = (const uint64_t (*)[2])r->windows.p;
    run->capture.nwhy = r->whys.n;
    run->capture.window_why = (const char *const *)r->whys.p;
}

/* The name/dir/keep fields for the caller (from the last META). */
static void read_meta_info(rrun *r, cuprof_rfread_info *info)
{
    tag_it it = {r->meta, r->meta ? r->meta + r->meta_len : NULL};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    info->keep_run_file = 1;
    while (r->meta && tag_next(&it, &tag, &v, &n)) {
        if (tag == CUPROF_RT_NAME)
            info->name = own(r, v, n);
        else if (tag == CUPROF_RT_OUT_DIR)
            info->out_dir = own(r, v, n);
        else if (tag == CUPROF_RT_KEEP_RUN_FILE)
            info->keep_run_file = (int)u64_of(v, n);
        else if (tag == CUPROF_RT_NAME_BASE)
            info->name_base = own(r, v, n);
        else if (tag == CUPROF_RT_ROOT_PID)
            info->root_pid = (long)u64_of(v, n);
        else if (tag == CUPROF_RT_WINDOWS_WRITTEN)
            info->windows_written = u64_of(v, n);
    }
}

static void read_stacks(rrun *r)
{
    cuprof_run *run = &r->pub;
    vec frames = {0}, stacks = {0};
    tag_it it = {r->stacks_blk, r->stacks_blk + r->stacks_len};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    cuprof_run_stack *none = vec_push(&stacks, sizeof *none, 1);   /* id 0 */
    if (none)
        memset(none, 0, sizeof *none);
    while (tag_next(&it, &tag, &v, &n)) {
        if (tag == CUPROF_RT_STACK_LOST) {
            run->stacks_lost = u64_of(v, n);
        } else if (tag == CUPROF_RT_STACK_FRAME && n >= 24) {
            cuprof_run_frame *f = vec_push(&frames, sizeof *f, 1);
            if (!f)
                continue;
            memset(f, 0, sizeof *f);
            uint32_t ml, sl;
            memcpy(&f->pc, v, 8);
            memcpy(&f->offset, v + 8, 8);
            memcpy(&ml, v + 16, 4);
            if (ml > n - 24) {
                frames.n--;
                continue;
            }
            f->module = own(r, v + 20, ml);
            memcpy(&sl, v + 20 + ml, 4);
            f->symbol = sl && sl - 1 <= n - 24 - ml ? own(r, v + 24 + ml, sl - 1) : NULL;
        } else if (tag == CUPROF_RT_STACK_PYFRAME && n >= 20) {
            /* 5.1: u64 pc, u32 line, u32 name length, name, u32 file length, file */
            cuprof_run_frame *f = vec_push(&frames, sizeof *f, 1);
            if (!f)
                continue;
            memset(f, 0, sizeof *f);
            uint32_t ql, fl;
            memcpy(&f->pc, v, 8);
            memcpy(&f->line, v + 8, 4);
            memcpy(&ql, v + 12, 4);
            if (ql > n - 20) {
                frames.n--;
                continue;
            }
            memcpy(&fl, v + 16 + ql, 4);
            if (fl > n - 20 - ql) {
                frames.n--;
                continue;
            }
            f->python = 1;
            f->symbol = own(r, v + 16, ql);
            f->file = own(r, v + 20 + ql, fl);
            const char *base = f->file ? strrchr(f->file, '/') : NULL;
            f->module = base ? base + 1 : f->file ? f->file : "";
        } else if (tag == CUPROF_RT_STACK_MODULE && n >= 12) {
            uint32_t pl;
            memcpy(&pl, v + 8, 4);
            cuprof_run_module *m = pl <= n - 12 ? vec_push(&r->modules, sizeof *m, 1) : NULL;
            if (!m)
                continue;
            memcpy(&m->base, v, 8);
            m->path = own(r, v + 12, pl);
            m->build_id_len = n - 12 - pl;
            m->build_id = m->build_id_len
                              ? (const uint8_t *)own(r, v + 12 + pl, m->build_id_len) : NULL;
        } else if (tag == CUPROF_RT_STACK) {
            cuprof_run_stack *s = vec_push(&stacks, sizeof *s, 1);
            uint32_t *fr = vec_push(&r->stack_frames, sizeof(uint32_t), n / 4);
            if (!s || (n / 4 && !fr))
                continue;
            memcpy(fr, v, (n / 4) * 4);
            s->n = n / 4;
            s->frames = (const uint32_t *)(uintptr_t)((fr - (uint32_t *)r->stack_frames.p));
        }
    }
    /* frames now point into a settled array: offsets -> pointers */
    cuprof_run_stack *st = stacks.p;
    for (size_t i = 1; i < stacks.n; i++) {
        st[i].frames = (const uint32_t *)r->stack_frames.p + (uintptr_t)st[i].frames;
        for (uint32_t k = 0; k < st[i].n; k++)
            if (st[i].frames[k] >= frames.n)
                st[i].n = k;   /* a damaged index: the stack ends there */
    }
    r->frames = frames.p;
    r->stacks = stacks.p;
    run->nframes = (uint32_t)frames.n;
    run->frames = r->frames;
    run->nstacks = stacks.n ? (uint32_t)stacks.n - 1 : 0;
    run->stacks = r->stacks;
    run->nmodules = (uint32_t)r->modules.n;
    run->modules = r->modules.p;
    r->srclines = cuprof_srclines_resolve(run);
}

/* ---- calls ------------------------------------------------------------------------ */

/* One decoder's share of a thread's chunks, [from, to) in the thread's
 * order (CHUNKs, then its TAIL). It writes out[seq - base] and seen[] for
 * the calls it owns (seq - base below split when low, else from split on)
 * and keeps the others, in order, in side[] (decode_range). */
typedef struct dec_part {
    rrun *r;
    rthread *t;
    size_t from, to;
    uint64_t want, limit, split;
    int low;
    cuprof_event *out;
    uint8_t *seen;
    vec side;                /* dec_side: calls another part owns */
    uint64_t got;            /* records decoded (the limit counts them all) */
    uint64_t in_chunks;      /* calls written from CHUNK blocks */
    uint64_t bytes;          /* record bytes read */
    uint32_t classes;        /* bit 1 << cls of each call's class kept */
    uint32_t api_end;        /* 1 + the highest api kept */
    int oom;
} dec_part;

typedef struct dec_side {
    uint64_t seq;            /* seq - base */
    cuprof_event ev;
} dec_side;

static void decode_range(dec_part *d)
{
    rrun *r = d->r;
    const rthread *t = d->t;
    uint64_t base = t->base, want = d->want;
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    line whole = thread_line(r, t);
    for (size_t j = d->from; j < d->to && d->got < d->limit; j++) {
        const chunk_ref *c = chunk_at(t, j);
        chunk_dec cd;
        chunk_dec_start(&cd, r, t, j, &whole, &codec);
        cuprof_event ev;
        uint64_t seq;
        while (d->got < d->limit && chunk_dec_next(&cd, &ev, &seq) == 0) {
            d->got++;
            if (seq < base || seq - base >= want)
                continue;   /* a damaged chunk, a call past the published ones, or
                               (flight) one before the calls kept */
            seq -= base;
            d->in_chunks += j < t->chunks.n;
            d->classes |= cuprof_run_class_bit(ev.cls);
            if (ev.api >= d->api_end)
                d->api_end = ev.api + 1u;
            if ((seq < d->split) == d->low) {
                d->out[seq] = ev;
                d->seen[seq] = 1;
            } else {
                dec_side *x = vec_push(&d->side, sizeof *x, 1);
                if (!x) {
                    d->oom = 1;
                    return;
                }
                *x = (dec_side){seq, ev};
            }
        }
        d->bytes += (uint64_t)(cd.p - c->data);
        if (r->progress)
            atomic_fetch_add_explicit(&r->progress->decoded, c->len, memory_order_relaxed);
    }
}

static void *decode_main(void *arg)
{
    decode_range(arg);
    return NULL;
}

/* A thread's records are decoded by two threads past this many bytes (a
 * run file 2.0's chunks decode alone); -DDECODE_SPLIT_BYTES=0 splits every
 * thread of two chunks or more (to test the parts' joins). */
#ifndef DECODE_SPLIT_BYTES
#define DECODE_SPLIT_BYTES (4u << 20)
#endif
static const uint64_t decode_split_bytes = DECODE_SPLIT_BYTES;

/* Decodes t's chunks [0, nc) in two parts at once, the second on a thread
 * of its own, as decode_one would: a call in both parts (a damaged file)
 * takes the later chunk's record. 0, or -1 when it did not (too small, no
 * thread, out of memory, or a limit the parts together went past: then
 * nothing of it counts and the caller decodes alone). */
static int decode_two(rrun *r, rthread *t, size_t nc, uint64_t want, uint64_t limit,
                      cuprof_event *out, uint8_t *seen, uint64_t *in_chunks, cuprof_run_thread *th)
{
    if (r->major < 2 || nc < 2)
        return -1;
    uint64_t total = 0, half = 0;
    for (size_t j = 0; j < nc; j++)
        total += chunk_at(t, j)->len;
    if (total < decode_split_bytes)
        return -1;
    size_t h = 0;
    while (h + 1 < nc && half < total / 2)
        half += chunk_at(t, h++)->len;
    if (h == 0)
        h = 1;
    /* the calls from the second part's first record on are its own */
    const chunk_ref *ch = chunk_at(t, h);
    const uint8_t *p = ch->data;
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    cuprof_event ev;
    uint64_t seq;
    if (cuprof_decode(&p, ch->data + ch->len, &codec, &ev, &seq) != 0 || seq < t->base ||
        seq - t->base >= want)
        return -1;
    uint64_t split = seq - t->base;
    dec_part a = {.r = r, .t = t, .from = 0, .to = h, .want = want, .limit = limit,
                  .split = split, .low = 1, .out = out, .seen = seen};
    dec_part b = a;
    b.from = h;
    b.to = nc;
    b.low = 0;
    pthread_t other;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&other, NULL, decode_main, &b);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    decode_range(&a);
    pthread_join(other, NULL);
    int ok = !a.oom && !b.oom && (r->flight || a.got + b.got <= limit);
    if (ok) {
        /* the first part's calls the second owns: unless a later chunk had them */
        const dec_side *sa = a.side.p, *sb = b.side.p;
        for (size_t k = 0; k < a.side.n; k++)
            if (seen[sa[k].seq] != 1) {
                out[sa[k].seq] = sa[k].ev;
                seen[sa[k].seq] = 2;
            }
        /* the second part's calls the first owns: a later chunk's */
        for (size_t k = 0; k < b.side.n; k++) {
            out[sb[k].seq] = sb[k].ev;
            seen[sb[k].seq] = 1;
        }
        *in_chunks += a.in_chunks + b.in_chunks;
        r->pub.event_bytes += a.bytes + b.bytes;
        th->classes = a.classes | b.classes;
        th->api_end = a.api_end > b.api_end ? a.api_end : b.api_end;
    }
    free(a.side.p);
    free(b.side.p);
    return ok ? 0 : -1;
}

/* Decodes thread t's chunks (CHUNKs, then its TAIL) into out[seq - base]
 * for base <= seq < base + want (base: t->base); returns the length of the
 * prefix of calls all found (a call whose record was lost, in a block the
 * disk could not take, ends the thread's calls there: event ids are
 * positions). *in_chunks gets the records read from CHUNK blocks (written
 * while the program ran), th's classes the bits of the classes decoded (a
 * superset of the prefix's: cuprof_run_thread.classes), its api_end. */
static uint64_t decode_thread(rrun *r, rthread *t, uint64_t want, cuprof_event *out,
                              uint64_t *in_chunks, cuprof_run_thread *th)
{
    uint8_t *seen = calloc(want ? want : 1, 1);
    if (!seen)
        return 0;
    size_t nc = t->chunks.n + (t->have_tail ? 1 : 0);
    uint64_t limit = r->flight ? UINT64_MAX : want;
    if (decode_two(r, t, nc, want, limit, out, seen, in_chunks, th) != 0) {
        /* alone (what the parts wrote is written again) */
        memset(seen, 0, want);
        dec_part d = {.r = r, .t = t, .from = 0, .to = nc, .want = want, .limit = limit,
                      .split = UINT64_MAX, .low = 1, .out = out, .seen = seen};
        decode_range(&d);
        *in_chunks += d.in_chunks;
        r->pub.event_bytes += d.bytes;
        th->classes = d.classes;
        th->api_end = d.api_end;
    }
    uint64_t k = 0;
    while (k < want && seen[k])
        k++;
    free(seen);
    return k;
}

/* The flight recorder's thread: the oldest call from which every call up
 * to want (its published count) is in the file; the ones before went with
 * the ring's older blocks, or their records did (a call that outlived the
 * calls after it is written when it ends). want when none is. The calls
 * looked at are the last m before want, m the records before it: no more
 * can all be there (a damaged file's sequence numbers far apart, or a
 * want far past them, cost no more than the records). */
static uint64_t find_base(rthread *t, uint64_t want)
{
    size_t nc = t->chunks.n + (t->have_tail ? 1 : 0);
    chunk_ref *cs = t->chunks.p;
    uint64_t lo = want, m = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *seen = NULL;
        if (pass == 1) {
            if (want - lo > m)
                lo = want - m;
            if (lo >= want)
                return want;
            seen = calloc(want - lo, 1);
            if (!seen)
                return want;
        }
        for (size_t j = 0; j < nc; j++) {
            const chunk_ref *c = j < t->chunks.n ? &cs[j] : &t->tail;
            const uint8_t *p = c->data, *e = c->data + c->len;
            cuprof_codec codec;
            memset(&codec, 0, sizeof codec);
            cuprof_event ev;
            uint64_t seq;
            while (cuprof_decode(&p, e, &codec, &ev, &seq) == 0) {
                if (seq >= want)
                    continue;
                if (pass == 0) {
                    m++;
                    lo = seq < lo ? seq : lo;
                } else if (seq >= lo) {
                    seen[seq - lo] = 1;
                }
            }
        }
        if (pass == 1) {
            uint64_t b = want;
            while (b > lo && seen[b - 1 - lo])
                b--;
            free(seen);
            return b;
        }
    }
    return want;
}

/* The most records t's blocks can hold (collector/compact.h:
 * CUPROF_REC_MIN bytes each, but a chunk's last). */
static uint64_t record_room(const rthread *t)
{
    size_t nc = t->chunks.n + (t->have_tail ? 1 : 0);
    uint64_t n = 0;
    for (size_t j = 0; j < nc; j++)
        n += (chunk_at(t, j)->len + CUPROF_REC_MIN - 1) / CUPROF_REC_MIN;
    return n;
}

/* Records a thread holds in its blocks (a thread the run never described:
 * killed before the end), counted by decoding; *records (may be NULL) gets
 * how many records decoded, whatever their sequence numbers. */
static uint64_t count_records(const rrun *r, rthread *t, uint64_t *records)
{
    size_t nc = t->chunks.n + (t->have_tail ? 1 : 0);
    chunk_ref *cs = t->chunks.p;
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    uint64_t n = 0, maxseq = 0;
    for (size_t j = 0; j < nc; j++) {
        const chunk_ref *c = j < t->chunks.n ? &cs[j] : &t->tail;
        const uint8_t *p = c->data, *e = c->data + c->len;
        cuprof_event ev;
        uint64_t seq;
        if (r->major >= 2)
            memset(&codec, 0, sizeof codec);
        while (cuprof_decode(&p, e, &codec, &ev, &seq) == 0) {
            n++;
            if (seq + 1 > maxseq)
                maxseq = seq + 1;
        }
    }
    if (records)
        *records = n;
    /* the calls [0, n) are complete only when every one of them is there;
     * a flight recorder's: find_base takes the ones that are */
    return maxseq == n || r->flight ? maxseq : 0;
}

static int read_threads(rrun *r)
{
    cuprof_run *run = &r->pub;
    size_t k = r->threads.n;
    rthread *ts = r->threads.p;
    for (size_t i = 0; i < k; i++) {   /* a tail whose chunk a CHUNK block holds: stale */
        rthread *t = &ts[i];
        uint32_t next_no = t->chunks.n ? t->first_no + (uint32_t)t->chunks.n : 0;
        if (r->flight && t->have_tail && (t->chunks.n == 0 || t->tail_no > next_no)) {
            t->chunks.n = 0;   /* (flight) the chunks before it went: the tail alone */
            t->first_no = t->tail_no;
        } else if (t->have_tail && t->tail_no != next_no) {
            t->have_tail = 0;
        }
    }
    r->run_threads = calloc(k ? k : 1, sizeof *r->run_threads);
    r->chunk_ptrs = calloc(k ? k : 1, sizeof *r->chunk_ptrs);
    if (!r->run_threads || !r->chunk_ptrs)
        return -1;
    uint64_t *want = calloc(k ? k : 1, sizeof *want);
    if (!want)
        return -1;
    uint64_t total = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t room = record_room(&ts[i]);
        want[i] = ts[i].have_info ? ts[i].info.committed : count_records(r, &ts[i], NULL);
        if (ts[i].have_info && want[i] > room) {
            /* A THREAD block that claims more calls than its blocks can
             * hold (damaged, or hostile: 2^60) would size seen[] and the
             * arena by the claim. Take the records that are there: the
             * calls [0, records) at most, of which decode_thread keeps the
             * prefix found; a flight recorder's: up to the last one, as
             * for a thread never described. */
            uint64_t records = 0, top = count_records(r, &ts[i], &records);
            want[i] = r->flight ? top : records;
        }
        /* (a flight recorder's calls past the room: sequence numbers far
         * apart, so some went; find_base keeps at most the room) */
        if (r->flight && (ts[i].first_no > 0 || ts[i].chunks.n == 0 || want[i] > room)) {
            ts[i].base = find_base(&ts[i], want[i]);
            want[i] -= ts[i].base;
        }
        total += want[i];
    }
    if (r->progress) {   /* the bytes the decoding will read (tools/progress.h) */
        uint64_t bytes = 0;
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < ts[i].chunks.n + (ts[i].have_tail ? 1 : 0); j++)
                bytes += chunk_at(&ts[i], j)->len;
        atomic_store_explicit(&r->progress->chunks, bytes ? bytes : 1, memory_order_relaxed);
    }
    /* streamed (a 2.0 file or later): no array; each thread indexed alone */
    int stream = (r->opts.stream ||
                  (r->opts.stream_above && total > r->opts.stream_above / sizeof(cuprof_event) &&
                   r->kernels.n + r->copies.n + r->gapis.n == 0)) &&
                 r->major >= 2;
    if (stream && cuprof_rf_stream_start(r, k) != 0) {
        free(want);
        return -1;
    }
    cuprof_event *out = NULL;
    if (total && !stream) {
        r->arena_len = (size_t)total * sizeof(cuprof_event);
        /* calloc: in cuprof-report a block this size lives on a file whose
         * pages the report drops past its memory budget (tools/bigmem.h) */
        r->arena = calloc(total, sizeof(cuprof_event));
        if (!r->arena) {
            free(want);
            return -1;
        }
        out = r->arena;
    }
    size_t nth = 0;
    for (size_t i = 0; i < k; i++) {
        rthread *t = &ts[i];
        uint64_t dropped = t->have_info ? t->info.dropped : 0;
        if (want[i] == 0 && dropped == 0)
            continue;
        cuprof_run_thread *th = &r->run_threads[nth];
        th->index = t->index;
        th->tid = t->have_info ? t->info.tid : 0;
        if (t->have_info)
            memcpy(th->name, t->info.name, sizeof th->name);
        th->name[sizeof th->name - 1] = '\0';
        th->dropped = dropped;
        th->per_chunk = want[i] ? want[i] : 1;
        th->chunks = &r->chunk_ptrs[nth];
        r->chunk_ptrs[nth] = out;
        nth++;
        if (stream) {
            uint64_t in_chunks = 0;
            if (cuprof_rf_stream_thread(r, i, t, want[i], th, &in_chunks) != 0) {
                free(want);
                return -1;
            }
            run->nevents += th->n;
            run->spilled_events += in_chunks;
            continue;
        }
        if (!out || want[i] == 0)
            continue;
        uint64_t in_chunks = 0;
        th->n = decode_thread(r, t, want[i], out, &in_chunks, th);
        th->per_chunk = th->n ? th->n : 1;
        out += want[i];
        run->nevents += th->n;
        run->spilled_events += in_chunks;
    }
    run->threads = r->run_threads;
    run->nthreads = nth;
    free(want);
    return 0;
}

/* ---- GPU records -------------------------------------------------------------------- */

static uint64_t convert(const rrun *r, uint64_t c)
{
    if (c == 0)
        return 0;
    uint64_t off = r->clock_off_a;
    int64_t span = (int64_t)(r->clock_cupti_b - r->clock_cupti_a);
    int64_t drift = (int64_t)(r->clock_off_b - r->clock_off_a);
    /* (drift > -limit, not -drift < limit: a damaged file's drift can be
     * INT64_MIN, whose negation overflows; the fuzzer found it) */
    if (r->clock_cupti_b != 0 && span > 10000000 && drift < span / 1000 && drift > -(span / 1000)) {
        double f = (double)(int64_t)(c - r->clock_cupti_a) / (double)span;
        off = r->clock_off_a + (uint64_t)(int64_t)((double)drift * f);
    }
    return c + off;
}

static int cmp_ext(const void *a, const void *b)
{
    uint32_t x = ((const cuprof_gpu_extmap *)a)->corr, y = ((const cuprof_gpu_extmap *)b)->corr;
    return (x > y) - (x < y);
}

#define CMP_START(type)                                                     \
    static int cmp_##type(const void *a, const void *b)                     \
    {                                                                       \
        const type *x = a, *y = b;                                          \
        if (x->start_ns != y->start_ns)                                     \
            return x->start_ns < y->start_ns ? -1 : 1;                      \
        return (x->corr > y->corr) - (x->corr < y->corr);                   \
    }
CMP_START(cuprof_gpu_kernel)
CMP_START(cuprof_gpu_copy)
CMP_START(cuprof_gpu_api)
CMP_START(cuprof_gpu_sync)

/* External ids, host times, the profiler's own records dropped, sorted:
 * for any record type with start_ns, end_ns, ext and corr. (Sorted only
 * when not in order already: CUPTI's buffers mostly are, and glibc's merge
 * sort would leave such records as they are.) */
#define NORMALIZE(type)                                                          \
    static size_t normalize_##type(const rrun *r, type *v, size_t n,            \
                                   const cuprof_gpu_extmap *m, size_t nm)        \
    {                                                                            \
        size_t out = 0;                                                          \
        int sorted = 1;                                                          \
        for (size_t i = 0; i < n; i++) {                                         \
            type e = v[i];                                                       \
            e.ext = cuprof_gpu_extmap_find(m, nm, e.corr);                       \
            if (e.ext == CUPROF_RF_EXT_OWN)                                      \
                continue;                                                        \
            e.start_ns = convert(r, e.start_ns);                                 \
            e.end_ns = convert(r, e.end_ns);                                     \
            if (out && sorted && cmp_##type(&v[out - 1], &e) > 0)                \
                sorted = 0;                                                      \
            v[out++] = e;                                                        \
        }                                                                        \
        if (out > 1 && !sorted)                                                  \
            qsort(v, out, sizeof *v, cmp_##type);                                \
        return out;                                                              \
    }
NORMALIZE(cuprof_gpu_kernel)
NORMALIZE(cuprof_gpu_copy)
NORMALIZE(cuprof_gpu_api)
NORMALIZE(cuprof_gpu_sync)

static int cmp_node(const void *a, const void *b)
{
    const cuprof_gpu_graph_node *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Sorts the graph nodes by id and makes one entry of each id. The real CUPTI
 * (13, on an H200) tells an instantiated graph's node twice: CREATED (no
 * original; the origin is whatever call was open, cudaGraphInstantiate) and
 * then CLONED (its original): the entry keeps the original, so that the
 * node's origin is its original's, and the first origin and graph known. */
static size_t merge_nodes(cuprof_gpu_graph_node *gn, size_t n)
{
    if (n > 1)
        qsort(gn, n, sizeof *gn, cmp_node);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && gn[out - 1].id == gn[i].id) {
            cuprof_gpu_graph_node *m = &gn[out - 1];
            if (!m->original)
                m->original = gn[i].original;
            if (!m->origin)
                m->origin = gn[i].origin;
            if (!m->graph)
                m->graph = gn[i].graph;
        } else {
            gn[out++] = gn[i];
        }
    }
    return out;
}

static const char *gpu_name(const rrun *r, uint32_t id, const char *none)
{
    return id >= 1 && id <= r->gpu_names.n ? ((const char **)r->gpu_names.p)[id - 1] : none;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Calls other threads made after the exit path stopped recording (CUPTI
 * records them while the process ends: up to seconds when CUDA is slow to
 * answer) are not the run's: their API and sync records, and the device
 * work they launched, are left out and counted as late. */
static void after_exit(rrun *r, cuprof_gpu_run *g, cuprof_gpu_kernel *k, cuprof_gpu_copy *c,
                       cuprof_gpu_api *a)
{
    uint32_t *gone = malloc((g->n_apis ? g->n_apis : 1) * sizeof *gone);
    size_t ng = 0, out = 0;
    if (!gone)
        return;
    for (size_t i = 0; i < g->n_apis; i++) {
        if (a[i].start_ns > r->exit_ns)
            gone[ng++] = a[i].corr;
        else
            a[out++] = a[i];
    }
    g->late += g->n_apis - out;
    g->n_apis = out;
    qsort(gone, ng, sizeof *gone, cmp_u32);
    out = 0;
    for (size_t i = 0; i < g->n_kernels; i++)
        if (!bsearch(&k[i].corr, gone, ng, sizeof *gone, cmp_u32))
            k[out++] = k[i];
    g->late += g->n_kernels - out;
    g->n_kernels = out;
    out = 0;
    for (size_t i = 0; i < g->n_copies; i++)
        if (!bsearch(&c[i].corr, gone, ng, sizeof *gone, cmp_u32))
            c[out++] = c[i];
    g->late += g->n_copies - out;
    g->n_copies = out;
    cuprof_gpu_sync *s = r->syncs.p;
    out = 0;
    for (size_t i = 0; i < g->n_syncs; i++)
        if (s[i].start_ns <= r->exit_ns)
            s[out++] = s[i];
    g->late += g->n_syncs - out;
    g->n_syncs = out;
    free(gone);
}

/* An event id as the run numbers its calls: a flight recorder's thread
 * starts at its first call kept (rthread.base); a call before it is gone (0:
 * the record has no cause). */
static uint64_t rebase_id(const rrun *r, uint64_t id)
{
    if (!r->flight || id == 0 || id == CUPROF_RF_EXT_OWN)
        return id;
    uint32_t ti = cuprof_event_id_thread(id);
    uint64_t seq = cuprof_event_id_seq(id);
    const rthread *ts = r->threads.p;
    for (size_t i = 0; i < r->threads.n; i++)
        if (ts[i].index == ti)
            return !ts[i].base ? id : seq < ts[i].base ? 0 : cuprof_event_id_make(ti, seq - ts[i].base);
    return id;
}

static int read_gpu(rrun *r)
{
    cuprof_gpu_run *g = &r->gpu;
    g->status = "CUPTI not started";
    tag_it it = {r->gpu_info, r->gpu_info ? r->gpu_info + r->gpu_info_len : NULL};
    uint16_t tag;
    const uint8_t *v;
    uint32_t n;
    while (r->gpu_info && tag_next(&it, &tag, &v, &n)) {
        uint64_t x = u64_of(v, n);
        switch (tag) {
        case CUPROF_RT_GPU_ON: g->captured = (int)x; break;
        case CUPROF_RT_GPU_KERNELS_ONLY: g->kernels_only = (int)x; break;
        case CUPROF_RT_GPU_STATUS: g->status = own(r, v, n); break;
        case CUPROF_RT_GPU_DROPPED: g->dropped = x; break;
        case CUPROF_RT_GPU_LATE: g->late = x; break;
        case CUPROF_RT_GPU_CLOCK: g->clock = (int)x; break;
        case CUPROF_RT_GPU_CUPTI_A: r->clock_cupti_a = x; break;
        case CUPROF_RT_GPU_OFF_A: r->clock_off_a = x; break;
        case CUPROF_RT_GPU_CUPTI_B: r->clock_cupti_b = x; break;
        case CUPROF_RT_GPU_OFF_B: r->clock_off_b = x; break;
        case CUPROF_RT_GPU_CLOCK_ERR: g->clock_error_ns = x; break;
        default: break;
        }
    }
    if (!r->gpu_info && (r->kernels.n || r->gapis.n || r->copies.n)) {
        /* killed before the end: the records are there, the clock map is
         * not; CUPTI's clock is taken as ours (exact with the timestamp
         * callback, which real CUPTI uses when it can) */
        g->captured = 1;
        g->status = "recovered from the run file: the GPU side's state was not written";
    }
    g->clock_offset_ns = (int64_t)r->clock_off_a;
    /* corr -> ext, sorted, one entry per corr */
    size_t nm = r->extmap.n;
    _Static_assert(sizeof(cuprof_gpu_extmap) == sizeof(cuprof_rf_extmap), "extmap in place");
    cuprof_gpu_extmap *m = r->extmap.p;   /* the file's, made the model's in place */
    for (size_t i = 0; i < nm; i++) {
        cuprof_rf_extmap f;
        memcpy(&f, (const cuprof_rf_extmap *)r->extmap.p + i, sizeof f);
        m[i] = (cuprof_gpu_extmap){.corr = f.corr, .ext = rebase_id(r, f.ext)};
    }
    if (nm > 1) {
        qsort(m, nm, sizeof *m, cmp_ext);
        size_t out = 1;
        for (size_t i = 1; i < nm; i++)
            if (m[i].corr != m[out - 1].corr)
                m[out++] = m[i];
        nm = out;
    }
    size_t nk = r->kernels.n, nc = r->copies.n, na = r->gapis.n;
    cuprof_gpu_kernel *k = r->kernels.p;   /* freed with the run */
    cuprof_gpu_copy *c = r->copies.p;
    cuprof_gpu_api *a = r->gapis.p;
    for (size_t i = 0; i < nk; i++)
        k[i].name = gpu_name(r, (uint32_t)(uintptr_t)k[i].name, "<unknown kernel>");
    for (size_t i = 0; i < na; i++)
        a[i].name = gpu_name(r, (uint32_t)(uintptr_t)a[i].name, "cbid_unknown");
    g->n_kernels = normalize_cuprof_gpu_kernel(r, k, nk, m, nm);
    g->n_copies = normalize_cuprof_gpu_copy(r, c, nc, m, nm);
    g->n_apis = normalize_cuprof_gpu_api(r, a, na, m, nm);
    g->n_syncs = normalize_cuprof_gpu_sync(r, r->syncs.p, r->syncs.n, m, nm);
    if (r->exit_ns)
        after_exit(r, g, k, c, a);
    /* fitted: the vectors grew by doubling (in cuprof-report their tails'
     * disk goes back, tools/bigmem.h); the correlation map too, below */
    k = fit(&r->kernels, sizeof *k, g->n_kernels);
    c = fit(&r->copies, sizeof *c, g->n_copies);
    a = fit(&r->gapis, sizeof *a, g->n_apis);
    g->kernels = g->n_kernels ? k : NULL;
    g->cfgs = r->cfgs.p;
    g->n_cfgs = r->cfgs.n;
    free(r->cfg_slot);
    r->cfg_slot = NULL, r->cfg_cap = 0;
    g->copies = g->n_copies ? c : NULL;
    g->apis = g->n_apis ? a : NULL;
    g->syncs = g->n_syncs ? r->syncs.p : NULL;
    size_t out = 0;
    for (size_t i = 0; i < nm; i++)
        if (m[i].ext != CUPROF_RF_EXT_OWN)
            m[out++] = m[i];
    g->n_extmap = out;
    m = fit(&r->extmap, sizeof *m, out);
    g->extmap = out ? m : NULL;
    vec nodes = {0};
    cuprof_gpu_graph_node *gn = r->nodes.n ? vec_push(&nodes, sizeof *gn, r->nodes.n) : NULL;
    for (size_t i = 0; gn && i < r->nodes.n; i++) {
        const cuprof_rf_node *f = (const cuprof_rf_node *)r->nodes.p + i;
        gn[i] = (cuprof_gpu_graph_node){f->id, f->original, rebase_id(r, f->origin), f->graph};
    }
    if (gn)
        nodes.n = merge_nodes(gn, nodes.n);
    free(r->nodes.p);
    r->nodes = nodes;
    g->graph_nodes = gn;
    g->n_graph_nodes = gn ? nodes.n : 0;
    g->devices = r->devices.p;
    g->n_devices = r->devices.n;
    return 0;   /* r->extmap.p is g->extmap, or unused */
}

/* ---- open, read, free ---------------------------------------------------------------- */

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

cuprof_run *cuprof_rfread(const char *path, cuprof_rfread_info *info, char *err, size_t errlen)
{
    return cuprof_rfread_with(path, info, NULL, err, errlen);
}

cuprof_run *cuprof_rfread_with(const char *path, cuprof_rfread_info *info,
                               const cuprof_rfread_opts *opts, char *err, size_t errlen)
{
    static const cuprof_rfread_opts none;
    if (!opts)
        opts = &none;
    cuprof_rfread_progress *progress = opts->progress;
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        say(err, errlen, "%s is not a regular file", path);
        close(fd);
        return NULL;
    }
    cuprof_rf_header h;
    if ((size_t)st.st_size < sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        memcmp(h.magic, CUPROF_RF_MAGIC, sizeof h.magic) != 0) {
        say(err, errlen, "%s is not a cuprof run file (no CUPROF-RUNFILE header); give the "
            "NAME.cuprof file a profiled run left", path);
        close(fd);
        return NULL;
    }
    info->major = h.major;
    info->minor = h.minor;
    info->pid = (long)h.pid;
    info->file_bytes = (uint64_t)st.st_size;
    if (h.major > CUPROF_RF_MAJOR || h.header_bytes < sizeof h ||
        h.block_header_bytes != sizeof(cuprof_rf_block)) {
        say(err, errlen, "%s is a run file of version %u.%u, newer than this cuprof reads "
            "(%u.x): report it with the cuprof that recorded it, or update this one",
            path, h.major, h.minor, CUPROF_RF_MAJOR);
        close(fd);
        return NULL;
    }
    rrun *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        say(err, errlen, "out of memory");
        return NULL;
    }
    r->map_len = (size_t)st.st_size;
    r->progress = progress;
    r->opts = *opts;
    r->opts.progress = NULL;
    if (progress)
        atomic_store_explicit(&progress->file, (uint64_t)st.st_size, memory_order_relaxed);
    r->major = h.major;
    r->map = mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (r->map == MAP_FAILED) {
        say(err, errlen, "cannot map %s: %s", path, strerror(errno));
        free(r);
        return NULL;
    }
    info->read_bytes = h.header_bytes;
    walk(r, r->map, r->map_len, h.header_bytes, info);
    if (!info->complete && !info->lost[0])
        lost(info, "the run was not completed (the process was killed, or is still running)");
    cuprof_run *run = &r->pub;
    run->place.rank = run->place.world_size = run->place.local_rank = run->place.local_size = -1;
    if (r->meta_start && r->meta_start != r->meta)
        read_meta(r, r->meta_start, r->meta_start_len, 1);
    if (r->meta) {
        read_meta(r, r->meta, r->meta_len, 1);
        r->dropped_by_api = calloc(run->napis ? run->napis : 1, sizeof *r->dropped_by_api);
        read_meta(r, r->meta, r->meta_len, 0);
    }
    if (r->recovered)
        read_recovered(r);
    read_meta_info(r, info);
    if (!run->program)
        run->program = "unknown";
    if (!run->exe)
        run->exe = "";
    if (!run->clock)
        run->clock = "CLOCK_MONOTONIC";
    if (!run->gpu.reason)
        run->gpu.reason = "";
    run->nkernels = r->knames ? r->nknames : 0;
    run->kernel_names = r->knames;
    run->nstrings = r->nvtx ? r->nnvtx : 0;
    run->strings = r->nvtx;
    if (r->stacks_blk)
        read_stacks(r);
    /* the end's META was read (not a flusher's, or one before a kill the
     * supervisor recovered from: its CLOCK anchor follows every stamp) */
    int ended = r->meta && r->meta != r->meta_start && !r->recovered;
    if (!ended) {
        /* no end anchor (killed): the latest anchor stands for it, a CLOCK
         * block's (written after the calls it follows) or a chunk's */
        if (r->clock_ns > r->end_ns)
            r->end_ns = r->clock_ns, r->end_stamp = r->clock_stamp;
        rthread *ts = r->threads.p;
        for (size_t i = 0; i < r->threads.n; i++)
            for (size_t j = 0; j < ts[i].chunks.n; j++) {
                const chunk_ref *c = (const chunk_ref *)ts[i].chunks.p + j;
                if (c->ns > r->end_ns)
                    r->end_ns = c->ns, r->end_stamp = c->stamp;
            }
    }
    /* the GPU records' vectors fitted before the calls are decoded: they
     * grew by doubling, and with the calls beside them their unused tails
     * were the report's largest moment (issue 40: at 10 M launches the
     * spill's peak went from 2.44 to 2.32 GB); read_gpu fits them again to
     * what it keeps */
    fit(&r->kernels, sizeof(cuprof_gpu_kernel), r->kernels.n);
    fit(&r->copies, sizeof(cuprof_gpu_copy), r->copies.n);
    fit(&r->gapis, sizeof(cuprof_gpu_api), r->gapis.n);
    fit(&r->extmap, sizeof(cuprof_gpu_extmap), r->extmap.n);
    if (read_threads(r) != 0 || read_gpu(r) != 0) {
        say(err, errlen, "out of memory reading %s", path);
        cuprof_rfread_free(run);
        return NULL;
    }
    run->gpu_run = r->gpu.captured || r->gpu.n_kernels || r->gpu.n_apis ? &r->gpu : NULL;
    run->kernels_used = r->kernels_used;
    if (!ended) {
        /* not completed: the run ends at its last record */
        uint64_t end = run->t_end > run->t_start ? run->t_end : run->t_start;
        for (size_t i = 0; i < run->nthreads; i++)
            if (run->threads[i].n) {
                const cuprof_event *e = cuprof_run_event(&run->threads[i], run->threads[i].n - 1);
                end = e->t1 > end ? e->t1 : e->t0 > end ? e->t0 : end;
            }
        if (run->killed.died_ns > end)   /* (its death, as the supervisor saw it) */
            end = run->killed.died_ns;
        run->t_end = end;
        /* a flight recorder's window a recovery closed at its own time (the
         * process's death unknown): at the last record instead */
        uint64_t (*w)[2] = r->windows.p;
        if (r->recovered && !run->killed.died_ns && r->windows.n && w[r->windows.n - 1][1] > end &&
            w[r->windows.n - 1][0] < end)
            w[r->windows.n - 1][1] = end;
    }
    run->wall_ns = run->t_end > run->t_start ? run->t_end - run->t_start : 0;
    for (size_t a = 0; r->dropped_by_api && a < run->napis; a++)
        run->dropped += r->dropped_by_api[a];
    run->dropped_by_api = run->dropped ? r->dropped_by_api : NULL;
    return run;
}

const cuprof_gpu_run *cuprof_rfread_gpu(const cuprof_run *run)
{
    return &((const rrun *)run)->gpu;
}

void cuprof_rfread_free(cuprof_run *run)
{
    rrun *r = (rrun *)run;
    if (!r)
        return;
    cuprof_rf_stream_free(r);
    rthread *ts = r->threads.p;
    for (size_t i = 0; i < r->threads.n; i++) {
        free(ts[i].chunks.p);
        free(ts[i].tailbuf);
    }
    free(r->threads.p);
    char **s = r->strs.p;
    for (size_t i = 0; i < r->strs.n; i++)
        free(s[i]);
    free(r->strs.p);
    free(r->argv.p);
    free(r->apis.p);
    free(r->windows.p);
    free(r->whys.p);
    cuprof_mem_held *mh = r->mem_held.p;
    for (size_t i = 0; i < r->mem_held.n; i++)
        free((void *)mh[i].allocs);
    free(r->mem_held.p);
    free(r->knames);
    free(r->nvtx);
    free(r->gpu_names.p);
    free(r->kernels.p);
    free(r->copies.p);
    free(r->gapis.p);
    free(r->syncs.p);
    free(r->extmap.p);
    free(r->nodes.p);
    free(r->devices.p);
    free(r->cfgs.p);
    free(r->cfg_slot);
    free(r->run_threads);
    free(r->chunk_ptrs);
    free(r->arena);
    free(r->dropped_by_api);
    free(r->frames);
    free(r->stacks);
    free(r->stack_frames.p);
    free(r->modules.p);
    cuprof_srclines_free(r->srclines);
    if (r->map && r->map != MAP_FAILED)
        munmap(r->map, r->map_len);
    free(r);
}

/* ---- the demangler -------------------------------------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangle_fn;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_load(void)
{
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    demangle_fn = h ? (cxa_demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle") : NULL;
}

char *cuprof_rfread_demangle(const char *name)
{
    if (!name || strncmp(name, "_Z", 2) != 0)
        return NULL;
    /* once (cuprof-report's threads may ask at once: tools/report.c) */
    pthread_once(&demangle_once, demangle_load);
    cxa_demangle_fn fn = demangle_fn;
    if (!fn)
        return NULL;
    int status = -1;
    char *d = fn(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return NULL;
}
