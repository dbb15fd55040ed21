/*
 * test_cupti.c - the CUPTI module of the collector (collector/cupti*.c),
 * against the real libcupti of the toolkit (no driver here: it must fail with
 * a reason, never crash) and against the simulated CUPTI of build/sim, which
 * the tests drive through the simulated driver (libcusim) the way cudart and
 * cuBLAS do: open a traced runtime call, submit work with its correlation id,
 * close it, with our external ids pushed around the "hooked" calls.
 *
 * The binary links neither CUPTI nor the sim: main() re-executes itself with
 * LD_LIBRARY_PATH=<build>/sim, and the real-CUPTI test runs a copy of itself
 * (--probe) with LD_LIBRARY_PATH removed. Each Check test runs in its own
 * forked process, so each starts CUPTI afresh.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/cupti_int.h"
#include "collector/gpu_compact.h"
#include "tests/unit/runfile_back.h"
#include "tests/sim/core/cusim.h"

/* The same objects again, in the injection library the simulated driver
 * loads from CUDA_INJECTION64_PATH (built from this file with
 * -DTEST_CUPTI_INJECTION -shared): start from inside CUDA's initialization. */
typedef struct inject_api {
    int (*start)(void);
    const char *(*status)(void);
    void (*push)(uint64_t);
    void (*pop)(void);
    void (*finish)(void);
    const cuprof_gpu_run *(*records)(void);
} inject_api;

#ifdef TEST_CUPTI_INJECTION
static int started_rc = 99; /* what InitializeInjection's start returned */

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    started_rc = cuprof_cupti_start();
    return 1;
}

static int inj_start(void)
{
    return started_rc;
}

static void inj_push(uint64_t id)
{
    cuprof_cupti_push(id);
}

static void inj_pop(void)
{
    cuprof_cupti_pop();
}

__attribute__((visibility("default"))) const inject_api *test_inject_api(void)
{
    static const inject_api api = {inj_start, cuprof_cupti_status, inj_push, inj_pop,
                                   cuprof_cupti_finish, test_gpu_read_back};
    return &api;
}
#else /* the test program */

extern char **environ;

static char sim_dir[PATH_MAX];   /* <build>/sim */
static char tests_dir[PATH_MAX]; /* <build>/tests */
static char self_exe[PATH_MAX];  /* this binary */

/* ---- the simulated driver, resolved at run time ------------------------- */

#define SIM_FUNCS(X)                                                             \
    X(cusim_init) X(cusim_initialized) X(cusim_host_ns) X(cusim_api_begin)       \
    X(cusim_api_end) X(cusim_stream_get) X(cusim_stream_create) X(cusim_launch)  \
    X(cusim_memcpy) X(cusim_memset) X(cusim_mem_alloc) X(cusim_device_sync)      \
    X(cusim_stream_sync)

static struct {
#define SIM_FIELD(name) __typeof__(&name) name;
    SIM_FUNCS(SIM_FIELD)
#undef SIM_FIELD
} sim;

