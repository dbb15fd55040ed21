/*
 * perfetto.c - NAME.perfetto-trace: the trace in Perfetto's own protobuf
 * format (a Trace message: TracePacket after TracePacket), for runs that
 * JSON does not carry (ui.perfetto.dev holds ~2 GB; a 50-million-call
 * trace.json is 8.5 GB). Encoded here by hand, protozero style, from the
 * public .proto field numbers (named below where used).
 *
 * Layout:
 *  - Sequence 1: the track descriptors. The process (uuid 1), a thread
 *    track per recording thread (and per thread only CUPTI saw), a track
 *    per GPU ("GPU 0") with a child per stream ("stream 7") and, where
 *    records overlap on a stream (gpu_rows.h), a child of the stream per
 *    overlap row. A clock snapshot makes CLOCK_MONOTONIC (ours) the
 *    trace's clock.
 *  - One sequence per track after it, written in time order: its defaults
 *    name the track and an incremental clock (sequence-scoped clock 64), so
 *    an event carries only its type, its name's iid and a timestamp delta.
 *    Names, categories, argument names and repeated string values are
 *    interned, each sent once per sequence the first time it is used.
 *  - Thread tracks: every recorded call as a slice (BEGIN/END), nested by
 *    time with the NVTX push ranges, the calls only CUPTI saw and the waits
 *    CUPTI recorded; NVTX marks as instants. Arguments as debug
 *    annotations, with the names the JSON trace uses.
 *  - GPU tracks: kernels, copies and memsets; a flow from each launching
 *    (copying) call to its device record, as the JSON trace's arrows.
 *  - NVTX start/end ranges (they may end on another thread) on "NVTX ranges"
 *    lanes under the process; the capture windows on a track of their own.
 *  - Counter tracks: "CUDA memory allocated" (bytes held by cudaMalloc and
 *    its kin, frees matched by pointer) and per GPU "GPU 0 busy" (records
 *    running: 0 when idle).
 * Not yet: stacks.
 */
#include "formats/place.h"
#include "formats/codec.h"
#include "formats/gpu_rows.h"
#include "formats/units.h"
#include "formats/writer.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* ---- protobuf encoding ---- */

typedef struct pb {
    uint8_t *b;
    size_t n, cap;
    int oom;
} pb;

