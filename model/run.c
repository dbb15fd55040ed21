/*
 * run.c - reading a recorded run: events by id, names by index (see run.h).
 */
#include "model/run.h"

#include <stddef.h>
#include <string.h>

static const char UNKNOWN_KERNEL[] = "(unknown kernel)";

const cuprof_run_thread *cuprof_run_thread_of(const cuprof_run *run, uint64_t id)
{
    uint32_t index = cuprof_event_id_thread(id);
    uint64_t seq = cuprof_event_id_seq(id);
    if (seq == UINT64_MAX)
        return NULL;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *cand = &run->threads[t];
        if (cand->index == index)
            return seq < cand->n ? cand : NULL;
    }
    return NULL;
}

const cuprof_event *cuprof_run_find_event(const cuprof_run *run, uint64_t id,
                                          const cuprof_run_thread **th)
{
    const cuprof_run_thread *cand = cuprof_run_thread_of(run, id);
    if (!cand)
        return NULL;
    if (th)
        *th = cand;
    return cuprof_run_event(cand, cuprof_event_id_seq(id));
}

const char *cuprof_run_api_name(const cuprof_run *run, uint16_t api)
{
    if (api < run->napis && run->apis[api].name)
        return run->apis[api].name;
    return "(unknown api)";
}

const char *cuprof_run_api_category(const cuprof_run *run, uint16_t api)
{
    if (api < run->napis && run->apis[api].category)
        return run->apis[api].category;
    return "unknown";
}

const char *cuprof_run_kernel_name(const cuprof_run *run, uint32_t id)
{
    if (id == 0 || id > run->nkernels || !run->kernel_names || !run->kernel_names[id])
        return UNKNOWN_KERNEL;
    return run->kernel_names[id];
}

const char *cuprof_run_version(const cuprof_run *run)
{
    return run->version ? run->version : "unknown";
}

enum cuprof_sync_handle cuprof_run_sync_handle(const cuprof_run *run, const cuprof_event *ev)
{
    if (ev->cls == CUPROF_EV_EVENT)
        return CUPROF_SYNC_HANDLE_STREAM;   /* cudaEventRecord(ev, stream), cudaStreamWaitEvent */
    if (ev->cls != CUPROF_EV_SYNC)
        return CUPROF_SYNC_HANDLE_NONE;
    const char *api = cuprof_run_api_name(run, ev->api);
    if (strstr(api, "DeviceSynchronize") || strstr(api, "CtxSynchronize"))
        return CUPROF_SYNC_HANDLE_NONE;
    return strstr(api, "Event") ? CUPROF_SYNC_HANDLE_EVENT : CUPROF_SYNC_HANDLE_STREAM;
}

long cuprof_capture_window(const cuprof_capture *cap, uint64_t t)
{
    /* windows are in time order and do not overlap: binary search */
    size_t lo = 0, hi = cap->nwindows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cap->windows[mid][1] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cap->nwindows && cap->windows[lo][0] <= t ? (long)lo : -1;
}

int cuprof_capture_contains(const cuprof_capture *cap, uint64_t t)
{
    return !cap->trigger || cuprof_capture_window(cap, t) >= 0;
}

uint64_t cuprof_capture_recorded_ns(const cuprof_capture *cap)
{
    uint64_t sum = 0;
    for (size_t w = 0; cap->trigger && w < cap->nwindows; w++)
        if (cap->windows[w][1] > cap->windows[w][0])
            sum += cap->windows[w][1] - cap->windows[w][0];
    return sum;
}