static void sim_load(void)
{
    void *h = dlopen("libcusim.so", RTLD_NOW | RTLD_GLOBAL);
    ck_assert_msg(h != NULL, "libcusim.so: %s (build the sim first)", dlerror());
#define SIM_RESOLVE(name)                                        \
    *(void **)&sim.name = dlsym(h, #name);                       \
    ck_assert_msg(sim.name != NULL, "libcusim.so lacks " #name);
    SIM_FUNCS(SIM_RESOLVE)
#undef SIM_RESOLVE
}

/* One runtime call as cudart makes it, hooked (ext != 0: pushed around it,
 * as preload/ does) or not (ext == 0: cuBLAS inside, static cudart). */
typedef struct call {
    cusim_api_call c;
    uint64_t ext;
} call;

static void call_begin(call *k, uint64_t ext, uint32_t cbid, const char *name)
{
    k->ext = ext;
    if (ext != 0)
        cuprof_cupti_push(ext);
    sim.cusim_api_begin(&k->c, cbid, name, NULL);
}

static void call_end(call *k)
{
    sim.cusim_api_end(&k->c, 0);
    if (k->ext != 0)
        cuprof_cupti_pop();
}

static const cusim_kernel_desc kern_a = {
    .name = "_Z7kernelAPfi", .grid = {4, 2, 1}, .block = {128, 1, 1},
    .dynamic_smem = 256, .static_smem = 1024, .registers = 32, .cls = CUSIM_KERNEL_USER,
};
static const cusim_kernel_desc kern_b = {
    .name = "_Z7kernelBv", .grid = {1, 1, 1}, .block = {32, 1, 1}, .registers = 8,
    .cls = CUSIM_KERNEL_USER,
};
static const cusim_kernel_desc kern_gemm = {
    .name = "sm90_xmma_gemm_bf16bf16_bf16f32", .grid = {66, 2, 1}, .block = {384, 1, 1},
    .dynamic_smem = 200704, .registers = 168, .cls = CUSIM_KERNEL_GEMM, .flops = 2e9,
    .bytes = 3e6, .tensor_dtype_bits = 16,
};

/* What the scenario did, for the checks. */
typedef struct scenario {
    uint64_t h0, h1;            /* host clock before the first call, after the last */
    uint32_t corr_memcpy, corr_launch505, corr_launch506, corr_memset, corr_inner,
        corr_unhooked, corr_sync;
    uint32_t tid;               /* gettid of the calling thread */
    uint64_t copy_bytes;
} scenario;

#define EXT_MEMCPY 1001
#define EXT_LAUNCH505 1002
#define EXT_LAUNCH506 1003
#define EXT_MEMSET 1004
#define EXT_BLAS 1005
#define EXT_SYNC 1006

/* memcpy HtoD, <<<>>> (505), <<<>>> per-thread (506), memset, a "cuBLAS"
 * call (ext pushed, no runtime record of its own) whose internal launch is
 * unhooked, an unhooked launch, a device synchronize. */
static void run_scenario(scenario *s)
{
    memset(s, 0, sizeof *s);
    s->tid = (uint32_t)syscall(SYS_gettid);
    s->copy_bytes = 1 << 20;
    char *host = malloc(s->copy_bytes);
    ck_assert_ptr_nonnull(host);
    memset(host, 7, s->copy_bytes);
    void *dev = sim.cusim_mem_alloc(s->copy_bytes, CUSIM_MEM_DEVICE);
    ck_assert_ptr_nonnull(dev);
    cusim_stream *st0 = sim.cusim_stream_get(NULL, 0);
    cusim_stream *ptds = sim.cusim_stream_get(NULL, 1);
    call k;

    s->h0 = cuprof_cupti_host_ns();
    call_begin(&k, EXT_MEMCPY, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy");
    sim.cusim_memcpy(st0, dev, host, s->copy_bytes, CUSIM_COPY_HTOD, 1, k.c.correlation_id);
    s->corr_memcpy = k.c.correlation_id;
    call_end(&k);

    call_begin(&k, EXT_LAUNCH505, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
               "__cudaLaunchKernel");
    sim.cusim_launch(st0, &kern_a, k.c.correlation_id);
    s->corr_launch505 = k.c.correlation_id;
    call_end(&k);

    call_begin(&k, EXT_LAUNCH506, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
               "__cudaLaunchKernel_ptsz");
    sim.cusim_launch(ptds, &kern_b, k.c.correlation_id);
    s->corr_launch506 = k.c.correlation_id;
    call_end(&k);

    call_begin(&k, EXT_MEMSET, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset");
    sim.cusim_memset(st0, dev, 0x5a, 4096, 1, k.c.correlation_id);
    s->corr_memset = k.c.correlation_id;
    call_end(&k);

    /* cublasGemmEx: hooked (our id pushed), its launch is inside cuBLAS. */
    cuprof_cupti_push(EXT_BLAS);
    call_begin(&k, 0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(st0, &kern_gemm, k.c.correlation_id);
    s->corr_inner = k.c.correlation_id;
    call_end(&k);
    cuprof_cupti_pop();

    /* A launch no hook saw (static cudart): kept, with no external id. */
    call_begin(&k, 0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(st0, &kern_b, k.c.correlation_id);
    s->corr_unhooked = k.c.correlation_id;
    call_end(&k);

    call_begin(&k, EXT_SYNC, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
               "cudaDeviceSynchronize");
    sim.cusim_device_sync();
    s->corr_sync = k.c.correlation_id;
    call_end(&k);
    s->h1 = cuprof_cupti_host_ns();
    free(host);
}

static const cuprof_gpu_kernel *kernel_by_corr(const cuprof_gpu_run *r, uint32_t corr)
{
    for (size_t i = 0; i < r->n_kernels; i++)
        if (r->kernels[i].corr == corr)
            return &r->kernels[i];
    return NULL;
}

static const cuprof_gpu_api *api_by_corr(const cuprof_gpu_run *r, uint32_t corr)
{
    for (size_t i = 0; i < r->n_apis; i++)
        if (r->apis[i].corr == corr)
            return &r->apis[i];
    return NULL;
}

static const cuprof_gpu_copy *copy_by_corr(const cuprof_gpu_run *r, uint32_t corr)
{
    for (size_t i = 0; i < r->n_copies; i++)
        if (r->copies[i].corr == corr)
            return &r->copies[i];
    return NULL;
}

/* [start, end] lies within [lo - tol, hi + tol] and start <= end. */
static void assert_inside(const char *what, uint64_t start, uint64_t end, uint64_t lo,
                          uint64_t hi, uint64_t tol)
{
    ck_assert_msg(start <= end, "%s: start %llu > end %llu", what, (unsigned long long)start,
                  (unsigned long long)end);
    ck_assert_msg(start + tol >= lo && end <= hi + tol,
                  "%s [%llu, %llu] outside the host-clock window [%llu, %llu] (tol %llu)", what,
                  (unsigned long long)start, (unsigned long long)end, (unsigned long long)lo,
                  (unsigned long long)hi, (unsigned long long)tol);
}

/* Everything the scenario must have produced, on the host clock. */
static void check_scenario(const scenario *s, const cuprof_gpu_run *r)
{
    uint64_t tol = 2 * r->clock_error_ns + 1000;
    ck_assert_int_eq(r->captured, 1);
    ck_assert_uint_eq(r->dropped, 0);

    /* Kernels: 505, 506, the one inside "cuBLAS", the unhooked one. */
    ck_assert_uint_eq(r->n_kernels, 4);
    const cuprof_gpu_kernel *ka = kernel_by_corr(r, s->corr_launch505);
    ck_assert_ptr_nonnull(ka);
    ck_assert_str_eq(ka->name, "_Z7kernelAPfi");
    ck_assert_uint_eq(ka->ext, EXT_LAUNCH505);
    const cuprof_gpu_launch_cfg *cfa = cuprof_gpu_cfg(r, ka);
    ck_assert_uint_eq(cfa->grid[0], 4);
    ck_assert_uint_eq(cfa->grid[1], 2);
    ck_assert_uint_eq(cfa->grid[2], 1);
    ck_assert_uint_eq(cfa->block[0], 128);
    ck_assert_uint_eq(cfa->registers, 32);
    ck_assert_uint_eq(cfa->static_smem, 1024);
    ck_assert_uint_eq(cfa->dynamic_smem, 256);
    const cuprof_gpu_kernel *kb = kernel_by_corr(r, s->corr_launch506);
    ck_assert_ptr_nonnull(kb);
    ck_assert_uint_eq(kb->ext, EXT_LAUNCH506);
    /* each configuration kept once, each kernel's its own */
    const cuprof_gpu_launch_cfg *cfb = cuprof_gpu_cfg(r, kb);
    ck_assert_uint_ne(kb->cfg, ka->cfg);
    ck_assert_uint_eq(cfb->block[0], 32);
    ck_assert_uint_eq(cfb->registers, 8);
    ck_assert_uint_eq(cfb->grid[0], 1);
    for (size_t i = 0; i < r->n_kernels; i++)
        for (size_t j = 0; j < r->n_cfgs; j++)
            ck_assert(j == r->kernels[i].cfg ||
                      memcmp(&r->cfgs[j], cuprof_gpu_cfg(r, &r->kernels[i]), sizeof r->cfgs[j]));
    ck_assert_uint_ne(kb->stream, ka->stream); /* per-thread stream */
    const cuprof_gpu_kernel *kg = kernel_by_corr(r, s->corr_inner);
    ck_assert_ptr_nonnull(kg);
    ck_assert_uint_eq(kg->ext, EXT_BLAS); /* attributed to the cuBLAS call */
    ck_assert_str_eq(kg->name, "sm90_xmma_gemm_bf16bf16_bf16f32");
    const cuprof_gpu_kernel *ku = kernel_by_corr(r, s->corr_unhooked);
    ck_assert_ptr_nonnull(ku);
    ck_assert_uint_eq(ku->ext, 0);
    ck_assert_ptr_eq(ku->name, kb->name); /* interned */
    for (size_t i = 0; i < r->n_kernels; i++) {
        assert_inside(r->kernels[i].name, r->kernels[i].start_ns, r->kernels[i].end_ns, s->h0,
                      s->h1, tol);
        if (i > 0)
            ck_assert_uint_ge(r->kernels[i].start_ns, r->kernels[i - 1].start_ns);
    }

    /* Runtime records: one per call, names from the cbid, launches marked,
     * each kernel after its launch call began. */
    ck_assert_uint_eq(r->n_apis, 7);
    const cuprof_gpu_api *a = api_by_corr(r, s->corr_launch505);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->name, "__cudaLaunchKernel");
    ck_assert_uint_eq(a->cbid, 505);
    ck_assert_int_eq(a->is_launch, 1);
    ck_assert_uint_eq(a->ext, EXT_LAUNCH505);
    ck_assert_uint_eq(a->thread_id, s->tid);
    ck_assert_uint_ge(ka->start_ns + tol, a->start_ns);
    a = api_by_corr(r, s->corr_launch506);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->name, "__cudaLaunchKernel_ptsz");
    ck_assert_int_eq(a->is_launch, 1);
    ck_assert_uint_ge(kb->start_ns + tol, a->start_ns);
    a = api_by_corr(r, s->corr_inner);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->ext, EXT_BLAS);
    a = api_by_corr(r, s->corr_unhooked);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->ext, 0);
    ck_assert_str_eq(a->name, "cudaLaunchKernel");
    a = api_by_corr(r, s->corr_memcpy);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->name, "cudaMemcpy");
    ck_assert_int_eq(a->is_launch, 0);
    for (size_t i = 0; i < r->n_apis; i++)
        assert_inside(r->apis[i].name, r->apis[i].start_ns, r->apis[i].end_ns, s->h0, s->h1,
                      tol);

    /* Copies and memsets. */
    ck_assert_uint_eq(r->n_copies, 2);
    const cuprof_gpu_copy *c = copy_by_corr(r, s->corr_memcpy);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->kind, CUPROF_GPU_COPY_HTOD);
    ck_assert_uint_eq(c->bytes, s->copy_bytes);
    ck_assert_str_eq(cuprof_gpu_mem_name(c->src_mem), "pageable");
    ck_assert_str_eq(cuprof_gpu_mem_name(c->dst_mem), "device");
    ck_assert_str_eq(cuprof_gpu_copy_kind_name(c->kind), "HtoD");
    ck_assert_uint_eq(c->ext, EXT_MEMCPY);
    assert_inside("memcpy", c->start_ns, c->end_ns, s->h0, s->h1, tol);
    c = copy_by_corr(r, s->corr_memset);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->kind, CUPROF_GPU_COPY_MEMSET);
    ck_assert_uint_eq(c->bytes, 4096);
    ck_assert_uint_eq(c->value, 0x5a);
    ck_assert_uint_eq(c->ext, EXT_MEMSET);
    ck_assert_str_eq(cuprof_gpu_copy_kind_name(c->kind), "Memset");

    /* The synchronize: a context sync, tied to its call, inside the window. */
    ck_assert_uint_eq(r->n_syncs, 1);
    ck_assert_str_eq(cuprof_gpu_sync_name(r->syncs[0].type), "context sync");
    ck_assert_uint_eq(r->syncs[0].corr, s->corr_sync);
    ck_assert_uint_eq(r->syncs[0].ext, EXT_SYNC);
    assert_inside("sync", r->syncs[0].start_ns, r->syncs[0].end_ns, s->h0, s->h1, tol);
    /* It waited for the device: every kernel ended before it did. */
    for (size_t i = 0; i < r->n_kernels; i++)
        ck_assert_uint_le(r->kernels[i].end_ns, r->syncs[0].end_ns + tol);

    /* The map: every record we pushed for, and only those. */
    ck_assert_uint_eq(cuprof_gpu_ext_of(r, s->corr_memcpy), EXT_MEMCPY);
    ck_assert_uint_eq(cuprof_gpu_ext_of(r, s->corr_launch505), EXT_LAUNCH505);
    ck_assert_uint_eq(cuprof_gpu_ext_of(r, s->corr_inner), EXT_BLAS);
    ck_assert_uint_eq(cuprof_gpu_ext_of(r, s->corr_unhooked), 0);
    ck_assert_uint_eq(r->n_extmap, 6);
    for (size_t i = 1; i < r->n_extmap; i++)
        ck_assert_uint_gt(r->extmap[i].corr, r->extmap[i - 1].corr);
}

