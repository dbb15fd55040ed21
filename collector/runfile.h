/*
 * runfile.h - the run file, NAME.cuprof: what a profiled process records,
 * written while it runs, and what every output is built from afterwards by
 * cuprof-report (formats/runfile/). The file's ABI: plain types, the block
 * and tag numbers, and CRC-32C (both sides need the same one). The writer
 * is collector/runfile.c; the reader formats/runfile/runfile_read.c. The
 * layout and its version rules are documented in formats/RUNFILE.md.
 *
 * A file is a 64-byte header, then blocks, each a 24-byte block header and
 * its payload (padded with zeros to 8 bytes): append-only, written in order
 * (one writer lock), so only the last block can be torn. Integers are
 * little-endian, as the structs below lay them out on x86-64.
 */
#ifndef CUPROF_RUNFILE_H
#define CUPROF_RUNFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CUPROF_RF_MAGIC "CUPROF-RUNFILE\n"   /* 15 bytes and a NUL: 16 */
/* Major: a reader refuses a file with a newer one. Minor: new block types
 * and tags a reader of an older minor skips. */
#define CUPROF_RF_MAJOR 5u   /* 2: a call record may name a string (compact.h's EXTRA_NAME);
                                3: an NCCL call's record (class 16, CUPROF_HEAD_CLS_HI);
                                4: a math-library call's record (class 17);
                                5: CUPTI's records compact, in GPU_RECORDS blocks */
#define CUPROF_RF_MINOR 1u   /* 1.1: CUPROF_RF_CLOCK, CUPROF_RF_MEM_HELD; 2.1: the flight recorder's tags;
                                4.1: CUPROF_RT_STACK_MODULE, CUPROF_RF_RECOVERED (5.0 has both);
                                5.1: CUPROF_RT_STACK_PYFRAME (Python frames) */

/* Not the file's, but the other contract between the library and the tools:
 * cuprof-run (tools/run.c) relays a SIGINT, SIGTERM, SIGHUP or SIGQUIT that
 * another process sent it to the program with sigqueue and this sigval: the
 * tag in the high 32 bits, the sender's pid in the low 32. The library
 * (process_signals.c) pairs the relayed copy with the one the same sender's
 * group signal (kill -INT -PGID, timeout) delivered directly, so that the
 * program sees the signal as many times as without the supervisor. */
#define CUPROF_RELAY_TAG 0x43505246u   /* "CPRF" */

typedef struct cuprof_rf_header {
    char magic[16];          /* CUPROF_RF_MAGIC */
    uint32_t major, minor;
    uint32_t header_bytes;   /* sizeof this struct: 64 */
    uint32_t block_header_bytes; /* sizeof(cuprof_rf_block): 24 */
    int64_t pid;             /* the process that wrote it */
    uint64_t real_ns;        /* CLOCK_REALTIME when it was created */
    uint8_t zero[16];
} cuprof_rf_header;
_Static_assert(sizeof(cuprof_rf_header) == 64, "run file header is 64 bytes");

typedef struct cuprof_rf_block {
    uint32_t type;           /* enum cuprof_rf_type */
    uint32_t flags;          /* 0 */
    uint64_t len;            /* payload bytes (the padding not counted) */
    uint32_t crc;            /* CRC-32C of the payload */
    uint32_t hcrc;           /* CRC-32C of the 20 bytes before it */
} cuprof_rf_block;
_Static_assert(sizeof(cuprof_rf_block) == 24, "block header is 24 bytes");

