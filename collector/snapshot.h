/*
 * snapshot.h - the step from recording to the model: at exit the live
 * collector (per-thread chunks, spill file, kernel-name table, API table,
 * drop counters) is turned into a cuprof_run (model/run.h), the model's
 * only input besides CUPTI's records.
 */
#ifndef CUPROF_SNAPSHOT_H
#define CUPROF_SNAPSHOT_H

#include "model/run.h"

/* The calls completed so far on every thread (calls still open are left
 * out), as views into the collector's chunks (their stamps turned into ns
 * in place), with the process metadata and raw kernel names. Returns NULL
 * on out of memory. Owned by the caller: cuprof_snapshot_destroy. */
cuprof_run *cuprof_snapshot_build(void);
void cuprof_snapshot_destroy(cuprof_run *run);

/* name demangled as c++filt would (__cxa_demangle from a dlopen'd
 * libstdc++, looked up once), malloc'd; NULL when it is not a mangled C++
 * name or no demangler is available. The model's cuprof_demangle_fn. */
char *cuprof_snapshot_demangle(const char *name);

/* Records the GPU timeline state, by whoever knows it (the CUPTI code).
 * reason is copied. Default: not captured, "CUPTI not started". */
void cuprof_gpu_timeline_set(int captured, const char *reason);

#endif /* CUPROF_SNAPSHOT_H */
