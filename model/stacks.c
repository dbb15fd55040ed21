/*
 * stacks.c - GPU and CPU time by host call stack, and the launch sites
 * (see stacks.h).
 */
#include "model/stacks.h"
#include "model/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char NO_STACK_SITE[] = "[no host stack]";
static const char NO_CALL[] = "(no hooked call)";

/* A device copy or memset as a flame graph's leaf (enum cuprof_gpu_copy_kind). */
static const char *copy_leaf(int kind)
{
    static const char *const leaves[] = {"[memcpy HtoH]", "[memcpy HtoD]", "[memcpy DtoH]",
                                         "[memcpy DtoD]", "[memcpy PtoP]", "[memcpy Other]",
                                         "[memset]"};
    return kind >= 0 && kind < (int)(sizeof leaves / sizeof leaves[0]) ? leaves[kind]
                                                                      : "[memcpy Other]";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Objects of CUDA's own libraries: their frames are never a launch site. */
static int cuda_library(const char *module)
{
    static const char *const libs[] = {"libcudart", "libcublas", "libcuda.", "libcudnn",
                                       "libnccl", "libcupti", "libnvrtc", "libcufft",
                                       "libcurand", "libcusparse", "libcusolver", "libnvJit",
                                       "libcuprof"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(module, libs[i], strlen(libs[i])))
            return 1;
    return 0;
}

/* Code nvcc generates around a <<<>>> launch. */
static int launch_glue(const char *raw, const char *shown)
{
    if (raw && (strstr(raw, "__device_stub__") || strstr(raw, "__wrapper__device_stub")))
        return 1;
    return shown && strstr(shown, "cudaLaunch") && strchr(shown, '<');
}

/* The stack of event i of th: its own, or its outermost enclosing call's
 * (0 = none); *outer gets that outermost event. */
static uint32_t stack_of_event(const cuprof_run_thread *th, uint64_t i, const cuprof_event **outer)
{
    const cuprof_event *ev = cuprof_run_event(th, i);
    /* Events are in the order the calls began: the enclosing outermost call
     * is the nearest depth-0 event before (nested calls are few). */
    while (ev->depth > 0 && i > 0)
        ev = cuprof_run_event(th, --i);
    if (outer)
        *outer = ev;
    return ev->stack;
}

const char *cuprof_stacks_api_name(const cuprof_stacks *s, const cuprof_stack_row *r)
{
    return r->api == UINT16_MAX ? NO_CALL : cuprof_run_api_name(s->run, r->api);
}

static int row_cmp(const void *a, const void *b)
{
    const cuprof_stack_row *x = a, *y = b;
    if (x->stack != y->stack)
        return x->stack < y->stack ? -1 : 1;
    if (x->api != y->api)
        return x->api < y->api ? -1 : 1;
    if (x->leaf == y->leaf)
        return 0;
    if (!x->leaf || !y->leaf)
        return x->leaf ? 1 : -1;
    return strcmp(x->leaf, y->leaf);
}

/* Sorts rows and sums the equal ones; returns the new count. */
static size_t merge_rows(cuprof_stack_row *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, row_cmp);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (row_cmp(&v[k], &v[i]) == 0) {
            v[k].ns += v[i].ns;
            v[k].count += v[i].count;
        }
        else
            v[++k] = v[i];
    }
    return k + 1;
}

/* The stack and hooked call behind a device record's cause. */
static void charge(const cuprof_run *run, uint64_t hooked, cuprof_stack_row *row)
{
    row->stack = 0;
    row->api = UINT16_MAX;
    const cuprof_run_thread *th;
    const cuprof_event *ev = hooked ? cuprof_run_find_event(run, hooked, &th) : NULL;
    if (!ev)
        return;
    const cuprof_event *outer;
    uint64_t seq = cuprof_event_id_seq(hooked);
    row->stack = seq < th->n ? stack_of_event(th, seq, &outer) : 0;
    row->api = seq < th->n ? outer->api : ev->api;
}

static int site_cmp(const void *a, const void *b)
{
    const cuprof_stat_site *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns > y->gpu_total_ns ? -1 : 1;
    if (x->cpu_total_ns != y->cpu_total_ns)
        return x->cpu_total_ns > y->cpu_total_ns ? -1 : 1;
    return strcmp(x->site, y->site);
}

static int site_name_cmp(const void *a, const void *b)
{
    return strcmp(((const cuprof_stat_site *)a)->site, ((const cuprof_stat_site *)b)->site);
}

