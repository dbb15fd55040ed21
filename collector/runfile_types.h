/*
 * runfile_types.h - the plain types the recorder fills and the run file
 * carries to the reader and the model (issue 40.5): where the process ran,
 * a resolved host stack, the capture window, the GPU timeline's state, the
 * trace settings, and the copy and memory kinds of CUPTI's records. The
 * run file's own block, record and tag layout is collector/runfile.h.
 *
 * Why here: collector/ fills these and model/ reads them; defined in
 * model/ (as they were), the library that goes into the program included
 * the model's headers, an arrow up the layering. collector/ includes
 * nothing of model/ or formats/, and model/ includes of collector/ only
 * this and event.h (tests/layering checks both). Types and constants only.
 */
#ifndef CUPROF_RUNFILE_TYPES_H
#define CUPROF_RUNFILE_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Whether device-side records were captured, and why not. */
typedef struct cuprof_gpu_timeline {
    int captured;                    /* 1 when GPU records are in the run */
    const char *reason;              /* never NULL: why not captured (or a note) */
} cuprof_gpu_timeline;

/* The capture window (collector/capture.c, CUPROF_CAPTURE_RANGE & co):
 * what was recorded when the whole run was not. trigger NULL: the whole
 * run was recorded (every other field 0). */
typedef struct cuprof_capture {
    const char *trigger;             /* in words: "cudaProfilerStart/Stop",
                                        "NVTX range step", "time"; NULL = whole run */
    const char *spec;                /* as given: "nvtx:step", "cudaProfilerApi",
                                        "delay 2 s, duration 1 s" */
    uint32_t repeat;                 /* windows before recording stops for good;
                                        0 = the trigger's end does not close it */
    uint32_t skip_first;             /* occurrences of the trigger that opened none */
    uint64_t seen;                   /* occurrences of the trigger seen */
    uint64_t opened;                 /* windows opened (nwindows may be fewer) */
    size_t nwindows;                 /* windows kept, in order */
    const uint64_t (*windows)[2];    /* [open, close) on the host clock; a window
                                        still open at the end closes at t_end */
    int open_at_end;                 /* 1: the last window was open when the run ended */
    uint64_t outside_calls;          /* 1 when calls were made outside every window
                                        (not counted further: that costs the hooks) */
    /* the flight recorder (trigger "flight recorder"): 0/NULL otherwise */
    uint64_t flight_ns;              /* the span kept */
    uint64_t flight_bytes;           /* the ring's bound */
    uint64_t flight_peak_bytes;      /* the most it held */
    uint64_t flight_evicted_until;   /* the ring was full: records kept before this
                                        (host ns) went within the span; 0 never */
    const char *const *window_why;   /* [nwhy]: why each window was written */
    size_t nwhy;
} cuprof_capture;

/* A return address of a host call stack, resolved at exit
 * (collector/stacks_sym.c). */
typedef struct cuprof_run_frame {
    uint64_t pc;                     /* return address (the call is just before it) */
    const char *module;              /* path of the object it lies in, "" unknown */
    const char *symbol;              /* function as in the ELF symbol table (C++
                                        mangled; the model demangles), NULL unknown */
    uint64_t offset;                 /* pc - function start; pc - module base when
                                        the function is unknown */
    const char *file;                /* source file, NULL unknown: a Python frame's
                                        co_filename, or a native frame's DWARF line
                                        (resolved by cuprof-report, not in the process) */
    uint32_t line;                   /* its line, 0 unknown */
    uint8_t python;                  /* 1: a Python frame (symbol = qualified name) */
} cuprof_run_frame;

/* An object the stacks' native frames lie in, as it was mapped in the
 * process (collector/stacks_sym.c): what cuprof-report needs to find its
 * debug information and check it is the same build (formats/runfile/srcline.c). */
typedef struct cuprof_run_module {
    const char *path;                /* as the frames' module names it */
    uint64_t base;                   /* load bias: pc - base is the file's address */
    const uint8_t *build_id;         /* its GNU build id (NT_GNU_BUILD_ID), NULL none */
    uint32_t build_id_len;           /* its bytes */
} cuprof_run_module;