enum cuprof_rf_type {
    /* A thread's chunk of compact call records (collector/compact.h), as
     * it filled: struct cuprof_rf_chunk, then the chunk's record bytes. A
     * thread's CHUNK blocks are in the order it filled them. */
    CUPROF_RF_CHUNK = 1,
    /* A copy of the chunk a thread is filling (the same layout): written
     * every second by the flusher and when the run is completed. The last
     * TAIL of a thread counts when its chunk_no is the thread's number of
     * CHUNK blocks (no CHUNK holds that chunk yet); the reader ignores the
     * others. */
    CUPROF_RF_TAIL = 2,
    /* struct cuprof_rf_thread: a thread's identity and its published count;
     * the last one of a thread wins. */
    CUPROF_RF_THREAD = 3,
    /* Kernel names (u32 first id, u32 count, then count strings as u32
     * length + bytes): ids first.. as registered (mangled). */
    CUPROF_RF_KERNEL_NAMES = 4,
    /* NVTX names and domains, the same layout. */
    CUPROF_RF_STRINGS = 5,
    /* Host call stacks, resolved: tags (CUPROF_RT_STACK_*). */
    CUPROF_RF_STACKS = 6,
    /* Names the GPU records use (kernel names, API names): the same layout
     * as KERNEL_NAMES; ids assigned by the writer, written before their
     * first use. */
    CUPROF_RF_GPU_NAMES = 7,
    /* Before 5.0 (read, no longer written): GPU records as CUPTI handed
     * them over (one block per kind and delivered buffer): u32 element
     * size, u32 count, elements. Times on CUPTI's clock, ext 0 (the EXTMAP
     * blocks give them). GPU_NODES is still written so. */
    CUPROF_RF_GPU_KERNELS = 8,   /* cuprof_rf_kernel */
    CUPROF_RF_GPU_COPIES = 9,    /* cuprof_rf_copy (memsets included) */
    CUPROF_RF_GPU_APIS = 10,     /* cuprof_rf_api */
    CUPROF_RF_GPU_SYNCS = 11,    /* cuprof_rf_sync */
    CUPROF_RF_GPU_EXTMAP = 12,   /* cuprof_rf_extmap */
    CUPROF_RF_GPU_NODES = 13,    /* cuprof_rf_node */
    /* The GPU side's state at the end: tags (CUPROF_RT_GPU_*). */
    CUPROF_RF_GPU_INFO = 14,
    /* The run's metadata: tags (CUPROF_RT_*). The last one wins. */
    CUPROF_RF_META = 15,
    /* The run was completed (no payload). */
    CUPROF_RF_END = 16,
    /* Since 1.1: a clock anchor (cuprof_rf_clock) the flusher writes when it
     * wrote calls: a run killed before its end converts its stamps with the
     * latest one instead of extrapolating from its start. */
    CUPROF_RF_CLOCK = 17,
    /* Since 1.1: device memory held when a capture window opened
     * (cuprof_rf_mem_held, then n cuprof_rf_held): the window's memory starts
     * from it (collector/memheld.c). */
    CUPROF_RF_MEM_HELD = 18,
    /* Since 4.0: one GPU as CUPTI described it (its DEVICE record): tags
     * (CUPROF_RT_DEV_*), written when CUPTI hands the record over; one block
     * per device, the last one of an id wins. */
    CUPROF_RF_GPU_DEVICE = 19,
    /* Since 5.0: one delivered CUPTI buffer's kernel, copy, memset, API,
     * sync and external-correlation records, in the order CUPTI gave them:
     * u32 count, u32 zero, then count records in their compact form
     * (collector/gpu_compact.h; the codec starts afresh at each block),
     * decoded into the structs below. Times on CUPTI's clock. */
    CUPROF_RF_GPU_RECORDS = 20,
    /* Since 5.0 (4.1 in the branch that made it): appended by prof.sh's supervisor (cuprof-report --recover,
     * tools/recover.c) to the run file of a process killed outright, after
     * the blocks it took from the recording memory it shared with the
     * process (collector/shm.h: the threads' last calls as TAIL and THREAD
     * blocks, the names, the flight recorder's ring, a CLOCK anchor): tags,
     * how the process ended (CUPROF_RT_REC_*), the APIs first used since the
     * last META (CUPROF_RT_API_TABLE: those named fill the META's table's
     * empty entries), the flight recorder's last window (CUPROF_RT_CAP_WINDOW,
     * CUPROF_RT_CAP_WHY, CUPROF_RT_CAP_FLIGHT_*: added to the META's). The
     * run stays not completed (no END). */
    CUPROF_RF_RECOVERED = 21,
};

typedef struct cuprof_rf_mem_held {
    uint64_t t;              /* the window's opening (the windows' clock, META) */
    uint32_t window;         /* 1-based */
    uint32_t n;              /* entries that follow */
} cuprof_rf_mem_held;
_Static_assert(sizeof(cuprof_rf_mem_held) == 16, "rf_mem_held layout");

typedef struct cuprof_rf_held {
    uint64_t ptr, bytes;
    uint16_t api;            /* the allocating call's API id */
    uint16_t zero[3];
} cuprof_rf_held;
_Static_assert(sizeof(cuprof_rf_held) == 24, "rf_held layout");

typedef struct cuprof_rf_clock {
    uint64_t stamp, ns;      /* the same moment on both clocks (collector/clock.h) */
} cuprof_rf_clock;
_Static_assert(sizeof(cuprof_rf_clock) == 16, "rf_clock layout");