/* ---- cbids ---------------------------------------------------------------- */

START_TEST(cbid_names_come_from_the_header)
{
    ck_assert_str_eq(cuprof_cupti_cbid_name(211), "cudaLaunchKernel");
    ck_assert_str_eq(cuprof_cupti_cbid_name(214), "cudaLaunchKernel_ptsz");
    ck_assert_str_eq(cuprof_cupti_cbid_name(505), "__cudaLaunchKernel");
    ck_assert_str_eq(cuprof_cupti_cbid_name(506), "__cudaLaunchKernel_ptsz");
    ck_assert_str_eq(cuprof_cupti_cbid_name(31), "cudaMemcpy");
    /* Only the version suffix goes: "_v2" in the name stays. */
    ck_assert_str_eq(cuprof_cupti_cbid_name(409), "cudaStreamGetCaptureInfo_v2");
    ck_assert_str_eq(cuprof_cupti_cbid_name(99999), "cbid_99999");
    ck_assert_str_eq(cuprof_cupti_cbid_name(0), "cbid_0");
    ck_assert_ptr_null(cuprof_cbid_runtime_name(99999));
    ck_assert_str_eq(cuprof_cupti_driver_cbid_name(99999), "driver_cbid_99999");
}
END_TEST

/* A record keeps its cbid's name for the whole run: the names of unknown ids
 * are made once and stay, however many there are (they were once 16
 * rotating buffers, and the 17th unknown id renamed the first's records). */
START_TEST(unknown_cbid_names_stay)
{
    const char *first[40];
    for (uint32_t i = 0; i < 40; i++)
        first[i] = cuprof_cupti_cbid_name(100000 + i);
    for (uint32_t i = 0; i < 40; i++) {
        char want[32];
        snprintf(want, sizeof want, "cbid_%u", 100000 + i);
        ck_assert_str_eq(first[i], want);
        ck_assert_ptr_eq(cuprof_cupti_cbid_name(100000 + i), first[i]);
    }
}
END_TEST

START_TEST(launch_cbids_include_cuda13)
{
    static const uint32_t launches[] = {13, 211, 213, 214, 269, 270, 272, 311, 312, 430, 431,
                                        505, 506};
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++)
        ck_assert_msg(cuprof_cbid_runtime_is_launch(launches[i]), "cbid %u (%s) not a launch",
                      launches[i], cuprof_cupti_cbid_name(launches[i]));
    ck_assert_int_eq(cuprof_cbid_runtime_is_launch(284), 0); /* cudaLaunchHostFunc */
    ck_assert_int_eq(cuprof_cbid_runtime_is_launch(31), 0);
    ck_assert_int_eq(cuprof_cbid_runtime_is_launch(165), 0);
    /* Every launch-like name of this toolkit's header is covered: a new
     * launch entry point in a newer CUDA fails here, not in the arrows. */
    for (uint32_t id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; id++) {
        const char *n = cuprof_cupti_cbid_name(id);
        int like = strstr(n, "Launch") != NULL && strstr(n, "HostFunc") == NULL &&
                   strncmp(n, "cbid_", 5) != 0;
        ck_assert_msg(like == cuprof_cbid_runtime_is_launch(id), "cbid %u %s: is_launch %d", id,
                      n, cuprof_cbid_runtime_is_launch(id));
    }
}
END_TEST

/* ---- without a usable CUPTI --------------------------------------------- */

/* Runs this binary with --probe and env changes (NAME=VALUE sets, NAME= with
 * no value removes); returns its stdout (owned). */
