/*
 * compact.h - the compact form of a recorded call: how a cuprof_event is
 * stored while the program runs (buffers.c encodes it when the call ends),
 * and read back at exit (snapshot.c decodes it into the 64-byte form the
 * model reads).
 *
 * Why: every 64-byte event was a fresh cache line, and every 64 events a
 * fresh page; on the VMs we measure on that fresh memory is what a hook
 * costs (bench/RESULTS.md). A repeated launch now takes about 7 bytes.
 *
 * A record, in the order written:
 *   head     1 byte: low 4 bits = class + 1 (so 0 is "no more records in
 *            this chunk"), plus 16 with HEAD_CLS_HI (an NCCL call, class 16:
 *            run file 3.0; a math-library call, class 17: 4.0); HEAD_RESULT: a nonzero result follows;
 *            HEAD_EXTRA: the extra byte follows; HEAD_SAME_API: the API is
 *            the previous record's (no api field)
 *   api      varint, unless HEAD_SAME_API
 *   extra    1 byte (EXTRA_* bits) when HEAD_EXTRA: depth, stack, a
 *            sequence number other than the previous + 1, t1 zero (a call
 *            whose end never came) or before t0
 *   depth    1 byte; stack: varint; seq delta: zigzag varint; name (a
 *            string id, EXTRA_NAME: run file 1.2): varint
 *   d0       zigzag varint: t0 - the previous record's time (its t1, or its
 *            t0 when its t1 is 0): negative for a call that encloses the
 *            previous record (records are written as calls end)
 *   dur      varint t1 - t0 (t0 - t1 with EXTRA_T1_BEFORE; absent with
 *            EXTRA_T1_ZERO)
 *   result   zigzag varint, when HEAD_RESULT
 *   payload  what the class keeps (the fields of its member of cuprof_event.a,
 *            nothing for CUPROF_EV_CALL), with per-thread tables: the last
 *            launch's grid/block/smem ("same" bits), 8 recent stream/event
 *            handles (a hit is 3 bits), memory pointers as deltas.
 *
 * The encoder and the decoder keep the same state (cuprof_codec), updated
 * the same way, from zero at the start of each of the thread's chunks (run
 * file 2.0; before, from its first record on): a chunk's records decode only
 * in the order they were written, from the chunk's first, and need nothing
 * of the chunks before it. Records are
 * written in the order calls END (a nested call before the call around it);
 * each carries its sequence number (the order calls began, the event id's),
 * and the decoder puts it back in that place.
 *
 * Nothing here allocates or calls anything: header-only, for the hot path.
 */
#ifndef CUPROF_COMPACT_H
#define CUPROF_COMPACT_H

#include "collector/event.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The longest record (every field at its widest): callers keep this much
 * room for each call that is open, so that its end never lacks room. */
#define CUPROF_REC_MAX 112u
/* The fewest bytes of a record the decoder takes, but a chunk's last (the
 * chunk's end may cut that one short): the head, then d0 and dur (1 byte
 * each at least, cuprof_get_uv), or with HEAD_EXTRA the extra byte and d0
 * (EXTRA_T1_ZERO: no dur). A reader bounds the calls a chunk can hold by
 * its bytes with it: (len + CUPROF_REC_MIN - 1) / CUPROF_REC_MIN. */
#define CUPROF_REC_MIN 3u

#define CUPROF_HEAD_CLS 0x0fu
#define CUPROF_HEAD_RESULT 0x10u
#define CUPROF_HEAD_EXTRA 0x20u
#define CUPROF_HEAD_SAME_API 0x40u
#define CUPROF_HEAD_CLS_HI 0x80u   /* the class is 16 + (low bits - 1) (run file 3.0) */

#define CUPROF_EXTRA_DEPTH 0x01u
#define CUPROF_EXTRA_STACK 0x02u
#define CUPROF_EXTRA_SEQ 0x04u
#define CUPROF_EXTRA_T1_ZERO 0x08u
#define CUPROF_EXTRA_T1_BEFORE 0x10u
#define CUPROF_EXTRA_NAME 0x20u

#define CUPROF_CODEC_STREAMS 8u

/* The bytes of a launch's configuration in cuprof_event.a.launch: grid,
 * block, the padding (always 0) and smem, from grid_x on. */
