/*
 * stacks.c - GPU and CPU time by host call stack, and the launch sites
 * (see stacks.h).
 */
#include "model/stacks.h"
#include "model/stacks_int.h"
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

/* Code nvcc and CUDA's headers put around a <<<>>> launch: the stub, the
 * header inlines DWARF shows as frames of their own (srcline.c), the
 * cudaLaunchKernel<> template. */
static int launch_glue(const char *raw, const char *shown, const char *file)
{
    if (raw && (strstr(raw, "__device_stub__") || strstr(raw, "__wrapper__device_stub") ||
                strstr(raw, "__cudaLaunchKernel_helper")))
        return 1;
    if (file && (!strcmp(base_name(file), "cuda_runtime.h") ||
                 !strcmp(base_name(file), "cuda_runtime_api.h") || strstr(file, "/include/crt/")))
        return 1;   /* an inline of CUDA's headers (the template, the helper) */
    return shown && strstr(shown, "cudaLaunch") && strchr(shown, '<');
}

/* Objects that are never the program's own code: the Python interpreter
 * (under Python frames it is how they run), the C library and the loader
 * (the frames below main), libffi (ctypes' calls). */
static int not_program(const char *module)
{
    static const char *const libs[] = {"libpython", "python", "libc.so", "ld-linux",
                                       "libffi", "libgcc_s", "libstdc++"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(module, libs[i], strlen(libs[i])))
            return 1;
    return 0;
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

/* A user frame (stacks.h): Python, or the program's own code. */
static int user_frame(const cuprof_run_frame *f, const char *module, const char *shown)
{
    if (f->python)
        return 1;
    if (f->symbol && !strcmp(f->symbol, "_start"))
        return 0;
    return !cuda_library(module) && !not_program(module) && !launch_glue(f->symbol, shown, f->file);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* nvcc's host function named after a kernel (raw symbol _Z12probe_kernelPi,
 * at the kernel's declaration line) calls the kernel's __device_stub__ (or,
 * inlined, __wrapper__device_stub_bias_add<float>): it is launch glue as the
 * stub is, not the program's launch site. Marks the frames whose symbol is
 * the kernel of a stub among the run's frames. */
static int kernel_wrappers(cuprof_stacks *s, const cuprof_run *run)
{
    static const char STUB[] = "__device_stub_", WRAP[] = "__wrapper__device_stub_";
    char **k = malloc((run->nframes ? run->nframes : 1) * sizeof *k);
    if (!k)
        return -1;
    size_t n = 0;
    for (uint32_t i = 0; i < run->nframes; i++) {
        const char *sym = run->frames[i].symbol, *id = sym;
        size_t len = sym ? strlen(sym) : 0;
        if (!sym || run->frames[i].python)
            continue;
        if (!strncmp(sym, "_Z", 2)) {   /* the stub mangled: _Z27__device_stub__Z12kPiPi */
            char *end;
            unsigned long l = strtoul(sym + 2, &end, 10);
            if (end == sym + 2 || l > strlen(end))
                continue;
            id = end;
            len = l;
        }
        if (!strncmp(sym, WRAP, sizeof WRAP - 1) && sym[sizeof WRAP - 1]) {
            /* an inlined wrapper names the kernel as DWARF does: "bias_add<float>" */
            k[n] = strdup(sym + sizeof WRAP - 1);
            n += k[n] != NULL;
            continue;
        }
        if (len <= sizeof STUB - 1 || strncmp(id, STUB, sizeof STUB - 1))
            continue;
        /* "_Z12probe_kernelPi", or "_k" for a C kernel k */
        k[n] = strndup(id + sizeof STUB - 1, len - (sizeof STUB - 1));
        if (k[n])
            n++;
    }
    if (n)
        qsort(k, n, sizeof *k, str_cmp);
    for (uint32_t i = 0; n && i < run->nframes; i++) {
        const char *sym = run->frames[i].symbol;
        if (!sym || run->frames[i].python || !s->user[i])
            continue;
        char c[256];
        const char *key = sym;
        if (strncmp(sym, "_Z", 2)) {   /* extern "C" kernel k: stub __device_stub__k */
            if (strlen(sym) + 2 > sizeof c)
                continue;
            c[0] = '_';
            strcpy(c + 1, sym);
            key = c;
        }
        if (bsearch(&key, k, n, sizeof *k, str_cmp) || bsearch(&sym, k, n, sizeof *k, str_cmp))
            s->user[i] = 0;
    }
    for (size_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
    return 0;
}

static int frames_build(cuprof_stacks *s, const cuprof_run *run, cuprof_demangle_fn demangle)
{
    uint32_t nf = run->nframes;
    s->frame = calloc(nf ? nf : 1, sizeof *s->frame);
    s->module = calloc(nf ? nf : 1, sizeof *s->module);
    s->demangled = calloc(nf ? nf : 1, sizeof *s->demangled);
    s->user = calloc(nf ? nf : 1, 1);
    if (!s->frame || !s->module || !s->demangled || !s->user)
        return -1;
    for (uint32_t i = 0; i < nf; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        s->module[i] = base_name(f->module ? f->module : "");
        if (f->symbol && demangle && !f->python && !strncmp(f->symbol, "_Z", 2))
            s->demangled[i] = demangle(f->symbol);
    }
    size_t bytes = 1;
    for (uint32_t i = 0; i < nf; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        bytes += (s->demangled[i] ? strlen(s->demangled[i])
                  : f->symbol     ? strlen(f->symbol)
                                  : strlen(s->module[i]) + 24) +
                 (f->file ? strlen(base_name(f->file)) + 16 : 0) + 1;
    }
    s->owned = malloc(bytes);
    if (!s->owned)
        return -1;
    char *w = s->owned;
    for (uint32_t i = 0; i < nf; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        s->frame[i] = w;
        if (f->symbol)
            w += sprintf(w, "%s", s->demangled[i] ? s->demangled[i] : f->symbol);
        else
            w += sprintf(w, "%s+0x%llx", *s->module[i] ? s->module[i] : "?",
                         (unsigned long long)f->offset);
        if (f->file && f->line)
            w += sprintf(w, " (%s:%u)", base_name(f->file), (unsigned)f->line);
        else if (f->file)
            w += sprintf(w, " (%s)", base_name(f->file));
        w++;
        s->python |= f->python;
        s->user[i] = user_frame(f, s->module[i], s->frame[i]);
    }
    return kernel_wrappers(s, run);
}

size_t cuprof_stacks_user_frames(const cuprof_stacks *s, uint32_t stack, uint32_t *out,
                                 size_t max)
{
    const cuprof_run *run = s->run;
    if (!s->user || stack == 0 || stack > run->nstacks)
        return 0;
    const cuprof_run_stack *st = &run->stacks[stack];
    size_t n = 0;
    for (uint32_t k = 0; k < st->n && n < max; k++)
        if (st->frames[k] < run->nframes && s->user[st->frames[k]])
            out[n++] = st->frames[k];
    return n;
}

/* The launch site of stack id: its innermost Python frame, else its
 * innermost user frame, else its outermost frame (frame index, or -1). */
static long site_frame(const cuprof_stacks *s, const cuprof_run *run, uint32_t id)
{
    const cuprof_run_stack *st = &run->stacks[id];
    for (uint32_t k = 0; k < st->n; k++)
        if (st->frames[k] < run->nframes && run->frames[st->frames[k]].python)
            return st->frames[k];
    for (uint32_t k = 0; k < st->n; k++)
        if (st->frames[k] < run->nframes && s->user[st->frames[k]])
            return st->frames[k];
    return st->n ? (long)st->frames[st->n - 1] : -1;
}

/* Frame f as a site: its display name when it has a source line (the
 * line says where), else "name (module)". Returns the length written. */
static int site_name(const cuprof_stacks *s, uint32_t f, char *w)
{
    if (s->run->frames[f].file)
        return sprintf(w, "%s", s->frame[f]);
    return sprintf(w, "%s (%s)", s->frame[f], *s->module[f] ? s->module[f] : "?");
}

static size_t site_name_len(const cuprof_stacks *s, uint32_t f)
{
    return strlen(s->frame[f]) + strlen(s->module[f]) + 5;
}

/* CUDA total of each site (s->sites sorted by name): the GPU time of every
 * stack that has the site among its user frames, once per stack. */
static int sites_inclusive(cuprof_stacks *s, const cuprof_run *run)
{
    uint32_t ns = run->nstacks;
    uint64_t *gpu = calloc((size_t)ns + 1, sizeof *gpu);
    uint32_t *seen = calloc(s->nsites ? s->nsites : 1, sizeof *seen);   /* last stack id */
    size_t maxlen = 0;
    for (uint32_t f = 0; f < run->nframes; f++)
        if (site_name_len(s, f) > maxlen)
            maxlen = site_name_len(s, f);
    char *buf = malloc(maxlen + 1);
    if (!gpu || !seen || !buf) {
        free(gpu);
        free(seen);
        free(buf);
        return -1;
    }
    for (size_t i = 0; i < s->ngpu; i++)
        gpu[s->gpu[i].stack <= ns ? s->gpu[i].stack : 0] += s->gpu[i].ns;
    for (size_t i = 0; i < s->nsites; i++)   /* the no-stack site is its own total */
        if (s->sites[i].site == NO_STACK_SITE)
            s->sites[i].cuda_total_ns = s->sites[i].gpu_total_ns;
    for (uint32_t id = 1; id <= ns; id++) {
        const cuprof_run_stack *st = &run->stacks[id];
        for (uint32_t k = 0; gpu[id] && k < st->n; k++) {
            uint32_t f = st->frames[k];
            if (f >= run->nframes || !s->user[f])
                continue;
            site_name(s, f, buf);
            cuprof_stat_site key = {.site = buf};
            cuprof_stat_site *t = bsearch(&key, s->sites, s->nsites, sizeof key, site_name_cmp);
            if (!t || seen[t - s->sites] == id)
                continue;
            seen[t - s->sites] = id;
            t->cuda_total_ns += gpu[id];
        }
    }
    /* a site that is its stacks' outermost frame only (no user frame) */
    for (size_t i = 0; i < s->nsites; i++)
        if (s->sites[i].cuda_total_ns < s->sites[i].gpu_total_ns)
            s->sites[i].cuda_total_ns = s->sites[i].gpu_total_ns;
    free(gpu);
    free(seen);
    free(buf);
    return 0;
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
        if (site_of[id] >= 0)
            bytes += site_name_len(s, (uint32_t)site_of[id]);
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
        w += site_name(s, (uint32_t)f, w) + 1;
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
    s->sites = v;
    s->nsites = k;
    s->site_names = names;
    int rc = sites_inclusive(s, run);
    qsort(v, k, sizeof *v, site_cmp);
    free(site_of);
    return rc;
}

/* Time by stack and hooked call: the CPU rows' calls and time, the GPU
 * rows' time summed over what ran (both sorted by stack, api). */
static int by_stack_build(cuprof_stacks *s)
{
    s->by_stack = calloc(s->ncpu + s->ngpu + 1, sizeof *s->by_stack);
    if (!s->by_stack)
        return -1;
    size_t i = 0, j = 0, n = 0;
    while (i < s->ncpu || j < s->ngpu) {
        const cuprof_stack_row *c = i < s->ncpu ? &s->cpu[i] : NULL;
        const cuprof_stack_row *g = j < s->ngpu ? &s->gpu[j] : NULL;
        const cuprof_stack_row *r = !g || (c && row_cmp(c, g) <= 0) ? c : g;
        if (r->stack == 0 || r->api == UINT16_MAX) {   /* no stack, no call: not a row */
            i += r == c;
            j += r == g;
            continue;
        }
        cuprof_stack_api *t = n && s->by_stack[n - 1].stack == r->stack &&
                                      s->by_stack[n - 1].api == r->api
                                  ? &s->by_stack[n - 1]
                                  : &s->by_stack[n++];
        t->stack = r->stack;
        t->api = r->api;
        if (r == c) {
            t->calls += c->count;
            t->cpu_total_ns += c->ns;
            i++;
        }
        else {
            t->cuda_total_ns += g->ns;
            j++;
        }
    }
    s->nby_stack = n;
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
        charge(run, tl->kernel_hooked[i], r);
        r->leaf = cuprof_names_gpu(names, tl->gpu->kernels[i].name);
        r->ns = gpu->kernels[i].end_ns - gpu->kernels[i].start_ns;
        r->count = 1;
    }
    for (size_t i = 0; i < gpu->n_copies; i++) {
        cuprof_stack_row *r = &s->gpu[s->ngpu++];
        charge(run, tl->copy_hooked[i], r);
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
    if (sites_build(s, run) < 0 || by_stack_build(s) < 0 || cuprof_stacks_slices_build(s, run) < 0)
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
    free(s->user);
    free(s->by_stack);
    free(s->slices);
    free(s);
}

const char *cuprof_stacks_site(const cuprof_stacks *s, uint32_t stack)
{
    if (!s || !s->stack_site || !s->run || stack > s->run->nstacks)
        return NO_STACK_SITE;
    return s->stack_site[stack];
}