static char *run_probe(const char *const *changes)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 16, sizeof *env);
    ck_assert_ptr_nonnull(env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (const char *const *c = changes; *c != NULL; c++) {
            size_t klen = strchr(*c, '=') - *c + 1;
            if (strncmp(environ[i], *c, klen) == 0)
                replaced = 1;
        }
        if (!replaced)
            env[m++] = environ[i];
    }
    for (const char *const *c = changes; *c != NULL; c++)
        if (strchr(*c, '=')[1] != '\0')
            env[m++] = (char *)*c;
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char *argv[] = {self_exe, "--probe", NULL};
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, self_exe, &fa, NULL, argv, env), 0);
    close(fd[1]);
    size_t cap = 65536, len = 0;
    char *out = malloc(cap);
    ssize_t got;
    while ((got = read(fd[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fd[0]);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "probe crashed or failed (status %d)",
                  st);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    return out;
}

/* The probe: start, push/pop, finish, as a CPU-only run would, and report. */
static int probe_main(void)
{
    int rc = cuprof_cupti_start();
    cuprof_cupti_push(42);
    cuprof_cupti_pop();
    cuprof_cupti_finish();
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    printf("rc=%d\nreason=%s\nstatus=%s\ncaptured=%d\nactive=%d\nlib=%s\nkernels=%zu\n", rc,
           cuprof_cupti_reason(), r->status, r->captured, cuprof_cupti_active,
           cuprof_cupti_fn.path, r->n_kernels);
    return 0;
}

START_TEST(real_cupti_without_driver_fails_with_reason)
{
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char home_env[PATH_MAX + 16];
    snprintf(home_env, sizeof home_env, "CUDA_HOME=%s", home);
    const char *changes[] = {"LD_LIBRARY_PATH=", home_env, NULL};
    char *out = run_probe(changes);
    /* The toolkit's own CUPTI was found (not the sim's)... */
    ck_assert_msg(strstr(out, "\nlib=") && strstr(out, sim_dir) == NULL, "%s", out);
    ck_assert_msg(strstr(out, "libcupti.so") != NULL, "no CUPTI loaded:\n%s", out);
    if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == NULL &&
        access("/dev/nvidiactl", F_OK) != 0) {
        /* ...and, with no driver, refused: a CPU-only run with the reason. */
        ck_assert_msg(strstr(out, "rc=-1\n") != NULL, "%s", out);
        ck_assert_msg(strstr(out, "reason=CUPTI: cuptiActivity") != NULL, "%s", out);
        ck_assert_msg(strstr(out, "CUPTI_ERROR_") != NULL, "no error name:\n%s", out);
        ck_assert_msg(strstr(out, "status=not captured: CUPTI: ") != NULL, "%s", out);
        ck_assert_msg(strstr(out, "captured=0\nactive=0\n") != NULL, "%s", out);
    } else {
        ck_assert_msg(strstr(out, "rc=0\nreason=\n") != NULL, "%s", out);
    }
    free(out);
}
END_TEST

START_TEST(missing_library_is_a_reason)
{
    ck_assert_int_eq(cuprof_cupti_start_path("/nonexistent/libcupti.so.13"), -1);
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_reason(), "/nonexistent/libcupti.so.13"));
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_status(), "not captured: CUPTI: cannot load"));
    /* Once decided, later starts give the same answer, and nothing runs. */
    ck_assert_int_eq(cuprof_cupti_start(), -1);
    ck_assert_int_eq(cuprof_cupti_active, 0);
    cuprof_cupti_push(1);
    cuprof_cupti_pop();
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_int_eq(r->captured, 0);
    ck_assert_uint_eq(r->n_kernels + r->n_apis + r->n_copies + r->n_syncs, 0);
}
END_TEST

START_TEST(library_without_cupti_symbols_is_a_reason)
{
    ck_assert_int_eq(cuprof_cupti_start_path("libc.so.6"), -1);
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_reason(), "lacks cuptiActivityRegisterCallbacks"));
}
END_TEST

/* ---- on the simulated device ------------------------------------------------ */

START_TEST(sim_records_with_timestamp_callback)
{
    sim_load();
    ck_assert_int_eq(sim.cusim_initialized(), 0);
    /* As from InitializeInjection: before CUDA is up. */
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    ck_assert_int_eq(cuprof_cupti_start(), 0); /* idempotent */
    ck_assert_str_eq(cuprof_cupti_reason(), "");
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_status(), "clock: timestamp callback"));
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_status(), "subscriber: own"));
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_status(), sim_dir));
    /* our clock and gettid thread ids: top-level calls need not push */
    ck_assert_int_eq(cuprof_cupti_active, CUPROF_CUPTI_ON);
    sim.cusim_init();
    scenario s;
    run_scenario(&s);
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_int_eq(r->clock, CUPROF_GPU_CLOCK_CALLBACK);
    check_scenario(&s, r);
    /* Finish is idempotent; the hot path is off afterwards. */
    size_t nk = r->n_kernels;
    cuprof_cupti_finish();
    ck_assert_uint_eq(test_gpu_read_back()->n_kernels, nk);
    ck_assert_int_eq(cuprof_cupti_active, 0);
    /* Work after finish (another thread at exit) is counted, not stored. */
    call k;
    call_begin(&k, 0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &kern_b, k.c.correlation_id);
    call_end(&k);
    cuprof_cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, nk);
    ck_assert_uint_eq(r->late, 2); /* its runtime record and its kernel */
}
END_TEST

/* Started after CUDA is up (the collector's fallback): CUPTI refuses our
 * clock, the measured offset must line things up, whatever the offset. */
static void offset_clock_case(const char *offset)
{
    if (offset != NULL)
        setenv("CUSIM_CLOCK_OFFSET_NS", offset, 1);
    sim_load();
    sim.cusim_init();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    ck_assert_ptr_nonnull(strstr(cuprof_cupti_status(), "clock: measured offset"));
    /* not our clock: records cannot be matched by time, every call pushes */
    ck_assert_int_eq(cuprof_cupti_active, CUPROF_CUPTI_PUSH_ALL);
    scenario s;
    run_scenario(&s);
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_int_eq(r->clock, CUPROF_GPU_CLOCK_OFFSET);
    ck_assert_uint_lt(r->clock_error_ns, 100000);
    if (offset != NULL) {
        /* host = cupti + offset, and the sim's CUPTI clock is host + its offset */
        long long want = -strtoll(offset, NULL, 10);
        long long got = (long long)r->clock_offset_ns;
        ck_assert_msg(llabs(got - want) <= (long long)r->clock_error_ns + 1000,
                      "offset %lld, sim's %lld", got, want);
    } else {
        ck_assert_msg(llabs((long long)r->clock_offset_ns) > 1000000000LL,
                      "the sim's default clock should be far from the host's");
    }
    check_scenario(&s, r);
}

START_TEST(sim_records_with_measured_offset_default)
{
    offset_clock_case(NULL);
}
END_TEST

START_TEST(sim_records_with_measured_offset_negative)
{
    offset_clock_case("-987654321012345");
}
END_TEST

START_TEST(sim_records_with_measured_offset_positive)
{
    offset_clock_case("4321000000123");
}
END_TEST

