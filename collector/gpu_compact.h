/*
 * gpu_compact.h - the compact form of CUPTI's records in the run file (run
 * file 5.0, issue 40.4): how cupti_records.c writes each kernel, copy,
 * memset, runtime/driver API, synchronization and external-correlation
 * record of a CUPTI buffer into one GPU_RECORDS block, and how the reader
 * (formats/runfile/runfile_read.c) gets the fixed-size records
 * (cuprof_rf_kernel, ...) back, field for field.
 *
 * Why: written as CUPTI laid them out (run files before 5.0: GPU_KERNELS,
 * GPU_APIS, ... blocks of 96- and 48-byte structs) a launch took 146 bytes
 * of GPU records, 24 times its call's own record: an hour at 20 000
 * launches a second was a 10 GB run file. Compact, a repeated launch's
 * kernel and runtime-API records take about 8 bytes (bench/RESULTS.md).
 *
 * A record: a head byte (low 3 bits: the kind, CUPROF_GR_*; high 5 bits:
 * flags), then per kind:
 *   kernel, copy (memsets are copies)
 *     lane    unless GR_LANE (the lane of the previous kernel or copy): a
 *             varint, 0..7 a slot of the lane table, 8 a new lane (device,
 *             context, stream as varints) into the next slot, round robin.
 *             A lane is one (device, context, stream): deltas are against
 *             its previous record
 *     start   zigzag varint: start - the lane's previous end
 *     dur     zigzag varint end - start, unless GR_DUR (as the lane's
 *             previous kernel's, or copy's)
 *     corr    zigzag varint corr - the lane's previous corr, unless
 *             GR_CORR (the previous plus the same step again)
 *     kernel  unless GR_SAME (the lane's previous kernel's configuration):
 *             a varint, 1..8 a slot of the configuration table (8 recent
 *             ones: two kernels taking turns on a stream), 0 a new one
 *             (name id, grid x/y/z, block x/y/z, registers, static and
 *             dynamic shared memory: varints) into the next slot
 *     copy    unless GR_SAME (the lane's previous copy's shape): kind,
 *             src_mem, dst_mem, async (a byte each), bytes, value (varints)
 *     more    with GR_MORE: a byte (GR_X_*), then graph id (varint) and
 *             graph node id (zigzag varint against the lane's previous)
 *             as it says
 *   api
 *     thread  unless GR_LANE (the previous API record's thread): a varint,
 *             0..7 a slot of the thread table, 8 a new one (thread id,
 *             process id) into the next slot
 *     start, dur, corr as above, against the thread's previous record
 *     call    unless GR_SAME (the thread's previous call): cbid, name id
 *             (varints), a byte (1 driver, 2 is_launch)
 *     result  with GR_MORE: zigzag varint
 *   sync      start (zigzag against the previous record of any kind), dur,
 *             corr (zigzag against the previous sync's), context, stream,
 *             event (varints), type (a byte)
 *   extmap    with GR_LANE the profiler's own id (CUPROF_RF_EXT_OWN), else
 *             ext as a zigzag varint against the previous extmap's; corr
 *             zigzag against the previous extmap's
 *
 * Encoder and decoder keep the same state (cuprof_gr_codec), from zero at
 * each block: a block decodes alone (the flight recorder lets old blocks go).
 * Every difference is taken modulo 2^64 (or 2^32), so any value round-trips.
 * Header-only; nothing here allocates.
 */
#ifndef CUPROF_GPU_COMPACT_H
#define CUPROF_GPU_COMPACT_H

#include "collector/compact.h"   /* varints */
#include "collector/runfile.h"   /* the record structs */

#include <stdint.h>
#include <string.h>

enum cuprof_gr_kind {
    CUPROF_GR_KERNEL = 1,
    CUPROF_GR_COPY = 2,
    CUPROF_GR_API = 3,
    CUPROF_GR_SYNC = 4,
    CUPROF_GR_EXTMAP = 5,
};
#define CUPROF_GR_KIND 0x07u
#define CUPROF_GR_LANE 0x08u   /* same lane / thread as before; extmap: the profiler's own id */
#define CUPROF_GR_SAME 0x10u   /* configuration / shape / call as the lane's previous */
#define CUPROF_GR_CORR 0x20u   /* corr = previous + previous step */
#define CUPROF_GR_DUR 0x40u    /* duration as the lane's previous */
#define CUPROF_GR_MORE 0x80u   /* kernel, copy: the more byte; api: a result */