#define CUPROF_LAUNCH_CFG_OFF offsetof(cuprof_event, a.launch.grid_x)
#define CUPROF_LAUNCH_CFG_BYTES 20u
_Static_assert(offsetof(cuprof_event, a.launch.smem) + sizeof(uint32_t) ==
                   offsetof(cuprof_event, a.launch.grid_x) + CUPROF_LAUNCH_CFG_BYTES,
               "a launch's configuration runs from grid_x to smem");

/* What encoder and decoder remember between records of one thread. */
typedef struct cuprof_codec {
    uint64_t seq;          /* the previous record's sequence number + 1 */
    uint64_t t;            /* the previous record's time (t1, or t0 if t1 = 0) */
    uint64_t ptr;          /* the previous memory record's pointer */
    uint64_t streams[CUPROF_CODEC_STREAMS];   /* recent stream/event handles */
    uint32_t grid_x, smem; /* the previous launch's configuration */
    uint16_t grid_y, grid_z, block[3];
    uint16_t api;          /* the previous record's API */
    uint16_t rank, nranks; /* the previous NCCL call's communicator: its rank and size */
    uint64_t comm;         /* ... and its id */
    uint8_t cfg[CUPROF_LAUNCH_CFG_BYTES];   /* the same, as the event holds it:
                                               the encoder's only (cuprof_encode_repeat
                                               compares it), the decoder leaves it */
} cuprof_codec;

/* ---- varints (LEB128, 7 bits a byte) ---- */

