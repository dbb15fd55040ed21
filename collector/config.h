/*
 * config.h - the collector's configuration, read once from the environment.
 *
 * The environment is the contract between prof.sh and the library: every
 * variable the library reads is listed here and nowhere else.
 *
 *   CUPROF_OUT_DIR    directory for the output files (default "prof-out",
 *                     relative to the program's working directory at exit);
 *                     created (one level) if missing.
 *   CUPROF_NAME       base name of the files. Unset: PROGRAM.PID (PROGRAM =
 *                     basename of argv[0]), so every process of a run gets
 *                     its own files. Set: NAME for the process whose pid is
 *                     CUPROF_ROOT_PID (the one prof.sh started), NAME.PID
 *                     for every other process (children, forks). Either
 *                     way a name whose files already exist in the
 *                     directory gets ".1", ".2", ... (lifecycle.c: no run
 *                     replaces another's files).
 *   CUPROF_ROOT_PID   pid of the process prof.sh exec'd (see CUPROF_NAME).
 *   CUPROF_SUPERVISOR_PID  set by cuprof-run (prof.sh's supervisor) in its
 *                     child: its own pid. The signals it relays to that
 *                     process (sigqueue, CUPROF_RELAY_TAG) are told from the
 *                     ones the sender delivered directly (process_signals.c).
 *   CUPROF_SHM        set by cuprof-run in its child: FD:PID:TOKEN, the
 *                     recording memory it reads after a SIGKILL (shm.c,
 *                     collector/shm.h); read by shm.c at load, not here.
 *                     Unset (CUPROF_SUPERVISE=0, LD_PRELOAD by hand): private
 *                     memory, as before.
 *   CUPROF_QUIET      1: print nothing on stderr (errors included).
 *   CUPROF_DEBUG      comma-separated debug areas ("collector", "formats",
 *                     "all"): extra "cuprof: debug:" lines on stderr.
 *   CUPROF_MEM_LIMIT  accepted for older scripts, bounds nothing now: each
 *                     thread records into one 64 KiB chunk that goes to the
 *                     run file (collector/runfile.c) each time it fills; if
 *                     the file cannot grow, calls are counted but not
 *                     recorded and the header says so.
 *   CUPROF_SUPERVISE  (prof.sh) 0: exec PROGRAM directly instead of through
 *                     build/cuprof-run (which recovers killed processes).
 *   CUPROF_REPORT     the cuprof-report the exit path runs on the run file
 *                     (default: the one beside libcuprof.so).
 *   CUPROF_RUN_FILE   0: remove NAME.cuprof once cuprof-report has built
 *                     the outputs from it (prof.sh --no-run-file). Default
 *                     1: it stays next to them, for prof.sh report.
 *   CUPROF_ENABLE     0: record nothing and write nothing (default 1).
 *   CUPROF_GPU        0 (or off): do not start CUPTI (no GPU timeline;
 *                     CPU-side calls only), e.g. to measure the hooks alone.
 *                     "kernels": CUPTI records kernels, copies and memsets
 *                     only (no runtime/driver API or sync records, no
 *                     external ids pushed), matched to the hooked calls by
 *                     kernel name, bytes and order (model/kmatch.h): the
 *                     least CUPTI cost. 1 (or all, the default): also the
 *                     API records that tie each to its call.
 *   CUPROF_DRIVER_HOOKS 0: hand the program the driver's own functions from
 *                     cuGetProcAddress / cudaGetDriverEntryPoint* (their calls
 *                     are then seen by CUPTI only: launches, copies, memsets).
 *                     Default 1: our hooks of them, recorded like the calls a
 *                     program links (preload/hooks_driver.c); those stay hooked
 *                     either way.
 *   CUPROF_PREFAULT   accepted for older scripts, no effect: a thread's one
 *                     chunk is reused, so no fresh memory needs faulting in.
 *   CUPROF_CLOCK      host time source of the call stamps: "auto" (default:
 *                     the TSC when the CPU says it is invariant, i.e.
 *                     constant_tsc and nonstop_tsc in /proc/cpuinfo, else
 *                     CLOCK_MONOTONIC), "tsc" (the same as auto: the TSC is
 *                     never used where it is not invariant) or "monotonic"
 *                     (clock_gettime always). Either way every output is in
 *                     CLOCK_MONOTONIC ns (see clock.h).
 *   CUPROF_STACKS     host call stacks of launches, copies, memsets, syncs,
 *                     allocations and cuBLAS calls (collector/stacks.c):
 *                     "0" none (default); "1" or "auto": frame pointers
 *                     where the code keeps them, libunwind where it does not;
 *                     "fp": frame pointers only (fastest; frames of code
 *                     built without them are missing); "unwind": libunwind
 *                     always.
 *   CUPROF_STACKS_COUNTS  1: with stacks, also NAME.calls.folded (calls per
 *                     stack, the launch-count flame graph).
 *   CUPROF_STACKS_PYTHON  with stacks: 1 (default) the Python frames of a
 *                     thread running CPython 3.10-3.13 take the place of the
 *                     interpreter's frames (collector/pyframes.h); 0 native
 *                     frames only.
 *
 * The capture window (collector/capture.c; prof.sh's options of the same
 * names). Unset: the whole run is recorded.
 *   CUPROF_CAPTURE_RANGE      "cudaProfilerApi": record between
 *                     cudaProfilerStart and cudaProfilerStop;
 *                     "nvtx:NAME[@DOMAIN]": record inside the NVTX range NAME
 *                     (push/pop or start/end; of the default domain, of
 *                     DOMAIN, or of any domain with "@*"; "NAME" also matches
 *                     "NAME#7", PyTorch's numbered ProfilerStep#N).
 *   CUPROF_CAPTURE_RANGE_END  when the window closes for good: "stop" (after
 *                     the first window, the default), "repeat:N" (after N
 *                     windows), "none" (the range's end does not close it).
 *   CUPROF_SKIP_FIRST N       the first N occurrences of the trigger open no
 *                     window (default 0).
 *   CUPROF_DELAY, CUPROF_DURATION   seconds (decimal): the window opens DELAY
 *                     after the collector starts and closes DURATION later
 *                     (either alone: from the start, or until the end); not
 *                     with CUPROF_CAPTURE_RANGE.
 *   CUPROF_STANDBY 1  record nothing until `prof.sh trigger PID` opens a
 *                     window (for a duration, a number of calls or of steps;
 *                     collector/capture.c), or `prof.sh trigger --job DIR`
 *                     opens one at the same step in every such process
 *                     writing into DIR (collector/job.c; the step range,
 *                     CUPROF_STEP_RANGE or ProfilerStep, is followed from
 *                     the start); each window's outputs are written when it
 *                     closes (NAME.wK.*). Not with the options above.
 *   CUPROF_FLIGHT_RECORDER S   the flight recorder (collector/flight.c): calls
 *                     and GPU records are kept in a ring in memory, not
 *                     written, and only the last S seconds (decimal) are
 *                     written: when the process ends (any way but SIGKILL), when
 *                     a CUDA call returns out-of-memory or a sticky error, or on
 *                     `prof.sh trigger PID --dump` (each such window as
 *                     NAME.wK.*, the end's as NAME.*). Not with the options above.
 *   CUPROF_FLIGHT_MEMORY SIZE the ring's bound (default 64M): when it is
 *                     full the oldest records go, even within the S seconds.
 *   CUPROF_STEP_RANGE NAME[@DOMAIN]  the NVTX range whose occurrences are the
 *                     steps of the per-step statistics (model/steps.h);
 *                     default: the capture range, else a repeating top-level
 *                     range found by name (model/steps.c).
 *
 * A malformed value is reported once (cuprof: ...) and the default is used:
 * the program is never stopped by the library. prof.sh validates what it
 * sets before the program starts.
 */