#define CUPROF_GR_X_DEVICE_LAUNCHED 0x01u
#define CUPROF_GR_X_GRAPH 0x02u        /* the kernel's graph flag */
#define CUPROF_GR_X_GRAPH_ID 0x04u     /* a graph id follows */
#define CUPROF_GR_X_NODE 0x08u         /* a graph node id follows */

#define CUPROF_GR_LANES 8u
#define CUPROF_GR_CFGS 8u
/* The longest record (a kernel on a new lane with a new configuration, every
 * field at its widest), with room to spare. */
#define CUPROF_GR_MAX 192u

/* A kernel's launch configuration (what GR_SAME repeats). */
typedef struct cuprof_gr_cfg {
    uint32_t name, grid[3], block[3], registers, static_smem, dynamic_smem;
} cuprof_gr_cfg;

/* One (device, context, stream): kernels and copies. */
typedef struct cuprof_gr_lane {
    uint32_t device, context, stream;
    uint32_t corr, step;     /* the previous record's corr, and its step from the one before */
    uint64_t end;            /* the previous record's end */
    uint64_t kdur, cdur;     /* the previous kernel's and copy's duration */
    uint64_t node;           /* the previous graph node id */
    cuprof_gr_cfg cfg;       /* the previous kernel's configuration */
    uint64_t bytes;          /* the previous copy's shape */
    uint32_t value;
    uint8_t kind, src_mem, dst_mem, async;
} cuprof_gr_lane;

/* One thread's API records. */
typedef struct cuprof_gr_thread {
    uint32_t thread_id, process_id;
    uint32_t corr, step;
    uint64_t end, dur;
    uint32_t cbid, name;
    uint8_t driver, is_launch;
} cuprof_gr_thread;

/* What encoder and decoder remember within one block. */
typedef struct cuprof_gr_codec {
    uint64_t t;              /* the previous record's start, any kind (a new lane's base) */
    uint32_t corr;           /* the previous record's corr, any kind (a new lane's base) */
    uint32_t sync_corr;      /* the previous sync's corr */
    uint64_t ext;            /* the previous extmap's ext (not the profiler's own) */
    uint32_t ext_corr;       /* the previous extmap's corr */
    uint8_t lane, nlanes, next_lane;       /* the current lane, lanes used, the next slot */
    uint8_t thread, nthreads, next_thread;
    uint8_t ncfgs, next_cfg;
    cuprof_gr_lane lanes[CUPROF_GR_LANES];
    cuprof_gr_thread threads[CUPROF_GR_LANES];
    cuprof_gr_cfg cfgs[CUPROF_GR_CFGS];
} cuprof_gr_codec;

/* A decoded record. */
typedef struct cuprof_gr_rec {
    int kind;                /* enum cuprof_gr_kind */
    union {
        cuprof_rf_kernel k;
        cuprof_rf_copy c;
        cuprof_rf_api a;
        cuprof_rf_sync s;
        cuprof_rf_extmap x;
    } u;
} cuprof_gr_rec;

static inline void cuprof_gr_reset(cuprof_gr_codec *c)
{
    memset(c, 0, sizeof *c);
}

static inline uint64_t cuprof_gr_zz(uint64_t a, uint64_t b)
{
    return cuprof_zz((int64_t)(a - b));
}

static inline uint32_t cuprof_gr_zz32(uint32_t a, uint32_t b)
{
    int32_t d = (int32_t)(a - b);
    return ((uint32_t)d << 1) ^ (uint32_t)(d >> 31);
}

static inline uint32_t cuprof_gr_unzz32(uint32_t v)
{
    return (v >> 1) ^ (0u - (v & 1u));
}

/* ---- the encoder ---- */

/* The slot of (device, context, stream), a new one written at p when it is
 * not in the table (*pp advances); sets GR_LANE in *head when it is the
 * current one. */
