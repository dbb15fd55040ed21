/*
 * test_preload.h - what the fake collector (test_preload_collector.c) and the
 * hook tests (test_preload.c) agree on.
 *
 * The fake collector implements collector/collector.h for the hooks alone
 * (build/tests/preload/libcuprof_hooks.so, preloaded before it). It keeps
 * every event in memory and, at exit, writes them as text to the file named
 * by TEST_PRELOAD_OUT:
 *     api <id> <name> <category>
 *     kernel <id> <device name>
 *     stat <name> <value>          (begin_before_register, guard_enters,
 *                                   guard_leaves, guarded_begins, inits,
 *                                   capture_start_at, capture_stop_at)
 *     ev <api> <cls> <depth> <result> <raw0> .. <raw4>   (raw in hex)
 * in the order the events began. To prove that hooks keep errno, its
 * cuprof_begin and cuprof_end set errno to TEST_PRELOAD_ERRNO.
 *
 * With TEST_PRELOAD_HELPERS defined, also the helpers test_preload.c uses
 * (test_preload_run.c): running the test programs and reading the dump.
 */
#ifndef TEST_PRELOAD_H
#define TEST_PRELOAD_H

#define TEST_PRELOAD_OUT_ENV "TEST_PRELOAD_OUT"
#define TEST_PRELOAD_ERRNO 9876

/* ---- helpers of test_preload.c (test_preload_run.c) ------------------------ */
#ifdef TEST_PRELOAD_HELPERS
#include "collector/collector.h"
#include "harness.h"

#define MAX_EV 4096
#define MAX_NAMES 8192
#define MAX_CALLS 128

/* What the fake collector dumped. */
typedef struct dump {
    char *api[MAX_NAMES], *cat[MAX_NAMES];
    int n_api;
    char *kernel[MAX_NAMES]; /* by id */
    int begin_before_register, guard_enters, guard_leaves, guarded_begins;
    int capture_start_at, capture_stop_at; /* events begun when the profiler-API
                                              trigger was told (-1: never) */
    cuprof_event ev[MAX_EV];
    int n_ev;
} dump;

/* What a program printed: "N name r=R errno=E" per call. */
typedef struct calls {
    char name[MAX_CALLS][96];
    int r[MAX_CALLS], err[MAX_CALLS];
    int n;
} calls;

/* Parses a dump file (fails the test if it is missing). */
dump *dump_load(const char *path);
void dump_free(dump *d);
/* Parses "N name r=R errno=E" lines. */
void calls_parse(const char *out, calls *c);
/* Value printed after "key" in out (decimal or 0x hex); fails if absent. */
unsigned long long printed(const char *out, const char *key);
/* 1 when build/sim/libcudart.so.13 exists. */
int have_sim(void);
/* $CUDA_HOME/lib64: the real NVIDIA libraries. */
const char *real_libdir(void);
/*
 * Runs build/tests/preload/<prog> [arg] with libdir first on the library
 * path, with the hooks and the fake collector preloaded when preload != 0
 * (then *d gets the dump, owned by the caller).
 */
e2e_result run_prog(const char *prog, const char *arg, const char *libdir, int preload, dump **d);
/* API id of a hook in the registered table (fails if absent). */
int api_id(const dump *d, const char *name);
const char *ev_name(const dump *d, const cuprof_event *e);
const char *kernel_name(const dump *d, uint32_t id);
/* i-th recorded event of class cls (-1: any), or NULL. */
const cuprof_event *nth(const dump *d, int cls, int i);
#endif

#endif
