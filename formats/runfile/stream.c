/*
 * stream.c - a thread's calls decoded a block at a time, when they are read
 * (cuprof_rfread_opts.stream; issue 40: no array of every call).
 *
 * Reading goes over a thread's chunks once, as decode_thread would, but
 * keeps no call: it finds each chunk's calls and the few a later chunk
 * holds. A chunk's records are in the order the calls ended, so a chunk
 * holds the calls from where the one before it stopped to its highest
 * sequence number, but for a call that outlived the chunk (one open around
 * its last calls: a cuBLAS call around its launches): that call's record is
 * in a later chunk. So:
 *
 *   - the blocks: chunk j's calls are [b_j, b_j+1), b_0 = 0 and b_j+1 the
 *     highest call of chunk j plus one (never less than b_j). A chunk's
 *     records are all below b_j+1: a call of a later chunk below it is one
 *     that outlived chunk j;
 *   - the stragglers: a record of chunk j for a call below b_j (a call that
 *     outlived its chunk, or a damaged file's repeat) is kept decoded, by
 *     call, the last read winning, as when every call is decoded in order;
 *   - a block is decoded from its chunk alone (a 2.0 chunk's codec starts
 *     afresh), as many records as reading took from it (the reading's
 *     limit), then its stragglers put over it.
 *
 * Each reading thread keeps the blocks it read last in slots of its own
 * (thread-local: no lock, two threads read one run at once), the least
 * recently read one put out for a new one; a block stays while its thread
 * reads CUPROF_RUN_BLOCKS_HELD others (model/run.h).
 */
#include "formats/runfile/read_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A block: the calls [lo, the next block's lo) of one chunk: all its
 * records up to the reading's limit, or (a block smaller than its chunk,
 * cuprof_rfread_opts.stream_block) those in bytes [from, to) of it, decoded
 * from the codec's state there (snap). */
typedef struct sblock {
    uint64_t lo;
    size_t chunk;
    size_t snap;             /* its index in sthread.snaps, SIZE_MAX: the whole chunk */
    uint32_t from, to;
} sblock;

/* Where a part of a chunk's calls lies in it (indexing). */
typedef struct spart {
    int have;
    uint32_t from, to;
    cuprof_codec snap;
} spart;

/* A call whose record a later chunk holds than its block's. */
typedef struct sside {
    uint64_t seq;            /* the call (seq - base) */
    uint64_t order;          /* the order it was read in (the last one wins) */
    cuprof_event ev;
} sside;

typedef struct sthread {
    const rrun *r;
    const rthread *t;
    uint64_t id;             /* this process's only one (the slots' key); 0: none */
    uint64_t want;           /* the calls [0, want) are the thread's (t->base on) */
    line whole;              /* the thread's line (thread_line) */
    sblock *blocks;          /* in lo order, from 0 */
    size_t nblocks;
    cuprof_codec *snaps;     /* the smaller blocks' codec states */
    size_t nsnaps;
    uint64_t end;            /* the last block ends there */
    uint64_t n;              /* the calls [0, n) are all there (th->n) */
    uint64_t *recs;          /* per chunk: the records reading decoded of it */
    sside *side;             /* by seq, one per call */
    size_t nside;
} sthread;

static atomic_uint_fast64_t next_id;

static const cuprof_event *stream_fetch(const cuprof_run_thread *th, uint64_t i);

/* ---- indexing, once ----------------------------------------------------------------- */

static int cmp_side(const void *a, const void *b)
{
    const sside *x = a, *y = b;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int push(void **p, size_t *n, size_t *cap, size_t elem, const void *v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *q = realloc(*p, c * elem);
        if (!q)
            return -1;
        *p = q;
        *cap = c;
    }
    memcpy((char *)*p + *n * elem, v, elem);
    (*n)++;
    return 0;
}

int cuprof_rf_stream_start(rrun *r, size_t k)
{
    r->streams = calloc(k ? k : 1, sizeof *r->streams);
    /* the kernels the calls use, found as they are indexed (a map the
     * names need, so that they read no call; none: they read them) */
    r->kernels_used = calloc((size_t)r->pub.nkernels + 1, 1);
    return r->streams ? 0 : -1;
}