typedef struct cuprof_rf_chunk {
    uint32_t thread;         /* the thread's index (1-based, event ids) */
    uint32_t chunk_no;       /* which of the thread's chunks: 0, 1, ... (a TAIL is a
                                copy of chunk chunk_no, which no CHUNK block holds yet) */
    uint64_t anchor_stamp;   /* the chunk's clock anchor (collector/clock.h) */
    uint64_t anchor_ns;
    uint32_t offset;         /* TAIL: where in the chunk its bytes go (the flusher writes
                                what is new since its last copy); CHUNK: 0 */
    uint32_t zero;
} cuprof_rf_chunk;           /* then the record bytes, to the payload's end */
_Static_assert(sizeof(cuprof_rf_chunk) == 32, "rf_chunk layout");

typedef struct cuprof_rf_thread {
    uint32_t index, tid;
    char name[16];
    uint64_t first_stamp, first_ns;   /* anchor of its first chunk */
    uint64_t committed;      /* the first `committed` records are the calls [0, committed) */
    uint64_t dropped;        /* calls not recorded for lack of memory or disk */
} cuprof_rf_thread;
_Static_assert(sizeof(cuprof_rf_thread) == 56, "rf_thread layout");

typedef struct cuprof_rf_kernel {
    uint64_t start, end;     /* CUPTI's clock */
    uint64_t graph_node_id;
    uint32_t corr, device, context, stream;
    uint32_t name;           /* GPU_NAMES id */
    uint32_t grid[3], block[3];
    uint32_t registers, static_smem, dynamic_smem;
    uint32_t graph_id;
    uint8_t device_launched, graph, zero[6];
} cuprof_rf_kernel;
_Static_assert(sizeof(cuprof_rf_kernel) == 96, "rf_kernel layout");

typedef struct cuprof_rf_copy {
    uint64_t start, end, bytes;
    uint64_t graph_node_id;
    uint32_t corr, device, context, stream;
    uint32_t value, graph_id;
    uint8_t kind, src_mem, dst_mem, async;   /* model/gpu.h's values */
    uint32_t zero;
} cuprof_rf_copy;
_Static_assert(sizeof(cuprof_rf_copy) == 64, "rf_copy layout");

typedef struct cuprof_rf_api {
    uint64_t start, end;
    uint32_t corr, cbid;
    uint32_t name;           /* GPU_NAMES id of the entry point's name */
    uint32_t thread_id, process_id;
    int32_t result;
    uint8_t is_launch, driver, zero[6];
} cuprof_rf_api;
_Static_assert(sizeof(cuprof_rf_api) == 48, "rf_api layout");

typedef struct cuprof_rf_sync {
    uint64_t start, end;
    uint32_t corr, context, stream, event;
    uint8_t type, zero[7];
} cuprof_rf_sync;
_Static_assert(sizeof(cuprof_rf_sync) == 40, "rf_sync layout");

typedef struct cuprof_rf_extmap {
    uint64_t ext;
    uint32_t corr, zero;
} cuprof_rf_extmap;

typedef struct cuprof_rf_node {
    uint64_t id, original, origin;
    uint32_t graph, zero;
} cuprof_rf_node;

/* How CUPTI's times go to the host clock (GPU_INFO's CUPROF_RT_GPU_CLOCK;
 * the values of model/gpu.h's enum cuprof_gpu_clock). */
#define CUPROF_RF_CLOCK_CALLBACK 1   /* CUPTI called our clock: times are host times */
#define CUPROF_RF_CLOCK_OFFSET 2     /* host = cupti + offset (the clock map) */

/* The external id CUPTI records of the profiler's own calls carry: the
 * reader drops them (collector/cupti_int.h pushes it). */
#define CUPROF_RF_EXT_OWN UINT64_MAX

/*
 * Tagged fields (META, GPU_INFO, STACKS): a sequence of u16 tag, u16 zero,
 * u32 length, then length bytes. Numbers are u64 (8 bytes), strings are
 * their bytes (no NUL). A reader skips a tag it does not know; a repeated
 * tag adds one more (argv, windows, APIs).
 */