static int pb_reserve(pb *p, size_t more)
{
    if (p->n + more <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : 256;
    while (cap < p->n + more)
        cap *= 2;
    uint8_t *b = realloc(p->b, cap);
    if (!b) {
        p->oom = 1;
        return -1;
    }
    p->b = b;
    p->cap = cap;
    return 0;
}

static void pb_raw(pb *p, const void *s, size_t n)
{
    if (pb_reserve(p, n) == 0) {
        memcpy(p->b + p->n, s, n);
        p->n += n;
    }
}

static size_t varint_to(uint8_t *d, uint64_t v)
{
    size_t k = 0;
    while (v >= 0x80) {
        d[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    d[k++] = (uint8_t)v;
    return k;
}

static inline void pb_varint(pb *p, uint64_t v)
{
    if (p->cap - p->n >= 10 || pb_reserve(p, 10) == 0) {
        uint8_t *d = p->b + p->n;
        if (v < 0x80) {
            *d = (uint8_t)v;
            p->n++;
        } else {
            p->n += varint_to(d, v);
        }
    }
}

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2 };

static void pb_tag(pb *p, uint32_t field, unsigned wt)
{
    pb_varint(p, (uint64_t)field << 3 | wt);
}

static void pb_uint(pb *p, uint32_t field, uint64_t v)
{
    pb_tag(p, field, WT_VARINT);
    pb_varint(p, v);
}

static void pb_fixed64(pb *p, uint32_t field, uint64_t v)
{
    pb_tag(p, field, WT_FIXED64);
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    pb_raw(p, b, 8);
}

static void pb_double(pb *p, uint32_t field, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    pb_fixed64(p, field, v);
}

static void pb_bytes(pb *p, uint32_t field, const void *s, size_t n)
{
    pb_tag(p, field, WT_LEN);
    pb_varint(p, n);
    pb_raw(p, s, n);
}

static void pb_str(pb *p, uint32_t field, const char *s)
{
    pb_bytes(p, field, s, strlen(s));
}

static void pb_msg(pb *p, uint32_t field, const pb *inner)
{
    pb_bytes(p, field, inner->b, inner->n);
}

/* Field numbers (protos/perfetto/trace/...). */
enum {
    TRACE_PACKET = 1,                 /* Trace.packet */
    PKT_CLOCK_SNAPSHOT = 6, PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11,
    PKT_INTERNED = 12, PKT_SEQ_FLAGS = 13, PKT_DEFAULTS = 59, PKT_TRACK_DESCRIPTOR = 60,
    PKT_ZLIB_PACKETS = 50, PKT_ZSTD_PACKETS = 133,
    SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2,
    DEF_CLOCK_ID = 58, DEF_TRACK_EVENT = 11, TED_TRACK_UUID = 11,
    CS_CLOCKS = 1, CS_PRIMARY = 2, CLK_ID = 1, CLK_TS = 2, CLK_INCREMENTAL = 3,
    CLK_MONOTONIC = 3, CLOCK_SEQ = 64,
    TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
    CD_UNIT = 3, UNIT_COUNT = 2, UNIT_SIZE_BYTES = 3, TE_COUNTER_VALUE = 30, TYPE_COUNTER = 4,
    PD_PID = 1, PD_NAME = 6, THD_PID = 1, THD_TID = 2, THD_NAME = 5,
    TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
    TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48,
    TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3,
    ID_CATEGORIES = 1, ID_NAMES = 2, ID_ANNOTATION_NAMES = 3, ID_STRING_VALUES = 29,
    DA_NAME_IID = 1, DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_POINTER = 7,
    DA_STRING_IID = 17,
};

/* ---- interning ---- */

/* Strings of one interned kind; iids from 1, the same in every sequence.
 * str[iid] the string, sent[iid] the last sequence it was sent on; slot[]
 * an open-addressing index of iids by content; pc[] a cache by address for
 * strings that outlive the writer (the run's names, literals). */
typedef struct pf_table {
    char **str;
    uint32_t *sent;
    size_t n, cap;             /* str/sent hold cap + 1 entries */
    uint32_t *slot;
    size_t nslot;
    struct { const char *p; uint32_t iid; } pc[512];
    uint32_t field;            /* InternedData field */
} pf_table;

typedef struct pf_writer {
    cuprof_writer base;
    pb te, pkt, interned, ann;
    pf_table names, cats, anames, svals;
    uint32_t seq;       /* the sequence being written */
    uint64_t last_ts;
    int oom;
    int codec;          /* CUPROF_COMPRESS_*: how chunk goes to the file */
    pb chunk;           /* packets not yet sent to the file (a block) */
    struct pf_zip *zip; /* the thread that compresses blocks; NULL: none (yet) */
    struct { uint64_t x, y, z; uint32_t iid; } dim3[4096];   /* ann_dim3's strings */
    struct pf_call_enc *calls;   /* encoded calls of this sequence (call_cached); NULL: none */
} pf_writer;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static void table_free(pf_table *t)
{
    for (size_t i = 1; i <= t->n; i++)
        free(t->str[i]);
    free(t->str);
    free(t->sent);
    free(t->slot);
}

/* The iid of s (by content), added when new; 0 when out of memory. */
static uint32_t table_find(pf_table *t, const char *s)
{
    if ((t->n + 1) * 2 >= t->nslot) {
        size_t nslot = t->nslot ? t->nslot * 2 : 128;
        uint32_t *slot = calloc(nslot, sizeof *slot);
        if (!slot)
            return 0;
        for (size_t i = 1; i <= t->n; i++) {
            size_t j = hash_str(t->str[i]) & (nslot - 1);
            while (slot[j])
                j = (j + 1) & (nslot - 1);
            slot[j] = (uint32_t)i;
        }
        free(t->slot);
        t->slot = slot;
        t->nslot = nslot;
    }
    size_t j = hash_str(s) & (t->nslot - 1);
    while (t->slot[j] && strcmp(t->str[t->slot[j]], s) != 0)
        j = (j + 1) & (t->nslot - 1);
    if (t->slot[j])
        return t->slot[j];
    if (t->n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **str = realloc(t->str, (cap + 1) * sizeof *str);
        if (!str)
            return 0;
        t->str = str;
        uint32_t *sent = realloc(t->sent, (cap + 1) * sizeof *sent);
        if (!sent)
            return 0;
        t->sent = sent;
        t->cap = cap;
    }
    char *c = strdup(s);
    if (!c)
        return 0;
    t->n++;
    t->str[t->n] = c;
    t->sent[t->n] = 0;
    t->slot[j] = (uint32_t)t->n;
    return (uint32_t)t->n;
}

/* Sends entry iid of t in this packet's interned data unless the current
 * sequence has it already. */
static uint64_t send_iid(pf_writer *w, pf_table *t, uint32_t iid)
{
    if (!iid) {
        w->oom = 1;
        return 0;
    }
    if (t->sent[iid] != w->seq) {
        t->sent[iid] = w->seq;
        pb entry = {0};
        pb_uint(&entry, 1, iid);              /* iid */
        pb_str(&entry, 2, t->str[iid]);       /* name / str */
        pb_msg(&w->interned, t->field, &entry);
        w->oom |= entry.oom;
        free(entry.b);
    }
    return iid;
}

/* The iid of s, by content (s may be a buffer reused for another string). */
static uint64_t intern(pf_writer *w, pf_table *t, const char *s)
{
    return send_iid(w, t, table_find(t, s));
}

/* The same for a string that stays put while the writer runs: found by its
 * address after the first time. */
static uint64_t intern_fixed(pf_writer *w, pf_table *t, const char *s)
{
    size_t h = (size_t)(((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 55);   /* 512 slots */
    if (t->pc[h].p != s) {
        uint32_t iid = table_find(t, s);
        if (!iid) {
            w->oom = 1;
            return 0;
        }
        t->pc[h].p = s;
        t->pc[h].iid = iid;
    }
    return send_iid(w, t, t->pc[h].iid);
}

/* ---- packets ---- */

/* Packets are compressed in blocks of about this many bytes (Perfetto's
 * service compresses its buffers' packets the same way). */
#define PF_CHUNK (1u << 20)

/* Compresses one block of packets and appends it to out as one packet
 * holding the compressed block. z/zcap: scratch, grown as needed. Returns
 * 0, or -1 (out of memory, codec failure). */
static int block_out(cuprof_out *out, int codec, const pb *blk, uint8_t **z, size_t *zcap)
{
    size_t need = cuprof_codec_bound(codec, blk->n);
    if (need > *zcap) {
        free(*z);
        *zcap = 0;
        if (!(*z = malloc(need)))
            return -1;
        *zcap = need;
    }
    size_t k = cuprof_codec_block(codec, *z, *zcap, blk->b, blk->n);
    if (!k)
        return -1;
    uint8_t head[24];
    uint32_t field = codec == CUPROF_COMPRESS_ZSTD ? PKT_ZSTD_PACKETS : PKT_ZLIB_PACKETS;
    size_t inner = varint_to(head, (uint64_t)field << 3 | WT_LEN);
    inner += varint_to(head + inner, k);
    size_t h = varint_to(head + inner, (uint64_t)TRACE_PACKET << 3 | WT_LEN);
    h += varint_to(head + inner + h, inner + k);
    cuprof_out_write(out, head + inner, h);   /* Trace.packet { */
    cuprof_out_write(out, head, inner);       /*   field { */
    cuprof_out_write(out, *z, k);
    return 0;
}

/* The compressing thread ("cuprof-zip"): takes a full block from the
 * encoder, compresses it and appends it to the file, while the encoder
 * fills the next block (two cores: the encoding and the compression of a
 * large trace overlap). Once it runs, only it writes to the file. */
typedef struct pf_zip {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pb blk;              /* the block handed over */
    int busy, quit, err;
    cuprof_out *out;
    int codec;
    uint8_t *z;
    size_t zcap;
} pf_zip;

static void *zip_main(void *arg)
{
    pf_zip *zp = arg;
    prctl(PR_SET_NAME, "cuprof-zip", 0, 0, 0);
    pthread_mutex_lock(&zp->mu);
    for (;;) {
        while (!zp->busy && !zp->quit)
            pthread_cond_wait(&zp->cv, &zp->mu);
        if (!zp->busy)
            break;
        pthread_mutex_unlock(&zp->mu);
        int e = block_out(zp->out, zp->codec, &zp->blk, &zp->z, &zp->zcap);
        pthread_mutex_lock(&zp->mu);
        zp->err |= e < 0;
        zp->blk.n = 0;
        zp->busy = 0;
        pthread_cond_broadcast(&zp->cv);
    }
    pthread_mutex_unlock(&zp->mu);
    return NULL;
}

/* Starts the thread; NULL when it cannot (the encoder compresses itself). */
static pf_zip *zip_start(cuprof_out *out, int codec)
{
    pf_zip *zp = calloc(1, sizeof *zp);
    if (!zp)
        return NULL;
    zp->out = out;
    zp->codec = codec;
    pthread_mutex_init(&zp->mu, NULL);
    pthread_cond_init(&zp->cv, NULL);
    /* no signals for it: the program's handlers stay on the caller's thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&zp->th, NULL, zip_main, zp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&zp->cv);
        pthread_mutex_destroy(&zp->mu);
        free(zp);
        return NULL;
    }
    return zp;
}

/* Hands blk to the thread (after the one before is done) and takes back
 * its emptied buffer, so no block is copied. */
static void zip_hand(pf_zip *zp, pb *blk)
{
    pthread_mutex_lock(&zp->mu);
    while (zp->busy)
        pthread_cond_wait(&zp->cv, &zp->mu);
    pb t = zp->blk;
    zp->blk = *blk;
    *blk = t;
    blk->n = 0;
    zp->busy = 1;
    pthread_cond_broadcast(&zp->cv);
    pthread_mutex_unlock(&zp->mu);
}

/* Ends the thread after its last block; returns -1 if a block failed. */
static int zip_stop(pf_zip *zp)
{
    pthread_mutex_lock(&zp->mu);
    zp->quit = 1;
    pthread_cond_broadcast(&zp->cv);
    pthread_mutex_unlock(&zp->mu);
    pthread_join(zp->th, NULL);
    int err = zp->err;
    pthread_cond_destroy(&zp->cv);
    pthread_mutex_destroy(&zp->mu);
    free(zp->blk.b);
    free(zp->z);
    free(zp);
    return err ? -1 : 0;
}

/* Sends the packets gathered in w->chunk to the file: as they are, or
 * compressed into one packet (by the compressing thread, started with the
 * first full block; here if it cannot start). */
static void chunk_flush(pf_writer *w)
{
    if (!w->chunk.n)
        return;
    if (w->codec == CUPROF_COMPRESS_NONE) {
        cuprof_out_write(w->base.out, w->chunk.b, w->chunk.n);
        w->chunk.n = 0;
        return;
    }
    if (!w->zip && w->chunk.n >= PF_CHUNK)
        w->zip = zip_start(w->base.out, w->codec);
    if (w->zip) {
        zip_hand(w->zip, &w->chunk);
        return;
    }
    uint8_t *z = NULL;
    size_t zcap = 0;
    if (block_out(w->base.out, w->codec, &w->chunk, &z, &zcap) < 0)
        w->oom = 1;
    free(z);
    w->chunk.n = 0;
}

/* Whether to stop writing: out of memory, or the file failed. Once the
 * compressing thread runs, only it touches the file (its error is seen at
 * zip_stop and in the file's sticky error at commit). */
static int pf_failed(const pf_writer *w)
{
    return w->oom || (!w->zip && w->base.out->err);
}

/* Room for n more bytes of packets at w->chunk.b + w->chunk.n (the block
 * sent first when it is full); NULL when out of memory. */
static uint8_t *chunk_room(pf_writer *w, size_t n)
{
    if (w->chunk.n >= PF_CHUNK)
        chunk_flush(w);
    if (w->chunk.cap - w->chunk.n < n && pb_reserve(&w->chunk, n) < 0) {
        w->oom = 1;
        return NULL;
    }
    return w->chunk.b + w->chunk.n;
}

/* Appends pkt as one Trace.packet and clears the scratch. */
static void put_packet(pf_writer *w)
{
    uint8_t *d = chunk_room(w, w->pkt.n + 11);
    if (d) {
        size_t k = varint_to(d, (uint64_t)TRACE_PACKET << 3 | WT_LEN);
        k += varint_to(d + k, w->pkt.n);
        memcpy(d + k, w->pkt.b, w->pkt.n);
        w->chunk.n += k + w->pkt.n;
    }
    w->oom |= w->pkt.oom | w->te.oom | w->interned.oom | w->ann.oom;
    w->pkt.n = w->te.n = w->interned.n = w->ann.n = 0;
}

/* Starts the next sequence: its defaults (track, incremental clock) and the
 * clock's base t0. */
static void seq_start(pf_writer *w, uint64_t track, uint64_t t0)
{
    w->seq++;
    w->last_ts = t0;
    pb def = {0}, ted = {0}, cs = {0}, clk = {0};
    pb_uint(&ted, TED_TRACK_UUID, track);
    pb_uint(&def, DEF_CLOCK_ID, CLOCK_SEQ);
    pb_msg(&def, DEF_TRACK_EVENT, &ted);
    pb_uint(&w->pkt, PKT_SEQ_ID, w->seq);
    pb_uint(&w->pkt, PKT_SEQ_FLAGS, SEQ_CLEARED);
    pb_msg(&w->pkt, PKT_DEFAULTS, &def);
    put_packet(w);
    pb_uint(&clk, CLK_ID, CLOCK_SEQ);
    pb_uint(&clk, CLK_TS, t0);
    pb_uint(&clk, CLK_INCREMENTAL, 1);
    pb_msg(&cs, CS_CLOCKS, &clk);
    clk.n = 0;
    pb_uint(&clk, CLK_ID, CLK_MONOTONIC);
    pb_uint(&clk, CLK_TS, t0);
    pb_msg(&cs, CS_CLOCKS, &clk);
    pb_uint(&w->pkt, PKT_SEQ_ID, w->seq);
    pb_msg(&w->pkt, PKT_CLOCK_SNAPSHOT, &cs);
    put_packet(w);
    w->oom |= def.oom | ted.oom | cs.oom | clk.oom;
    free(def.b); free(ted.b); free(cs.b); free(clk.b);
}

/* Starts a track event: type, and for BEGIN/INSTANT its name and
 * category. Annotations and flows go into w->te after it; ev_end sends. */
static void ev_begin(pf_writer *w, int type, const char *name, const char *cat)
{
    pb_uint(&w->te, TE_TYPE, (uint64_t)type);
    if (name)
        pb_uint(&w->te, TE_NAME_IID, intern(w, &w->names, name));
    if (cat)
        pb_uint(&w->te, TE_CATEGORY_IIDS, intern_fixed(w, &w->cats, cat));
}

/* The same for a name that stays put (the run's API names, kernel names). */
static void ev_begin_fixed(pf_writer *w, int type, const char *name, const char *cat)
{
    pb_uint(&w->te, TE_TYPE, (uint64_t)type);
    pb_uint(&w->te, TE_NAME_IID, intern_fixed(w, &w->names, name));
    pb_uint(&w->te, TE_CATEGORY_IIDS, intern_fixed(w, &w->cats, cat));
}

static inline size_t varint_len(uint64_t v)
{
    return 1 + (size_t)(63 - __builtin_clzll(v | 1)) / 7;
}

/* Sends the event in w->te as a packet: timestamp (delta), sequence,
 * interned data when the event brought new strings, flags, the event. The
 * packet is written in place (its size computed first): events are most
 * of the file. */
/* A TracePacket's head: its length n, the timestamp's delta dt and the
 * sequence id; the bytes written. */
static inline size_t packet_head(uint8_t *d, size_t n, uint64_t dt, uint32_t seq)
{
    size_t k = 0;
    d[k++] = TRACE_PACKET << 3 | WT_LEN;
    k += varint_to(d + k, n);
    d[k++] = PKT_TIMESTAMP << 3 | WT_VARINT;
    k += varint_to(d + k, dt);
    d[k++] = PKT_SEQ_ID << 3 | WT_VARINT;
    k += varint_to(d + k, seq);
    return k;
}

static void ev_end(pf_writer *w, uint64_t ts)
{
    if (ts < w->last_ts)
        ts = w->last_ts;   /* deltas are unsigned: never back in time */
    uint64_t dt = ts - w->last_ts;
    w->last_ts = ts;
    size_t in = w->interned.n, te = w->te.n;
    size_t n = 1 + varint_len(dt) + 1 + varint_len(w->seq) + 2 + 1 + varint_len(te) + te +
               (in ? 1 + varint_len(in) + in : 0);
    uint8_t *d = chunk_room(w, n + 11);
    if (d) {
        size_t k = packet_head(d, n, dt, w->seq);
        if (in) {
            d[k++] = PKT_INTERNED << 3 | WT_LEN;
            k += varint_to(d + k, in);
            memcpy(d + k, w->interned.b, in);
            k += in;
        }
        d[k++] = PKT_SEQ_FLAGS << 3 | WT_VARINT;
        d[k++] = SEQ_NEEDS_STATE;
        d[k++] = PKT_TRACK_EVENT << 3 | WT_LEN;
        k += varint_to(d + k, te);
        memcpy(d + k, w->te.b, te);
        w->chunk.n += k + te;
    }
    w->oom |= w->te.oom | w->interned.oom | w->ann.oom;
    w->te.n = w->interned.n = w->ann.n = 0;
}

static void slice_end(pf_writer *w, uint64_t ts)
{
    if (w->te.n || w->interned.n) {   /* (never: an end follows a sent event) */
        ev_begin(w, TYPE_END, NULL, NULL);
        ev_end(w, ts);
        return;
    }
    /* half the events of a trace: ev_end's packet for the event {type: END},
     * written straight */
    if (ts < w->last_ts)
        ts = w->last_ts;
    uint64_t dt = ts - w->last_ts;
    w->last_ts = ts;
    size_t n = 1 + varint_len(dt) + 1 + varint_len(w->seq) + 2 + 1 + 1 + 2;
    uint8_t *d = chunk_room(w, n + 11);
    if (!d)
        return;
    size_t k = packet_head(d, n, dt, w->seq);
    d[k++] = PKT_SEQ_FLAGS << 3 | WT_VARINT;
    d[k++] = SEQ_NEEDS_STATE;
    d[k++] = PKT_TRACK_EVENT << 3 | WT_LEN;
    d[k++] = 2;
    d[k++] = TE_TYPE << 3 | WT_VARINT;
    d[k++] = TYPE_END;
    w->chunk.n += k;
}

/* ---- debug annotations (into w->te) ---- */

/* One annotation {name_iid, field: v} straight into the event: its size
 * (at most 2 + 10 + 3 + 10 bytes) always fits a one-byte length. */
static void ann_put(pf_writer *w, const char *key, uint32_t field, uint64_t v)
{
    uint64_t iid = intern_fixed(w, &w->anames, key);
    pb *te = &w->te;
    if (te->cap - te->n < 40 && pb_reserve(te, 40) < 0)
        return;
    uint8_t *d = te->b + te->n;
    d[0] = TE_ANNOTATIONS << 3 | WT_LEN;
    size_t k = 2;
    d[k++] = DA_NAME_IID << 3 | WT_VARINT;
    k += varint_to(d + k, iid);
    k += varint_to(d + k, (uint64_t)field << 3 | WT_VARINT);
    k += varint_to(d + k, v);
    d[1] = (uint8_t)(k - 2);
    te->n += k;
}

static void ann_uint(pf_writer *w, const char *key, uint64_t v) { ann_put(w, key, DA_UINT, v); }
static void ann_int(pf_writer *w, const char *key, int64_t v) { ann_put(w, key, DA_INT, (uint64_t)v); }
static void ann_ptr(pf_writer *w, const char *key, uint64_t v) { ann_put(w, key, DA_POINTER, v); }
static void ann_bool(pf_writer *w, const char *key, int v) { ann_put(w, key, DA_BOOL, v != 0); }

/* A string value, interned: names, kinds and types repeat. v stays put
 * (the run's strings, literals); ann_dim3 has its own. */
static void ann_str(pf_writer *w, const char *key, const char *v)
{
    uint64_t iid = intern_fixed(w, &w->svals, v);
    ann_put(w, key, DA_STRING_IID, iid);
}

static void ann_double(pf_writer *w, const char *key, double v)
{
    w->ann.n = 0;
    pb_uint(&w->ann, DA_NAME_IID, intern_fixed(w, &w->anames, key));
    pb_double(&w->ann, DA_DOUBLE, v);
    pb_msg(&w->te, TE_ANNOTATIONS, &w->ann);
}

/* "[x,y,z]", interned; the strings of recent values are cached by value
 * (launches repeat a few shapes). */
static void ann_dim3(pf_writer *w, const char *key, uint64_t x, uint64_t y, uint64_t z)
{
    size_t h = (size_t)(((x * 0x9E3779B97F4A7C15ull) ^ (y * 0xC2B2AE3D27D4EB4Full) ^ z) >> 52);
    if (!w->dim3[h].iid || w->dim3[h].x != x || w->dim3[h].y != y || w->dim3[h].z != z) {
        char b[80];
        snprintf(b, sizeof b, "[%llu,%llu,%llu]", (unsigned long long)x,
                 (unsigned long long)y, (unsigned long long)z);
        uint32_t iid = table_find(&w->svals, b);
        if (!iid) {
            w->oom = 1;
            return;
        }
        w->dim3[h].x = x;
        w->dim3[h].y = y;
        w->dim3[h].z = z;
        w->dim3[h].iid = iid;
    }
    ann_put(w, key, DA_STRING_IID, send_iid(w, &w->svals, w->dim3[h].iid));
}

/* ---- descriptors ---- */

#define UUID_PROCESS 1ull
#define UUID_THREAD(t) (0x100000ull + (t))          /* run->threads[t] */
#define UUID_CUPTI_THREAD(k) (0x200000ull + (k))    /* a thread only CUPTI saw */
#define UUID_GPU(d) (0x300000ull + (d))
#define UUID_ROW(k) (0x400000ull + (k))             /* k-th (device, stream, row) */
#define UUID_NVTX_LANE(k) (0x500000ull + (k))       /* start/end ranges' lanes */
#define UUID_CAPTURE 0x600000ull                    /* the capture windows */
#define PF_NVTX_LANES 16
#define UUID_MEMORY 0x700000ull                     /* device memory allocated */
#define UUID_GPU_BUSY(d) (0x800000ull + (d))        /* records running on GPU d */
#define UUID_COMM(k) (0x900000ull + (k))            /* NCCL communicator rows (chrome_trace_gpu.c's) */
#define PF_COMMS 64
#define PF_COMM_ROWS 8

static void put_track(pf_writer *w, uint64_t uuid, uint64_t parent, const char *name,
                      const pb *process, const pb *thread)
{
    pb td = {0};
    pb_uint(&td, TD_UUID, uuid);
    if (parent)
        pb_uint(&td, TD_PARENT, parent);
    if (name)
        pb_str(&td, TD_NAME, name);
    if (process)
        pb_msg(&td, TD_PROCESS, process);
    if (thread)
        pb_msg(&td, TD_THREAD, thread);
    if (uuid == UUID_MEMORY || (uuid >= UUID_GPU_BUSY(0) && uuid < UUID_GPU_BUSY(0x10000))) {
        pb cd = {0};   /* a counter track: bytes, or records running */
        pb_uint(&cd, CD_UNIT, uuid == UUID_MEMORY ? UNIT_SIZE_BYTES : UNIT_COUNT);
        pb_msg(&td, TD_COUNTER, &cd);
        td.oom |= cd.oom;
        free(cd.b);
    }
    pb_uint(&w->pkt, PKT_SEQ_ID, w->seq);
    pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &td);
    put_packet(w);
    w->oom |= td.oom;
    free(td.b);
}

static void put_thread_track(pf_writer *w, uint64_t uuid, uint32_t tid, const char *name)
{
    pb th = {0};
    pb_uint(&th, THD_PID, (uint64_t)w->base.run->pid);
    pb_uint(&th, THD_TID, tid);
    pb_str(&th, THD_NAME, name);
    put_track(w, uuid, UUID_PROCESS, NULL, NULL, &th);
    w->oom |= th.oom;
    free(th.b);
}

/* ---- what the CPU tracks hold besides the recorded calls ---- */

/* X_PYFUNC: a Python function slice (model/stacks.h: derived from the
 * stacks of consecutive calls, not from a tracer). */
enum { X_RANGE, X_DERIVED, X_SYNC, X_PYFUNC };

typedef struct pf_extra {
    uint64_t t0, t1;
    uint32_t kind;
    uint32_t idx;
} pf_extra;

static int cmp_extra(const void *a, const void *b)
{
    const pf_extra *x = a, *y = b;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1) return x->t1 > y->t1 ? -1 : 1;   /* the longer (outer) first */
    if (x->kind != y->kind) return x->kind == X_PYFUNC ? -1 : y->kind == X_PYFUNC;
    return (x->idx > y->idx) - (x->idx < y->idx);   /* Python slices: outer first */
}

/* Where each flow starts: a hooked call (key = its event id) or a call only
 * CUPTI saw (key = 2^63 | derived index). */
typedef struct __attribute__((packed)) pf_flow {   /* 12 bytes (issue 40) */
    uint64_t key;
    uint32_t id;             /* the record's correlation id */
} pf_flow;

static int cmp_flow(const void *a, const void *b)
{
    const pf_flow *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

typedef struct pf_flows {
    pf_flow *f;
    size_t n;
    uint64_t *kernel_in, *copy_in;   /* bit i: a flow ends at record i (its id: the record's
                                        corr; issue 40: a bit, not the corr again) */
    size_t at;                       /* flows_out's cursor: where the last key's flows ended */
} pf_flows;

/* A flow ends at record i: its bit (an id of 0 draws none, as before). */
static void flow_in_set(uint64_t *bits, size_t i, uint32_t corr)
{
    if (corr)
        bits[i / 64] |= 1ull << (i % 64);
}

static int flow_in(const uint64_t *bits, size_t i)
{
    return bits && (bits[i / 64] >> (i % 64) & 1);
}

static void flows_free(pf_flows *fl)
{
    free(fl->f);
    free(fl->kernel_in);
    free(fl->copy_in);
}

/* The arrows: one per launching/copying call (the first of its records),
 * as chrome_trace_gpu.c draws them. */
static int flows_build(const cuprof_model *m, pf_flows *fl)
{
    memset(fl, 0, sizeof *fl);
    const cuprof_timeline *tl = m->timeline;
    if (!m->run->gpu.captured || !m->run->gpu_run || !tl)
        return 0;
    const cuprof_gpu_run *g = tl->gpu;
    fl->f = calloc(g->n_kernels + g->n_copies + 1, sizeof *fl->f);
    fl->kernel_in = calloc(g->n_kernels / 64 + 1, sizeof *fl->kernel_in);
    fl->copy_in = calloc(g->n_copies / 64 + 1, sizeof *fl->copy_in);
    unsigned char *seen = calloc(g->n_apis + 1, 1);
    if (!fl->f || !fl->kernel_in || !fl->copy_in || !seen) {
        free(seen);
        flows_free(fl);
        return -1;
    }
    for (size_t r = 0; r < g->n_kernels + g->n_copies; r++) {
        int copy = r >= g->n_kernels;
        size_t i = copy ? r - g->n_kernels : r;
        uint32_t corr = copy ? g->copies[i].corr : g->kernels[i].corr;
        const cuprof_gpu_api *a = cuprof_timeline_api(tl, corr);
        if (!a && g->kernels_only && corr) {
            /* no API records: from the call model/kmatch.h matched it to */
            uint64_t h = copy ? tl->copy_hooked[i] : tl->kernel_hooked[i];
            if (h) {
                fl->f[fl->n++] = (pf_flow){h, corr};
                flow_in_set(copy ? fl->copy_in : fl->kernel_in, i, corr);
            }
            continue;
        }
        if (!a || (!copy && !a->is_launch) || seen[a - g->apis])
            continue;
        int32_t d = tl->api_derived[a - g->apis];
        uint64_t key = d >= 0 ? (1ull << 63) | (uint64_t)d : cuprof_timeline_api_hooked(tl, a);
        if (!key || d == -2)
            continue;
        seen[a - g->apis] = 1;
        fl->f[fl->n++] = (pf_flow){key, corr};
        flow_in_set(copy ? fl->copy_in : fl->kernel_in, i, corr);
    }
    free(seen);
    cuprof_sort_unless_sorted(fl->f, fl->n, sizeof *fl->f, cmp_flow);
    return 0;
}

/* Flows starting at key, as flow_ids of the event being built. */
static void flows_out(pf_writer *w, pf_flows *fl, uint64_t key)
{
    if (!fl->n)
        return;
    size_t lo = fl->at;
    /* a thread's calls come in order of their keys: most often the cursor is
     * already where this key's flows start (or would); else a search */
    if (!(lo <= fl->n && (lo == fl->n || fl->f[lo].key >= key) && (lo == 0 || fl->f[lo - 1].key < key))) {
        size_t hi = fl->n;
        lo = 0;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (fl->f[mid].key < key) lo = mid + 1; else hi = mid;
        }
    }
    for (; lo < fl->n && fl->f[lo].key == key; lo++)
        pb_fixed64(&w->te, TE_FLOW_IDS, fl->f[lo].id);
    fl->at = lo;
}

/* A recorded call's arguments (chrome_trace.c's names). */
static void call_args(pf_writer *w, const cuprof_event *ev)
{
    const cuprof_run *run = w->base.run;
    const cuprof_model *m = w->base.model;
    switch (ev->cls) {
    case CUPROF_EV_LAUNCH:
        ann_str(w, "kernel", cuprof_names_kernel(&m->names, ev->a.launch.kernel));
        ann_dim3(w, "grid", ev->a.launch.grid_x, ev->a.launch.grid_y, ev->a.launch.grid_z);
        ann_dim3(w, "block", ev->a.launch.block[0], ev->a.launch.block[1], ev->a.launch.block[2]);
        ann_uint(w, "smem", ev->a.launch.smem);
        ann_ptr(w, "stream handle", ev->a.launch.stream);
        break;
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET:
        ann_uint(w, "bytes", ev->a.copy.bytes);
        ann_str(w, "kind", ev->cls == CUPROF_EV_MEMSET ? "memset" : cuprof_dir_name(ev->a.copy.dir));
        ann_ptr(w, "stream handle", ev->a.copy.stream);
        ann_bool(w, "async", ev->a.copy.async);
        break;
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE:
        ann_uint(w, "bytes", ev->a.mem.bytes);
        ann_ptr(w, "ptr", ev->a.mem.ptr);
        break;
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT: {
        int handle = cuprof_run_sync_handle(run, ev);
        if (handle != CUPROF_SYNC_HANDLE_NONE)
            ann_ptr(w, handle == CUPROF_SYNC_HANDLE_EVENT ? "event handle" : "stream handle",
                    ev->a.sync.stream);
        break;
    }
    case CUPROF_EV_OCCUPANCY:
        ann_str(w, "kernel", cuprof_names_kernel(&m->names, ev->a.occ.kernel));
        ann_int(w, "block_size", ev->a.occ.block_size);
        ann_uint(w, "smem", ev->a.occ.smem);
        ann_int(w, "answer", ev->a.occ.answer);
        break;
    case CUPROF_EV_BLAS:
        if (!cuprof_ev_is_gemm(ev))
            break;   /* another cuBLAS call: no shape kept */
        ann_uint(w, "m", ev->a.blas.m);
        ann_uint(w, "n", ev->a.blas.n);
        ann_uint(w, "k", ev->a.blas.k);
        ann_uint(w, "batch", ev->a.blas.batch);
        ann_str(w, "dtype", cuprof_dtype_name(ev->a.blas.atype));
        ann_str(w, "ctype", cuprof_dtype_name(ev->a.blas.ctype));
        ann_str(w, "compute", cuprof_compute_name(ev->a.blas.compute));
        ann_str(w, "epilogue", cuprof_epilogue_name(ev->a.blas.epilogue));
        ann_str(w, "transa", cuprof_trans_name(ev->a.blas.transa));
        ann_str(w, "transb", cuprof_trans_name(ev->a.blas.transb));
        ann_bool(w, "beta_nonzero", ev->a.blas.beta_nonzero);
        break;
    case CUPROF_EV_COLL:
        if (ev->a.coll.count || ev->a.coll.nranks) {
            ann_uint(w, "count", ev->a.coll.count);
            ann_str(w, "dtype", cuprof_nccl_dtype_name(ev->a.coll.dtype));
            ann_str(w, "op", cuprof_nccl_op_name(ev->a.coll.op));
            if (ev->a.coll.peer >= 0)
                ann_int(w, "root/peer", ev->a.coll.peer);
            ann_ptr(w, "comm", ev->a.coll.comm);
            ann_uint(w, "rank", ev->a.coll.rank);
            ann_uint(w, "nranks", ev->a.coll.nranks);
            ann_ptr(w, "stream handle", ev->a.coll.stream);
        }
        break;
    case CUPROF_EV_MATH: {   /* its sizes, joined to its plan's or descriptor's */
        cuprof_math_args ma;
        cuprof_math_field mf[CUPROF_MATH_FIELDS];
        cuprof_math_args_of(m->math, run, ev, &ma);
        int nf = cuprof_math_fields(&ma, cuprof_run_api_name(run, ev->api), mf);
        for (int i = 0; i < nf; i++)
            if (mf[i].str)
                ann_str(w, mf[i].key, mf[i].str);
            else
                ann_uint(w, mf[i].key, mf[i].u);
        break;
    }
    default:
        break;
    }
    if (ev->name)   /* NCCL's call: its algorithm (preload/nccl_plugin.c) */
        ann_str(w, ev->cls == CUPROF_EV_COLL ? "algo" : "symbol", cuprof_run_string(run, ev->name));
    if (ev->result != 0)
        ann_int(w, "result", ev->result);
    if (ev->stack)
        ann_uint(w, "stack", ev->stack);
}

/* A call's event as encoded (type, name, category, arguments: call_args),
 * kept for the calls that follow with the same API and arguments: a loop
 * launches the same kernels with the same shapes over and over, and their
 * events are most of a large trace. Valid within one sequence (the strings
 * the bytes refer to were sent in it). */
#define PF_CALL_SLOTS 4096
#define PF_CALL_BYTES 112
typedef struct pf_call_enc {
    uint32_t seq;         /* 0: empty */
    uint16_t api;
    uint8_t cls, len;
    int32_t result;
    uint32_t stack;
    uint64_t raw[4];      /* the arguments, as recorded */
    uint8_t bytes[PF_CALL_BYTES];
} pf_call_enc;

static int call_same(const pf_call_enc *c, const pf_writer *w, const cuprof_event *ev)
{
    return c->seq == w->seq && c->api == ev->api && c->cls == ev->cls &&
           c->result == ev->result && c->stack == ev->stack &&
           ((c->raw[0] ^ ev->a.raw[0]) | (c->raw[1] ^ ev->a.raw[1]) | (c->raw[2] ^ ev->a.raw[2]) |
            (c->raw[3] ^ ev->a.raw[3])) == 0;   /* (no memcmp call: most calls come here) */
}

/* The event of call ev into w->te: its type, name, category and arguments,
 * copied from the cache when an identical call was encoded earlier in this
 * sequence, else encoded (and kept). Two slots per hash (a loop's calls
 * often outnumber what one slot each would keep apart). */
static void call_event(pf_writer *w, const cuprof_event *ev, uint32_t payload)
{
    const cuprof_run *run = w->base.run;
    pf_call_enc *c = NULL;
    if (w->calls && ev->name == 0 && !payload && ev->cls != CUPROF_EV_ALLOC && ev->cls != CUPROF_EV_FREE) {
        uint64_t h = ev->a.raw[0] * 0x9E3779B97F4A7C15ull ^ ev->a.raw[1] * 0xC2B2AE3D27D4EB4Full ^
                     ev->a.raw[2] * 0x165667B19E3779F9ull ^ ev->a.raw[3] ^
                     ((uint64_t)ev->api << 32 | ev->stack);
        h = (h ^ h >> 29) * 0xBF58476D1CE4E5B9ull;
        pf_call_enc *set = &w->calls[(h >> 32) % PF_CALL_SLOTS & ~(uint64_t)1];   /* a pair */
        for (int k = 0; k < 2 && !c; k++)
            if (call_same(&set[k], w, ev))
                c = &set[k];
        if (c && pb_reserve(&w->te, PF_CALL_BYTES) == 0) {
            /* all the slot's bytes, in 16-byte moves (a short rep movs is
             * slow: most events are this copy); those past len are
             * overwritten or never sent */
            uint8_t *d = w->te.b + w->te.n;
            for (size_t k = 0; k < PF_CALL_BYTES; k += 16)   /* (GCC's own is rep movs) */
                memcpy(d + k, c->bytes + k, 16);
            w->te.n += c->len;
            return;
        }
        c = set[0].seq != w->seq ? &set[0] : set[1].seq != w->seq ? &set[1] : &set[h >> 63];
    }
    size_t at = w->te.n;
    ev_begin_fixed(w, TYPE_BEGIN, cuprof_run_api_name(run, ev->api),
                   cuprof_run_api_category(run, ev->api));
    call_args(w, ev);
    if (payload)   /* the library's NVTX range folded into the call (model/ranges.h) */
        ann_str(w, "nvtx", cuprof_run_string(run, payload));
    size_t len = w->te.n - at;
    if (c && !w->oom && !w->te.oom && len <= PF_CALL_BYTES) {
        c->seq = w->seq;
        c->api = ev->api;
        c->cls = ev->cls;
        c->len = (uint8_t)len;
        c->result = ev->result;
        c->stack = ev->stack;
        memcpy(c->raw, ev->a.raw, sizeof c->raw);
        memcpy(c->bytes, w->te.b + at, len);
    }
}

#define PF_MAX_DEPTH 512

/* The open slices of a track: their ends. */
typedef struct pf_stack {
    uint64_t end[PF_MAX_DEPTH];
    unsigned n;
} pf_stack;

/* Closes the slices that end by t. */
static void stack_close(pf_writer *w, pf_stack *st, uint64_t t)
{
    while (st->n && st->end[st->n - 1] <= t)
        slice_end(w, st->end[--st->n]);
}

/* Opens a slice [t0, t1) (the event in w->te is complete but for its
 * timestamp), inside the open ones: one that would end after its parent
 * is cut at the parent's end. */
static void stack_open(pf_writer *w, pf_stack *st, uint64_t t0, uint64_t t1)
{
    if (st->n && t1 > st->end[st->n - 1])
        t1 = st->end[st->n - 1];
    ev_end(w, t0);
    if (st->n < PF_MAX_DEPTH)
        st->end[st->n++] = t1 > t0 ? t1 : t0;
    else
        slice_end(w, t1);
}

/* An extra item of a thread track: its event (name, category, args). */
static void extra_event(pf_writer *w, const pf_extra *x)
{
    const cuprof_run *run = w->base.run;
    const cuprof_timeline *tl = w->base.model->timeline;
    if (x->kind == X_PYFUNC) {
        const cuprof_stacks *sk = w->base.model->stacks;
        const cuprof_run_frame *f = &run->frames[sk->slices[x->idx].frame];
        ev_begin(w, TYPE_BEGIN, f->symbol ? f->symbol : "?", "python_function");
        if (f->file)
            ann_str(w, "file", f->file);
        if (f->line)
            ann_uint(w, "line", f->line);
        ann_str(w, "source", "derived from the calls' stacks");
    } else if (x->kind == X_RANGE) {
        const cuprof_range *r = &w->base.model->ranges->r[x->idx];
        const char *name = cuprof_run_string(run, r->name);
        ev_begin(w, TYPE_BEGIN, name[0] ? name : "(unnamed)", "nvtx");
        ann_str(w, "domain", cuprof_run_string(run, r->domain));
        ann_uint(w, "gpu_ns", r->gpu_ns);
        ann_uint(w, "kernels", r->kernels);
        if (r->payload)
            ann_str(w, "payload", cuprof_run_string(run, r->payload));
    } else if (x->kind == X_DERIVED) {
        const cuprof_derived_call *d = &tl->derived[x->idx];
        ev_begin(w, TYPE_BEGIN, d->rec->name, "cuda_runtime");
        ann_str(w, "source", "cupti");
        ann_uint(w, "correlation", d->rec->corr);
        ann_uint(w, "External id", d->rec->ext);
        ann_uint(w, "cbid", d->rec->cbid);
        if (d->rec->driver)
            ann_str(w, "domain", "driver");
        if (d->rec->result != 0)
            ann_int(w, "result", d->rec->result);
    } else {
        const cuprof_gpu_sync *s = &tl->gpu->syncs[x->idx];
        const cuprof_gpu_api *a = cuprof_timeline_api(tl, s->corr);
        ev_begin(w, TYPE_BEGIN, cuprof_gpu_sync_name(s->type), "cuda_sync");
        ann_uint(w, "correlation", s->corr);
        if (a)
            ann_str(w, "call", a->name);
        if (s->stream != CUPROF_GPU_NO_STREAM)
            ann_uint(w, "stream", s->stream);
        if (s->event != CUPROF_GPU_NO_EVENT)
            ann_uint(w, "event", s->event);
    }
}

/* The extras of the thread with this tid (thread index t, or -1 for a
 * thread only CUPTI saw), sorted. */
static pf_extra *thread_extras(const cuprof_model *m, long t, uint32_t tid, size_t *n)
{
    const cuprof_ranges *rg = m->ranges;
    const cuprof_timeline *tl = m->timeline;
    const cuprof_gpu_run *g = tl && m->run->gpu.captured ? tl->gpu : NULL;
    const cuprof_stacks *sk = m->stacks;
    size_t nsl = sk ? sk->nslices : 0;
    size_t cap = (rg ? rg->n : 0) + (g ? tl->nderived + g->n_syncs : 0) + nsl + 1;
    pf_extra *x = calloc(cap, sizeof *x);
    *n = 0;
    if (!x)
        return NULL;
    for (size_t k = 0; t >= 0 && k < nsl; k++)
        if (sk->slices[k].thread == (uint32_t)t)
            x[(*n)++] = (pf_extra){sk->slices[k].t0, sk->slices[k].t1, X_PYFUNC, (uint32_t)k};
    for (size_t k = 0; rg && t >= 0 && k < rg->n; k++)
        if (rg->r[k].thread == (uint32_t)t && !rg->r[k].start_end && !rg->r[k].folded)
            x[(*n)++] = (pf_extra){rg->r[k].t0, rg->r[k].t1, X_RANGE, (uint32_t)k};
    for (size_t k = 0; g && k < tl->nderived; k++)
        if (tl->derived[k].tid == tid)
            x[(*n)++] = (pf_extra){tl->derived[k].t0, tl->derived[k].t1, X_DERIVED, (uint32_t)k};
    for (size_t k = 0; g && k < g->n_syncs; k++) {
        uint32_t stid;
        uint64_t t0, t1;
        if (cuprof_timeline_sync_place(tl, &g->syncs[k], &stid, &t0, &t1) && stid == tid)
            x[(*n)++] = (pf_extra){t0, t1, X_SYNC, (uint32_t)k};
    }
    qsort(x, *n, sizeof *x, cmp_extra);
    return x;
}

/* One thread track: its recorded calls (in the order they began) merged
 * with its extras by start time. */
static int thread_track(pf_writer *w, pf_flows *fl, long t, uint32_t tid, uint64_t uuid)
{
    const cuprof_run *run = w->base.run;
    const cuprof_run_thread *th = t >= 0 ? &run->threads[t] : NULL;
    size_t nx, ix = 0;
    pf_extra *x = thread_extras(w->base.model, t, tid, &nx);
    if (!x)
        return -1;
    uint64_t n = th ? th->n : 0, i = 0;
    if (n + nx == 0) {
        free(x);
        return 0;
    }
    uint64_t first = nx ? x[0].t0 : UINT64_MAX;
    if (n && cuprof_run_event(th, 0)->t0 < first)
        first = cuprof_run_event(th, 0)->t0;
    seq_start(w, uuid, first);
    pf_stack st = {.n = 0};
    while ((i < n || ix < nx) && !pf_failed(w)) {
        const cuprof_event *ev = i < n ? cuprof_run_event(th, i) : NULL;
        if (ev && (ix == nx || ev->t0 < x[ix].t0 ||
                   (ev->t0 == x[ix].t0 && ev->t1 >= x[ix].t1 &&
                    (x[ix].kind != X_PYFUNC || ev->t1 > x[ix].t1)))) {
            i++;
            if (cuprof_ev_is_nvtx(ev->cls) && ev->cls != CUPROF_EV_MARK)
                continue;   /* NVTX range ends: the ranges are extras */
            stack_close(w, &st, ev->t0);
            if (ev->cls == CUPROF_EV_MARK) {
                ev_begin(w, TYPE_INSTANT, cuprof_run_string(run, ev->a.nvtx.name), "nvtx");
                ann_str(w, "domain", cuprof_run_string(run, ev->a.nvtx.domain));
                if (ev->a.nvtx.id)
                    ann_str(w, "payload", cuprof_run_string(run, (uint32_t)ev->a.nvtx.id));
                ev_end(w, ev->t0);
                continue;
            }
            call_event(w, ev, cuprof_ranges_call_payload(w->base.model->ranges, (size_t)t, i - 1));
            flows_out(w, fl, cuprof_event_id_make(th->index, i - 1));
            stack_open(w, &st, ev->t0, ev->t1);
        } else {
            const pf_extra *e = &x[ix++];
            stack_close(w, &st, e->t0);
            extra_event(w, e);
            if (e->kind == X_DERIVED)
                flows_out(w, fl, (1ull << 63) | e->idx);
            stack_open(w, &st, e->t0, e->t1);
        }
    }
    stack_close(w, &st, UINT64_MAX);
    free(x);
    return 0;
}

/* ns since the run's start (the JSON trace's base). */
static uint64_t since_start(const pf_writer *w, uint64_t t)
{
    return t > w->base.run->t_start ? t - w->base.run->t_start : 0;
}

/* The NVTX range a GPU record ran under, as the JSON trace's "range". */
static void range_arg(pf_writer *w, const cuprof_gpu_row_item *it)
{
    const cuprof_ranges *rg = w->base.model->ranges;
    const int32_t *of = rg ? (it->is_copy ? rg->copy_range : rg->kernel_range) : NULL;
    if (of && of[it->idx] >= 0)
        ann_str(w, "range", cuprof_run_string(w->base.run, rg->r[of[it->idx]].name));
}

/* A kernel's launch annotations, device to dynamic shared memory: the
 * same for most kernels of a row, so the last kernel's bytes are kept and
 * copied when its values are the same (their strings were sent in this
 * sequence already: the bytes are what the calls would write). One row's:
 * a sequence of its own. */
typedef struct pf_kernel_anns {
    uint32_t v[4];           /* device, context, stream, configuration (its index: one a
                                distinct configuration) */
    size_t len;              /* 0: none kept */
    uint8_t bytes[160];
} pf_kernel_anns;

static void kernel_launch_anns(pf_writer *w, pf_kernel_anns *kc, const cuprof_gpu_run *g,
                               const cuprof_gpu_kernel *k)
{
    const uint32_t v[4] = {k->device, k->context, k->stream, k->cfg};
    if (kc->len && !memcmp(kc->v, v, sizeof v) && pb_reserve(&w->te, kc->len) == 0) {
        memcpy(w->te.b + w->te.n, kc->bytes, kc->len);
        w->te.n += kc->len;
        return;
    }
    size_t at = w->te.n;
    ann_uint(w, "device", k->device);
    ann_uint(w, "context", k->context);
    ann_uint(w, "stream", k->stream);
    const cuprof_gpu_launch_cfg *cf = cuprof_gpu_cfg(g, k);
    ann_dim3(w, "grid", cf->grid[0], cf->grid[1], cf->grid[2]);
    ann_dim3(w, "block", cf->block[0], cf->block[1], cf->block[2]);
    ann_uint(w, "registers per thread", cf->registers);
    ann_uint(w, "static shared memory", cf->static_smem);
    ann_uint(w, "dynamic shared memory", cf->dynamic_smem);
    size_t len = w->te.n - at;
    kc->len = 0;
    if (!w->oom && !w->te.oom && len <= sizeof kc->bytes) {
        memcpy(kc->v, v, sizeof v);
        memcpy(kc->bytes, w->te.b + at, len);
        kc->len = len;
    }
}

/* The end of the row that starts at i: the next record on another device,
 * stream or row. */
static size_t rows_next(const cuprof_gpu_rows *rows, size_t i)
{
    const cuprof_gpu_row_item a = cuprof_gpu_rows_at(rows, i);
    size_t j = i + 1;
    while (j < rows->n) {
        const cuprof_gpu_row_item b = cuprof_gpu_rows_at(rows, j);
        if (b.device != a.device || b.stream != a.stream || b.sub != a.sub)
            break;
        j++;
    }
    return j;
}

/* The GPU records of one row, in start order. */
static void gpu_row(pf_writer *w, const pf_flows *fl, const cuprof_gpu_rows *rows, size_t from,
                    size_t to, uint64_t uuid)
{
    const cuprof_model *m = w->base.model;
    const cuprof_timeline *tl = m->timeline;
    const cuprof_gpu_run *g = tl->gpu;
    seq_start(w, uuid, cuprof_gpu_rows_at(rows, from).start);
    uint64_t open_end = 0;
    pf_kernel_anns kc = {.len = 0};
    for (size_t i = from; i < to && !pf_failed(w); i++) {
        const cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        uint64_t t0 = x.start < open_end ? open_end : x.start;   /* a full last row */
        uint64_t t1 = x.end > t0 ? x.end : t0;
        if (x.is_copy) {
            const cuprof_gpu_copy *c = &g->copies[x.idx];
            char name[96];
            int memset_ = c->kind == CUPROF_GPU_COPY_MEMSET;
            cuprof_gpu_copy_label(c, name, sizeof name);
            ev_begin(w, TYPE_BEGIN, name, memset_ ? "gpu_memset" : "gpu_memcpy");
            ann_uint(w, "correlation", c->corr);
            ann_uint(w, "External id", tl->copy_hooked[x.idx]);
            ann_uint(w, "device", c->device);
            ann_uint(w, "context", c->context);
            ann_uint(w, "stream", c->stream);
            ann_uint(w, "bytes", c->bytes);
            ann_str(w, "direction", cuprof_gpu_copy_kind_name(c->kind));
            if (memset_)
                ann_uint(w, "value", c->value);
            else
                ann_bool(w, "async", c->async);
            ann_double(w, "GB/s", c->end_ns > c->start_ns
                                      ? (double)c->bytes / (double)(c->end_ns - c->start_ns) : 0);
            if (x.start != c->start_ns || x.end != c->end_ns) {   /* gpu_rows.h */
                ann_uint(w, "recorded_start_ns", since_start(w, c->start_ns));
                ann_uint(w, "recorded_dur_ns", c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0);
            }
            if (flow_in(fl->copy_in, x.idx))
                pb_fixed64(&w->te, TE_TERMINATING_FLOW_IDS, c->corr);
        } else {
            const cuprof_gpu_kernel *k = &g->kernels[x.idx];
            const char *display = cuprof_names_gpu(&m->names, g->kernels[x.idx].name);
            ev_begin_fixed(w, TYPE_BEGIN, display, "kernel");
            ann_uint(w, "correlation", k->corr);
            ann_uint(w, "External id", tl->kernel_hooked[x.idx]);
            kernel_launch_anns(w, &kc, g, k);
            if (k->graph) {   /* a graph's replay: as the JSON trace says it */
                ann_uint(w, "graph", k->graph_id ? k->graph_id : 1);
                if (k->graph_node_id)
                    ann_uint(w, "graph node", k->graph_node_id);
                const char *origin = cuprof_graphs_origin(m->graphs, k->graph_node_id);
                if (origin)
                    ann_str(w, "captured from", origin);
            }
            if (strcmp(display, k->name) != 0)
                ann_str(w, "mangled", k->name);
            if (x.start != k->start_ns || x.end != k->end_ns) {   /* gpu_rows.h */
                ann_uint(w, "recorded_start_ns", since_start(w, k->start_ns));
                ann_uint(w, "recorded_dur_ns", k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0);
            }
            if (flow_in(fl->kernel_in, x.idx))
                pb_fixed64(&w->te, TE_TERMINATING_FLOW_IDS, k->corr);
        }
        range_arg(w, &x);
        ev_end(w, t0);
        slice_end(w, t1);
        open_end = t1;
    }
}

/* The GPU tracks: one sequence per row (it sorted by cmp_row, numbered as
 * descriptors() numbered them). */
static int gpu_tracks(pf_writer *w, const pf_flows *fl, const cuprof_gpu_rows *rows)
{
    uint64_t row = 0;
    for (size_t i = 0, n = rows->n; i < n && !pf_failed(w); row++) {
        size_t j = rows_next(rows, i);
        gpu_row(w, fl, rows, i, j, UUID_ROW(row));
        i = j;
    }
    return 0;
}

/* NCCL's collectives on a row per communicator (and rank) under their GPU,
 * as the JSON trace has them (chrome_trace_gpu.c: put_comm_tracks): each
 * call over the device work charged to it, on the first of 8 rows free. */
static void comm_tracks(pf_writer *w)
{
    const cuprof_collectives *c = w->base.model->colls;
    if (!c || !c->ncalls)
        return;
    uint16_t *slot = malloc(c->ncalls * sizeof *slot);
    if (!slot) {
        w->oom = 1;
        return;
    }
    uint64_t comms[PF_COMMS], last_end[PF_COMMS][PF_COMM_ROWS];
    uint32_t rank_of[PF_COMMS], dev_of[PF_COMMS], used[PF_COMMS];
    size_t ncomm = 0;
    memset(last_end, 0, sizeof last_end);
    for (size_t i = 0; i < c->ncalls; i++) {
        const cuprof_coll_call *k = &c->by_call[i];
        slot[i] = UINT16_MAX;
        if (!k->gpu_end_ns)
            continue;
        size_t ci = 0;
        while (ci < ncomm && (comms[ci] != k->comm || rank_of[ci] != k->rank))
            ci++;
        if (ci == ncomm) {
            if (ncomm == PF_COMMS)
                continue;
            comms[ncomm] = k->comm;
            rank_of[ncomm] = k->rank;
            dev_of[ncomm] = k->device;
            used[ncomm++] = 0;
        }
        uint32_t row = 0;
        while (row < PF_COMM_ROWS - 1 && k->gpu_start_ns < last_end[ci][row])
            row++;
        last_end[ci][row] = k->gpu_end_ns;
        used[ci] |= 1u << row;
        slot[i] = (uint16_t)(ci * PF_COMM_ROWS + row);
    }
    for (size_t ci = 0; ci < ncomm; ci++)
        for (uint32_t row = 0; row < PF_COMM_ROWS; row++) {
            if (!(used[ci] & (1u << row)))
                continue;
            char label[128];
            int l = snprintf(label, sizeof label, "NCCL comm 0x%llx (rank %u of %u)",
                             (unsigned long long)comms[ci], rank_of[ci], c->by_call[0].nranks);
            for (size_t i = 0; i < c->ncalls; i++)   /* its size, from one of its calls */
                if (slot[i] / PF_COMM_ROWS == ci) {
                    l = snprintf(label, sizeof label, "NCCL comm 0x%llx (rank %u of %u)",
                                 (unsigned long long)comms[ci], rank_of[ci], c->by_call[i].nranks);
                    break;
                }
            if (row && l > 0 && (size_t)l < sizeof label)
                snprintf(label + l, sizeof label - (size_t)l, " (overlap %u)", row);
            put_track(w, UUID_COMM(ci * PF_COMM_ROWS + row), UUID_GPU(dev_of[ci]), label, NULL, NULL);
        }
    for (size_t ci = 0; ci < ncomm && !pf_failed(w); ci++)
        for (uint32_t row = 0; row < PF_COMM_ROWS && !pf_failed(w); row++) {
            if (!(used[ci] & (1u << row)))
                continue;
            uint16_t want = (uint16_t)(ci * PF_COMM_ROWS + row);
            int started = 0;
            for (size_t i = 0; i < c->ncalls && !pf_failed(w); i++) {
                if (slot[i] != want)
                    continue;
                const cuprof_coll_call *k = &c->by_call[i];
                if (!started) {
                    seq_start(w, UUID_COMM(want), k->gpu_start_ns);
                    started = 1;
                }
                char name[96], sz[32];
                snprintf(name, sizeof name, "%s %s", k->op, cuprof_fmt_bytes(sz, sizeof sz, k->size));
                ev_begin(w, TYPE_BEGIN, name, "nccl");
                ann_uint(w, "seq", k->seq);
                ann_ptr(w, "comm", k->comm);
                ann_uint(w, "size_bytes", k->size);
                ann_str(w, "dtype", k->dtype);
                if (k->algo && k->algo[0])
                    ann_str(w, "algo", k->algo);
                ann_uint(w, "External id", k->id);
                ev_end(w, k->gpu_start_ns);
                slice_end(w, k->gpu_end_ns);
            }
        }
    free(slot);
}

/* Items of one (device, stream) reordered by row, then start (stable). */
static int cmp_row(const cuprof_gpu_row_item *x, const cuprof_gpu_row_item *y)
{
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Sequence 1: the clock and every track. */
static void descriptors(pf_writer *w, const cuprof_gpu_rows *rows, uint32_t *cupti_tids,
                        size_t ncupti, int nvtx_lanes_used, int has_memory)
{
    const cuprof_run *run = w->base.run;
    w->seq = 1;
    pb cs = {0}, clk = {0}, proc = {0};
    pb_uint(&clk, CLK_ID, CLK_MONOTONIC);
    pb_uint(&clk, CLK_TS, run->t_start);
    pb_msg(&cs, CS_CLOCKS, &clk);
    pb_uint(&cs, CS_PRIMARY, CLK_MONOTONIC);
    pb_uint(&w->pkt, PKT_SEQ_ID, w->seq);
    pb_msg(&w->pkt, PKT_CLOCK_SNAPSHOT, &cs);
    put_packet(w);
    const char *prog = strrchr(run->program, '/');
    char rank[48], pname[320];
    pb_uint(&proc, PD_PID, (uint64_t)run->pid);
    if (cuprof_place_rank_label(rank, sizeof rank, run)[0]) {   /* as the JSON trace names it */
        snprintf(pname, sizeof pname, "%.255s (%s)", prog ? prog + 1 : run->program, rank);
        pb_str(&proc, PD_NAME, pname);
    } else {
        pb_str(&proc, PD_NAME, prog ? prog + 1 : run->program);
    }
    put_track(w, UUID_PROCESS, 0, NULL, &proc, NULL);
    w->oom |= cs.oom | clk.oom | proc.oom;
    free(cs.b); free(clk.b); free(proc.b);
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        char label[64];
        snprintf(label, sizeof label, "%s%s", th->name[0] ? th->name : "thread",
                 (long)th->tid == run->pid ? " (main)" : "");
        put_thread_track(w, UUID_THREAD(t), th->tid, label);
    }
    for (size_t k = 0; k < ncupti; k++) {
        char label[32];
        snprintf(label, sizeof label, "thread %u", cupti_tids[k]);
        put_thread_track(w, UUID_CUPTI_THREAD(k), cupti_tids[k], label);
    }
    for (int l = 0; l < nvtx_lanes_used; l++) {
        char label[32];
        snprintf(label, sizeof label, l ? "NVTX ranges (%d)" : "NVTX ranges", l + 1);
        put_track(w, UUID_NVTX_LANE(l), UUID_PROCESS, label, NULL, NULL);
    }
    if (run->capture.trigger && run->capture.nwindows)
        put_track(w, UUID_CAPTURE, UUID_PROCESS, "capture window", NULL, NULL);
    if (has_memory)
        put_track(w, UUID_MEMORY, UUID_PROCESS, "CUDA memory allocated", NULL, NULL);
    uint64_t row = 0, stream_row0 = 0;
    uint32_t last_device = 0;
    for (size_t i = 0, n = rows ? rows->n : 0; i < n; row++) {
        char label[64];
        const cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        if (i == 0 || x.device != last_device) {
            snprintf(label, sizeof label, "GPU %u", x.device);
            put_track(w, UUID_GPU(x.device), UUID_PROCESS, label, NULL, NULL);
            snprintf(label, sizeof label, "GPU %u busy (records running)", x.device);
            put_track(w, UUID_GPU_BUSY(x.device), UUID_GPU(x.device), label, NULL, NULL);
        }
        if (x.stream == CUPROF_GPU_NO_STREAM)
            snprintf(label, sizeof label, "stream ?");
        else
            snprintf(label, sizeof label, "stream %u", x.stream);
        if (x.sub == 0) {
            stream_row0 = UUID_ROW(row);
            put_track(w, stream_row0, UUID_GPU(x.device), label, NULL, NULL);
        } else {
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, " (overlap %u)", x.sub);
            put_track(w, UUID_ROW(row), stream_row0, label, NULL, NULL);
        }
        last_device = x.device;
        i = rows_next(rows, i);
    }
}

/* NVTX start/end ranges (they may end on another thread) go on lanes of
 * their own under the process, each on the first lane free at its start
 * (more overlap shares the last, cut to nest there). */
static int cmp_range_start(const void *a, const void *b, void *ctx)
{
    const cuprof_ranges *rg = ctx;
    uint64_t x = rg->r[*(const size_t *)a].t0, y = rg->r[*(const size_t *)b].t0;
    return x < y ? -1 : x > y;
}

/* order[]: the start/end ranges by start (*n of them); lane[k] for range
 * k. Returns the lanes used, -1 when out of memory. */
static int nvtx_lanes(const cuprof_ranges *rg, size_t **order, size_t *n, int **lane)
{
    size_t total = rg ? rg->n : 0;
    *n = 0;
    *order = calloc(total + 1, sizeof **order);
    *lane = calloc(total + 1, sizeof **lane);
    if (!*order || !*lane)
        return -1;
    for (size_t k = 0; k < total; k++)
        if (rg->r[k].start_end)
            (*order)[(*n)++] = k;
    if (*n)
        qsort_r(*order, *n, sizeof **order, cmp_range_start, (void *)rg);
    uint64_t end[PF_NVTX_LANES];
    int used = 0;
    for (size_t i = 0; i < *n; i++) {
        const cuprof_range *r = &rg->r[(*order)[i]];
        int l = 0;
        while (l < used && end[l] > r->t0)
            l++;
        if (l == PF_NVTX_LANES)
            l = PF_NVTX_LANES - 1;
        if (l == used)
            used++;
        if (l == used - 1 || r->t1 > end[l])
            end[l] = r->t1;
        (*lane)[(*order)[i]] = l;
    }
    return used;
}

/* The start/end ranges, one sequence per lane, and the capture windows,
 * one sequence. */
static void async_tracks(pf_writer *w, const size_t *order, size_t n, const int *lane, int nlanes)
{
    const cuprof_run *run = w->base.run;
    const cuprof_ranges *rg = w->base.model->ranges;
    for (int l = 0; l < nlanes && !w->oom; l++) {
        int started = 0;
        pf_stack st = {.n = 0};
        for (size_t i = 0; i < n; i++) {
            const cuprof_range *r = &rg->r[order[i]];
            if (lane[order[i]] != l)
                continue;
            if (!started) {
                seq_start(w, UUID_NVTX_LANE(l), r->t0);
                started = 1;
            }
            stack_close(w, &st, r->t0);
            const char *name = cuprof_run_string(run, r->name);
            ev_begin(w, TYPE_BEGIN, name[0] ? name : "(unnamed)", "nvtx");
            ann_str(w, "domain", cuprof_run_string(run, r->domain));
            ann_uint(w, "gpu_ns", r->gpu_ns);
            ann_uint(w, "kernels", r->kernels);
            stack_open(w, &st, r->t0, r->t1);
        }
        stack_close(w, &st, UINT64_MAX);
    }
    const cuprof_capture *cap = &run->capture;
    if (cap->trigger && cap->nwindows) {
        seq_start(w, UUID_CAPTURE, cap->windows[0][0]);
        for (size_t i = 0; i < cap->nwindows; i++) {
            char name[48];
            snprintf(name, sizeof name, "capture window %zu", i + 1);
            ev_begin(w, TYPE_BEGIN, name, "capture");
            ann_str(w, "trigger", cap->trigger);
            ann_uint(w, "window", i + 1);
            ev_end(w, cap->windows[i][0]);
            slice_end(w, cap->windows[i][1] > cap->windows[i][0] ? cap->windows[i][1]
                                                                  : cap->windows[i][0]);
        }
    }
}

/* A change of a counter at t. */
typedef struct pf_step {
    uint64_t t;
    int64_t delta;
} pf_step;

static int cmp_step(const void *a, const void *b)
{
    const pf_step *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->delta < y->delta ? -1 : x->delta > y->delta;   /* decreases first */
}

#define PF_COUNTER_POINTS 100000   /* samples per counter track at most */

/* One counter track's sequence: the running sum of steps (sorted), one
 * value per distinct time; past PF_COUNTER_POINTS changes, one value per
 * 1/PF_COUNTER_POINTS of the span (the last in it): a counter sample
 * costs ~16 bytes, as much as a call, and a viewer draws no more points. */
static void counter_track(pf_writer *w, uint64_t uuid, pf_step *st, size_t n)
{
    if (!n)
        return;
    size_t sorted = 1;   /* one thread's memory steps come in order: no sort */
    while (sorted < n && cmp_step(&st[sorted - 1], &st[sorted]) <= 0)
        sorted++;
    if (sorted < n)
        qsort(st, n, sizeof *st, cmp_step);
    seq_start(w, uuid, st[0].t);
    uint64_t bucket = n > PF_COUNTER_POINTS ? (st[n - 1].t - st[0].t) / PF_COUNTER_POINTS + 1 : 1;
    int64_t v = 0;
    for (size_t i = 0; i < n && !w->oom; i++) {
        v += st[i].delta;
        if (i + 1 < n && (st[i + 1].t - st[0].t) / bucket == (st[i].t - st[0].t) / bucket)
            continue;
        pb_uint(&w->te, TE_TYPE, TYPE_COUNTER);
        pb_uint(&w->te, TE_COUNTER_VALUE, (uint64_t)v);
        ev_end(w, st[i].t);
    }
}

/* Device memory held (model/memory.h) as counter steps: a copy, which
 * counter_track sorts. Returns 1 with steps, 0 with none, -1 out of memory. */
static int memory_steps(const cuprof_memory *mm, pf_step **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!mm || !mm->nsteps)
        return 0;
    *out = malloc(mm->nsteps * sizeof **out);
    if (!*out)
        return -1;
    for (size_t i = 0; i < mm->nsteps; i++)
        (*out)[i] = (pf_step){mm->steps[i].t, mm->steps[i].delta};
    *n = mm->nsteps;
    return 1;
}

/* counter_track's sequence for a device's records it[0..n) past
 * PF_COUNTER_POINTS steps, with no array of steps (issue 40: the steps of
 * 10 M launches were 305 MB and a sort of 20 M): each step adds its delta to
 * its bucket of the span and moves the bucket's last time; the value of a
 * bucket is the running sum through it, at its last time. The same values
 * and times as sorting the steps (a bucket's sum does not depend on the
 * order within it). */
static void busy_buckets(pf_writer *w, uint64_t uuid, const cuprof_gpu_rows *rows, size_t from,
                         size_t to)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = from; i < to; i++) {
        const cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        uint64_t a = x.start < x.end ? x.start : x.end;
        uint64_t b = x.start < x.end ? x.end : x.start;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    uint64_t bucket = (hi - lo) / PF_COUNTER_POINTS + 1;
    size_t nb = (size_t)((hi - lo) / bucket) + 1;   /* at most PF_COUNTER_POINTS + 1 */
    int64_t *sum = calloc(nb, sizeof *sum);
    uint64_t *last = calloc(nb, sizeof *last);
    uint8_t *has = calloc(nb, 1);
    if (!sum || !last || !has) {
        free(sum);
        free(last);
        free(has);
        w->oom = 1;
        return;
    }
    for (size_t i = from; i < to; i++) {
        const cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        const uint64_t t[2] = {x.start, x.end};
        for (int e = 0; e < 2; e++) {
            size_t b = (size_t)((t[e] - lo) / bucket);
            sum[b] += e ? -1 : 1;
            if (!has[b] || t[e] > last[b])
                last[b] = t[e];
            has[b] = 1;
        }
    }
    seq_start(w, uuid, lo);
    int64_t v = 0;
    for (size_t b = 0; b < nb && !w->oom; b++) {
        if (!has[b])
            continue;
        v += sum[b];
        pb_uint(&w->te, TE_TYPE, TYPE_COUNTER);
        pb_uint(&w->te, TE_COUNTER_VALUE, (uint64_t)v);
        ev_end(w, last[b]);
    }
    free(sum);
    free(last);
    free(has);
}