int cuprof_rf_stream_thread(rrun *r, size_t k, rthread *t, uint64_t want,
                            cuprof_run_thread *th, uint64_t *in_chunks)
{
    sthread *st = &r->streams[k];
    size_t nc = t->chunks.n + (t->have_tail ? 1 : 0);
    st->r = r;
    st->t = t;
    st->want = want;
    st->whole = thread_line(r, t);
    st->recs = calloc(nc ? nc : 1, sizeof *st->recs);
    uint64_t *seen = calloc(want / 64 + 1, sizeof *seen);
    if (!st->recs || !seen) {
        free(seen);
        return -1;
    }
    size_t bcap = 0, scap = 0, ncap = 0;
    spart *parts = NULL;     /* (blocks smaller than a chunk) each one's place */
    size_t pcap = 0;
    uint64_t limit = r->flight ? UINT64_MAX : want, got = 0, b = 0, order = 0, bytes = 0;
    uint64_t blk = r->opts.stream_block;
    uint32_t classes = 0, api_end = 0;
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    int oom = 0;
    for (size_t j = 0; j < nc && got < limit && !oom; j++) {
        const chunk_ref *c = chunk_at(t, j);
        chunk_dec cd;
        chunk_dec_start(&cd, r, t, j, &st->whole, &codec);
        uint64_t hi = b, n = 0, seq;
        cuprof_event ev;
        cuprof_codec before;
        uint32_t at = 0;
        if (blk)
            for (size_t m = 0; m < pcap; m++)
                parts[m].have = 0;
        while (got < limit && (!blk || (before = codec, at = (uint32_t)(cd.p - c->data), 1)) &&
               chunk_dec_next(&cd, &ev, &seq) == 0) {
            got++;
            n++;
            if (seq < t->base || seq - t->base >= want)
                continue;   /* as decode_range: not one of the thread's calls */
            seq -= t->base;
            *in_chunks += j < t->chunks.n;
            classes |= cuprof_run_class_bit(ev.cls);
            if (ev.api >= api_end)
                api_end = ev.api + 1u;
            uint32_t kid = ev.cls == CUPROF_EV_LAUNCH ? ev.a.launch.kernel
                         : ev.cls == CUPROF_EV_OCCUPANCY ? ev.a.occ.kernel : 0;
            if (r->kernels_used && kid <= r->pub.nkernels)
                r->kernels_used[kid] = 1;
            seen[seq / 64] |= 1ull << (seq % 64);
            if (seq < b) {
                sside s = {seq, order++, ev};
                if (push((void **)&st->side, &st->nside, &scap, sizeof s, &s) != 0) {
                    oom = 1;
                    break;
                }
            } else {
                if (seq + 1 > hi)
                    hi = seq + 1;
                if (blk) {   /* its part of the chunk: from its first record to its last */
                    size_t m = (size_t)((seq - b) / blk);
                    if (m >= pcap) {
                        size_t nc2 = pcap ? pcap : 16;
                        while (nc2 <= m)
                            nc2 *= 2;
                        spart *q = realloc(parts, nc2 * sizeof *q);
                        if (!q) {
                            oom = 1;
                            break;
                        }
                        memset(q + pcap, 0, (nc2 - pcap) * sizeof *q);
                        parts = q;
                        pcap = nc2;
                    }
                    if (!parts[m].have)
                        parts[m] = (spart){1, at, 0, before};
                    parts[m].to = (uint32_t)(cd.p - c->data);
                }
            }
        }
        st->recs[j] = n;
        bytes += (uint64_t)(cd.p - c->data);
        if (r->progress)
            atomic_fetch_add_explicit(&r->progress->decoded, c->len, memory_order_relaxed);
        for (uint64_t lo = b, m = 0; lo < hi && !oom; lo += blk && hi - lo > blk ? blk : hi - lo, m++) {
            sblock sb = {lo, j, SIZE_MAX, 0, 0};
            if (blk) {   /* (none of its own: its calls are stragglers, or lost) */
                sb.snap = st->nsnaps;
                if (m < pcap && parts[m].have)
                    sb.from = parts[m].from, sb.to = parts[m].to;
                cuprof_codec none0;
                memset(&none0, 0, sizeof none0);
                oom = push((void **)&st->snaps, &st->nsnaps, &ncap, sizeof none0,
                           m < pcap && parts[m].have ? &parts[m].snap : &none0) != 0;
            }
            oom = oom || push((void **)&st->blocks, &st->nblocks, &bcap, sizeof sb, &sb) != 0;
        }
        b = hi;
    }
    st->end = b;
    free(parts);
    /* the stragglers by call, the last read of each */
    if (st->nside) {
        qsort(st->side, st->nside, sizeof *st->side, cmp_side);
        size_t m = 0;
        for (size_t i = 0; i < st->nside; i++) {
            if (m && st->side[m - 1].seq == st->side[i].seq)
                m--;
            st->side[m++] = st->side[i];
        }
        st->nside = m;
    }
    /* the prefix of calls all found (as decode_thread) */
    uint64_t n = 0;
    while (n < want && seen[n / 64] == ~0ull && n + 64 <= want)
        n += 64;
    while (n < want && (seen[n / 64] >> (n % 64) & 1))
        n++;
    free(seen);
    if (oom)
        return -1;
    r->pub.event_bytes += bytes;
    st->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed) + 1;
    if (n < want && r->kernels_used) {   /* calls past a gap: the map holds theirs too */
        free(r->kernels_used);
        r->kernels_used = NULL;
    }
    st->n = th->n = n;
    th->classes = classes;
    th->api_end = api_end;
    th->per_chunk = 1;
    th->chunks = NULL;
    th->fetch = stream_fetch;
    th->src = st;
    return 0;
}