static int frames_build(cuprof_stacks *s, const cuprof_run *run, cuprof_demangle_fn demangle)
{
    uint32_t nf = run->nframes;
    s->frame = calloc(nf ? nf : 1, sizeof *s->frame);
    s->module = calloc(nf ? nf : 1, sizeof *s->module);
    s->demangled = calloc(nf ? nf : 1, sizeof *s->demangled);
    if (!s->frame || !s->module || !s->demangled)
        return -1;
    size_t bytes = 1;
    for (uint32_t i = 0; i < nf; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        if (f->python)   /* "qualname (file:line)" */
            bytes += strlen(f->symbol ? f->symbol : "?") + strlen(f->file ? f->file : "?") + 16;
        else if (!f->symbol)
            bytes += strlen(base_name(f->module)) + 24;
    }
    s->owned = malloc(bytes);
    if (!s->owned)
        return -1;
    char *w = s->owned;
    for (uint32_t i = 0; i < nf; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        s->module[i] = base_name(f->module ? f->module : "");
        if (f->python) {
            int len = sprintf(w, "%s (%s:%u)", f->symbol ? f->symbol : "?",
                              f->file && *f->file ? f->file : "?", (unsigned)f->line);
            s->frame[i] = w;
            w += len + 1;
        }
        else if (f->symbol) {
            if (demangle && !strncmp(f->symbol, "_Z", 2))
                s->demangled[i] = demangle(f->symbol);
            s->frame[i] = s->demangled[i] ? s->demangled[i] : f->symbol;
        }
        else {
            int len = sprintf(w, "%s+0x%llx", *s->module[i] ? s->module[i] : "?",
                              (unsigned long long)f->offset);
            s->frame[i] = w;
            w += len + 1;
        }
    }
    return 0;
}

/* The launch site of stack id: "function (module)" of its innermost
 * program frame, or its innermost Python frame when it has one
 * ("qualname (file:line)", as torch.profiler's stacks name a Python
 * line); frame index, or -1. */
static long site_frame(const cuprof_stacks *s, const cuprof_run *run, uint32_t id)
{
    const cuprof_run_stack *st = &run->stacks[id];
    for (uint32_t k = 0; k < st->n; k++)
        if (st->frames[k] < run->nframes && run->frames[st->frames[k]].python)
            return st->frames[k];
    for (uint32_t k = 0; k < st->n; k++) {
        uint32_t f = st->frames[k];
        if (f >= run->nframes || cuda_library(s->module[f]) ||
            launch_glue(run->frames[f].symbol, s->frame[f]))
            continue;
        return f;
    }
    return st->n ? (long)st->frames[st->n - 1] : -1;
}

static int sites_build(cuprof_stacks *s, const cuprof_run *run)
{
    /* One site per distinct frame index (plus the no-stack one): the frame
     * names are distinct per address, so sites of the same function at two
     * addresses merge by name below. */
    uint32_t ns = run->nstacks;
    long *site_of = malloc(((size_t)ns + 1) * sizeof *site_of);
    cuprof_stat_site *v = calloc((size_t)ns + 2, sizeof *v);
    char *names = NULL;
    size_t bytes = 0;
    if (!site_of || !v) {
        free(site_of);
        free(v);
        return -1;
    }
    site_of[0] = -1;
    for (uint32_t id = 1; id <= ns; id++) {
        site_of[id] = site_frame(s, run, id);
        if (site_of[id] >= 0) {   /* "frame (module)", "?" for no module; a Python
                                     frame's name says its file and line */
            const char *m = s->module[site_of[id]];
            bytes += strlen(s->frame[site_of[id]]) + (*m ? strlen(m) : 1) + 4;
        }
    }
    names = malloc(bytes + 1);
    if (!names) {
        free(site_of);
        free(v);
        return -1;
    }
    /* v[id] for stack id, v[0] for no stack; names filled, then merged */
    char *w = names;
    s->stack_site = calloc((size_t)ns + 1, sizeof *s->stack_site);
    if (!s->stack_site) {
        free(site_of);
        free(v);
        free(names);
        return -1;
    }
    v[0].site = NO_STACK_SITE;
    for (uint32_t id = 1; id <= ns; id++) {
        long f = site_of[id];
        if (f < 0) {
            v[id].site = NO_STACK_SITE;
            continue;
        }
        v[id].site = w;
        if (run->frames[f].python)
            w += sprintf(w, "%s", s->frame[f]) + 1;
        else
            w += sprintf(w, "%s (%s)", s->frame[f], *s->module[f] ? s->module[f] : "?") + 1;
    }
    for (uint32_t id = 0; id <= ns; id++)
        s->stack_site[id] = v[id].site;
    for (size_t i = 0; i < s->ngpu; i++) {
        cuprof_stat_site *t = &v[s->gpu[i].stack <= ns ? s->gpu[i].stack : 0];
        t->gpu_total_ns += s->gpu[i].ns;
        if (s->gpu[i].leaf && s->gpu[i].leaf[0] != '[')
            t->kernels += s->gpu[i].count;
    }
    for (size_t i = 0; i < s->ncpu; i++) {
        cuprof_stat_site *t = &v[s->cpu[i].stack <= ns ? s->cpu[i].stack : 0];
        t->cpu_total_ns += s->cpu[i].ns;
        t->calls += s->cpu[i].count;
    }
    /* merge by name: two addresses in one function are one site */
    size_t n = (size_t)ns + 1, k = 0;
    qsort(v, n, sizeof *v, site_name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!v[i].gpu_total_ns && !v[i].calls)
            continue;
        if (k > 0 && !strcmp(v[k - 1].site, v[i].site)) {
            v[k - 1].gpu_total_ns += v[i].gpu_total_ns;
            v[k - 1].kernels += v[i].kernels;
            v[k - 1].calls += v[i].calls;
            v[k - 1].cpu_total_ns += v[i].cpu_total_ns;
        }
        else
            v[k++] = v[i];
    }
    qsort(v, k, sizeof *v, site_cmp);
    free(site_of);
    s->sites = v;
    s->nsites = k;
    s->site_names = names;
    return 0;
}