START_TEST(sim_dropped_records_are_counted)
{
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    /* A device buffer of 8 records (the sim: 32 bytes each), pool of 1,
     * before CUDA is up: later kernels have nowhere to go until a flush. */
    size_t v = 8 * 32, sz = sizeof v;
    ck_assert_int_eq(cuprof_cupti_fn.cuptiActivitySetAttribute(
                         CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
                     CUPTI_SUCCESS);
    v = 1;
    ck_assert_int_eq(cuprof_cupti_fn.cuptiActivitySetAttribute(
                         CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &v),
                     CUPTI_SUCCESS);
    sim.cusim_init();
    cusim_stream *st = sim.cusim_stream_get(NULL, 0);
    for (int i = 0; i < 50; i++) {
        call k;
        call_begin(&k, 2000 + i, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                   "cudaLaunchKernel");
        sim.cusim_launch(st, &kern_b, k.c.correlation_id);
        call_end(&k);
    }
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, 8);
    ck_assert_uint_eq(r->dropped, 42);
    ck_assert_uint_eq(r->n_apis, 50); /* host-side records are not lost */
}
END_TEST

START_TEST(sim_own_calls_are_left_out)
{
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    sim.cusim_init();
    call k;
    /* What finish does around its synchronize: records carrying our own id
     * are the profiler's, not the program's. */
    cuprof_cupti_push(CUPROF_CUPTI_EXT_OWN);
    sim.cusim_api_begin(&k.c, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
                        "cudaDeviceSynchronize", NULL);
    sim.cusim_device_sync();
    sim.cusim_api_end(&k.c, 0);
    cuprof_cupti_pop();
    call_begin(&k, 7, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, "cudaGetDeviceCount");
    call_end(&k);
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_apis, 1);
    ck_assert_str_eq(r->apis[0].name, "cudaGetDeviceCount");
    ck_assert_uint_eq(r->apis[0].ext, 7);
    ck_assert_uint_eq(r->n_syncs, 0);
    ck_assert_uint_eq(r->n_extmap, 1);
}
END_TEST

START_TEST(sim_finish_waits_for_the_device)
{
    /* With the program's libcudart loaded, finish synchronizes through it
     * before flushing: a 50 ms kernel still running at exit has ended (on
     * the host clock) when finish returns, and the synchronize itself is
     * not in the records. */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/libcudart.so.13", sim_dir);
    ck_assert_msg(access(path, F_OK) == 0, "%s missing: build the sim first", path);
    ck_assert_ptr_nonnull(dlopen(path, RTLD_NOW | RTLD_GLOBAL));
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    sim.cusim_init();
    static const cusim_kernel_desc slow = {
        .name = "slow", .grid = {1, 1, 1}, .block = {1, 1, 1},
        .cls = CUSIM_KERNEL_ELEMENTWISE, .bytes = 1.5e11, /* 50 ms at 3 TB/s */
    };
    call k;
    call_begin(&k, 9, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &slow, k.c.correlation_id);
    call_end(&k);
    cuprof_cupti_finish();
    uint64_t after = cuprof_cupti_host_ns();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, 1);
    ck_assert_uint_ge(r->kernels[0].end_ns - r->kernels[0].start_ns, 40000000u);
    ck_assert_uint_le(r->kernels[0].end_ns, after + 2 * r->clock_error_ns + 1000);
    ck_assert_uint_eq(r->n_apis, 1);
    ck_assert_uint_eq(r->n_syncs, 0);
}
END_TEST

static void sim_with_kernel(double bytes)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/libcudart.so.13", sim_dir);
    ck_assert_msg(access(path, F_OK) == 0, "%s missing: build the sim first", path);
    ck_assert_ptr_nonnull(dlopen(path, RTLD_NOW | RTLD_GLOBAL));
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    sim.cusim_init();
    cusim_kernel_desc kd = {
        .name = "slow", .grid = {1, 1, 1}, .block = {1, 1, 1},
        .cls = CUSIM_KERNEL_ELEMENTWISE, .bytes = bytes,
    };
    call k;
    call_begin(&k, 9, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &kd, k.c.correlation_id);
    call_end(&k);
}

START_TEST(sim_bounded_finish_gives_up_on_the_device)
{
    /* An exit path that runs while another thread may be stuck inside CUDA
     * (a signal): the synchronize + flush get wait_ms, then the records so
     * far are kept and finish says the timeline is partial. A 1000 s
     * kernel: the synchronize would not return. */
    sim_with_kernel(3e15);
    uint64_t t0 = cuprof_cupti_host_ns();
    ck_assert_int_eq(cuprof_cupti_finish_within(200), 1);
    uint64_t el = cuprof_cupti_host_ns() - t0;
    ck_assert_uint_ge(el, 150000000u);
    ck_assert_uint_lt(el, 5000000000u);
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_int_eq(r->captured, 1);
    ck_assert_int_eq(cuprof_cupti_finish_within(200), 0);   /* once */
}
END_TEST

START_TEST(sim_bounded_finish_in_time_is_complete)
{
    /* The same bound with a device that answers: complete, as unbounded. */
    sim_with_kernel(1.5e11);   /* 50 ms */
    ck_assert_int_eq(cuprof_cupti_finish_within(5000), 0);
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, 1);
    ck_assert_uint_ge(r->kernels[0].end_ns - r->kernels[0].start_ns, 40000000u);
    ck_assert_uint_eq(r->n_apis, 1);
    ck_assert_uint_eq(r->n_syncs, 0);
}
END_TEST

START_TEST(sim_second_subscriber_degrades_to_activity_only)
{
    sim_load();
    /* Another tool (torch.profiler, say) subscribed first. */
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
                             CUpti_SubscriberParams *);
    void *lib = dlopen("libcupti.so.13", RTLD_NOW);
    ck_assert_ptr_nonnull(lib);
    *(void **)&subscribe = dlsym(lib, "cuptiSubscribe_v2");
    ck_assert_ptr_nonnull(subscribe);
    CUpti_SubscriberHandle other;
    CUpti_SubscriberParams p = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                .subscriberName = "other tool"};
    ck_assert_int_eq(subscribe(&other, NULL, NULL, &p), CUPTI_SUCCESS);
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    ck_assert_msg(strstr(cuprof_cupti_status(), "subscriber: shared with CUPTI for other tool"),
                  "%s", cuprof_cupti_status());
    sim.cusim_init();
    scenario s;
    run_scenario(&s);
    cuprof_cupti_finish();
    check_scenario(&s, test_gpu_read_back());
}
END_TEST

/* Threads launching at once: each thread's external ids stay its own (CUPTI
 * keeps one stack per thread), and the records name the right thread. */
#define MT_THREADS 4
#define MT_CALLS 200

typedef struct mt_arg {
    int index;                 /* 0..MT_THREADS-1 */
    uint32_t tid;              /* gettid */
    uint32_t corr[MT_CALLS];   /* correlation id of call i */
} mt_arg;