#ifndef CUPROF_CONFIG_H
#define CUPROF_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

enum cuprof_debug_area {
    CUPROF_DBG_COLLECTOR = 1u << 0,   /* buffers, lifecycle, kernel table */
    CUPROF_DBG_FORMATS = 1u << 1,     /* writers */
    CUPROF_DBG_ALL = ~0u,
};

/* The release, written into every output (prof.sh --version reads it here). */
#define CUPROF_VERSION "0.1.0"

#define CUPROF_DEFAULT_OUT_DIR "prof-out"
#define CUPROF_DEFAULT_MEM_LIMIT (256ull << 20)

/* What opens the capture window (CUPROF_CAPTURE_RANGE, CUPROF_DELAY). */
enum cuprof_capture_kind {
    CUPROF_CAPTURE_NONE = 0,      /* the whole run */
    CUPROF_CAPTURE_PROFILER = 1,  /* cudaProfilerStart .. cudaProfilerStop */
    CUPROF_CAPTURE_NVTX = 2,      /* an NVTX range */
    CUPROF_CAPTURE_TIME = 3,      /* CUPROF_DELAY / CUPROF_DURATION */
    CUPROF_CAPTURE_STANDBY = 4,   /* CUPROF_STANDBY: windows opened from outside */
    CUPROF_CAPTURE_FLIGHT = 5,    /* CUPROF_FLIGHT_RECORDER: the last seconds, in a ring */
};

#define CUPROF_DEFAULT_FLIGHT_BYTES (64ull << 20)