static inline cuprof_gr_lane *cuprof_gr_put_lane(uint8_t **pp, uint8_t *head, cuprof_gr_codec *c,
                                                 uint32_t device, uint32_t context,
                                                 uint32_t stream)
{
    for (unsigned i = 0; i < c->nlanes; i++) {
        unsigned s = (c->lane + i) % c->nlanes;
        cuprof_gr_lane *l = &c->lanes[s];
        if (l->device == device && l->context == context && l->stream == stream) {
            if (s == c->lane && c->nlanes)
                *head |= CUPROF_GR_LANE;
            else
                *pp = cuprof_put_uv(*pp, s);
            c->lane = (uint8_t)s;
            return l;
        }
    }
    unsigned s = c->next_lane;
    c->next_lane = (uint8_t)((s + 1) % CUPROF_GR_LANES);
    if (c->nlanes < CUPROF_GR_LANES)
        c->nlanes++;
    *pp = cuprof_put_uv(*pp, CUPROF_GR_LANES);
    *pp = cuprof_put_uv(*pp, device);
    *pp = cuprof_put_uv(*pp, context);
    *pp = cuprof_put_uv(*pp, stream);
    cuprof_gr_lane *l = &c->lanes[s];
    memset(l, 0, sizeof *l);
    l->device = device, l->context = context, l->stream = stream;
    l->end = c->t, l->corr = c->corr;
    c->lane = (uint8_t)s;
    return l;
}

/* start, dur and corr of a record against (end, dur, corr, step). */
static inline uint8_t *cuprof_gr_put_times(uint8_t *p, uint8_t *head, uint64_t start,
                                           uint64_t end, uint32_t corr, uint64_t *prev_end,
                                           uint64_t *prev_dur, uint32_t *prev_corr,
                                           uint32_t *step)
{
    p = cuprof_put_uv(p, cuprof_gr_zz(start, *prev_end));
    uint64_t dur = end - start;
    if (dur == *prev_dur)
        *head |= CUPROF_GR_DUR;
    else
        p = cuprof_put_uv(p, cuprof_zz((int64_t)dur));
    if (corr == *prev_corr + *step) {
        *head |= CUPROF_GR_CORR;
    } else {
        p = cuprof_put_uv(p, cuprof_gr_zz32(corr, *prev_corr));
        *step = corr - *prev_corr;
    }
    *prev_end = end, *prev_dur = dur, *prev_corr = corr;
    return p;
}

static inline uint8_t *cuprof_gr_put_more(uint8_t *p, uint8_t *head, uint8_t x, uint32_t graph_id,
                                          uint64_t node, cuprof_gr_lane *l)
{
    if (graph_id)
        x |= CUPROF_GR_X_GRAPH_ID;
    if (node)
        x |= CUPROF_GR_X_NODE;
    if (!x)
        return p;
    *head |= CUPROF_GR_MORE;
    *p++ = x;
    if (graph_id)
        p = cuprof_put_uv(p, graph_id);
    if (node) {
        p = cuprof_put_uv(p, cuprof_gr_zz(node, l->node));
        l->node = node;
    }
    return p;
}