static void *mt_worker(void *p)
{
    mt_arg *a = p;
    a->tid = (uint32_t)syscall(SYS_gettid);
    cusim_stream *st = sim.cusim_stream_get(NULL, 1);
    for (int i = 0; i < MT_CALLS; i++) {
        call k;
        call_begin(&k, (uint64_t)(a->index + 1) << 32 | (uint64_t)i,
                   CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
                   "__cudaLaunchKernel_ptsz");
        sim.cusim_launch(st, &kern_b, k.c.correlation_id);
        a->corr[i] = k.c.correlation_id;
        call_end(&k);
    }
    return NULL;
}

START_TEST(sim_threads_keep_their_own_ids)
{
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    sim.cusim_init();
    static mt_arg args[MT_THREADS];
    pthread_t th[MT_THREADS];
    for (int t = 0; t < MT_THREADS; t++) {
        args[t].index = t;
        ck_assert_int_eq(pthread_create(&th[t], NULL, mt_worker, &args[t]), 0);
    }
    for (int t = 0; t < MT_THREADS; t++)
        pthread_join(th[t], NULL);
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, MT_THREADS * MT_CALLS);
    ck_assert_uint_eq(r->n_apis, MT_THREADS * MT_CALLS);
    for (int t = 0; t < MT_THREADS; t++)
        for (int i = 0; i < MT_CALLS; i++) {
            uint64_t want = (uint64_t)(t + 1) << 32 | (uint64_t)i;
            const cuprof_gpu_kernel *k = kernel_by_corr(r, args[t].corr[i]);
            ck_assert_ptr_nonnull(k);
            ck_assert_uint_eq(k->ext, want);
            const cuprof_gpu_api *a = api_by_corr(r, args[t].corr[i]);
            ck_assert_ptr_nonnull(a);
            ck_assert_uint_eq(a->thread_id, args[t].tid);
        }
}
END_TEST

START_TEST(sim_forked_child_runs_cpu_only)
{
    sim_load();
    ck_assert_int_eq(cuprof_cupti_start(), 0);
    sim.cusim_init();
    call k;
    call_begin(&k, 11, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
    sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &kern_b, k.c.correlation_id);
    call_end(&k);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* No CUPTI here: nothing pushed, finish returns at once, a reason. */
        int ok = cuprof_cupti_active == 0 && cuprof_cupti_start() == -1 &&
                 strstr(cuprof_cupti_reason(), "forked") != NULL;
        cuprof_cupti_push(12);
        cuprof_cupti_pop();
        cuprof_cupti_finish();
        const cuprof_gpu_run *r = test_gpu_read_back();
        ok = ok && r->captured == 0 && r->n_kernels == 0 && r->n_apis == 0;
        _exit(ok ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    /* The parent is unaffected. */
    cuprof_cupti_finish();
    const cuprof_gpu_run *r = test_gpu_read_back();
    ck_assert_uint_eq(r->n_kernels, 1);
    ck_assert_uint_eq(r->kernels[0].ext, 11);
}
END_TEST

START_TEST(sim_started_from_injection)
{
    char lib[PATH_MAX + 64];
    snprintf(lib, sizeof lib, "%s/libtest_cupti_inject.so", tests_dir);
    ck_assert_msg(access(lib, F_OK) == 0, "%s missing", lib);
    setenv("CUDA_INJECTION64_PATH", lib, 1);
    sim_load();
    sim.cusim_init(); /* the driver loads the library, calls InitializeInjection */
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    ck_assert_msg(h != NULL, "the driver did not load %s", lib);
    const inject_api *(*get)(void);
    *(void **)&get = dlsym(h, "test_inject_api");
    ck_assert_ptr_nonnull(get);
    const inject_api *api = get();
    ck_assert_int_eq(api->start(), 0);
    ck_assert_msg(strstr(api->status(), "subscriber: own; clock: timestamp callback"), "%s",
                  api->status());
    uint64_t h0 = cuprof_cupti_host_ns();
    call k;
    api->push(77);
    sim.cusim_api_begin(&k.c, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
                        "__cudaLaunchKernel", NULL);
    sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &kern_a, k.c.correlation_id);
    sim.cusim_api_end(&k.c, 0);
    api->pop();
    sim.cusim_device_sync();
    uint64_t h1 = cuprof_cupti_host_ns();
    api->finish();
    const cuprof_gpu_run *r = api->records();
    ck_assert_int_eq(r->clock, CUPROF_GPU_CLOCK_CALLBACK);
    ck_assert_uint_eq(r->n_kernels, 1);
    ck_assert_uint_eq(r->kernels[0].ext, 77);
    assert_inside("kernel", r->kernels[0].start_ns, r->kernels[0].end_ns, h0, h1,
                  2 * r->clock_error_ns + 1000);
    ck_assert_int_eq(cuprof_cupti_active, 0); /* the test's own copy never ran */
}
END_TEST

/* ---- exit ordering -------------------------------------------------------------- */

static int order_fd = -1;

static void our_exit_path(void)
{
    cuprof_cupti_finish();
    char c = test_gpu_read_back()->n_kernels == 1 ? 'F' : 'f';
    (void)!write(order_fd, &c, 1);
}

static void fake_cuda_teardown(void)
{
    (void)!write(order_fd, "T", 1);
}