/* One distinct host call stack (event.stack is its id). */
typedef struct cuprof_run_stack {
    uint32_t n;                      /* frames */
    const uint32_t *frames;          /* indexes into run->frames, innermost (the
                                        hooked call's caller) first */
} cuprof_run_stack;

/* Which trace files a run writes (CUPROF_FORMAT, prof.sh --format). AUTO:
 * NAME.trace.json up to CUPROF_TRACE_AUTO_EVENTS events (calls and GPU
 * records), NAME.perfetto-trace beyond (JSON does not scale: formats/). */
enum {
    CUPROF_TRACE_FORMAT_AUTO = 0,
    CUPROF_TRACE_FORMAT_JSON = 1,
    CUPROF_TRACE_FORMAT_PERFETTO = 2,
    CUPROF_TRACE_FORMAT_BOTH = 3,
    CUPROF_TRACE_FORMAT_NONE = 4,   /* no trace: the summaries only */
};
#define CUPROF_TRACE_AUTO_EVENTS 1000000u

/* How NAME.perfetto-trace is compressed (CUPROF_COMPRESS, prof.sh
 * --compress): in blocks of packets, as Perfetto's own tracing service does.
 * AUTO: zstd (TracePacket.zstd_compressed_packets: Perfetto v58, Aug 2026,
 * and ui.perfetto.dev), else zlib where libzstd cannot be loaded. ZLIB:
 * TracePacket.compressed_packets, which every Perfetto reads. NONE: plain
 * packets. */
enum {
    CUPROF_COMPRESS_AUTO = 0,
    CUPROF_COMPRESS_ZSTD = 1,
    CUPROF_COMPRESS_ZLIB = 2,
    CUPROF_COMPRESS_NONE = 3,
};

/* Where the process ran and which rank of a job it was (collector/place.c):
 * the launcher's variables, the host, and the clocks read together so that
 * runs of several processes can be put on one time axis (prof.sh merge). */
typedef struct cuprof_place {
    const char *launcher;            /* whose variables gave the rank: "Open MPI",
                                        "PMIx", "PMI", "torchrun", "Slurm"; NULL:
                                        no rank (a single process) */
    int32_t rank, world_size;        /* -1: unknown */
    int32_t local_rank, local_size;  /* on this host; -1: unknown */
    const char *host;                /* host name, "" unknown */
    const char *boot_id;             /* the kernel's boot id: processes with the same
                                        one share CLOCK_MONOTONIC; "" unknown */
    const char *visible_devices;     /* CUDA_VISIBLE_DEVICES as set, NULL unset */
    uint64_t mono_start, real_start; /* CLOCK_MONOTONIC and CLOCK_REALTIME (ns since
                                        the epoch) read together at the start */
    uint64_t mono_end, real_end;     /* and at the end; 0: not read */
} cuprof_place;

/* Copy kinds. The first six have the values of enum cuprof_dir
 * (collector.h) so tables can merge CPU-side and GPU-side copies. */
enum cuprof_gpu_copy_kind {
    CUPROF_GPU_COPY_HTOH = 0,
    CUPROF_GPU_COPY_HTOD = 1,
    CUPROF_GPU_COPY_DTOH = 2,
    CUPROF_GPU_COPY_DTOD = 3,
    CUPROF_GPU_COPY_PTOP = 4,    /* peer to peer, between two devices */
    CUPROF_GPU_COPY_OTHER = 5,   /* array copies (AtoD, ...) and unknown */
    CUPROF_GPU_COPY_MEMSET = 6,  /* a memset: value and dst_mem are set */
};

/* Memory kinds of a copy's ends (values of CUpti_ActivityMemoryKind). */
enum cuprof_gpu_mem {
    CUPROF_GPU_MEM_UNKNOWN = 0,
    CUPROF_GPU_MEM_PAGEABLE = 1,
    CUPROF_GPU_MEM_PINNED = 2,
    CUPROF_GPU_MEM_DEVICE = 3,
    CUPROF_GPU_MEM_ARRAY = 4,
    CUPROF_GPU_MEM_MANAGED = 5,
};

#endif /* CUPROF_RUNFILE_TYPES_H */