cuprof_stacks *cuprof_stacks_build(const cuprof_run *run, const cuprof_names *names,
                                   const cuprof_timeline *tl, cuprof_demangle_fn demangle)
{
    cuprof_stacks *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->run = run;
    if (!run->stacks || run->nstacks == 0)
        return s;
    if (frames_build(s, run, demangle) < 0)
        goto fail;

    const cuprof_gpu_run *gpu = tl->gpu;
    size_t ng = gpu->n_kernels + gpu->n_copies;
    s->gpu = calloc(ng ? ng : 1, sizeof *s->gpu);
    if (!s->gpu)
        goto fail;
    for (size_t i = 0; i < gpu->n_kernels; i++) {
        cuprof_stack_row *r = &s->gpu[s->ngpu++];
        charge(run, tl->kernel_cause[i].hooked, r);
        r->leaf = names->gpu_kernel[i];
        r->ns = gpu->kernels[i].end_ns - gpu->kernels[i].start_ns;
        r->count = 1;
    }
    for (size_t i = 0; i < gpu->n_copies; i++) {
        cuprof_stack_row *r = &s->gpu[s->ngpu++];
        charge(run, tl->copy_cause[i].hooked, r);
        r->leaf = copy_leaf(gpu->copies[i].kind);
        r->ns = gpu->copies[i].end_ns - gpu->copies[i].start_ns;
        r->count = 1;
    }
    s->ngpu = merge_rows(s->gpu, s->ngpu);

    uint64_t nc = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++)
            nc += cuprof_run_event(&run->threads[t], i)->stack != 0;
    s->cpu = calloc(nc ? nc : 1, sizeof *s->cpu);
    if (!s->cpu)
        goto fail;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (!ev->stack || ev->stack > run->nstacks)
                continue;
            cuprof_stack_row *r = &s->cpu[s->ncpu++];
            r->stack = ev->stack;
            r->api = ev->api;
            r->ns = ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
            r->count = 1;
        }
    }
    s->ncpu = merge_rows(s->cpu, s->ncpu);
    for (size_t i = 0; i < s->ngpu; i++)
        s->gpu_total_ns += s->gpu[i].ns;
    for (size_t i = 0; i < s->ncpu; i++)
        s->cpu_total_ns += s->cpu[i].ns;
    if (sites_build(s, run) < 0)
        goto fail;
    return s;
fail:
    cuprof_stacks_destroy(s);
    return NULL;
}

void cuprof_stacks_destroy(cuprof_stacks *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->demangled && i < s->run->nframes; i++)
        free(s->demangled[i]);
    free(s->demangled);
    free(s->frame);
    free(s->module);
    free(s->owned);
    free(s->gpu);
    free(s->cpu);
    free(s->sites);
    free(s->site_names);
    free(s->stack_site);
    free(s);
}

const char *cuprof_stacks_site(const cuprof_stacks *s, uint32_t stack)
{
    if (!s || !s->stack_site || !s->run || stack > s->run->nstacks)
        return NO_STACK_SITE;
    return s->stack_site[stack];
}