enum cuprof_rf_tag {
    CUPROF_RT_PROGRAM = 1, CUPROF_RT_EXE, CUPROF_RT_ARG, CUPROF_RT_PID, CUPROF_RT_T_START,
    CUPROF_RT_T_END, CUPROF_RT_CLOCK, CUPROF_RT_VERSION, CUPROF_RT_TSC,
    CUPROF_RT_END_STAMP, CUPROF_RT_END_NS,
    CUPROF_RT_API,                /* one per API id: category, NUL, name (before
                                     4.0; read, no longer written) */
    CUPROF_RT_DROPPED_API,        /* u64 api id, u64 count */
    CUPROF_RT_RECORD_FAILURE,     /* why recording stopped (the run file could not grow) */
    CUPROF_RT_ENDED_BY, CUPROF_RT_TRUNCATED,
    CUPROF_RT_CAP_TRIGGER, CUPROF_RT_CAP_SPEC, CUPROF_RT_CAP_REPEAT, CUPROF_RT_CAP_SKIP,
    CUPROF_RT_CAP_SEEN, CUPROF_RT_CAP_OPENED, CUPROF_RT_CAP_WINDOW /* u64 open, u64 close */,
    CUPROF_RT_CAP_OPEN_AT_END, CUPROF_RT_CAP_OUTSIDE,
    CUPROF_RT_STEP_RANGE, CUPROF_RT_STEP_DOMAIN, CUPROF_RT_STEP_FROM,
    CUPROF_RT_STACKS_MODE, CUPROF_RT_STACKS_COUNTS,
    CUPROF_RT_TRACE_FORMAT, CUPROF_RT_TRACE_COMPRESS, CUPROF_RT_TRACE_GZIP,
    CUPROF_RT_EXPORT_SQLITE,
    CUPROF_RT_PL_LAUNCHER, CUPROF_RT_PL_RANK, CUPROF_RT_PL_WORLD, CUPROF_RT_PL_LOCAL_RANK,
    CUPROF_RT_PL_LOCAL_SIZE, CUPROF_RT_PL_HOST, CUPROF_RT_PL_BOOT_ID, CUPROF_RT_PL_VISIBLE,
    CUPROF_RT_PL_MONO_START, CUPROF_RT_PL_REAL_START, CUPROF_RT_PL_MONO_END,
    CUPROF_RT_PL_REAL_END,
    CUPROF_RT_HOOK_NS, CUPROF_RT_GPU_CAPTURED, CUPROF_RT_GPU_REASON,
    CUPROF_RT_NAME,               /* the output base name the process chose */
    CUPROF_RT_OUT_DIR,            /* the output directory */
    CUPROF_RT_KEEP_RUN_FILE,      /* 0: remove it after a successful report */
    CUPROF_RT_NAME_BASE,          /* the outputs' base name before the no-clobber suffix
                                     (for a report of a run that never completed) */
    CUPROF_RT_ROOT_PID,           /* CUPROF_ROOT_PID: the process prof.sh started */
    CUPROF_RT_WINDOWS_WRITTEN,    /* repeating windows whose outputs were written while
                                     the program ran (NAME.w1.* ..): the end's report
                                     writes the others */
    CUPROF_RT_EXIT_NS,            /* host ns when the exit path stopped recording: CUPTI's
                                     records of calls made after it (other threads
                                     still calling while the process ends) are left out */
    /* 2.1: the flight recorder */
    CUPROF_RT_CAP_WHY,            /* one per window, in order: why it was written */
    CUPROF_RT_CAP_FLIGHT_NS, CUPROF_RT_CAP_FLIGHT_BYTES, CUPROF_RT_CAP_FLIGHT_PEAK,
    CUPROF_RT_CAP_FLIGHT_EVICTED,
    CUPROF_RT_REPORT_HTML,        /* 1: NAME.report.html too */
    /* 4.0: the API table in one tag, front-coded, naming only the APIs the
     * run used (some 2400 hooks with CUDA 13's runtime, math libraries and
     * driver: about 7 KB when a run calls a few dozen, against 68 KB for the
     * 1750 without the driver as one CUPROF_RT_API each: a META must fit
     * where a full disk left room):
     * u32 count, u8 categories, each category's name and a NUL; then per
     * API id: u8 category index, u8 bytes shared with the previous name,
     * the rest of the name and a NUL (an API the run did not use: an
     * empty name, category 0). Replaces CUPROF_RT_API (still read). */
    CUPROF_RT_API_TABLE,
    /* GPU_INFO */
    CUPROF_RT_GPU_ON = 100, CUPROF_RT_GPU_KERNELS_ONLY, CUPROF_RT_GPU_STATUS,
    CUPROF_RT_GPU_DROPPED, CUPROF_RT_GPU_LATE, CUPROF_RT_GPU_CLOCK,
    CUPROF_RT_GPU_CUPTI_A, CUPROF_RT_GPU_OFF_A, CUPROF_RT_GPU_CUPTI_B, CUPROF_RT_GPU_OFF_B,
    CUPROF_RT_GPU_CLOCK_ERR,
    /* GPU_DEVICE (4.0) */
    CUPROF_RT_DEV_ID = 150, CUPROF_RT_DEV_NAME, CUPROF_RT_DEV_SMS, CUPROF_RT_DEV_CLOCK_KHZ,
    CUPROF_RT_DEV_CC_MAJOR, CUPROF_RT_DEV_CC_MINOR, CUPROF_RT_DEV_MEM_BYTES,
    CUPROF_RT_DEV_MEM_BW_KBPS, CUPROF_RT_DEV_L2_BYTES, CUPROF_RT_DEV_MIG,
    /* RECOVERED (4.1) */
    CUPROF_RT_REC_ENDED_BY = 250, /* how it ended ("SIGKILL", ...) */
    CUPROF_RT_REC_DIED_NS,        /* when the supervisor saw it gone (CLOCK_MONOTONIC) */
    CUPROF_RT_REC_OOM_KILLS,      /* its memory cgroup's oom_kill grew by this while it ran and
                                     it died of SIGKILL: the OOM killer ended it */
    CUPROF_RT_REC_CGROUP,         /* its memory cgroup, as /proc/PID/cgroup names it */
    CUPROF_RT_REC_MEM_LIMIT,      /* that cgroup's limit, bytes (0: none) */
    CUPROF_RT_REC_RSS,            /* its RSS when last seen, bytes */
    CUPROF_RT_REC_RSS_PEAK,       /* its peak RSS (VmHWM), bytes */
    CUPROF_RT_REC_RSS_NS,         /* when it was last seen */
    CUPROF_RT_REC_THREADS,        /* threads whose calls came from the recording memory */
    CUPROF_RT_REC_RING_BLOCKS,    /* the flight recorder's blocks taken from its ring */
    /* STACKS */
    CUPROF_RT_STACK_LOST = 200,
    CUPROF_RT_STACK_FRAME,        /* u64 pc, u64 offset, u32 module length, module,
                                     u32 symbol length + 1 (0: unknown), symbol */
    CUPROF_RT_STACK,              /* u32 frame indexes, innermost first (one stack,
                                     ids 1.. in order) */
    /* 5.1: a Python frame (collector/pyframes.h, issue 39 item 1), one entry
     * of the frames as a STACK_FRAME is, written after all of them: u64 pc
     * (its id | CUPROF_PY_PC), u32 line (0 unknown), u32 qualified-name
     * length, the name, u32 file length, the file (co_filename). Its module
     * is the file's base name. */
    CUPROF_RT_STACK_PYFRAME = 203,
    CUPROF_RT_STACK_MODULE = 210, /* an object of the native frames: u64 load bias,
                                     u32 path length, path, then its GNU build id
                                     (the rest; none: empty) */
};