/* ---- the blocks a reading thread keeps -------------------------------------------------- */

#define SLOTS_MAX 16
#define SLOTS_DEFAULT 8

typedef struct sslot {
    uint64_t sid;            /* the streamed thread's id, 0: empty */
    uint64_t lo, len;        /* its calls */
    cuprof_event *ev;
    uint64_t cap;            /* events ev has room for */
    uint64_t used;           /* when it was last read (the cache's tick) */
} sslot;

typedef struct scache {
    sslot s[SLOTS_MAX];
    uint64_t tick;
    unsigned last;           /* the slot read last */
    cuprof_event one;        /* out of memory: the one call asked for */
} scache;

/* a pointer (a reader linked into a library dlopen'd later, the tests'
 * CUPTI injection, has little static TLS to spare) */
static _Thread_local scache *cache;
static const cuprof_event none;   /* out of memory: a call of zeros */
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_made;

static void cache_drop(scache *c, const sthread *st)
{
    for (unsigned s = 0; s < SLOTS_MAX; s++)
        if (!st || c->s[s].sid == st->id) {
            free(c->s[s].ev);
            c->s[s] = (sslot){0};
        }
}

static void cache_exit(void *p)
{
    cache_drop(p, NULL);
    free(p);
    cache = NULL;
}

static void cache_key_make(void)
{
    cache_key_made = pthread_key_create(&cache_key, cache_exit) == 0;
}

