/*
 * pftrace.h - a small reader of Perfetto protobuf traces for the tests: it
 * decodes the TracePackets cuprof writes (track descriptors, clock
 * snapshots with incremental clocks, packet defaults, interned data per
 * sequence, track events) the way the proto definitions say, and checks
 * the rules a reader relies on: every interned id was sent on the
 * sequence before it is used, every event's track was described, slices
 * end on their track in the order they began, time never goes backwards
 * on a sequence. Packets compressed in blocks (zlib, field 50; zstd, 133)
 * are read through the real libz and libzstd. Independent of formats/perfetto.c (no shared code).
 */
#ifndef CUPROF_PFTRACE_H
#define CUPROF_PFTRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pft_track {
    uint64_t uuid, parent;
    char *name;                 /* the track's, the thread's or the process's name */
    int64_t pid, tid;           /* process/thread tracks, else -1 */
} pft_track;

typedef struct pft_slice {
    uint64_t track;             /* uuid */
    char *name, *cat;
    uint64_t t0, t1;            /* ns on the trace's clock */
    int instant;
    unsigned nargs;             /* debug annotations */
    uint64_t flow_out, flow_in; /* the first flow id starting / ending here, 0 = none */
    unsigned nflow_out, nflow_in;
    char *args;                 /* "key=value\n" per annotation, in file order: ints and
                                   uints in decimal, pointers 0x-hex (0 as 0), bools true/false,
                                   doubles %g, strings as they are */
} pft_slice;

typedef struct pft_counter {
    uint64_t track;             /* uuid */
    uint64_t ts;
    int64_t value;
} pft_counter;

typedef struct pft {
    pft_track *tracks;
    size_t ntracks;
    pft_slice *slices;
    size_t nslices;
    pft_counter *counters;      /* TYPE_COUNTER events, in file order */
    size_t ncounters;
    uint64_t packets, track_events;
    uint64_t zlib_blocks;         /* TracePacket.compressed_packets (50) */
    uint64_t zstd_blocks;         /* TracePacket.zstd_compressed_packets (133) */
    uint64_t uncompressed_bytes;  /* what those blocks held */
    int primary_clock;          /* ClockSnapshot.primary_trace_clock, 0 = unset */
    uint64_t ended, ended_calls;/* pft_count: slices and instants read (calls: of the CUDA
                                   runtime, cuBLAS, cuBLASLt), dropped once ended */
    char error[256];            /* "" when the file follows the rules above */
} pft;

/* Reads path into t. Returns 0, or -1 with t->error set (also for a file
 * that breaks a rule: what was read up to there is kept). */
int pft_load(const char *path, pft *t);
/* pft_load checking the same rules, but a slice ended (or an instant) is
 * counted in t->ended and dropped when it is the newest one kept: a
 * trace of hundreds of millions of calls read in the memory of its open
 * slices (bench/long_run.sh). t->slices holds what was not dropped. */
int pft_count(const char *path, pft *t);
void pft_free(pft *t);
/* The track with this uuid, or NULL. */
const pft_track *pft_track_of(const pft *t, uint64_t uuid);

#endif
