/*
 * shm.h - the recording memory prof.sh's supervisor can read after the
 * program is gone (issue 42.2, 42.5): the layout both sides use, plain
 * types only. The library is collector/shm.c; the supervisor that makes it
 * is tools/run.c (cuprof-run) and the reader that turns it into run file
 * blocks is tools/recover.c (cuprof-report --recover).
 *
 * cuprof-run creates one memfd per run (sparse: only the pages a process
 * touches take memory), writes this header at its start and gives the
 * program CUPROF_SHM=FD:PID:TOKEN: the descriptor it inherits (at 48 or
 * above), the supervisor's pid (the same file is /proc/PID/fd/FD there, for
 * an image exec'd later or a program that closed the descriptor) and a
 * random token (a file that is not this run's is never used). The library
 * maps the whole file once at start (MAP_SHARED) and closes the descriptor:
 * the mapping outlives it, so nothing the program does to its descriptors
 * reaches it. A forked child shares the parent's mapping and takes a
 * process slot of its own. Without CUPROF_SHM (CUPROF_SUPERVISE=0,
 * LD_PRELOAD set by hand) nothing here is used and recording is as before.
 *
 * What lives there, so that a SIGKILL loses no recorded call:
 *   - each thread's record and its one 64 KiB chunk (a thread slot): the
 *     calls published (the record's `committed`) and their compact records
 *     up to its write pointer, exactly as the hot path leaves them (the
 *     same struct, in another place: the hot path does not change);
 *   - per process: the names interned (kernels, NVTX strings) and the APIs
 *     first used, as a log (the flusher writes them to the run file every
 *     0.1 s; the log covers the last 0.1 s), the flusher's heartbeat, and
 *     the flight recorder's ring (its state and its bytes).
 * The record's layout is the library's own (collector/internal.h): each
 * process slot says where its fields are (rec_off), so the reader never
 * includes the library's headers.
 */
#ifndef CUPROF_SHM_H
#define CUPROF_SHM_H

#include <stdint.h>
#include <string.h>

#define CUPROF_SHM_MAGIC "CUPROF-SHM\n"   /* its 12 bytes, NUL included, then zeros: 16 */
#define CUPROF_SHM_VERSION 1u
#define CUPROF_SHM_ENV "CUPROF_SHM"       /* FD:PID:TOKEN (hex) */

/* A thread slot: the thread's record in its first CUPROF_SHM_REC_BYTES, its
 * chunk after it. */
#define CUPROF_SHM_REC_BYTES 4096u
#define CUPROF_SHM_SLOT_BYTES (CUPROF_SHM_REC_BYTES + 65536u)

typedef struct cuprof_shm_header {
    char magic[16];          /* CUPROF_SHM_MAGIC */
    uint32_t version;        /* CUPROF_SHM_VERSION */
    uint32_t header_bytes;   /* sizeof this struct */
    uint64_t token;          /* the one in CUPROF_SHM */
    uint64_t total_bytes;    /* the file's size (the library maps all of it) */
    uint64_t procs_off;      /* nprocs cuprof_shm_proc, proc_bytes apart */
    uint32_t nprocs, proc_bytes;
    uint64_t slot_states_off;/* nslots uint32_t: 0 free, else the owner's process slot + 1 */
    uint64_t slots_off;      /* nslots thread slots of CUPROF_SHM_SLOT_BYTES */
    uint32_t nslots, zero;
    uint64_t area_off;       /* process slot i's own bytes: area_off + i * area_bytes: */
    uint64_t area_bytes;     /*   the names log (names_bytes), then the ring (ring_bytes) */
    uint64_t names_bytes;
    uint64_t ring_bytes;     /* 0: no flight recorder asked when the run started */
    uint8_t pad[48];
} cuprof_shm_header;
_Static_assert(sizeof(cuprof_shm_header) == 160, "shm header layout");

/* A process slot's state. */
enum {
    CUPROF_SHM_FREE = 0,
    CUPROF_SHM_LIVE = 1,     /* recording; its run file is .cuprof-run.PID */
    CUPROF_SHM_DONE = 2,     /* its run file was completed (exit path, exec) */
    CUPROF_SHM_BUSY = 3,     /* being taken or given back (by one process: whoever moved it
                                here from FREE, DONE, or its own pid's LIVE) */
};

