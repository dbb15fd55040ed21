/*
 * run.h - the recorded run: the model's input, plain data.
 *
 * The collector's snapshot (collector/snapshot.h) fills one at exit:
 * threads with their events in order (views into the collector's chunks,
 * not copies), the API table, the raw kernel names, and the process
 * metadata. Tests fill one by hand. Nothing here calls into the collector.
 *
 * The GPU timeline: the exit path attaches CUPTI's records as gpu_run
 * (model/gpu.h: kernels, copies, memsets, runtime calls, syncs on the host
 * clock, each with the external id = the event id of the call that caused
 * it, which cuprof_run_find_event() maps back); model/timeline.h joins them
 * to the calls.
 */
#ifndef CUPROF_RUN_H
#define CUPROF_RUN_H

#include "collector/event.h"
#include "collector/runfile_types.h"   /* the plain types the recorder fills */
#include "model/vocab.h"

#include <stddef.h>
#include <stdint.h>

struct cuprof_run_thread;

/* A streamed thread's events (chunks == NULL): event i, decoded on demand,
 * a block of calls at a time, by whoever filled the thread (the run file's
 * reader, formats/runfile/runfile_read.h). The pointer stays valid until
 * the calling thread has read events of CUPROF_RUN_BLOCKS_HELD other blocks
 * (of any thread) since: a pass may hold a few events at once, not one per
 * call of a long stretch (it copies those). */
typedef const cuprof_event *(*cuprof_run_fetch_fn)(const struct cuprof_run_thread *th,
                                                   uint64_t i);
#define CUPROF_RUN_BLOCKS_HELD 4

/* One thread's recorded calls, in the order the calls began (so t0 never
 * decreases): event i is chunks[i / per_chunk][i % per_chunk], or, when
 * chunks is NULL, decoded a block at a time by fetch (streamed: the run
 * file's reader then holds no array of every call). Read them through
 * cuprof_run_event(). */
typedef struct cuprof_run_thread {
    uint32_t index;                  /* 1-based registration order (event ids) */
    uint32_t tid;                    /* kernel thread id */
    char name[16];                   /* thread name (comm), "" if unknown */
    uint64_t n;                      /* number of events */
    uint64_t per_chunk;              /* events per chunk (> 0) */
    const cuprof_event *const *chunks; /* ceil(n / per_chunk) event arrays; NULL: streamed */
    cuprof_run_fetch_fn fetch;       /* streamed: event i, its block decoded */
    const void *src;                 /* streamed: fetch's own (the reader's thread) */
    uint64_t dropped;                /* calls not recorded for lack of memory */
    uint32_t api_end;                /* 1 + the highest api of its events (the reader's;
                                        a larger one is fine), 0: not known */
    uint32_t classes;                /* bit 1 << cls for each class of its events
                                        (CUPROF_EV_*: the reader's; a superset is
                                        fine), 0: not known (a run filled by hand) */
} cuprof_run_thread;

struct cuprof_gpu_run;   /* model/gpu.h */

/* cuprof_gpu_timeline, cuprof_capture, cuprof_run_frame, cuprof_run_stack,
 * cuprof_place and the trace settings: collector/runfile_types.h. */

/* Device memory held when a window opened (run file MEM_HELD blocks,
 * collector/memheld.c): the allocations made before it, still live. */
typedef struct cuprof_held_alloc {
    uint64_t ptr, bytes;
    uint16_t api;                    /* the allocating call's API id */
} cuprof_held_alloc;

typedef struct cuprof_mem_held {
    uint64_t t;                      /* the window's opening, on the windows' clock */
    uint32_t window;                 /* 1-based, as recorded */
    size_t n;
    const cuprof_held_alloc *allocs;
} cuprof_mem_held;

/* 1 when t lies in one of cap's windows (always 1 with no window). */
int cuprof_capture_contains(const cuprof_capture *cap, uint64_t t);
/* The index of the window holding t, or -1 (none, or no trigger). */
long cuprof_capture_window(const cuprof_capture *cap, uint64_t t);
/* Total length of cap's windows (0 with no window). */
uint64_t cuprof_capture_recorded_ns(const cuprof_capture *cap);

/* How a process killed outright ended, as prof.sh's supervisor saw it
 * (the run file's RECOVERED block, collector/runfile.h); all 0 / NULL
 * otherwise. */