START_TEST(exit_path_runs_before_cuda_teardown)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        order_fd = fd[1];
        sim_load();
        /* The lead's wiring: the exit path handed over at start-up. */
        if (cuprof_cupti_start() != 0) {
            (void)!write(order_fd, cuprof_cupti_reason(), strlen(cuprof_cupti_reason()));
            _exit(3);
        }
        cuprof_cupti_set_exit_fn(our_exit_path);
        /* CUDA comes up; the program's constructor registers its kernels
         * (traced in CUDA 13) and then its teardown... */
        sim.cusim_init();
        call k;
        call_begin(&k, 0, CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinary_v13000,
                   "__cudaRegisterFatBinary");
        call_end(&k);
        atexit(fake_cuda_teardown);
        /* ...then the program's first call returns; exit follows. */
        call_begin(&k, 5, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
        sim.cusim_launch(sim.cusim_stream_get(NULL, 0), &kern_b, k.c.correlation_id);
        call_end(&k);
        exit(0);
    }
    close(fd[1]);
    char buf[512] = "";
    ssize_t n = 0, got;
    while (n < (ssize_t)sizeof buf - 1 && (got = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += got;
    close(fd[0]);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d: %s", st, buf);
    /* Ours first, with the kernel in it, once; CUDA's teardown after. */
    ck_assert_str_eq(buf, "FT");
}
END_TEST

/* ---- the compact GPU records (gpu_compact.h, run file 5.0) ------------------------- */

static uint64_t gr_rand_state;

static uint64_t gr_rand(void)
{
    gr_rand_state = gr_rand_state * 6364136223846793005ull + 1442695040888963407ull;
    return gr_rand_state >> 17;
}

/* A value that is usually near the previous one, sometimes anything. */
static uint64_t gr_pick(uint64_t near)
{
    switch (gr_rand() % 8) {
    case 0: return 0;
    case 1: return UINT64_MAX - gr_rand() % 3;
    case 2: return gr_rand() << 20 ^ gr_rand();
    case 3: return near - gr_rand() % 1000;
    default: return near + gr_rand() % 5000;
    }
}

/* One record of any kind, fields drawn so that every table (12 lanes and
 * 10 threads against 8 slots, 11 configurations against 8) overflows and
 * every field takes extreme values now and then. */
static void gr_make(cuprof_gr_rec *r, uint64_t *t)
{
    memset(r, 0, sizeof *r);
    *t += gr_rand() % 3000;
    uint64_t start = gr_rand() % 16 ? *t : gr_pick(*t);
    uint64_t end = gr_rand() % 16 ? start + 100 * (gr_rand() % 4) : gr_pick(start);
    uint32_t corr = (uint32_t)(*t / 100 + gr_rand() % 3);
    r->kind = 1 + (int)(gr_rand() % 5);
    switch (r->kind) {
    case CUPROF_GR_KERNEL: {
        cuprof_rf_kernel *k = &r->u.k;
        k->start = start, k->end = end, k->corr = corr;
        k->device = (uint32_t)(gr_rand() % 2), k->context = 1;
        k->stream = (uint32_t)(gr_rand() % 6 ? 7 : 7 + gr_rand() % 12);
        unsigned cfg = (unsigned)(gr_rand() % 11);
        k->name = cfg + 1;
        k->grid[0] = cfg * 1000 + 1, k->grid[1] = cfg % 3 + 1, k->grid[2] = 1;
        k->block[0] = cfg == 5 ? UINT32_MAX : 256, k->block[1] = 1, k->block[2] = 1;
        k->registers = 32 + cfg, k->static_smem = cfg * 7, k->dynamic_smem = cfg * 4096;
        k->device_launched = gr_rand() % 20 == 0;
        k->graph = gr_rand() % 4 == 0;
        k->graph_id = k->graph ? (uint32_t)(gr_rand() % 4 + 1) : 0;
        k->graph_node_id = k->graph ? gr_pick(1u << 20) : 0;
        break;
    }
    case CUPROF_GR_COPY: {
        cuprof_rf_copy *c = &r->u.c;
        c->start = start, c->end = end, c->corr = corr;
        c->device = 0, c->context = 1, c->stream = (uint32_t)(7 + gr_rand() % 12);
        c->bytes = gr_rand() % 3 ? 4096 : gr_pick(1u << 30);
        c->kind = (uint8_t)(gr_rand() % 9), c->src_mem = (uint8_t)(gr_rand() % 6);
        c->dst_mem = (uint8_t)(gr_rand() % 6), c->async = gr_rand() % 2;
        c->value = c->kind == 8 ? (uint32_t)gr_rand() : 0;
        c->graph_id = gr_rand() % 5 == 0 ? 3 : 0;
        c->graph_node_id = c->graph_id ? gr_pick(77) : 0;
        break;
    }
    case CUPROF_GR_API: {
        cuprof_rf_api *a = &r->u.a;
        a->start = start, a->end = end, a->corr = corr;
        a->thread_id = (uint32_t)(1000 + gr_rand() % 10), a->process_id = 999;
        a->cbid = (uint32_t)(gr_rand() % 3 ? 211 : gr_rand() % 500);
        a->name = a->cbid % 50 + 1;
        a->driver = gr_rand() % 4 == 0, a->is_launch = a->cbid == 211;
        a->result = gr_rand() % 10 ? 0 : (int32_t)(gr_rand() % 3) - 1 + INT32_MIN * (gr_rand() % 2);
        break;
    }
    case CUPROF_GR_SYNC: {
        cuprof_rf_sync *y = &r->u.s;
        y->start = start, y->end = end, y->corr = corr;
        y->context = 1, y->stream = (uint32_t)gr_rand() % 9, y->event = (uint32_t)gr_rand();
        y->type = (uint8_t)(gr_rand() % 5);
        break;
    }
    default: {
        cuprof_rf_extmap *x = &r->u.x;
        x->corr = corr;
        x->ext = gr_rand() % 6 == 0 ? CUPROF_RF_EXT_OWN : gr_pick(((uint64_t)1 << 40) + *t);
        break;
    }
    }
}

static uint8_t *gr_put(uint8_t *p, cuprof_gr_codec *c, const cuprof_gr_rec *r)
{
    switch (r->kind) {
    case CUPROF_GR_KERNEL: return cuprof_gr_put_kernel(p, c, &r->u.k);
    case CUPROF_GR_COPY: return cuprof_gr_put_copy(p, c, &r->u.c);
    case CUPROF_GR_API: return cuprof_gr_put_api(p, c, &r->u.a);
    case CUPROF_GR_SYNC: return cuprof_gr_put_sync(p, c, &r->u.s);
    default: return cuprof_gr_put_ext(p, c, &r->u.x);
    }
}

static size_t gr_size(int kind)
{
    switch (kind) {
    case CUPROF_GR_KERNEL: return sizeof(cuprof_rf_kernel);
    case CUPROF_GR_COPY: return sizeof(cuprof_rf_copy);
    case CUPROF_GR_API: return sizeof(cuprof_rf_api);
    case CUPROF_GR_SYNC: return sizeof(cuprof_rf_sync);
    default: return sizeof(cuprof_rf_extmap);
    }
}

/* Every record decodes to the struct it was written from, byte for byte,
 * in one block of 20000 records of every kind, and the block ends where
 * its last record does; no record is longer than CUPROF_GR_MAX. */
START_TEST(gpu_compact_round_trip)
{
    enum { N = 20000 };
    gr_rand_state = 40;
    cuprof_gr_rec *in = calloc(N, sizeof *in);
    uint8_t *buf = malloc((size_t)N * CUPROF_GR_MAX);
    cuprof_gr_codec enc, dec;
    cuprof_gr_reset(&enc);
    uint8_t *p = buf;
    uint64_t t = 1000000;
    int kinds[6] = {0};
    for (int i = 0; i < N; i++) {
        gr_make(&in[i], &t);
        kinds[in[i].kind]++;
        uint8_t *q = gr_put(p, &enc, &in[i]);
        ck_assert_uint_le((size_t)(q - p), CUPROF_GR_MAX);
        p = q;
    }
    for (int k = 1; k <= 5; k++)
        ck_assert_int_gt(kinds[k], N / 10);
    cuprof_gr_reset(&dec);
    const uint8_t *r = buf;
    for (int i = 0; i < N; i++) {
        cuprof_gr_rec out;
        ck_assert_int_eq(cuprof_gr_get(&r, p, &dec, &out), 0);
        ck_assert_int_eq(out.kind, in[i].kind);
        ck_assert_msg(memcmp(&out.u, &in[i].u, gr_size(out.kind)) == 0,
                      "record %d (kind %d) decodes to another", i, out.kind);
    }
    ck_assert_ptr_eq(r, p);
    free(in);
    free(buf);
}
END_TEST

/* A launch as CUPTI reports it (its runtime-API record, then its kernel,
 * on one thread and one stream, times varying by tens of ns) takes at most
 * 12 bytes: the run file's GPU timeline was 146 bytes a launch as CUPTI
 * laid the records out. Two kernels taking turns on the stream (a GEMM and
 * a bias add) cost a byte more each, not a configuration each. */
START_TEST(gpu_compact_repeated_launch_is_small)
{
    enum { N = 10000 };
    gr_rand_state = 7;
    uint8_t *buf = malloc((size_t)N * 2 * CUPROF_GR_MAX);
    for (int alternate = 0; alternate < 2; alternate++) {
        cuprof_gr_codec c;
        cuprof_gr_reset(&c);
        uint8_t *p = buf;
        uint64_t t = 5000000000ull, gpu = t;
        for (uint32_t i = 0; i < N; i++) {
            uint64_t start = t + gr_rand() % 40;
            cuprof_rf_api a = {.start = start, .end = start + 300 + gr_rand() % 60,
                               .corr = 100 + i, .cbid = 211, .name = 1, .thread_id = 4242,
                               .process_id = 4240, .is_launch = 1};
            p = cuprof_gr_put_api(p, &c, &a);
            gpu = gpu > a.end ? gpu : a.end + 900;
            uint32_t which = alternate ? i % 2 : 0;
            cuprof_rf_kernel k = {.start = gpu, .end = gpu + 2000 + which * 1500, .corr = a.corr,
                                  .device = 0, .context = 1, .stream = 7, .name = 2 + which,
                                  .grid = {64 + which, 1, 1}, .block = {256, 1, 1},
                                  .registers = 32};
            p = cuprof_gr_put_kernel(p, &c, &k);
            gpu = k.end;
            t += 400;
        }
        double per = (double)(p - buf) / N;
        ck_assert_msg(per <= 12.0, "%s: %.2f bytes a launch", alternate ? "two kernels" : "one kernel",
                      per);
    }
    free(buf);
}
END_TEST

/* Bytes that are not records never make the decoder read past the block's
 * end or loop: a damaged block ends at its first bad record. */
START_TEST(gpu_compact_damaged_block_stops)
{
    enum { N = 3000 };
    gr_rand_state = 99;
    uint8_t *buf = malloc((size_t)N * CUPROF_GR_MAX);
    cuprof_gr_codec c;
    cuprof_gr_reset(&c);
    uint8_t *p = buf;
    uint64_t t = 1;
    for (int i = 0; i < N; i++) {
        cuprof_gr_rec r;
        gr_make(&r, &t);
        p = gr_put(p, &c, &r);
    }
    size_t len = (size_t)(p - buf);
    for (int trial = 0; trial < 200; trial++) {
        uint8_t *copy = malloc(len);
        memcpy(copy, buf, len);
        size_t cut = trial < 100 ? gr_rand() % len : len;   /* torn, or damaged */
        for (int k = 0; trial >= 100 && k < 4; k++)
            copy[gr_rand() % len] = (uint8_t)gr_rand();
        cuprof_gr_reset(&c);
        const uint8_t *q = copy, *end = copy + cut;
        cuprof_gr_rec out;
        int n = 0;
        while (q < end && cuprof_gr_get(&q, end, &c, &out) == 0)
            n++;
        ck_assert(q <= end);
        ck_assert_int_le(n, trial < 100 ? N : 2 * N);
        free(copy);
    }
    /* random bytes */
    for (int trial = 0; trial < 100; trial++) {
        uint8_t junk[512];
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (uint8_t)gr_rand();
        cuprof_gr_reset(&c);
        const uint8_t *q = junk, *end = junk + sizeof junk;
        cuprof_gr_rec out;
        while (q < end && cuprof_gr_get(&q, end, &c, &out) == 0)
            ;
        ck_assert(q <= end);
    }
    free(buf);
}
END_TEST

/* ---- main ------------------------------------------------------------------------ */

static Suite *cupti_suite(void)
{
    Suite *s = suite_create("cupti");
    TCase *t = tcase_create("cbid");
    tcase_add_test(t, cbid_names_come_from_the_header);
    tcase_add_test(t, unknown_cbid_names_stay);
    tcase_add_test(t, launch_cbids_include_cuda13);
    suite_add_tcase(s, t);
    t = tcase_create("gpu_compact");
    tcase_add_test(t, gpu_compact_round_trip);
    tcase_add_test(t, gpu_compact_repeated_launch_is_small);
    tcase_add_test(t, gpu_compact_damaged_block_stops);
    suite_add_tcase(s, t);
    t = tcase_create("no_cupti");
    tcase_add_test(t, real_cupti_without_driver_fails_with_reason);
    tcase_add_test(t, missing_library_is_a_reason);
    tcase_add_test(t, library_without_cupti_symbols_is_a_reason);
    suite_add_tcase(s, t);
    t = tcase_create("sim");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, sim_records_with_timestamp_callback);
    tcase_add_test(t, sim_records_with_measured_offset_default);
    tcase_add_test(t, sim_records_with_measured_offset_negative);
    tcase_add_test(t, sim_records_with_measured_offset_positive);
    tcase_add_test(t, sim_dropped_records_are_counted);
    tcase_add_test(t, sim_own_calls_are_left_out);
    tcase_add_test(t, sim_finish_waits_for_the_device);
    tcase_add_test(t, sim_bounded_finish_gives_up_on_the_device);
    tcase_add_test(t, sim_bounded_finish_in_time_is_complete);
    tcase_add_test(t, sim_second_subscriber_degrades_to_activity_only);
    tcase_add_test(t, sim_threads_keep_their_own_ids);
    tcase_add_test(t, sim_forked_child_runs_cpu_only);
    tcase_add_test(t, sim_started_from_injection);
    tcase_add_test(t, exit_path_runs_before_cuda_teardown);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--probe") == 0)
        return probe_main();
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n <= 0) {
        fprintf(stderr, "test_cupti: cannot read /proc/self/exe\n");
        return 1;
    }
    self_exe[n] = '\0';
    /* <build>/tests/test_cupti -> <build>/tests, <build>/sim */
    snprintf(tests_dir, sizeof tests_dir, "%s", self_exe);
    char *slash = strrchr(tests_dir, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(sim_dir, sizeof sim_dir, "%s", tests_dir);
    slash = strrchr(sim_dir, '/');
    if (slash != NULL)
        *slash = '\0';
    strncat(sim_dir, "/sim", sizeof sim_dir - strlen(sim_dir) - 1);
    /* The dynamic loader reads LD_LIBRARY_PATH once: run again with the sim
     * first on it, so dlopen("libcupti.so.13") finds the simulated one. */
    const char *llp = getenv("LD_LIBRARY_PATH");
    if (llp == NULL || strncmp(llp, sim_dir, strlen(sim_dir)) != 0) {
        char buf[2 * PATH_MAX];
        snprintf(buf, sizeof buf, "%s%s%s", sim_dir, llp ? ":" : "", llp ? llp : "");
        setenv("LD_LIBRARY_PATH", buf, 1);
        execv(self_exe, argv);
        fprintf(stderr, "test_cupti: cannot re-run %s: %s\n", self_exe, strerror(errno));
        return 1;
    }
    SRunner *sr = srunner_create(cupti_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
#endif /* TEST_CUPTI_INJECTION */