/* The flight recorder's ring (collector/flight.c): positions are absolute
 * byte counts, the ring holds [head, tail) of cap bytes at the process's
 * ring area, entries never wrap. */
typedef struct cuprof_shm_ring {
    uint64_t cap;            /* 0: the ring is not in this memory */
    uint64_t head, tail;
    uint64_t peak, evicted_until, lost;
    uint64_t span_ns;        /* CUPROF_FLIGHT_RECORDER */
    uint64_t zero;
} cuprof_shm_ring;

/* One entry of the ring: a whole run file block (header, payload, padding)
 * after this header. */
typedef struct cuprof_shm_ring_entry {
    uint64_t t;              /* clock ns when kept */
    uint32_t len;            /* the whole entry, header included, a multiple of 8 */
    uint32_t flags;          /* CUPROF_SHM_RING_* */
} cuprof_shm_ring_entry;
#define CUPROF_SHM_RING_WRITTEN 1u   /* in the run file already */
#define CUPROF_SHM_RING_PAD 2u       /* the room left before the ring's end */

/* Where the library keeps a thread record's fields (offsetof in its own
 * struct), and its chunk's. */
typedef struct cuprof_shm_layout {
    uint32_t index, tid, name, first, committed, dropped, written, gen, tail, wp;
    uint32_t chunk_anchor, chunk_data, chunk_data_bytes, zero;
} cuprof_shm_layout;

typedef struct cuprof_shm_proc {
    uint32_t state;          /* CUPROF_SHM_* (atomic) */
    int32_t pid;
    uint64_t t_start;        /* CLOCK_MONOTONIC when it took the slot */
    uint64_t alive_ns;       /* the flusher's last round (CLOCK_MONOTONIC; atomic) */
    uint64_t names_used;     /* bytes of the names log taken (atomic) */
    cuprof_shm_layout rec;
    cuprof_shm_ring ring;
    uint32_t stamps;         /* what its records' t0/t1 hold: 1 CLOCK_MONOTONIC ns, 2 TSC
                                ticks (collector/clock.h); 0 before its first thread */
    uint32_t zero;
    uint8_t pad[64];
} cuprof_shm_proc;
_Static_assert(sizeof(cuprof_shm_proc) == 224, "shm process slot layout");

/* One entry of a process's names log: this header, then len bytes (an
 * API's: its category, a NUL, its name), padded to 8. bytes is written
 * first, ready last: a reader stops at an entry with no bytes and skips
 * one not ready. */
typedef struct cuprof_shm_name {
    uint32_t bytes;          /* the whole entry, a multiple of 8 */
    uint8_t kind;            /* CUPROF_SHM_NAME_* */
    uint8_t ready;
    uint16_t zero;
    uint32_t id;             /* kernel name id, string id, API id */
    uint32_t len;
} cuprof_shm_name;
enum { CUPROF_SHM_NAME_KERNEL = 1, CUPROF_SHM_NAME_STRING = 2, CUPROF_SHM_NAME_API = 3 };

/* The rest of a header whose token, nslots, nprocs, names_bytes,
 * ring_bytes and area_bytes are set: its magic, version and layout, page
 * aligned (cuprof-run makes the memory so; the tests too). */
static inline void cuprof_shm_header_layout(cuprof_shm_header *h)
{
#define CUPROF_SHM_PAGE_UP(x) (((x) + 4095u) & ~(uint64_t)4095u)
    memcpy(h->magic, CUPROF_SHM_MAGIC, sizeof CUPROF_SHM_MAGIC);
    h->version = CUPROF_SHM_VERSION;
    h->header_bytes = sizeof *h;
    h->proc_bytes = sizeof(cuprof_shm_proc);
    h->procs_off = 4096;
    h->slot_states_off = CUPROF_SHM_PAGE_UP(h->procs_off + (uint64_t)h->nprocs * h->proc_bytes);
    h->slots_off = CUPROF_SHM_PAGE_UP(h->slot_states_off + (uint64_t)h->nslots * 4u);
    h->area_off = h->slots_off + (uint64_t)h->nslots * CUPROF_SHM_SLOT_BYTES;
    h->total_bytes = h->area_off + (uint64_t)h->nprocs * h->area_bytes;
#undef CUPROF_SHM_PAGE_UP
}

#endif /* CUPROF_SHM_H */