typedef struct cuprof_killed {
    int recovered;                   /* 1: the supervisor completed its run file */
    int from_memory;                 /* 1: its last calls came from the recording memory it
                                        shared with the supervisor (none lost) */
    int oom;                         /* 1: the kernel's OOM killer ended it (its memory
                                        cgroup counted the kill as it died of SIGKILL) */
    const char *cgroup;              /* its memory cgroup, NULL unknown */
    uint64_t mem_limit;              /* that cgroup's limit, bytes; 0 none or unknown */
    uint64_t rss, rss_peak;          /* its host memory (RSS) when last seen and its peak,
                                        bytes; 0 unknown */
    uint64_t rss_ns;                 /* when it was last seen (clock ns) */
    uint64_t died_ns;                /* when it was seen gone, 0 unknown */
} cuprof_killed;

typedef struct cuprof_run {
    const char *program;             /* argv[0] as the program was started */
    const char *exe;                 /* /proc/self/exe, "" if unknown */
    int argc;                        /* arguments after argv[0] */
    const char *const *argv;         /* argc strings (argv[1..]) */
    long pid;
    uint64_t t_start;                /* clock at collector start (ns, clock.h) */
    uint64_t t_end;                  /* clock when the run was built */
    uint64_t wall_ns;                /* t_end - t_start */
    const char *clock;               /* name of the time base */
    const char *version;             /* cuprof's version that recorded it (NULL: unknown) */

    size_t napis;                    /* the API table (event.api indexes it) */
    const cuprof_api_desc *apis;

    uint32_t nkernels;               /* kernel names: ids 1..nkernels */
    const char *const *kernel_names; /* [id] = name as registered (mangled); [0] unused;
                                        model/names.h demangles them */
    const uint8_t *kernels_used;     /* [nkernels + 1]: 1 when a call launched (or asked
                                        the occupancy of) kernel id: the reader's, so that
                                        model/names.c reads no call; NULL: not known */
    uint32_t nstrings;               /* NVTX names and domains: ids 1..nstrings */
    const char *const *strings;      /* [id] (event.a.nvtx.name/domain); [0] unused */

    size_t nthreads;                 /* threads that recorded, registration order */
    const cuprof_run_thread *threads;
    uint64_t nevents;                /* sum of threads[].n */
    uint64_t dropped;                /* calls not recorded (sum of dropped_by_api) */
    const uint64_t *dropped_by_api;  /* [napis]: calls of each API not recorded (no
                                        memory, the run file could not grow); NULL = none. The table
                                        counts them (no times) */
    uint64_t spilled_events;         /* events that reached the run file while the program
                                        ran (its full chunks; summary.json's "spilled") */
    uint64_t event_bytes;            /* bytes the events took while recording (the
                                        collector's compact records); 0 unknown */
    const char *spill_failure;       /* why the run file stopped growing (recording
                                        stopped with it), NULL if it did not */

    const char *ended_by;            /* how the process ended, in words: "exit",
                                        "_exit", "exec", "SIGINT", "SIGSEGV", ...;
                                        NULL = "exit" (set by the exit path) */
    int truncated;                   /* 1: written from a crash (fatal signal,
                                        abort): calls open at the crash are missing */
    cuprof_killed killed;            /* killed outright: what the supervisor saw */

    cuprof_capture capture;          /* what was recorded: the window(s) */
    size_t nmem_held;                /* memory held at each window's opening, in order */
    const cuprof_mem_held *mem_held;
    const char *step_range;          /* name of the steps' range (model/steps.h);
                                        NULL: found by name */
    const char *step_domain;         /* its domain: "" default, "*" any (NULL = "") */
    const char *step_range_from;     /* who chose it: "--step-range", "the
                                        capture range" */

    const char *peak_device;         /* the GPU whose peaks the FLOP rates are held to
                                        when the run names none or another
                                        (prof.sh report --peak-device; NULL) */
    const char *stacks_mode;         /* how stacks were taken ("auto", "fp",
                                        "unwind"); NULL: no stacks */
    uint32_t nstacks;                /* host call stacks: ids 1..nstacks */
    const cuprof_run_stack *stacks;  /* [id]; [0] unused */
    uint32_t nframes;                /* distinct return addresses */
    const cuprof_run_frame *frames;
    uint32_t nmodules;               /* objects of the native frames (0: an older run
                                        file, whose frames get no file:line) */
    const cuprof_run_module *modules;
    uint64_t stacks_lost;            /* calls whose stack was not kept (table full) */
    int stacks_counts;               /* 1: a calls-count flame graph is wanted too */
    int trace_format;                /* CUPROF_TRACE_FORMAT_*: which trace files */
    int trace_compress;              /* CUPROF_COMPRESS_*: the Perfetto trace's */
    int trace_gzip;                  /* 1: NAME.trace.json.gz instead of trace.json */
    int export_sqlite;               /* 1: NAME.sqlite made from the JSON trace after
                                        the files (which then include it) */
    int report_html;                 /* 1: NAME.report.html too (formats/report_html.c) */

    cuprof_place place;              /* rank, host, clocks (prof.sh merge) */
    uint64_t hook_ns;                /* the recording's own cost per call, measured at the
                                        process's first call (collector/buffers.c); 0 = not measured */
    uint64_t quantile_exact_max;     /* samples a row's median keeps exactly, at most
                                        (model/quantile.h); 0 = CUPROF_QUANTILE_EXACT_MAX
                                        (tests lower it) */
    cuprof_gpu_timeline gpu;
    const char *run_file;            /* the run file the outputs were built from (NULL:
                                        none, a run built in memory) */
    uint64_t run_file_bytes;         /* its size */
    const char *run_file_lost;       /* what of it could not be read (a torn last block,
                                        a run not completed), NULL nothing */
    const char *window_files;        /* where each repeating capture window's outputs
                                        went ("x.w1.* .. x.w3.*"), NULL none */
    const struct cuprof_gpu_run *gpu_run; /* device records (model/gpu.h); NULL
                                             when none were captured */
} cuprof_run;

