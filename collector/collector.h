/*
 * collector.h - what preload/ (the hooks) may call: the event record, the
 * per-thread recording API, the kernel-name table and the API table.
 *
 * The collector is the only module with global state. Hooks know CUDA
 * signatures; they translate a call into one fixed-size cuprof_event in the
 * collector's vocabulary (a launch, a copy, a BLAS call, ...) and nothing else.
 * formats/ reads the recorded run at exit and knows nothing about CUDA calls.
 */
#ifndef CUPROF_COLLECTOR_H
#define CUPROF_COLLECTOR_H

#include "collector/event.h"

#include <stddef.h>
#include <stdint.h>

/* Registers preload's API table once (before the first cuprof_begin); the
 * table must outlive the process. Event.api indexes it. */
void cuprof_api_register(const cuprof_api_desc *table, size_t n);

/*
 * Opens a call on this thread: reserves the next event slot, stamps t0 and
 * depth, sets api and cls, and returns the slot for the hook to fill in
 * arguments. Returns NULL when this call must not be recorded (the profiler's
 * own call into CUDA, recording off, out of memory): the hook then just calls
 * the real function. Lock-free: touches only this thread's buffer.
 */
cuprof_event *cuprof_begin(uint16_t api, uint8_t cls);
/* Closes the call opened by cuprof_begin: stamps t1 and result. ev may be
 * NULL (then it does nothing). */
void cuprof_end(cuprof_event *ev, int32_t result);
/* Event id of a slot from cuprof_begin: unique in the process, never 0; used
 * as CUPTI's external correlation id. */
uint64_t cuprof_event_id(const cuprof_event *ev);

/* The profiler's own calls into CUDA (e.g. resolving a cudaMemcpyDefault
 * direction) are bracketed by these so they are not recorded:
 *     int g = cuprof_guard_enter(); ...real call...; cuprof_guard_leave(g); */
int cuprof_guard_enter(void);
void cuprof_guard_leave(int saved);
/* The same for the profiler's own calls CUPTI sees (runtime API calls such
 * as cudaPointerGetAttributes): also marks CUPTI's records of them as ours,
 * so the GPU timeline drops them instead of showing program calls. Costs a
 * CUPTI push/pop while CUPTI runs: not for hot paths. */
int cuprof_own_cuda_enter(void);
void cuprof_own_cuda_leave(int saved);

/* Kernel-name table. register: from __cudaRegisterFunction (host stub and
 * device name, which the table copies); handle: from __cudaGetKernel, binds a
 * cudaKernel_t to the stub it came from. lookup works with either a stub or a
 * handle and returns the name id, or 0 if unknown. Lock-free lookups. */
void cuprof_kernel_register(const void *host_fn, const char *device_name);
void cuprof_kernel_handle(const void *handle, const void *host_fn);
uint32_t cuprof_kernel_lookup(const void *host_fn_or_handle);

/* Starts the collector (reads CUPROF_* once, installs the exit path).
 * Idempotent and safe from any thread or constructor; every hook calls it
 * through cuprof_begin, the library's constructor calls it too. */
void cuprof_collector_init(void);

#endif /* CUPROF_COLLECTOR_H */
