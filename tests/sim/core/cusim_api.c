/*
 * cusim_api.c - traced runtime-API calls: correlation ids and the api_enter /
 * api_exit hooks.
 *
 * This is on every runtime call's path (two million cudaLaunchKernel calls in
 * a benchmark), so with no tool attached it touches only thread-local state:
 * correlation ids are handed out in blocks per thread, so the shared counter
 * is written once per CORR_BLOCK calls, not once per call.
 */
#include "cusim_internal.h"

#include <string.h>

#define CORR_BLOCK 256u

/* Next id block to hand out, minus one (ids start at 1). */
static _Atomic uint32_t corr_blocks;

static uint32_t next_correlation(void)
{
    cusim_thread *t = &cusim_self;
    if (__builtin_expect(t->corr_next == t->corr_end, 0)) {
        uint32_t base = atomic_fetch_add_explicit(&corr_blocks, CORR_BLOCK,
                                                  memory_order_relaxed) + 1;
        t->corr_next = base;
        t->corr_end = base + CORR_BLOCK;
    }
    return t->corr_next++;
}

/* Opens a call of either domain (c->driver already set). */
static void begin(cusim_api_call *c, uint32_t cbid, const char *name, const void *params,
                  const char *symbol_name)
{
    cusim_thread *t = &cusim_self;
    c->cbid = cbid;
    c->name = name;
    c->params = params;
    c->symbol_name = symbol_name;
    c->status = 0;
    c->correlation_id = next_correlation();
    c->thread_id = cusim_gettid();
    c->end_gpu_ns = 0;
    if (t->depth < CUSIM_API_DEPTH) {
        t->corr[t->depth] = c->correlation_id;
        t->name[t->depth] = name;
    }
    t->depth++;
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool == NULL) {
        c->start_gpu_ns = 0;
        return;
    }
    c->start_gpu_ns = cusim_gpu_ns();
    if (tool->api_enter != NULL)
        tool->api_enter(c);
}

void cusim_api_begin_sym(cusim_api_call *c, uint32_t cbid, const char *name, const void *params,
                         const char *symbol_name)
{
    c->driver = 0;
    begin(c, cbid, name, params, symbol_name);
}

void cusim_api_begin(cusim_api_call *c, uint32_t cbid, const char *name, const void *params)
{
    cusim_api_begin_sym(c, cbid, name, params, NULL);
}

void cusim_api_begin_driver(cusim_api_call *c, uint32_t cbid, const char *name,
                            const void *params, const char *symbol_name)
{
    /* The flag must be set before the tool's api_enter hook sees the call. */
    c->driver = 1;
    begin(c, cbid, name, params, symbol_name);
}

void cusim_api_end(cusim_api_call *c, int status)
{
    cusim_thread *t = &cusim_self;
    c->status = status;
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool != NULL) {
        c->end_gpu_ns = cusim_gpu_ns();
        if (tool->api_exit != NULL)
            tool->api_exit(c);
    }
    if (t->depth > 0)
        t->depth--;
}

int cusim_current_call_async(void)
{
    cusim_thread *t = &cusim_self;
    if (t->depth == 0)
        return 0;
    int i = t->depth <= CUSIM_API_DEPTH ? t->depth - 1 : CUSIM_API_DEPTH - 1;
    return t->name[i] != NULL && strstr(t->name[i], "Async") != NULL;
}

uint32_t cusim_current_correlation(void)
{
    cusim_thread *t = &cusim_self;
    if (t->depth == 0)
        return 0;
    int i = t->depth <= CUSIM_API_DEPTH ? t->depth - 1 : CUSIM_API_DEPTH - 1;
    return t->corr[i];
}