static inline __attribute__((always_inline)) uint8_t *cuprof_put_uv(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x4000, 1)) {   /* most times and ids: one or two bytes */
        if (v < 0x80) {
            *p = (uint8_t)v;
            return p + 1;
        }
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline __attribute__((always_inline)) uint64_t cuprof_zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline __attribute__((always_inline)) int64_t cuprof_unzz(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint; p advances. end bounds it (a damaged record reads as 0). */
static inline uint64_t cuprof_get_uv(const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *pp = p;
    return v;
}

/* The slot a handle takes in the table (both sides). */
static inline __attribute__((always_inline)) unsigned cuprof_codec_slot(uint64_t h)
{
    return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 61);
}

/* A stream or event handle: 4 bits for the record's flag byte. When the
 * table has it: bit 0 set, its slot in bits 1-3, nothing more written; else
 * 0, the value written in full at *pp, and the table takes it. */
static inline __attribute__((always_inline)) unsigned cuprof_put_stream(uint8_t **pp,
                                                                        cuprof_codec *c, uint64_t h)
{
    unsigned s = cuprof_codec_slot(h);
    if (c->streams[s] == h)
        return 1u | s << 1;
    c->streams[s] = h;
    *pp = cuprof_put_uv(*pp, h);
    return 0;
}

/* The handle the 4 bits of cuprof_put_stream stand for (reads the value
 * when they say it was written). */
static inline uint64_t cuprof_get_stream(const uint8_t **pp, const uint8_t *end, cuprof_codec *c,
                                         unsigned bits)
{
    if (bits & 1u)
        return c->streams[(bits >> 1) & 7u];
    uint64_t h = cuprof_get_uv(pp, end);
    c->streams[cuprof_codec_slot(h)] = h;
    return h;
}

/*
 * Encodes ev (sequence number seq on its thread) at p, which has at least
 * CUPROF_REC_MAX bytes of room; returns the end of the record.
 */
static inline __attribute__((always_inline)) uint8_t *
cuprof_encode(uint8_t *p, cuprof_codec *c, const cuprof_event *ev, uint64_t seq)
{
    uint8_t *head = p++;
    unsigned h = ((unsigned)(ev->cls & CUPROF_HEAD_CLS) + 1u) | (ev->cls >= 16 ? CUPROF_HEAD_CLS_HI : 0u);
    unsigned x = 0;
    if (ev->api == c->api)
        h |= CUPROF_HEAD_SAME_API;
    else
        p = cuprof_put_uv(p, ev->api);
    if (__builtin_expect(ev->depth != 0 || (ev->stack | ev->name) != 0 || seq != c->seq || ev->t1 < ev->t0,
                         0)) {
        uint8_t *xp = p++;
        h |= CUPROF_HEAD_EXTRA;
        if (ev->depth) {
            x |= CUPROF_EXTRA_DEPTH;
            *p++ = ev->depth;
        }
        if (ev->stack) {
            x |= CUPROF_EXTRA_STACK;
            p = cuprof_put_uv(p, ev->stack);
        }
        if (seq != c->seq) {
            x |= CUPROF_EXTRA_SEQ;
            p = cuprof_put_uv(p, cuprof_zz((int64_t)(seq - c->seq)));
        }
        if (ev->name) {
            x |= CUPROF_EXTRA_NAME;
            p = cuprof_put_uv(p, ev->name);
        }
        if (ev->t1 == 0)
            x |= CUPROF_EXTRA_T1_ZERO;
        else if (ev->t1 < ev->t0)
            x |= CUPROF_EXTRA_T1_BEFORE;
        *xp = (uint8_t)x;
    }
    p = cuprof_put_uv(p, cuprof_zz((int64_t)(ev->t0 - c->t)));
    if (!(x & CUPROF_EXTRA_T1_ZERO))
        p = cuprof_put_uv(p, x & CUPROF_EXTRA_T1_BEFORE ? ev->t0 - ev->t1 : ev->t1 - ev->t0);
    if (ev->result) {
        h |= CUPROF_HEAD_RESULT;
        p = cuprof_put_uv(p, cuprof_zz(ev->result));
    }
    *head = (uint8_t)h;
    c->api = ev->api;
    c->seq = seq + 1;
    c->t = ev->t1 ? ev->t1 : ev->t0;

    switch (ev->cls) {
    case CUPROF_EV_LAUNCH: {
        uint8_t *fp = p++;
        unsigned f = 0;
        p = cuprof_put_uv(p, ev->a.launch.kernel);
        if (ev->a.launch.grid_x == c->grid_x && ev->a.launch.grid_y == c->grid_y &&
            ev->a.launch.grid_z == c->grid_z) {
            f |= 1;
        } else {
            p = cuprof_put_uv(p, ev->a.launch.grid_x);
            p = cuprof_put_uv(p, ev->a.launch.grid_y);
            p = cuprof_put_uv(p, ev->a.launch.grid_z);
            c->grid_x = ev->a.launch.grid_x;
            c->grid_y = ev->a.launch.grid_y;
            c->grid_z = ev->a.launch.grid_z;
        }
        if (ev->a.launch.block[0] == c->block[0] && ev->a.launch.block[1] == c->block[1] &&
            ev->a.launch.block[2] == c->block[2]) {
            f |= 2;
        } else {
            for (int i = 0; i < 3; i++) {
                p = cuprof_put_uv(p, ev->a.launch.block[i]);
                c->block[i] = ev->a.launch.block[i];
            }
        }
        if (ev->a.launch.smem == c->smem) {
            f |= 4;
        } else {
            p = cuprof_put_uv(p, ev->a.launch.smem);
            c->smem = ev->a.launch.smem;
        }
        f |= cuprof_put_stream(&p, c, ev->a.launch.stream) << 3;
        *fp = (uint8_t)f;
        memcpy(c->cfg, (const uint8_t *)ev + CUPROF_LAUNCH_CFG_OFF, sizeof c->cfg);
        break;
    }
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET: {
        uint8_t *fp = p++;
        unsigned f = (ev->a.copy.dir & 7u) | (ev->a.copy.async ? 8u : 0u);
        p = cuprof_put_uv(p, ev->a.copy.bytes);
        f |= cuprof_put_stream(&p, c, ev->a.copy.stream) << 4;
        *fp = (uint8_t)f;
        break;
    }
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE: {
        uint8_t *fp = p++;
        p = cuprof_put_uv(p, ev->a.mem.bytes);
        p = cuprof_put_uv(p, cuprof_zz((int64_t)(ev->a.mem.ptr - c->ptr)));
        c->ptr = ev->a.mem.ptr;
        *fp = (uint8_t)cuprof_put_stream(&p, c, ev->a.mem.stream);
        break;
    }
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT: {
        uint8_t *fp = p++;
        *fp = (uint8_t)cuprof_put_stream(&p, c, ev->a.sync.stream);
        break;
    }
    case CUPROF_EV_OCCUPANCY:
        p = cuprof_put_uv(p, ev->a.occ.kernel);
        p = cuprof_put_uv(p, cuprof_zz(ev->a.occ.block_size));
        p = cuprof_put_uv(p, ev->a.occ.smem);
        p = cuprof_put_uv(p, cuprof_zz(ev->a.occ.answer));
        break;
    case CUPROF_EV_BLAS:
        p = cuprof_put_uv(p, ev->a.blas.m);
        p = cuprof_put_uv(p, ev->a.blas.n);
        p = cuprof_put_uv(p, ev->a.blas.k);
        p = cuprof_put_uv(p, ev->a.blas.batch);
        *p++ = (uint8_t)((ev->a.blas.transa & 3u) | (ev->a.blas.transb & 3u) << 2 |
                         (ev->a.blas.beta_nonzero ? 16u : 0u));
        *p++ = ev->a.blas.atype;
        *p++ = ev->a.blas.ctype;
        p = cuprof_put_uv(p, ev->a.blas.compute);
        p = cuprof_put_uv(p, ev->a.blas.epilogue);
        break;
    case CUPROF_EV_RANGE_PUSH:
    case CUPROF_EV_RANGE_POP:
    case CUPROF_EV_RANGE_START:
    case CUPROF_EV_RANGE_END:
    case CUPROF_EV_MARK:
        p = cuprof_put_uv(p, ev->a.nvtx.name);
        p = cuprof_put_uv(p, ev->a.nvtx.domain);
        p = cuprof_put_uv(p, ev->a.nvtx.id);
        break;
    case CUPROF_EV_COLL: {
        /* flags: bit 0 the communicator of the previous NCCL call, bits 1-4
         * the stream (cuprof_put_stream) */
        uint8_t *fp = p++;
        unsigned f = 0;
        p = cuprof_put_uv(p, ev->a.coll.count);
        f |= cuprof_put_stream(&p, c, ev->a.coll.stream) << 1;
        if (ev->a.coll.comm == c->comm && ev->a.coll.rank == c->rank && ev->a.coll.nranks == c->nranks) {
            f |= 1;
        } else {
            memcpy(p, &ev->a.coll.comm, 8);
            p += 8;
            p = cuprof_put_uv(p, ev->a.coll.rank);
            p = cuprof_put_uv(p, ev->a.coll.nranks);
            c->comm = ev->a.coll.comm;
            c->rank = ev->a.coll.rank;
            c->nranks = ev->a.coll.nranks;
        }
        *p++ = ev->a.coll.dtype;
        *p++ = ev->a.coll.op;
        p = cuprof_put_uv(p, cuprof_zz(ev->a.coll.peer));
        *fp = (uint8_t)f;
        break;
    }
    case CUPROF_EV_MATH:
        p = cuprof_put_uv(p, ev->a.math.handle);
        p = cuprof_put_uv(p, ev->a.math.k);
        p = cuprof_put_uv(p, ev->a.math.m);
        p = cuprof_put_uv(p, ev->a.math.n);
        p = cuprof_put_uv(p, ev->a.math.batch);
        *p++ = ev->a.math.lib;
        *p++ = ev->a.math.kind;
        *p++ = ev->a.math.dtype;
        *p++ = ev->a.math.algo;
        break;
    default:   /* CUPROF_EV_CALL: no arguments kept */
        break;
    }
    return p;
}

/*
 * The hot path's encoder: the record of a launch that repeats the previous
 * record's API and the previous launch's configuration and stream, made at
 * depth 0 with no stack, the expected sequence number, a zero result and
 * t1 >= t0 (a loop of launches: nearly every record of a launch-bound
 * program). Writes exactly the bytes cuprof_encode would and updates the
 * codec the same way; returns NULL, writing nothing, when the record is
 * not such a one (cuprof_encode then). ev->t1 and ev->result are set.
 */
static inline __attribute__((always_inline)) uint8_t *
cuprof_encode_repeat(uint8_t *p, cuprof_codec *c, const cuprof_event *ev, uint64_t seq)
{
    const uint64_t h = ev->a.launch.stream;
    const unsigned s = cuprof_codec_slot(h);
    if (ev->cls != CUPROF_EV_LAUNCH || ev->api != c->api || seq != c->seq ||
        (ev->depth | ev->stack | ev->name | (uint32_t)ev->result) != 0 || ev->t1 < ev->t0 ||
        memcmp((const uint8_t *)ev + CUPROF_LAUNCH_CFG_OFF, c->cfg, sizeof c->cfg) != 0 ||
        c->streams[s] != h)
        return NULL;
    *p++ = (uint8_t)((CUPROF_EV_LAUNCH + 1u) | CUPROF_HEAD_SAME_API);
    p = cuprof_put_uv(p, cuprof_zz((int64_t)(ev->t0 - c->t)));
    p = cuprof_put_uv(p, ev->t1 - ev->t0);
    *p++ = (uint8_t)(7u | (1u | s << 1) << 3);
    p = cuprof_put_uv(p, ev->a.launch.kernel);
    c->seq = seq + 1;
    c->t = ev->t1;
    return p;
}

/*
 * Decodes the record at *pp (end: the end of its chunk's data) into *ev
 * (zeroed first) and its sequence number into *seq; *pp advances. Returns 0,
 * or -1 at the end of the chunk's records (a 0 byte, or end reached).
 */
static inline int cuprof_decode(const uint8_t **pp, const uint8_t *end, cuprof_codec *c,
                                cuprof_event *ev, uint64_t *seq)
{
    const uint8_t *p = *pp;
    if (p >= end || *p == 0)
        return -1;
    unsigned h = *p++, x = 0;
    memset(ev, 0, sizeof *ev);
    ev->cls = (uint8_t)((h & CUPROF_HEAD_CLS) - 1u + (h & CUPROF_HEAD_CLS_HI ? 16u : 0u));
    ev->api = h & CUPROF_HEAD_SAME_API ? c->api : (uint16_t)cuprof_get_uv(&p, end);
    if (h & CUPROF_HEAD_EXTRA) {
        x = p < end ? *p++ : 0;
        if (x & CUPROF_EXTRA_DEPTH)
            ev->depth = p < end ? *p++ : 0;
        if (x & CUPROF_EXTRA_STACK)
            ev->stack = (uint32_t)cuprof_get_uv(&p, end);
        if (x & CUPROF_EXTRA_SEQ)
            c->seq += (uint64_t)cuprof_unzz(cuprof_get_uv(&p, end));
        if (x & CUPROF_EXTRA_NAME)
            ev->name = (uint32_t)cuprof_get_uv(&p, end);
    }
    *seq = c->seq;
    ev->t0 = c->t + (uint64_t)cuprof_unzz(cuprof_get_uv(&p, end));
    if (!(x & CUPROF_EXTRA_T1_ZERO)) {
        uint64_t d = cuprof_get_uv(&p, end);
        ev->t1 = x & CUPROF_EXTRA_T1_BEFORE ? ev->t0 - d : ev->t0 + d;
    }
    if (h & CUPROF_HEAD_RESULT)
        ev->result = (int32_t)cuprof_unzz(cuprof_get_uv(&p, end));
    c->api = ev->api;
    c->seq++;
    c->t = ev->t1 ? ev->t1 : ev->t0;

    unsigned f;
    switch (ev->cls) {
    case CUPROF_EV_LAUNCH:
        f = p < end ? *p++ : 0;
        ev->a.launch.kernel = (uint32_t)cuprof_get_uv(&p, end);
        if (!(f & 1)) {
            c->grid_x = (uint32_t)cuprof_get_uv(&p, end);
            c->grid_y = (uint16_t)cuprof_get_uv(&p, end);
            c->grid_z = (uint16_t)cuprof_get_uv(&p, end);
        }
        if (!(f & 2))
            for (int i = 0; i < 3; i++)
                c->block[i] = (uint16_t)cuprof_get_uv(&p, end);
        if (!(f & 4))
            c->smem = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.launch.grid_x = c->grid_x;
        ev->a.launch.grid_y = c->grid_y;
        ev->a.launch.grid_z = c->grid_z;
        memcpy(ev->a.launch.block, c->block, sizeof c->block);
        ev->a.launch.smem = c->smem;
        ev->a.launch.stream = cuprof_get_stream(&p, end, c, f >> 3);
        break;
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET:
        f = p < end ? *p++ : 0;
        ev->a.copy.dir = (uint8_t)(f & 7u);
        ev->a.copy.async = (uint8_t)((f >> 3) & 1u);
        ev->a.copy.bytes = cuprof_get_uv(&p, end);
        ev->a.copy.stream = cuprof_get_stream(&p, end, c, f >> 4);
        break;
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE:
        f = p < end ? *p++ : 0;
        ev->a.mem.bytes = cuprof_get_uv(&p, end);
        c->ptr += (uint64_t)cuprof_unzz(cuprof_get_uv(&p, end));
        ev->a.mem.ptr = c->ptr;
        ev->a.mem.stream = cuprof_get_stream(&p, end, c, f);
        break;
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT:
        f = p < end ? *p++ : 0;
        ev->a.sync.stream = cuprof_get_stream(&p, end, c, f);
        break;
    case CUPROF_EV_OCCUPANCY:
        ev->a.occ.kernel = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.occ.block_size = (int32_t)cuprof_unzz(cuprof_get_uv(&p, end));
        ev->a.occ.smem = cuprof_get_uv(&p, end);
        ev->a.occ.answer = (int32_t)cuprof_unzz(cuprof_get_uv(&p, end));
        break;
    case CUPROF_EV_BLAS:
        ev->a.blas.m = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.blas.n = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.blas.k = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.blas.batch = (uint32_t)cuprof_get_uv(&p, end);
        f = p < end ? *p++ : 0;
        ev->a.blas.transa = (uint8_t)(f & 3u);
        ev->a.blas.transb = (uint8_t)((f >> 2) & 3u);
        ev->a.blas.beta_nonzero = (uint8_t)((f >> 4) & 1u);
        ev->a.blas.atype = p < end ? *p++ : 0;
        ev->a.blas.ctype = p < end ? *p++ : 0;
        ev->a.blas.compute = (uint16_t)cuprof_get_uv(&p, end);
        ev->a.blas.epilogue = (uint16_t)cuprof_get_uv(&p, end);
        break;
    case CUPROF_EV_RANGE_PUSH:
    case CUPROF_EV_RANGE_POP:
    case CUPROF_EV_RANGE_START:
    case CUPROF_EV_RANGE_END:
    case CUPROF_EV_MARK:
        ev->a.nvtx.name = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.nvtx.domain = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.nvtx.id = cuprof_get_uv(&p, end);
        break;
    case CUPROF_EV_COLL:
        f = p < end ? *p++ : 0;
        ev->a.coll.count = cuprof_get_uv(&p, end);
        ev->a.coll.stream = cuprof_get_stream(&p, end, c, (f >> 1) & 15u);
        if (!(f & 1)) {
            if (end - p >= 8)
                memcpy(&c->comm, p, 8);
            p = end - p >= 8 ? p + 8 : end;
            c->rank = (uint16_t)cuprof_get_uv(&p, end);
            c->nranks = (uint16_t)cuprof_get_uv(&p, end);
        }
        ev->a.coll.comm = c->comm;
        ev->a.coll.rank = c->rank;
        ev->a.coll.nranks = c->nranks;
        ev->a.coll.dtype = p < end ? *p++ : 0;
        ev->a.coll.op = p < end ? *p++ : 0;
        ev->a.coll.peer = (int16_t)cuprof_unzz(cuprof_get_uv(&p, end));
        break;
    case CUPROF_EV_MATH:
        ev->a.math.handle = cuprof_get_uv(&p, end);
        ev->a.math.k = cuprof_get_uv(&p, end);
        ev->a.math.m = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.math.n = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.math.batch = (uint32_t)cuprof_get_uv(&p, end);
        ev->a.math.lib = p < end ? *p++ : 0;
        ev->a.math.kind = p < end ? *p++ : 0;
        ev->a.math.dtype = p < end ? *p++ : 0;
        ev->a.math.algo = p < end ? *p++ : 0;
        break;
    default:
        break;
    }
    *pp = p;
    return 0;
}

#endif /* CUPROF_COMPACT_H */