/* Records running on each GPU: +1 at a record's start, -1 at its end (as
 * the rows show them). One counter per device, it holds [lo, hi). The rows
 * come grouped by device. */
static void busy_counters(pf_writer *w, const cuprof_gpu_rows *rows)
{
    for (size_t i = 0, n = rows->n; i < n && !w->oom;) {
        uint32_t dev = cuprof_gpu_rows_at(rows, i).device;
        size_t j = i;
        while (j < n && cuprof_gpu_rows_at(rows, j).device == dev)
            j++;
        size_t k = 2 * (j - i);
        if (k > PF_COUNTER_POINTS) {
            busy_buckets(w, UUID_GPU_BUSY(dev), rows, i, j);
        } else {
            pf_step *st = malloc(k * sizeof *st);
            if (!st) {
                w->oom = 1;
                return;
            }
            for (size_t q = 0; q < k / 2; q++) {
                const cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i + q);
                st[2 * q] = (pf_step){x.start, 1};
                st[2 * q + 1] = (pf_step){x.end, -1};
            }
            counter_track(w, UUID_GPU_BUSY(dev), st, k);
            free(st);
        }
        i = j;
    }
}

/* Threads only CUPTI saw (their calls are derived calls). */
static uint32_t *cupti_threads(const cuprof_model *m, size_t *n)
{
    const cuprof_timeline *tl = m->timeline;
    *n = 0;
    size_t cap = tl && m->run->gpu.captured ? tl->nderived : 0;
    uint32_t *tids = calloc(cap + 1, sizeof *tids);
    if (!tids)
        return NULL;
    for (size_t k = 0; k < cap; k++) {
        uint32_t tid = tl->derived[k].tid;
        int known = 0;
        for (size_t t = 0; t < m->run->nthreads && !known; t++)
            known = m->run->threads[t].tid == tid;
        for (size_t j = 0; j < *n && !known; j++)
            known = tids[j] == tid;
        if (!known)
            tids[(*n)++] = tid;
    }
    return tids;
}

