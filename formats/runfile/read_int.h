/*
 * read_int.h - the run file reader's own types, shared by its files
 * (runfile_read.c: the walk and the arrays; stream.c: a thread's calls
 * decoded a block at a time). Not for the reader's users.
 */
#ifndef CUPROF_RUNFILE_READ_INT_H
#define CUPROF_RUNFILE_READ_INT_H

#include "formats/runfile/runfile_read.h"
#include "formats/runfile/srcline.h"
#include "collector/compact.h"
#include "collector/runfile.h"
#include "model/gpu.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A growable array. */
typedef struct vec {
    void *p;
    size_t n, cap;
} vec;

/* One block of a thread's records. */
typedef struct chunk_ref {
    const uint8_t *data;     /* record bytes */
    size_t len;
    uint64_t stamp, ns;      /* its anchor */
} chunk_ref;

typedef struct rthread {
    uint32_t index;
    int have_info;
    cuprof_rf_thread info;
    vec chunks;              /* chunk_ref: CHUNK blocks in order */
    chunk_ref tail;          /* the chunk no CHUNK holds yet, from its TAIL blocks */
    uint32_t tail_no;        /* its chunk_no */
    int have_tail;           /* a TAIL was read (it counts if tail_no == next_no) */
    uint32_t first_no;       /* chunks[0]'s chunk_no: 0, or (flight recorder) the oldest kept */
    uint64_t base;           /* the thread's first call kept (flight: the ones before went
                                with the ring's older blocks); event ids are renumbered
                                from it */
    uint8_t *tailbuf;        /* its bytes, put together from the TAILs' parts */
    size_t tail_cap;
} rthread;

/* A run and everything it owns; pub first so a cuprof_run * is one. */
typedef struct rrun {
    cuprof_run pub;
    cuprof_gpu_run gpu;
    void *map;
    size_t map_len;
    uint32_t major;          /* the file's version: 2.0 starts each chunk's codec afresh */
    int flight;              /* the flight recorder's run: a thread's chunks may start
                                after 0 and skip some (collector/flight.c) */
    vec strs;                /* char *: every owned string */
    vec threads;             /* rthread, by index order of first sight */
    vec argv;                /* const char * */
    vec apis;                /* cuprof_api_desc */
    vec windows;             /* uint64_t[2] */
    vec whys;                /* const char *: why each window was written (flight recorder) */
    vec mem_held;            /* cuprof_mem_held, allocs owned (MEM_HELD blocks, 1.1) */
    const char **knames;
    const char **nvtx;
    vec gpu_names;           /* const char *, [id - 1] */
    vec kernels, copies, gapis, syncs, extmap, nodes;   /* model/gpu.h records (kernels'
                                                           and apis' names are GPU_NAMES
                                                           ids until read_gpu) */
    vec devices;             /* cuprof_gpu_device (GPU_DEVICE blocks, 3.1), one per id */
    vec cfgs;                /* cuprof_gpu_launch_cfg, each once; [0] all 0 */
    uint32_t *cfg_slot;      /* open addressing on a configuration: its index + 1 */
    size_t cfg_cap;
    uint32_t cfg_last;       /* the last kernel's (the next is most often the same) */
    cuprof_run_thread *run_threads;
    const cuprof_event **chunk_ptrs;
    void *arena;
    size_t arena_len;
    uint64_t *dropped_by_api;
    cuprof_run_frame *frames;
    cuprof_run_stack *stacks;
    vec stack_frames;        /* uint32_t, every stack's */
    vec modules;             /* cuprof_run_module (STACK_MODULE, 5.x) */
    cuprof_srclines *srclines; /* file:line of the native frames (srcline.c) */
    const uint8_t *meta, *gpu_info, *stacks_blk;
    size_t meta_len, gpu_info_len, stacks_len;
    const uint8_t *recovered;    /* the RECOVERED block (5.0), NULL none */
    size_t recovered_len;
    const uint8_t *meta_start;   /* the first META (written when the file was opened) */
    size_t meta_start_len;
    uint32_t nknames, nnvtx;     /* highest ids of knames / nvtx */
    int tsc;
    uint64_t end_stamp, end_ns;
    uint64_t clock_stamp, clock_ns;   /* the latest CLOCK block's anchor (1.1) */
    uint64_t exit_ns;        /* when the exit path stopped recording, 0 unknown */
    uint64_t clock_cupti_a, clock_off_a, clock_cupti_b, clock_off_b;
    cuprof_rfread_progress *progress;   /* the caller's (opts->progress), or NULL */
    cuprof_rfread_opts opts;            /* how to read (its progress NULL) */
    struct sthread *streams;            /* streamed threads' (stream.c), [nthreads] */
    uint8_t *kernels_used;              /* streamed: run.kernels_used (stream.c) */
} rrun;