/* Writes k at p (CUPROF_GR_MAX bytes of room); returns the end. */
static inline uint8_t *cuprof_gr_put_kernel(uint8_t *p, cuprof_gr_codec *c, const cuprof_rf_kernel *k)
{
    uint8_t *head = p++;
    *head = CUPROF_GR_KERNEL;
    cuprof_gr_lane *l = cuprof_gr_put_lane(&p, head, c, k->device, k->context, k->stream);
    p = cuprof_gr_put_times(p, head, k->start, k->end, k->corr, &l->end, &l->kdur, &l->corr,
                            &l->step);
    cuprof_gr_cfg cfg = {k->name, {k->grid[0], k->grid[1], k->grid[2]},
                         {k->block[0], k->block[1], k->block[2]}, k->registers, k->static_smem,
                         k->dynamic_smem};
    if (memcmp(&cfg, &l->cfg, sizeof cfg) == 0) {
        *head |= CUPROF_GR_SAME;
    } else {
        unsigned i = 0;
        while (i < c->ncfgs && memcmp(&cfg, &c->cfgs[i], sizeof cfg) != 0)
            i++;
        if (i < c->ncfgs) {
            p = cuprof_put_uv(p, i + 1);
        } else {
            *p++ = 0;
            const uint32_t *f = &cfg.name;
            for (unsigned j = 0; j < sizeof cfg / sizeof *f; j++)
                p = cuprof_put_uv(p, f[j]);
            c->cfgs[c->next_cfg] = cfg;
            c->next_cfg = (uint8_t)((c->next_cfg + 1) % CUPROF_GR_CFGS);
            if (c->ncfgs < CUPROF_GR_CFGS)
                c->ncfgs++;
        }
        l->cfg = cfg;
    }
    p = cuprof_gr_put_more(p, head,
                           (uint8_t)((k->device_launched ? CUPROF_GR_X_DEVICE_LAUNCHED : 0) |
                                     (k->graph ? CUPROF_GR_X_GRAPH : 0)),
                           k->graph_id, k->graph_node_id, l);
    c->t = k->start, c->corr = k->corr;
    return p;
}

/* Writes a copy or memset at p (CUPROF_GR_MAX bytes of room); returns the end. */
static inline uint8_t *cuprof_gr_put_copy(uint8_t *p, cuprof_gr_codec *c, const cuprof_rf_copy *r)
{
    uint8_t *head = p++;
    *head = CUPROF_GR_COPY;
    cuprof_gr_lane *l = cuprof_gr_put_lane(&p, head, c, r->device, r->context, r->stream);
    p = cuprof_gr_put_times(p, head, r->start, r->end, r->corr, &l->end, &l->cdur, &l->corr,
                            &l->step);
    if (r->bytes == l->bytes && r->value == l->value && r->kind == l->kind &&
        r->src_mem == l->src_mem && r->dst_mem == l->dst_mem && r->async == l->async) {
        *head |= CUPROF_GR_SAME;
    } else {
        *p++ = r->kind, *p++ = r->src_mem, *p++ = r->dst_mem, *p++ = r->async;
        p = cuprof_put_uv(p, r->bytes);
        p = cuprof_put_uv(p, r->value);
        l->bytes = r->bytes, l->value = r->value, l->kind = r->kind;
        l->src_mem = r->src_mem, l->dst_mem = r->dst_mem, l->async = r->async;
    }
    p = cuprof_gr_put_more(p, head, 0, r->graph_id, r->graph_node_id, l);
    c->t = r->start, c->corr = r->corr;
    return p;
}

/* Writes an API record at p (CUPROF_GR_MAX bytes of room); returns the end. */
static inline uint8_t *cuprof_gr_put_api(uint8_t *p, cuprof_gr_codec *c, const cuprof_rf_api *a)
{
    uint8_t *head = p++;
    *head = CUPROF_GR_API;
    cuprof_gr_thread *t = NULL;
    for (unsigned i = 0; i < c->nthreads && !t; i++) {
        unsigned s = (c->thread + i) % c->nthreads;
        if (c->threads[s].thread_id == a->thread_id && c->threads[s].process_id == a->process_id) {
            if (i == 0)
                *head |= CUPROF_GR_LANE;
            else
                p = cuprof_put_uv(p, s);
            c->thread = (uint8_t)s;
            t = &c->threads[s];
        }
    }
    if (!t) {
        unsigned s = c->next_thread;
        c->next_thread = (uint8_t)((s + 1) % CUPROF_GR_LANES);
        if (c->nthreads < CUPROF_GR_LANES)
            c->nthreads++;
        p = cuprof_put_uv(p, CUPROF_GR_LANES);
        p = cuprof_put_uv(p, a->thread_id);
        p = cuprof_put_uv(p, a->process_id);
        t = &c->threads[s];
        memset(t, 0, sizeof *t);
        t->thread_id = a->thread_id, t->process_id = a->process_id;
        t->end = c->t, t->corr = c->corr;
        c->thread = (uint8_t)s;
    }
    p = cuprof_gr_put_times(p, head, a->start, a->end, a->corr, &t->end, &t->dur, &t->corr,
                            &t->step);
    if (a->cbid == t->cbid && a->name == t->name && a->driver == t->driver &&
        a->is_launch == t->is_launch) {
        *head |= CUPROF_GR_SAME;
    } else {
        p = cuprof_put_uv(p, a->cbid);
        p = cuprof_put_uv(p, a->name);
        *p++ = (uint8_t)((a->driver ? 1 : 0) | (a->is_launch ? 2 : 0));
        t->cbid = a->cbid, t->name = a->name;
        t->driver = a->driver ? 1 : 0, t->is_launch = a->is_launch ? 1 : 0;
    }
    if (a->result) {
        *head |= CUPROF_GR_MORE;
        p = cuprof_put_uv(p, cuprof_zz(a->result));
    }
    c->t = a->start, c->corr = a->corr;
    return p;
}