/* CRC-32C (Castagnoli, reflected, as iSCSI and ext4 use), bytewise with a
 * table built on first use; crc starts at 0 and chains over several calls.
 * With SSE4.2 the hardware instruction, 8 bytes at a time. */
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static inline uint32_t cuprof_crc32c_hw(uint32_t crc,
                                                                         const void *buf,
                                                                         size_t n)
{
    const uint8_t *p = buf;
    uint64_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n > 0; n--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return ~c32;
}
#endif

static inline uint32_t cuprof_crc32c_sw(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

static inline uint32_t cuprof_crc32c(uint32_t crc, const void *buf, size_t n)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2"))
        return cuprof_crc32c_hw(crc, buf, n);
#endif
    return cuprof_crc32c_sw(crc, buf, n);
}

/* 1 when DIR/NAME.SUFFIX exists (or is a link) for a suffix a run's files
 * take: NAME is another run's. The writer (choosing the name at exit) and
 * cuprof-report (naming a recovered run) both ask. */
static inline int cuprof_rf_name_taken(const char *dir, const char *name)
{
    static const char *const suffixes[] = {"cuprof", "summary.txt", "summary.json", "trace.json",
                                           "trace.json.gz", "perfetto-trace"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char path[4096 + 400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, suffixes[i]);
        if (lstat(path, &st) == 0)
            return 1;
    }
    return 0;
}

/* Bytes a block of payload length len takes in the file. */
static inline uint64_t cuprof_rf_block_bytes(uint64_t len)
{
    return sizeof(cuprof_rf_block) + ((len + 7u) & ~(uint64_t)7u);
}

#endif /* CUPROF_RUNFILE_H */