/* The codec the file is written with: as asked where its library loads
 * (AUTO: zstd, else zlib), else the next one down; none after a crash
 * (loading a library then could wait on a lock the crashed thread held). */
static int pf_codec(const cuprof_run *run)
{
    int c = run->trace_compress;
    if (run->truncated || c == CUPROF_COMPRESS_NONE)
        return CUPROF_COMPRESS_NONE;
    if (c != CUPROF_COMPRESS_ZLIB && cuprof_codec_load(CUPROF_COMPRESS_ZSTD) == 0)
        return CUPROF_COMPRESS_ZSTD;
    if (cuprof_codec_load(CUPROF_COMPRESS_ZLIB) == 0)
        return CUPROF_COMPRESS_ZLIB;
    return CUPROF_COMPRESS_NONE;
}

static int pf_write(cuprof_writer *base)
{
    pf_writer *w = (pf_writer *)base;
    const cuprof_model *m = base->model;
    w->names.field = ID_NAMES;
    w->cats.field = ID_CATEGORIES;
    w->anames.field = ID_ANNOTATION_NAMES;
    w->svals.field = ID_STRING_VALUES;
    w->codec = pf_codec(base->run);
    w->calls = calloc(PF_CALL_SLOTS, sizeof *w->calls);   /* none: every call encoded */
    int rc = 0;
    size_t ncupti = 0;
    cuprof_gpu_rows rows = {0};
    const cuprof_gpu_run *g = m->run->gpu.captured && m->run->gpu_run && m->timeline
                                  ? m->timeline->gpu : NULL;
    pf_flows fl;
    size_t *order = NULL, norder = 0;
    int *lane = NULL;
    uint32_t *ctids = cupti_threads(m, &ncupti);
    int nlanes = nvtx_lanes(m->ranges, &order, &norder, &lane);
    pf_step *mem = NULL;
    size_t nmem = 0;
    int has_memory = memory_steps(base->model->memory, &mem, &nmem);
    if (!ctids || nlanes < 0 || has_memory < 0 || (g && cuprof_gpu_rows_make(g, &rows) < 0) ||
        flows_build(m, &fl) < 0) {
        free(ctids);
        cuprof_gpu_rows_free(&rows);
        free(order);
        free(lane);
        free(mem);
        return -1;
    }
    if (g)
        cuprof_gpu_rows_sort(&rows, cmp_row);
    descriptors(w, g ? &rows : NULL, ctids, ncupti, nlanes, has_memory);
    for (size_t t = 0; t < base->run->nthreads && rc == 0; t++)
        rc = thread_track(w, &fl, (long)t, base->run->threads[t].tid, UUID_THREAD(t));
    for (size_t k = 0; k < ncupti && rc == 0; k++)
        rc = thread_track(w, &fl, -1, ctids[k], UUID_CUPTI_THREAD(k));
    if (rc == 0)
        async_tracks(w, order, norder, lane, nlanes);
    if (rc == 0)
        counter_track(w, UUID_MEMORY, mem, nmem);
    if (rc == 0 && g)
        rc = gpu_tracks(w, &fl, &rows);
    if (rc == 0 && g)
        comm_tracks(w);
    if (rc == 0 && g)
        busy_counters(w, &rows);
    chunk_flush(w);
    if (w->zip && zip_stop(w->zip) < 0)
        w->oom = 1;
    w->zip = NULL;
    free(w->chunk.b);
    free(mem);
    free(order);
    free(lane);
    cuprof_gpu_rows_free(&rows);
    free(ctids);
    flows_free(&fl);
    free(w->te.b); free(w->pkt.b); free(w->interned.b); free(w->ann.b);
    free(w->calls);
    table_free(&w->names); table_free(&w->cats);
    table_free(&w->anames); table_free(&w->svals);
    return rc == 0 && !w->oom ? 0 : -1;
}

static int perfetto_wanted(const cuprof_model *m)
{
    return (cuprof_trace_format(m) & CUPROF_TRACE_FORMAT_PERFETTO) != 0;
}

const cuprof_writer_ops cuprof_perfetto_ops = {
    .suffix = "perfetto-trace",
    .size = sizeof(pf_writer),
    .write = pf_write,
    .wanted = perfetto_wanted,
};