/* stream.c: room for r's k threads streamed. 0, or -1 out of memory. */
int cuprof_rf_stream_start(rrun *r, size_t k);
/* stream.c: thread t's calls [0, want) (t->base on) indexed for decoding a
 * block at a time; th gets n (the prefix of calls all found), classes,
 * fetch and src; in_chunks and the run's event_bytes as decode_thread
 * counts them. 0, or -1 out of memory. */
int cuprof_rf_stream_thread(rrun *r, size_t k, rthread *t, uint64_t want,
                            cuprof_run_thread *th, uint64_t *in_chunks);
/* Frees what r's streamed threads hold (this thread's blocks of them too). */
void cuprof_rf_stream_free(rrun *r);

/* Stamps to CLOCK_MONOTONIC ns: the line through two anchors. */
typedef struct line {
    uint64_t a_stamp, a_ns;
    double slope;
} line;

static inline line line_make(int tsc, uint64_t as, uint64_t an, uint64_t bs, uint64_t bn)
{
    line l = {as, an, 1.0};
    int64_t ds = (int64_t)(bs - as), dn = (int64_t)(bn - an);
    if (tsc && ds > 0 && dn > 0)
        l.slope = (double)dn / (double)ds;
    return l;
}

static inline uint64_t line_ns(int tsc, const line *l, uint64_t s)
{
    if (!tsc || s == 0)
        return s;
    return l->a_ns + (uint64_t)(int64_t)((double)(int64_t)(s - l->a_stamp) * l->slope);
}

/* The chunk at position j of thread t's order, and the one after it. */
static inline const chunk_ref *chunk_at(const rthread *t, size_t j)
{
    return j < t->chunks.n ? &((const chunk_ref *)t->chunks.p)[j] : &t->tail;
}

static inline const chunk_ref *chunk_next(const rthread *t, size_t j)
{
    return j + 1 < t->chunks.n ? &((const chunk_ref *)t->chunks.p)[j + 1]
           : j + 1 == t->chunks.n && t->have_tail ? &t->tail : NULL;
}

/* The line over thread t's life: its first anchor (its THREAD block's,
 * else its first chunk's) to the run's end; for a stamp past its chunk's
 * segment (the end of a call that outlived the chunk). */
static inline line thread_line(const rrun *r, const rthread *t)
{
    const chunk_ref *c0 = t->chunks.n || t->have_tail ? chunk_at(t, 0) : NULL;
    uint64_t first_stamp = t->have_info ? t->info.first_stamp : c0 ? c0->stamp : 0;
    uint64_t first_ns = t->have_info ? t->info.first_ns : c0 ? c0->ns : 0;
    return line_make(r->tsc, first_stamp, first_ns, r->end_stamp, r->end_ns);
}

/* The records of a thread's chunk j, decoded in order, their stamps on the
 * clock: by the line to the next chunk's anchor, else the thread's. */
typedef struct chunk_dec {
    const uint8_t *p, *e;
    cuprof_codec *codec;     /* a 1.x file's runs on across chunks */
    line seg;
    const line *whole;
    uint64_t bs;             /* the segment's end */
    int tsc;
} chunk_dec;

static inline void chunk_dec_start(chunk_dec *d, const rrun *r, const rthread *t, size_t j,
                                   const line *whole, cuprof_codec *codec)
{
    const chunk_ref *c = chunk_at(t, j), *next = chunk_next(t, j);
    d->bs = next ? next->stamp : r->end_stamp;
    d->seg = line_make(r->tsc, c->stamp, c->ns, d->bs, next ? next->ns : r->end_ns);
    d->whole = whole;
    d->tsc = r->tsc;
    d->p = c->data;
    d->e = c->data + c->len;
    d->codec = codec;
    if (r->major >= 2)   /* each chunk decodes alone (1.x: state ran on across chunks) */
        memset(codec, 0, sizeof *codec);
}

/* The next record: 0, or -1 at the chunk's end (or a record that does not
 * decode: the rest of the chunk is lost). */
static inline int chunk_dec_next(chunk_dec *d, cuprof_event *ev, uint64_t *seq)
{
    if (cuprof_decode(&d->p, d->e, d->codec, ev, seq) != 0)
        return -1;
    ev->t0 = line_ns(d->tsc, ev->t0 <= d->bs ? &d->seg : d->whole, ev->t0);
    ev->t1 = line_ns(d->tsc, ev->t1 <= d->bs ? &d->seg : d->whole, ev->t1);
    return 0;
}

#endif /* CUPROF_RUNFILE_READ_INT_H */