/* The block holding call i: the last whose lo is at most i. */
static size_t block_of(const sthread *st, uint64_t i)
{
    size_t lo = 0, hi = st->nblocks;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->blocks[mid].lo <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Decodes the calls [lo, hi) of block k into out (a call no record holds:
 * zeros, as the array's calloc). */
static void decode_block(const sthread *st, size_t k, uint64_t lo, uint64_t hi, cuprof_event *out)
{
    const rthread *t = st->t;
    if (hi > st->n)   /* (below n every call has its record: each is written) */
        memset(out, 0, (size_t)(hi - lo) * sizeof *out);
    size_t j = st->blocks[k].chunk;
    cuprof_codec codec;
    chunk_dec cd;
    chunk_dec_start(&cd, st->r, t, j, &st->whole, &codec);
    uint64_t n = st->recs[j];
    const sblock *sb = &st->blocks[k];
    if (sb->snap != SIZE_MAX) {   /* its part of the chunk alone */
        const uint8_t *data = chunk_at(t, j)->data;
        codec = st->snaps[sb->snap];
        cd.p = data + sb->from;
        cd.e = data + sb->to;
        n = UINT64_MAX;
    }
    cuprof_event ev;
    uint64_t seq;
    for (; n > 0 && chunk_dec_next(&cd, &ev, &seq) == 0; n--) {
        if (seq < t->base || seq - t->base >= st->want)
            continue;
        seq -= t->base;
        if (seq >= lo && seq < hi)
            out[seq - lo] = ev;
    }
    size_t a = 0, z = st->nside;   /* the first straggler at lo or past it */
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (st->side[mid].seq < lo)
            a = mid + 1;
        else
            z = mid;
    }
    for (; a < st->nside && st->side[a].seq < hi; a++)
        out[st->side[a].seq - lo] = st->side[a].ev;
}

static const cuprof_event *stream_fetch(const cuprof_run_thread *th, uint64_t i)
{
    const sthread *st = th->src;
    scache *c = cache;
    if (!c) {
        if (!(c = calloc(1, sizeof *c)))
            return &none;
        pthread_once(&cache_once, cache_key_make);
        if (cache_key_made && pthread_setspecific(cache_key, c) != 0) {
            free(c);
            return &none;
        }
        cache = c;
    }
    sslot *l = &c->s[c->last];
    if (l->sid == st->id && i - l->lo < l->len) {
        l->used = ++c->tick;
        return &l->ev[i - l->lo];
    }
    if (i >= st->end || st->nblocks == 0) {   /* (none such: i < th->n) */
        memset(&c->one, 0, sizeof c->one);
        return &c->one;
    }
    size_t k = block_of(st, i);
    uint64_t lo = st->blocks[k].lo;
    uint64_t hi = k + 1 < st->nblocks ? st->blocks[k + 1].lo : st->end;
    unsigned nslots = st->r->opts.stream_slots ? st->r->opts.stream_slots : SLOTS_DEFAULT;
    if (nslots < CUPROF_RUN_BLOCKS_HELD + 1)
        nslots = CUPROF_RUN_BLOCKS_HELD + 1;
    if (nslots > SLOTS_MAX)
        nslots = SLOTS_MAX;
    unsigned v = 0;
    for (unsigned s = 0; s < nslots; s++) {
        sslot *x = &c->s[s];
        if (x->sid == st->id && x->lo == lo && x->len) {
            x->used = ++c->tick;
            c->last = s;
            return &x->ev[i - lo];
        }
        if (c->s[v].sid && (!x->sid || x->used < c->s[v].used))
            v = s;   /* the empty one, else the least recently read */
    }
    sslot *x = &c->s[v];
    if (st->r->opts.stream_free) {
        free(x->ev);
        x->ev = NULL;
        x->cap = 0;
    }
    x->sid = 0;
    if (x->cap < hi - lo) {
        free(x->ev);
        x->cap = 0;
        x->ev = malloc((size_t)(hi - lo) * sizeof *x->ev);
        if (!x->ev) {   /* the one call alone, into the spare */
            decode_block(st, k, i, i + 1, &c->one);
            return &c->one;
        }
        x->cap = hi - lo;
    }
    decode_block(st, k, lo, hi, x->ev);
    x->sid = st->id;
    x->lo = lo;
    x->len = hi - lo;
    x->used = ++c->tick;
    c->last = v;
    return &x->ev[i - lo];
}

/* ---- its end ------------------------------------------------------------------------ */

void cuprof_rf_stream_free(rrun *r)
{
    if (!r->streams)
        return;
    for (size_t k = 0; k < r->threads.n; k++) {
        sthread *st = &r->streams[k];
        if (st->id && cache)
            cache_drop(cache, st);
        free(st->blocks);
        free(st->snaps);
        free(st->recs);
        free(st->side);
    }
    free(r->streams);
    r->streams = NULL;
    free(r->kernels_used);
    r->kernels_used = NULL;
    int empty = cache != NULL;   /* this thread's blocks all gone: its cache too */
    for (unsigned s = 0; empty && s < SLOTS_MAX; s++)
        empty = cache->s[s].sid == 0 && cache->s[s].ev == NULL;
    if (empty) {
        if (cache_key_made)
            pthread_setspecific(cache_key, NULL);
        free(cache);
        cache = NULL;
    }
}