/* Event i of thread th (i < th->n). A streamed thread's: valid while its
 * block is (CUPROF_RUN_BLOCKS_HELD). */
static inline const cuprof_event *cuprof_run_event(const cuprof_run_thread *th, uint64_t i)
{
    if (th->chunks)
        return &th->chunks[i / th->per_chunk][i % th->per_chunk];
    return th->fetch(th, i);
}

/* Whether thread th may hold events of the classes in mask (bits 1 << cls):
 * 0 only when its classes are known and none is among them, so that a pass
 * looking for those classes can skip the thread. */
static inline int cuprof_run_thread_has(const cuprof_run_thread *th, uint32_t mask)
{
    return th->classes == 0 || (th->classes & mask) != 0;
}

/* The bit of class cls in cuprof_run_thread.classes (every bit past 31). */
static inline uint32_t cuprof_run_class_bit(unsigned cls)
{
    return cls < 32 ? 1u << cls : ~0u;
}

/* The thread holding the event of an event id, or NULL (none such): no
 * event read (a streamed thread's block is not decoded). */
const cuprof_run_thread *cuprof_run_thread_of(const cuprof_run *run, uint64_t id);

/* Thread and event behind an event id (cuprof_event_id), or NULL. */
const cuprof_event *cuprof_run_find_event(const cuprof_run *run, uint64_t id,
                                          const cuprof_run_thread **th);

/* Names for an event's api (entry point / category); "api#N" / "unknown"
 * for an index outside the table. Strings live as long as the run. */
const char *cuprof_run_api_name(const cuprof_run *run, uint16_t api);
const char *cuprof_run_api_category(const cuprof_run *run, uint16_t api);
/* Kernel name of an id as registered (raw); "(unknown kernel)" for 0 or out
 * of range. The outputs show cuprof_names_kernel's (model/names.h). */
const char *cuprof_run_kernel_name(const cuprof_run *run, uint32_t id);
/* The version string, "unknown" when the run has none. */
const char *cuprof_run_version(const cuprof_run *run);

/* What a synchronizing call's handle (a.sync.stream) is. */
enum cuprof_sync_handle {
    CUPROF_SYNC_HANDLE_NONE = 0,     /* no handle (cudaDeviceSynchronize), or not a sync */
    CUPROF_SYNC_HANDLE_STREAM = 1,   /* a stream (stream syncs, event record / wait) */
    CUPROF_SYNC_HANDLE_EVENT = 2,    /* an event (cudaEventSynchronize, cudaEventQuery) */
};
/* The handle of ev (class CUPROF_EV_SYNC or CUPROF_EV_EVENT), by its entry
 * point. */
enum cuprof_sync_handle cuprof_run_sync_handle(const cuprof_run *run, const cuprof_event *ev);

#endif /* CUPROF_RUN_H */