/* Writes a synchronization record at p; returns the end. */
static inline uint8_t *cuprof_gr_put_sync(uint8_t *p, cuprof_gr_codec *c, const cuprof_rf_sync *s)
{
    *p++ = CUPROF_GR_SYNC;
    p = cuprof_put_uv(p, cuprof_gr_zz(s->start, c->t));
    p = cuprof_put_uv(p, cuprof_gr_zz(s->end, s->start));
    p = cuprof_put_uv(p, cuprof_gr_zz32(s->corr, c->sync_corr));
    p = cuprof_put_uv(p, s->context);
    p = cuprof_put_uv(p, s->stream);
    p = cuprof_put_uv(p, s->event);
    *p++ = s->type;
    c->t = s->start, c->sync_corr = s->corr;
    return p;
}

/* Writes an external-correlation record at p; returns the end. */
static inline uint8_t *cuprof_gr_put_ext(uint8_t *p, cuprof_gr_codec *c, const cuprof_rf_extmap *x)
{
    uint8_t *head = p++;
    *head = CUPROF_GR_EXTMAP;
    if (x->ext == CUPROF_RF_EXT_OWN) {
        *head |= CUPROF_GR_LANE;
    } else {
        p = cuprof_put_uv(p, cuprof_gr_zz(x->ext, c->ext));
        c->ext = x->ext;
    }
    p = cuprof_put_uv(p, cuprof_gr_zz32(x->corr, c->ext_corr));
    c->ext_corr = x->corr;
    return p;
}

/* ---- the decoder ---- */

static inline uint32_t cuprof_gr_get32(const uint8_t **pp, const uint8_t *end)
{
    return (uint32_t)cuprof_get_uv(pp, end);
}

static inline int cuprof_gr_get_byte(const uint8_t **pp, const uint8_t *end, uint8_t *b)
{
    if (*pp >= end)
        return -1;
    *b = *(*pp)++;
    return 0;
}