/* CUPROF_STACKS */
enum cuprof_stacks_mode {
    CUPROF_STACKS_OFF = 0,
    CUPROF_STACKS_AUTO = 1,     /* frame pointers, checked; libunwind where they fail */
    CUPROF_STACKS_FP = 2,       /* frame pointers only */
    CUPROF_STACKS_UNWIND = 3,   /* libunwind only */
};

/* CUPROF_GPU */
enum cuprof_gpu_mode {
    CUPROF_GPU_OFF = 0,         /* no CUPTI */
    CUPROF_GPU_ALL = 1,         /* device records and the API records that cause them */
    CUPROF_GPU_KERNELS = 2,     /* kernel, memcpy and memset records only */
};

typedef struct cuprof_config {
    char out_dir[PATH_MAX];  /* CUPROF_OUT_DIR, never empty */
    int gpu;                 /* CUPROF_GPU: enum cuprof_gpu_mode */
    int prefault;            /* CUPROF_PREFAULT != 0: helper thread maps chunks */
    int driver_hooks;        /* CUPROF_DRIVER_HOOKS != 0: hand out our hooks of the
                                driver functions the entry points give */
    int clock_monotonic;     /* CUPROF_CLOCK=monotonic: never the TSC */
    char name[256];          /* CUPROF_NAME, "" when unset */
    long root_pid;           /* CUPROF_ROOT_PID, 0 when unset */
    long supervisor_pid;     /* CUPROF_SUPERVISOR_PID, 0 when unset */
    int quiet;               /* CUPROF_QUIET=1 */
    int enabled;             /* CUPROF_ENABLE != 0 */
    unsigned debug;          /* CUPROF_DEBUG, enum cuprof_debug_area bits */
    uint64_t mem_limit;      /* CUPROF_MEM_LIMIT in bytes */
    int capture;             /* enum cuprof_capture_kind */
    char capture_name[256];  /* CUPROF_CAPTURE_RANGE nvtx: the range's name */
    char capture_domain[128];/* ... its domain: "" default, "*" any */
    uint32_t capture_repeat; /* windows before recording stops for good: 1 for
                                "stop", N for "repeat:N", 0 for "none" */
    uint32_t skip_first;     /* CUPROF_SKIP_FIRST */
    uint64_t delay_ns;       /* CUPROF_DELAY */
    uint64_t duration_ns;    /* CUPROF_DURATION, 0 = until the end */
    uint64_t flight_ns;      /* CUPROF_FLIGHT_RECORDER: the span kept, 0 = off */
    uint64_t flight_bytes;   /* CUPROF_FLIGHT_MEMORY: the ring's bound */
    char step_name[256];     /* CUPROF_STEP_RANGE's NAME, "" unset */
    char step_domain[128];   /* ... and DOMAIN ("" default, "*" any) */
    int stacks;              /* CUPROF_STACKS: enum cuprof_stacks_mode */
    int stacks_counts;       /* CUPROF_STACKS_COUNTS */
    int stacks_python;       /* CUPROF_STACKS_PYTHON (default 1) */
    int trace_format;        /* CUPROF_FORMAT: CUPROF_TRACE_FORMAT_* (model/run.h) */
    int trace_compress;      /* CUPROF_COMPRESS: CUPROF_COMPRESS_* (model/run.h) */
    int trace_gzip;          /* CUPROF_GZIP: trace.json.gz */
    int export_sqlite;       /* CUPROF_EXPORT=sqlite: NAME.sqlite at exit (cuprof-report) */
    int report_html;         /* NAME.report.html too (default; CUPROF_REPORT_HTML=0: not) */
    int keep_run_file;       /* CUPROF_RUN_FILE != 0 (default): NAME.cuprof stays after
                                the report */
} cuprof_config;

/* Fills c from the environment (getenv), defaults for what is unset or
 * malformed. Each malformed variable appends one line to warn (if not NULL,
 * NUL-terminated, at most warn_len bytes) for the caller to print. */
void cuprof_config_load(cuprof_config *c, char *warn, size_t warn_len);

/* Parses a size like "512", "64K", "1G" (K/M/G binary, case-insensitive).
 * Returns 0 and sets *out, or -1 if s is not such a size. */
int cuprof_config_parse_size(const char *s, uint64_t *out);

/* Parses "1.5" (seconds, decimal, at most 9 fraction digits) into ns.
 * Returns 0, or -1 if s is not such a number. */
int cuprof_config_parse_seconds(const char *s, uint64_t *ns);
/* Splits "NAME[@DOMAIN]" (the last '@') into name and domain (bounded,
 * NUL-terminated; domain "" when there is none). -1 for an empty NAME or
 * one that does not fit. */
int cuprof_config_split_range(const char *s, char *name, size_t nlen, char *domain, size_t dlen);

/* The configuration the collector loaded at init (defaults before init). */
const cuprof_config *cuprof_config_get(void);

#endif /* CUPROF_CONFIG_H */