static inline void cuprof_gr_get_times(const uint8_t **pp, const uint8_t *end, uint8_t head,
                                       uint64_t *start, uint64_t *stop, uint32_t *corr,
                                       uint64_t *prev_end, uint64_t *prev_dur,
                                       uint32_t *prev_corr, uint32_t *step)
{
    *start = *prev_end + (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
    uint64_t dur = head & CUPROF_GR_DUR ? *prev_dur : (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
    *stop = *start + dur;
    if (head & CUPROF_GR_CORR) {
        *corr = *prev_corr + *step;
    } else {
        *corr = *prev_corr + cuprof_gr_unzz32(cuprof_gr_get32(pp, end));
        *step = *corr - *prev_corr;
    }
    *prev_end = *stop, *prev_dur = dur, *prev_corr = *corr;
}

static inline cuprof_gr_lane *cuprof_gr_get_lane(const uint8_t **pp, const uint8_t *end,
                                                 uint8_t head, cuprof_gr_codec *c)
{
    if (head & CUPROF_GR_LANE)
        return c->nlanes ? &c->lanes[c->lane] : NULL;
    uint64_t s = cuprof_get_uv(pp, end);
    if (s < c->nlanes) {
        c->lane = (uint8_t)s;
        return &c->lanes[s];
    }
    if (s != CUPROF_GR_LANES)
        return NULL;
    s = c->next_lane;
    c->next_lane = (uint8_t)((s + 1) % CUPROF_GR_LANES);
    if (c->nlanes < CUPROF_GR_LANES)
        c->nlanes++;
    cuprof_gr_lane *l = &c->lanes[s];
    memset(l, 0, sizeof *l);
    l->device = cuprof_gr_get32(pp, end);
    l->context = cuprof_gr_get32(pp, end);
    l->stream = cuprof_gr_get32(pp, end);
    l->end = c->t, l->corr = c->corr;
    c->lane = (uint8_t)s;
    return l;
}

static inline int cuprof_gr_get_more(const uint8_t **pp, const uint8_t *end, uint8_t head,
                                     cuprof_gr_lane *l, uint8_t *x, uint32_t *graph_id,
                                     uint64_t *node)
{
    *x = 0, *graph_id = 0, *node = 0;
    if (!(head & CUPROF_GR_MORE))
        return 0;
    if (cuprof_gr_get_byte(pp, end, x) != 0)
        return -1;
    if (*x & CUPROF_GR_X_GRAPH_ID)
        *graph_id = cuprof_gr_get32(pp, end);
    if (*x & CUPROF_GR_X_NODE) {
        *node = l->node + (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
        l->node = *node;
    }
    return 0;
}

/* Reads one record at *pp (before end) into *out; *pp advances. Returns 0,
 * or -1 for bytes that are not a record (a damaged block: stop there). */
static inline int cuprof_gr_get(const uint8_t **pp, const uint8_t *end, cuprof_gr_codec *c,
                                cuprof_gr_rec *out)
{
    uint8_t head;
    if (cuprof_gr_get_byte(pp, end, &head) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->kind = head & CUPROF_GR_KIND;
    switch (out->kind) {
    case CUPROF_GR_KERNEL: {
        cuprof_rf_kernel *k = &out->u.k;
        cuprof_gr_lane *l = cuprof_gr_get_lane(pp, end, head, c);
        if (!l)
            return -1;
        k->device = l->device, k->context = l->context, k->stream = l->stream;
        cuprof_gr_get_times(pp, end, head, &k->start, &k->end, &k->corr, &l->end, &l->kdur,
                            &l->corr, &l->step);
        if (!(head & CUPROF_GR_SAME)) {
            uint64_t ref = cuprof_get_uv(pp, end);
            if (ref > c->ncfgs)
                return -1;
            if (ref) {
                l->cfg = c->cfgs[ref - 1];
            } else {
                cuprof_gr_cfg cfg;
                uint32_t *f = &cfg.name;
                for (unsigned j = 0; j < sizeof cfg / sizeof *f; j++)
                    f[j] = cuprof_gr_get32(pp, end);
                c->cfgs[c->next_cfg] = cfg;
                c->next_cfg = (uint8_t)((c->next_cfg + 1) % CUPROF_GR_CFGS);
                if (c->ncfgs < CUPROF_GR_CFGS)
                    c->ncfgs++;
                l->cfg = cfg;
            }
        }
        const cuprof_gr_cfg *g = &l->cfg;
        k->name = g->name;
        memcpy(k->grid, g->grid, sizeof k->grid);
        memcpy(k->block, g->block, sizeof k->block);
        k->registers = g->registers, k->static_smem = g->static_smem;
        k->dynamic_smem = g->dynamic_smem;
        uint8_t x;
        if (cuprof_gr_get_more(pp, end, head, l, &x, &k->graph_id, &k->graph_node_id) != 0)
            return -1;
        k->device_launched = (x & CUPROF_GR_X_DEVICE_LAUNCHED) != 0;
        k->graph = (x & CUPROF_GR_X_GRAPH) != 0;
        c->t = k->start, c->corr = k->corr;
        break;
    }
    case CUPROF_GR_COPY: {
        cuprof_rf_copy *r = &out->u.c;
        cuprof_gr_lane *l = cuprof_gr_get_lane(pp, end, head, c);
        if (!l)
            return -1;
        r->device = l->device, r->context = l->context, r->stream = l->stream;
        cuprof_gr_get_times(pp, end, head, &r->start, &r->end, &r->corr, &l->end, &l->cdur,
                            &l->corr, &l->step);
        if (!(head & CUPROF_GR_SAME)) {
            if (end - *pp < 4)
                return -1;
            l->kind = *(*pp)++, l->src_mem = *(*pp)++, l->dst_mem = *(*pp)++;
            l->async = *(*pp)++;
            l->bytes = cuprof_get_uv(pp, end);
            l->value = cuprof_gr_get32(pp, end);
        }
        r->bytes = l->bytes, r->value = l->value, r->kind = l->kind;
        r->src_mem = l->src_mem, r->dst_mem = l->dst_mem, r->async = l->async;
        uint8_t x;
        if (cuprof_gr_get_more(pp, end, head, l, &x, &r->graph_id, &r->graph_node_id) != 0)
            return -1;
        c->t = r->start, c->corr = r->corr;
        break;
    }
    case CUPROF_GR_API: {
        cuprof_rf_api *a = &out->u.a;
        cuprof_gr_thread *t;
        if (head & CUPROF_GR_LANE) {
            if (!c->nthreads)
                return -1;
            t = &c->threads[c->thread];
        } else {
            uint64_t s = cuprof_get_uv(pp, end);
            if (s < c->nthreads) {
                c->thread = (uint8_t)s;
                t = &c->threads[s];
            } else if (s == CUPROF_GR_LANES) {
                s = c->next_thread;
                c->next_thread = (uint8_t)((s + 1) % CUPROF_GR_LANES);
                if (c->nthreads < CUPROF_GR_LANES)
                    c->nthreads++;
                t = &c->threads[s];
                memset(t, 0, sizeof *t);
                t->thread_id = cuprof_gr_get32(pp, end);
                t->process_id = cuprof_gr_get32(pp, end);
                t->end = c->t, t->corr = c->corr;
                c->thread = (uint8_t)s;
            } else {
                return -1;
            }
        }
        a->thread_id = t->thread_id, a->process_id = t->process_id;
        cuprof_gr_get_times(pp, end, head, &a->start, &a->end, &a->corr, &t->end, &t->dur,
                            &t->corr, &t->step);
        if (!(head & CUPROF_GR_SAME)) {
            t->cbid = cuprof_gr_get32(pp, end);
            t->name = cuprof_gr_get32(pp, end);
            uint8_t b;
            if (cuprof_gr_get_byte(pp, end, &b) != 0)
                return -1;
            t->driver = b & 1, t->is_launch = (b >> 1) & 1;
        }
        a->cbid = t->cbid, a->name = t->name, a->driver = t->driver, a->is_launch = t->is_launch;
        if (head & CUPROF_GR_MORE)
            a->result = (int32_t)cuprof_unzz(cuprof_get_uv(pp, end));
        c->t = a->start, c->corr = a->corr;
        break;
    }
    case CUPROF_GR_SYNC: {
        cuprof_rf_sync *s = &out->u.s;
        s->start = c->t + (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
        s->end = s->start + (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
        s->corr = c->sync_corr + cuprof_gr_unzz32(cuprof_gr_get32(pp, end));
        s->context = cuprof_gr_get32(pp, end);
        s->stream = cuprof_gr_get32(pp, end);
        s->event = cuprof_gr_get32(pp, end);
        if (cuprof_gr_get_byte(pp, end, &s->type) != 0)
            return -1;
        c->t = s->start, c->sync_corr = s->corr;
        break;
    }
    case CUPROF_GR_EXTMAP: {
        cuprof_rf_extmap *x = &out->u.x;
        if (head & CUPROF_GR_LANE) {
            x->ext = CUPROF_RF_EXT_OWN;
        } else {
            x->ext = c->ext + (uint64_t)cuprof_unzz(cuprof_get_uv(pp, end));
            c->ext = x->ext;
        }
        x->corr = c->ext_corr + cuprof_gr_unzz32(cuprof_gr_get32(pp, end));
        c->ext_corr = x->corr;
        break;
    }
    default:
        return -1;
    }
    return *pp <= end ? 0 : -1;
}

#endif /* CUPROF_GPU_COMPACT_H */
