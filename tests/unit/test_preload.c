/*
 * test_preload.c - the hooks (preload/), tested through what they record.
 *
 * Small programs built against the real CUDA 13 libraries
 * (test_preload_*.c, test_preload_kernels.cu) run under the hooks alone
 * (build/tests/preload/libcuprof_hooks.so) with a fake collector
 * (test_preload_collector.c) that dumps every recorded event at exit. Each
 * program also runs without the profiler: what it prints (every return value
 * and errno) must not change. They run against the real NVIDIA libraries
 * (no driver here: every runtime call returns 35, cuBLAS 1) and, when it has
 * been built, against the simulated device in build/sim (calls succeed).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "preload/hooks.h"
#define TEST_PRELOAD_HELPERS
#include "tests/unit/test_preload.h"

static const char *const hook_names[PRELOAD_N_HOOKS] = {
#define X(name, lib, cls, ret, params) #name,
    PRELOAD_HOOKS(X)
#undef X
};
/* Everything the library may export: the hooks, then the extra exports. */
static const char *const export_names[] = {
#define X(name, lib, cls, ret, params) #name,
    PRELOAD_HOOKS(X)
#undef X
#define X(name) #name,
    PRELOAD_EXTRA_EXPORTS(X)
#undef X
    /* libcuprof.so only (not the hooks-only library): the libc functions */
#define X(name, ret, params) #name,
    PRELOAD_LIBC_HOOKS(X)
#undef X
#define X(name) #name,
    PRELOAD_LIBC_VARIADIC(X) PRELOAD_LIBC_LOOKUP(X)
#undef X
};
#define N_EXPORTS ((int)(sizeof export_names / sizeof export_names[0]))
/* How many of export_names the hooks-only library has (no libc hooks). */
static const char *const libc_names[] = {
#define X(name, ret, params) #name,
    PRELOAD_LIBC_HOOKS(X)
#undef X
#define X(name) #name,
    PRELOAD_LIBC_VARIADIC(X) PRELOAD_LIBC_LOOKUP(X)
#undef X
};
#define N_HOOKS_LIB_EXPORTS (N_EXPORTS - (int)(sizeof libc_names / sizeof libc_names[0]))

/* ---- the library's surface ------------------------------------------------ */

/* Names nm -D --defined-only lists for a shared object (text symbols). */
static int nm_defined(const char *lib, char names[][96], int max)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    char line[512], type[8], name[96];
    unsigned long long addr;
    int n = 0;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%llx %7s %95s", &addr, type, name) == 3 && n < max)
            memcpy(names[n++], name, sizeof name);
    ck_assert_int_eq(pclose(p), 0);
    return n;
}

static int in_exports(const char *name, int n_exports)
{
    for (int i = 0; i < n_exports; i++)
        if (!strcmp(export_names[i], name))
            return 1;
    return 0;
}

static void check_exports(const char *lib, int n_exports)
{
    static char names[4096][96];
    int n = nm_defined(lib, names, 4096);
    for (int i = 0; i < n; i++)
        ck_assert_msg(in_exports(names[i], n_exports), "%s exports %s, which is not a hook", lib, names[i]);
    for (int h = 0; h < n_exports; h++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= !strcmp(names[i], export_names[h]);
        ck_assert_msg(found, "%s does not export %s", lib, export_names[h]);
    }
    ck_assert_int_eq(n, n_exports);
}

START_TEST(exports_are_exactly_the_hooks)
{
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/tests/preload/libcuprof_hooks.so", e2e_build());
    check_exports(lib, N_HOOKS_LIB_EXPORTS);
    /* The product library, when it has been built (needs the collector). */
    snprintf(lib, sizeof lib, "%s/libcuprof.so", e2e_build());
    if (access(lib, R_OK) == 0)
        check_exports(lib, N_EXPORTS);
    else
        fprintf(stderr, "note: %s not built, only the hooks library checked\n", lib);
}
END_TEST

START_TEST(exports_map_is_the_hook_list)
{
    /* preload/exports.map with the generated cuBLAS hooks' names (preload.mk) */
    char *map = e2e_read_file(e2e_bpath("preload/exports.map"), NULL);
    ck_assert(map != NULL);
    const char *p = strstr(map, "global:");
    const char *end = strstr(map, "local:");
    ck_assert(p && end && p < end);
    p += strlen("global:");
    int i = 0;
    char name[256];
    int used;
    while (p < end && sscanf(p, " %255[^; \n]; %n", name, &used) == 1 && p + used <= end) {
        ck_assert_msg(i < N_EXPORTS, "exports.map lists more than the hooks: %s", name);
        ck_assert_str_eq(name, export_names[i]); /* same names, same order */
        i++;
        p += used;
    }
    ck_assert_int_eq(i, N_EXPORTS);
    /* No version node name: "{" comes right before "global:". */
    ck_assert_msg(strstr(map, "{\n  global:") != NULL, "exports.map must be an anonymous version node");
    free(map);
}
END_TEST

/* Every launch entry point the toolkit's libraries export (libcudart.so.13,
 * and the driver's through stubs/libcuda.so, hooked as exports and handed
 * back by the entry points, hooks_driver.c) is hooked with its launch's
 * arguments or left
 * out here with its reason, so that a new one cannot be missed again
 * (cooperative launches were, issue 33). */
static const struct {
    const char *name, *why;
} launch_left_out[] = {
    {"cudaLaunchHostFunc", "runs a host function, no kernel: a stream operation"},
    {"cudaLaunchHostFunc_ptsz", "runs a host function, no kernel"},
    {"cuLaunchHostFunc", "runs a host function, no kernel"},
    {"cuLaunchHostFunc_ptsz", "runs a host function, no kernel"},
    {"cudaGraphLaunch", "a graph's kernels are charged node by node to the calls they came from "
                        "(model/graphs.h); the launch is CUPTI's runtime record"},
    {"cudaGraphLaunch_ptsz", "as cudaGraphLaunch"},
    {"cuGraphLaunch", "as cudaGraphLaunch"},
    {"cuGraphLaunch_ptsz", "as cudaGraphLaunch"},
    {"cuLaunch", "legacy (CUDA 2): the block shape was set before by cuFuncSetBlockShape, "
                 "which no hook sees; CUPTI's record only"},
    {"cuLaunchGrid", "legacy, as cuLaunch"},
    {"cuLaunchGridAsync", "legacy, as cuLaunch"},
    {"cuLaunchCooperativeKernelMultiDevice", "deprecated since CUDA 11.3, gone from the runtime "
                                             "in 13; CUPTI's record only"},
};

/* The class each hook records, in hook_names' order. */
static const unsigned char hook_cls[PRELOAD_N_HOOKS] = {
#define X(name, lib, cls, ret, params) cls,
    PRELOAD_HOOKS(X)
#undef X
};

/* A launch hook records the launch's arguments (every driver export is a
 * hook: a plain row does not count). */
static int launch_hooked(const char *name)
{
    for (size_t i = 0; i < sizeof hook_names / sizeof hook_names[0]; i++)
        if (!strcmp(hook_names[i], name) && (hook_cls[i] == CUPROF_EV_LAUNCH || hook_cls[i] == PRELOAD_NO_EVENT))
            return 1;
    for (size_t i = 0; i < sizeof launch_left_out / sizeof launch_left_out[0]; i++)
        if (!strcmp(launch_left_out[i].name, name))
            return 1;
    return 0;
}

START_TEST(every_launch_entry_point_is_hooked)
{
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    const char *libs[] = {"lib64/libcudart.so.13", "lib64/stubs/libcuda.so"};
    static char names[4096][96];
    int checked = 0;
    for (int l = 0; l < 2; l++) {
        char lib[4096];
        snprintf(lib, sizeof lib, "%s/%s", cuda, libs[l]);
        ck_assert_msg(access(lib, R_OK) == 0, "%s: the toolkit's library is needed", lib);
        int n = nm_defined(lib, names, 4096);
        ck_assert_int_gt(n, 100);
        for (int i = 0; i < n; i++) {
            char *at = strchr(names[i], '@');
            if (at)
                *at = '\0';
            const char *base = names[i] + (names[i][0] == '_' && names[i][1] == '_' ? 2 : 0);
            if (strncmp(base, "cudaLaunch", 10) && strncmp(base, "cuLaunch", 8) &&
                !strstr(base, "GraphLaunch"))
                continue;
            checked++;
            ck_assert_msg(launch_hooked(names[i]), "%s (%s) is a launch entry point that no hook "
                          "covers: hook it or say why not in launch_left_out", names[i], libs[l]);
        }
    }
    ck_assert_int_ge(checked, 20);
}
END_TEST

/* Each hook's library, by index as hook_names; a hook's index, -1 if none. */
static const unsigned char hook_lib[PRELOAD_N_HOOKS] = {
#define X(name, lib, cls, ret, params) lib,
    PRELOAD_HOOKS(X)
#undef X
};

static int hook_index(const char *name)
{
    for (int i = 0; i < PRELOAD_N_HOOKS; i++)
        if (!strcmp(hook_names[i], name))
            return i;
    return -1;
}

/* Every entry point of the math libraries that their headers declare is a
 * hook (issue 41), checked against the toolkit itself: each function a
 * library exports and one of its headers declares ("name(" after a word
 * boundary) is in PRELOAD_HOOKS, or left out below with its reason. As for
 * the launches: a new one in a new toolkit cannot be missed. */
static const struct {
    const char *lib, *headers[7];
    int min;   /* hooks at least (CUDA 13.0: 56, 27, 405, 571 + 19) */
} math_libs[] = {
    {"libcufft.so.12", {"cufft.h", "cufftXt.h"}, 50},
    {"libcurand.so.10", {"curand.h"}, 25},
    {"libcusparse.so.12", {"cusparse.h"}, 400},
    {"libcusolver.so.12", {"cusolverDn.h", "cusolverSp.h", "cusolverRf.h", "cusolverSp_LOWLEVEL_PREVIEW.h",
                           "cusolver_common.h"}, 550},
    {"libcusolverMg.so.12", {"cusolverMg.h"}, 15},
};
static const struct {
    const char *name, *why;
} math_left_out[] = {
    {"cusparseGetErrorName", "returns a string, not a status: no CUDA work, a lookup"},
    {"cusparseGetErrorString", "as cusparseGetErrorName"},
    {"cusparseGetMat*", "a legacy descriptor's field (cusparseDiagType_t, ...), not a status: a lookup"},
    {"cusparseHprune*", "declared for C++ only (__half), as preload/gen_lib_hooks.sh leaves out"},
};

/* 1 when name is left out (an entry ending in '*' is a prefix). */
static int math_is_left_out(const char *name)
{
    for (size_t k = 0; k < sizeof math_left_out / sizeof math_left_out[0]; k++) {
        size_t n = strlen(math_left_out[k].name);
        if (math_left_out[k].name[n - 1] == '*' ? !strncmp(math_left_out[k].name, name, n - 1)
                                                : !strcmp(math_left_out[k].name, name))
            return 1;
    }
    return 0;
}

/* 1 when text declares name: "name" with no identifier character before it,
 * then spaces and "(". */
static int declares(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        char b = p > text ? p[-1] : ' ';
        const char *q = p + n;
        if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_')
            continue;
        while (*q == ' ' || *q == '\t' || *q == '\n')
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

START_TEST(every_math_library_entry_point_is_hooked)
{
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    static char names[4096][96];
    char path[4096];
    snprintf(path, sizeof path, "%s/lib64/%s", cuda, math_libs[_i].lib);
    ck_assert_msg(access(path, R_OK) == 0, "%s: the toolkit's library is needed", path);
    int n = nm_defined(path, names, 4096), hooked = 0;
    size_t total = 1;
    char *text = calloc(1, 1);
    for (int h = 0; h < 7 && math_libs[_i].headers[h]; h++) {
        snprintf(path, sizeof path, "%s/include/%s", cuda, math_libs[_i].headers[h]);
        size_t len = 0;
        char *t = e2e_read_file(path, &len);
        ck_assert_msg(t != NULL, "%s: the toolkit's header is needed", path);
        text = realloc(text, total + len);
        ck_assert_ptr_nonnull(text);
        memcpy(text + total - 1, t, len + 1);
        total += len;
        free(t);
    }
    for (int i = 0; i < n; i++) {
        char *at = strchr(names[i], '@');
        if (at)
            *at = '\0';
        if (!declares(text, names[i]))
            continue;   /* internal, or another library's (libcusolver exports cuBLAS's batched helpers) */
        int ok = hook_index(names[i]) >= 0;
        hooked += ok;
        ok |= math_is_left_out(names[i]);
        ck_assert_msg(ok, "%s (%s) is declared in its headers and exported, but no hook covers it: "
                      "see preload/gen_lib_hooks.sh, or say why not in math_left_out", names[i], math_libs[_i].lib);
    }
    free(text);
    ck_assert_msg(hooked >= math_libs[_i].min, "%s: %d hooks, want %d or more", math_libs[_i].lib, hooked,
                  math_libs[_i].min);
}
END_TEST

/* The classes the generator gave: the calls that compute push their id for
 * CUPTI, set-up and queries do not (their sizes are kept all the same). */
_Static_assert((int)PRELOAD_CLS_cufftExecC2C == (int)CUPROF_EV_MATH_LIB, "an FFT exec pushes");
_Static_assert((int)PRELOAD_CLS_cufftPlan1d == (int)CUPROF_EV_MATH, "a plan is set-up");
_Static_assert((int)PRELOAD_CLS_curandGenerateNormal == (int)CUPROF_EV_MATH_LIB, "a generate pushes");
_Static_assert((int)PRELOAD_CLS_curandCreateGenerator == (int)CUPROF_EV_MATH, "a generator is set-up");
_Static_assert((int)PRELOAD_CLS_cusparseSpMV == (int)CUPROF_EV_MATH_LIB, "SpMV pushes");
_Static_assert((int)PRELOAD_CLS_cusparseSpMV_bufferSize == (int)CUPROF_EV_MATH, "a buffer size is a query");
_Static_assert((int)PRELOAD_CLS_cusparseCreateMatDescr == (int)CUPROF_EV_MATH, "legacy descriptors are set-up");
_Static_assert((int)PRELOAD_CLS_cusolverDnSgetrf == (int)CUPROF_EV_MATH_LIB, "getrf pushes");
_Static_assert((int)PRELOAD_CLS_cusolverDnSetStream == (int)CUPROF_EV_MATH, "set-up");
_Static_assert((int)PRELOAD_CLS_cufftXtMakePlanMany == (int)CUPROF_EV_MATH, "an Xt plan is set-up");

/* The driver API as programs link it (issue 41): every function the
 * toolkit's stubs/libcuda.so exports (the real driver's export list) is a
 * hook of library libcuda, category cuda_driver, exported by the library;
 * and the calls whose arguments the tables read are hooked with them: the
 * copies, memsets, allocations, frees and syncs of the runtime's kinds. */
START_TEST(every_driver_export_is_hooked)
{
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/lib64/stubs/libcuda.so", cuda);
    ck_assert_msg(access(lib, R_OK) == 0, "%s: the toolkit's library is needed", lib);
    static char names[4096][96];
    int n = nm_defined(lib, names, 4096), functions = 0;
    ck_assert_int_gt(n, 400);
    for (int i = 0; i < n; i++) {
        char *at = strchr(names[i], '@');
        if (at)
            *at = '\0';
        if (strncmp(names[i], "cu", 2) != 0)
            continue;
        functions++;
        int h = hook_index(names[i]);
        ck_assert_msg(h >= 0, "%s: libcuda exports it and no hook covers it", names[i]);
        ck_assert_msg(hook_lib[h] == PRELOAD_LIB_CUDA, "%s: hooked as another library's", names[i]);
        ck_assert_msg(in_exports(names[i], N_EXPORTS), "%s: hooked but not in the export list", names[i]);
    }
    ck_assert_int_gt(functions, 400);
    /* the hooks of libcuda are its exports, nothing more */
    int ours = 0;
    for (int h = 0; h < PRELOAD_N_HOOKS; h++)
        ours += hook_lib[h] == PRELOAD_LIB_CUDA;
    ck_assert_int_eq(ours, functions);
    static const struct {
        const char *name;
        int cls;
    } with_args[] = {
        {"cuLaunchKernel", CUPROF_EV_LAUNCH}, {"cuLaunchKernelEx_ptsz", CUPROF_EV_LAUNCH},
        {"cuMemcpyHtoD_v2", CUPROF_EV_COPY}, {"cuMemcpyDtoHAsync_v2_ptsz", CUPROF_EV_COPY},
        {"cuMemcpy2DAsync_v2", CUPROF_EV_COPY}, {"cuMemcpy3D_v2", CUPROF_EV_COPY},
        {"cuMemcpyPeer", CUPROF_EV_COPY}, {"cuMemcpyAsync", CUPROF_EV_COPY},
        {"cuMemsetD32_v2", CUPROF_EV_MEMSET}, {"cuMemsetD8Async", CUPROF_EV_MEMSET},
        {"cuMemsetD2D16Async_ptsz", CUPROF_EV_MEMSET}, {"cuMemAlloc_v2", CUPROF_EV_ALLOC},
        {"cuMemAllocPitch_v2", CUPROF_EV_ALLOC}, {"cuMemAllocAsync", CUPROF_EV_ALLOC},
        {"cuMemCreate", CUPROF_EV_ALLOC}, {"cuMemMap", CUPROF_EV_ALLOC},
        {"cuMemAddressReserve", CUPROF_EV_ALLOC}, {"cuMemFree_v2", CUPROF_EV_FREE},
        {"cuMemRelease", CUPROF_EV_FREE}, {"cuMemUnmap", CUPROF_EV_FREE},
        {"cuMemFreeAsync_ptsz", CUPROF_EV_FREE}, {"cuStreamSynchronize", CUPROF_EV_SYNC},
        {"cuCtxSynchronize", CUPROF_EV_SYNC}, {"cuEventSynchronize", CUPROF_EV_SYNC},
        {"cuEventRecord", CUPROF_EV_EVENT}, {"cuStreamWaitEvent", CUPROF_EV_EVENT},
    };
    for (size_t i = 0; i < sizeof with_args / sizeof with_args[0]; i++) {
        int h = hook_index(with_args[i].name);
        ck_assert_msg(h >= 0 && hook_cls[h] == with_args[i].cls, "%s: not hooked with its arguments",
                      with_args[i].name);
    }
}
END_TEST

/* The table registered with the collector: every hook, its category, before
 * any event; a program that never touches CUDA records nothing and behaves
 * exactly as without the library. */
START_TEST(no_cuda_program_unchanged)
{
    dump *d = NULL;
    e2e_result plain = run_prog("prog_nocuda", "hello", real_libdir(), 0, NULL);
    e2e_result pre = run_prog("prog_nocuda", "hello", real_libdir(), 1, &d);
    ck_assert_int_eq(plain.status, 3);
    ck_assert_int_eq(pre.status, 3);
    ck_assert_str_eq(pre.out, plain.out);
    ck_assert_str_eq(pre.err, plain.err);
    ck_assert_int_eq(d->n_ev, 0);
    /* the hooks, then the NVTX entry points (recorded, not interposed) */
    ck_assert_int_eq(d->n_api, PRELOAD_N_APIS);
    static const char *const nvtx[] = {
#define X(name) #name,
        PRELOAD_NVTX_APIS(X)
#undef X
    };
    ck_assert_int_eq(PRELOAD_N_APIS - PRELOAD_N_HOOKS, (int)(sizeof nvtx / sizeof nvtx[0]));
    for (int i = PRELOAD_N_HOOKS; i < PRELOAD_N_APIS; i++) {
        ck_assert_str_eq(d->api[i], nvtx[i - PRELOAD_N_HOOKS]);
        ck_assert_str_eq(d->cat[i], "nvtx");
    }
    for (int i = 0; i < PRELOAD_N_HOOKS; i++) {
        ck_assert_str_eq(d->api[i], hook_names[i]);
        const char *want = !strncmp(hook_names[i], "cublasLt", 8) ? "cublaslt"
                           : !strncmp(hook_names[i], "cublas", 6) ? "cublas"
                           : !strncmp(hook_names[i], "cufft", 5)  ? "cufft"
                           : !strncmp(hook_names[i], "curand", 6) ? "curand"
                           : !strncmp(hook_names[i], "cusparse", 8) ? "cusparse"
                           : !strncmp(hook_names[i], "cusolver", 8) ? "cusolver"
                           : !strncmp(hook_names[i], "MPI_", 4)   ? "mpi"
                           : !strncmp(hook_names[i], "nccl", 4)   ? "nccl"
                           : !strncmp(hook_names[i], "cu", 2) && hook_names[i][2] >= 'A' &&
                                     hook_names[i][2] <= 'Z'              ? "cuda_driver"
                                                                   : "cuda_runtime";
        ck_assert_str_eq(d->cat[i], want);
    }
    e2e_result_free(&pre);

    /* The product library too, when built: same behaviour, no files. */
    char lib[4096], pre_env[4200], out_env[4200], prog[4096];
    snprintf(lib, sizeof lib, "%s/libcuprof.so", e2e_build());
    if (access(lib, R_OK) == 0) {
        char *tmp = e2e_tmpdir();
        snprintf(pre_env, sizeof pre_env, "LD_PRELOAD=%s", lib);
        snprintf(out_env, sizeof out_env, "CUPROF_OUT_DIR=%s/out", tmp);
        snprintf(prog, sizeof prog, "%s/tests/preload/prog_nocuda", e2e_build());
        const char *env[] = {pre_env, out_env, NULL};
        const char *argv[] = {prog, "hello", NULL};
        e2e_result full = e2e_run(argv, env, NULL, 60);
        ck_assert_int_eq(full.status, 3);
        ck_assert_str_eq(full.out, plain.out);
        ck_assert_str_eq(full.err, plain.err);
        char out_dir[4200];
        snprintf(out_dir, sizeof out_dir, "%s/out", tmp);
        ck_assert_msg(access(out_dir, F_OK) != 0, "a program without CUDA made %s", out_dir);
        e2e_result_free(&full);
        e2e_rmtree(tmp);
        free(tmp);
    }
    e2e_result_free(&plain);
    dump_free(d);
}
END_TEST

/* ---- the runtime hooks ------------------------------------------------------ */

/* Checks prog_cudart's events against what it printed. sim: calls succeed,
 * pointers and handles are real. */
static void check_cudart(const dump *d, const char *out, int sim)
{
    calls c;
    calls_parse(out, &c);
    ck_assert_int_ge(c.n, 42);
    /* One event per call, in order, named after the entry point the program
     * really called, with exactly the value it got back. */
    /* the program's setup cudaEventCreate (hooked: CUPTI's records of it
     * are off) comes first, then one event per CALL */
    ck_assert_int_eq(d->n_ev, c.n + 1);
    ck_assert_str_eq(ev_name(d, &d->ev[0]), "cudaEventCreate");
    const cuprof_event *evs = d->ev + 1;
    for (int i = 0; i < c.n; i++) {
        ck_assert_str_eq(ev_name(d, &evs[i]), c.name[i]);
        ck_assert_int_eq(evs[i].result, c.r[i]);
        ck_assert_int_eq(evs[i].depth, 0);
        if (!sim)
            ck_assert_int_eq(c.r[i], strncmp(c.name[i], "cublas", 6) ? 35 : 1);
    }
    uint64_t s1 = printed(out, "s1="), s2 = printed(out, "s2="), e1 = printed(out, "e1=");
    if (!sim) {
        ck_assert_uint_eq(s1, 0x77);
        ck_assert_uint_eq(s2, 0x177);
    }
    const cuprof_event *e;
    /* allocations: size, and the pointer when the call succeeded */
    e = &evs[0];
    ck_assert_int_eq(e->cls, CUPROF_EV_ALLOC);
    ck_assert_uint_eq(e->a.mem.bytes, 1000);
    ck_assert_uint_eq(e->a.mem.ptr, sim ? printed(out, "p=") : 0);
    ck_assert_uint_eq(evs[1].a.mem.bytes, 2000);
    ck_assert_uint_eq(evs[2].a.mem.bytes, 3000);
    ck_assert_uint_eq(evs[3].a.mem.bytes, 4000);
    ck_assert_int_eq(evs[3].cls, CUPROF_EV_ALLOC);
    /* copies: bytes, direction (Default resolved where the runtime can say),
     * stream, async */
    e = &evs[4];
    ck_assert_int_eq(e->cls, CUPROF_EV_COPY);
    ck_assert_uint_eq(e->a.copy.bytes, 5000);
    ck_assert_int_eq(e->a.copy.dir, CUPROF_DIR_HTOD);
    ck_assert_int_eq(e->a.copy.async, 0);
    e = &evs[5];
    ck_assert_uint_eq(e->a.copy.bytes, 999);
    ck_assert_int_eq(e->a.copy.dir, sim ? CUPROF_DIR_HTOD : CUPROF_DIR_UNKNOWN);
    e = &evs[6];
    ck_assert_uint_eq(e->a.copy.bytes, 6000);
    ck_assert_int_eq(e->a.copy.dir, CUPROF_DIR_DTOH);
    ck_assert_uint_eq(e->a.copy.stream, s1);
    ck_assert_int_eq(e->a.copy.async, 1);
    ck_assert_uint_eq(evs[7].a.copy.bytes, 320); /* 2-D: width * height */
    ck_assert_int_eq(evs[7].a.copy.dir, CUPROF_DIR_DTOD);
    ck_assert_uint_eq(evs[8].a.copy.bytes, 64);
    ck_assert_int_eq(evs[8].a.copy.dir, CUPROF_DIR_HTOH);
    ck_assert_int_eq(evs[8].a.copy.async, 1);
    /* memsets */
    e = &evs[9];
    ck_assert_int_eq(e->cls, CUPROF_EV_MEMSET);
    ck_assert_uint_eq(e->a.copy.bytes, 7000);
    ck_assert_int_eq(e->a.copy.dir, CUPROF_DIR_MEMSET);
    ck_assert_uint_eq(evs[10].a.copy.bytes, 7001);
    ck_assert_uint_eq(evs[10].a.copy.stream, s1);
    ck_assert_int_eq(evs[10].a.copy.async, 1);
    ck_assert_uint_eq(evs[11].a.copy.bytes, 72);
    ck_assert_uint_eq(evs[12].a.copy.bytes, 80);
    /* frees */
    ck_assert_int_eq(evs[13].cls, CUPROF_EV_FREE);
    ck_assert_uint_eq(evs[13].a.mem.ptr, 0x1234);
    ck_assert_uint_eq(evs[14].a.mem.ptr, 0x2345);
    /* syncs and events */
    ck_assert_int_eq(evs[15].cls, CUPROF_EV_SYNC);
    ck_assert_uint_eq(evs[16].a.sync.stream, s1);
    ck_assert_uint_eq(evs[17].a.sync.stream, e1);
    ck_assert_int_eq(evs[18].cls, CUPROF_EV_EVENT);
    ck_assert_uint_eq(evs[18].a.sync.stream, s1);
    ck_assert_uint_eq(evs[19].a.sync.stream, s1);
    ck_assert_uint_eq(evs[20].a.sync.stream, s1);
    /* occupancy: block size, smem (the answer: see the kernels test) */
    e = &evs[21];
    ck_assert_int_eq(e->cls, CUPROF_EV_OCCUPANCY);
    ck_assert_int_eq(e->a.occ.block_size, 256);
    ck_assert_uint_eq(e->a.occ.smem, 1024);
    ck_assert_int_eq(evs[22].a.occ.block_size, 128);
    ck_assert_int_eq(evs[23].cls, CUPROF_EV_CALL); /* cudaProfilerStart */
    /* the capture window's trigger: opened before cudaProfilerStart is
     * recorded (it is the window's first call), closed after
     * cudaProfilerStop (its last) */
    ck_assert_int_eq(d->capture_start_at, 23 + 1);   /* + the setup cudaEventCreate */
    ck_assert_int_eq(d->capture_stop_at, 25 + 1);
    /* launches: grid, block, smem, stream */
    e = &evs[25];
    ck_assert_int_eq(e->cls, CUPROF_EV_LAUNCH);
    ck_assert_uint_eq(e->a.launch.grid_x, 2);
    ck_assert_uint_eq(e->a.launch.grid_y, 3);
    ck_assert_uint_eq(e->a.launch.grid_z, 4);
    ck_assert_uint_eq(e->a.launch.block[0], 32);
    ck_assert_uint_eq(e->a.launch.block[1], 2);
    ck_assert_uint_eq(e->a.launch.block[2], 1);
    ck_assert_uint_eq(e->a.launch.smem, 48);
    ck_assert_uint_eq(e->a.launch.stream, s1);
    ck_assert_uint_eq(e->a.launch.kernel, 0); /* a plain host function: no name */
    e = &evs[26]; /* cudaLaunchKernelExC: from the config struct */
    ck_assert_uint_eq(e->a.launch.grid_x, 5);
    ck_assert_uint_eq(e->a.launch.grid_z, 7);
    ck_assert_uint_eq(e->a.launch.block[0], 64);
    ck_assert_uint_eq(e->a.launch.smem, 96);
    ck_assert_uint_eq(e->a.launch.stream, s1);
    /* the per-thread variants record their own api and the same fields */
    ck_assert_uint_eq(evs[27].a.copy.bytes, 5100);
    ck_assert_int_eq(evs[27].a.copy.dir, CUPROF_DIR_DTOH);
    ck_assert_uint_eq(evs[28].a.copy.stream, s2);
    ck_assert_uint_eq(evs[29].a.copy.bytes, 352);
    ck_assert_uint_eq(evs[30].a.copy.bytes, 80);
    ck_assert_uint_eq(evs[31].a.copy.bytes, 7100);
    ck_assert_uint_eq(evs[32].a.copy.stream, s2);
    ck_assert_uint_eq(evs[33].a.copy.bytes, 88);
    ck_assert_uint_eq(evs[34].a.copy.bytes, 96);
    ck_assert_uint_eq(evs[35].a.sync.stream, s2);
    ck_assert_uint_eq(evs[36].a.sync.stream, s2);
    ck_assert_uint_eq(evs[37].a.sync.stream, s2);
    ck_assert_uint_eq(evs[38].a.sync.stream, s2);
    ck_assert_uint_eq(evs[39].a.launch.smem, 49);
    ck_assert_uint_eq(evs[39].a.launch.stream, s2);
    ck_assert_uint_eq(evs[40].a.launch.stream, s2);
    ck_assert_uint_eq(evs[40].a.launch.grid_y, 6);
    /* the guard: the program's guarded call went through (it printed a
     * result) and was not recorded */
    ck_assert_ptr_nonnull(strstr(out, "guarded cudaMalloc r="));
    for (int i = 0; i < d->n_ev; i++)
        ck_assert(!(evs[i].cls == CUPROF_EV_ALLOC && evs[i].a.mem.bytes == 424242));
    ck_assert_int_ge(d->guarded_begins, 1);
    ck_assert_int_eq(d->guard_enters, d->guard_leaves);
    ck_assert_int_eq(d->begin_before_register, 0);
}

/* Lines "N name r=R errno=E" of two runs must be the same. */
static void same_calls(const char *a, const char *b)
{
    calls ca, cb;
    calls_parse(a, &ca);
    calls_parse(b, &cb);
    ck_assert_int_eq(ca.n, cb.n);
    for (int i = 0; i < ca.n; i++) {
        ck_assert_str_eq(ca.name[i], cb.name[i]);
        ck_assert_int_eq(ca.r[i], cb.r[i]);
        ck_assert_msg(ca.err[i] == cb.err[i], "%s: errno %d without the profiler, %d with",
                      ca.name[i], ca.err[i], cb.err[i]);
    }
}

START_TEST(cudart_hooks_real_libs)
{
    dump *d = NULL;
    e2e_result plain = run_prog("prog_cudart", NULL, real_libdir(), 0, NULL);
    e2e_result pre = run_prog("prog_cudart", NULL, real_libdir(), 1, &d);
    ck_assert_int_eq(plain.status, 0);
    ck_assert_int_eq(pre.status, 0);
    /* Same return values and errno (the fake collector clobbers errno in
     * begin and end: only the hooks' save/restore keeps it). */
    same_calls(plain.out, pre.out);
    ck_assert_ptr_nonnull(strstr(pre.out, "1 cudaMalloc r=35 errno=1111"));
    check_cudart(d, pre.out, 0);
    e2e_result_free(&plain);
    e2e_result_free(&pre);
    dump_free(d);
}
END_TEST

START_TEST(cudart_hooks_sim)
{
    if (!have_sim()) {
        fprintf(stderr, "note: build/sim not built: sim run of the runtime hooks skipped\n");
        return;
    }
    char sim[4200];
    snprintf(sim, sizeof sim, "%s/sim", e2e_build());
    dump *d = NULL;
    e2e_result plain = run_prog("prog_cudart", NULL, sim, 0, NULL);
    e2e_result pre = run_prog("prog_cudart", NULL, sim, 1, &d);
    ck_assert_int_eq(pre.status, 0);
    same_calls(plain.out, pre.out);
    ck_assert_ptr_nonnull(strstr(pre.out, "1 cudaMalloc r=0 errno=1111"));
    check_cudart(d, pre.out, 1);
    e2e_result_free(&plain);
    e2e_result_free(&pre);
    dump_free(d);
}
END_TEST

/* The program's references are versioned (cudaMalloc@libcudart.so.13) and
 * still bind to the unversioned hooks: the runs above saw every call. */
START_TEST(program_references_are_versioned)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "nm -D '%s/tests/preload/prog_cudart'", e2e_build());
    FILE *p = popen(cmd, "r");
    char line[512];
    int versioned = 0;
    while (fgets(line, sizeof line, p))
        versioned += strstr(line, " cudaMalloc@libcudart.so.13") != NULL;
    pclose(p);
    ck_assert_int_eq(versioned, 1);
}
END_TEST

/* ---- kernels: names through stubs and cudaKernel_t handles ------------------ */

static void check_kernels(const dump *d, const char *out, int ptsz, int sim)
{
    const char *chevron = ptsz ? "__cudaLaunchKernel_ptsz" : "__cudaLaunchKernel";
    const char *lk = ptsz ? "cudaLaunchKernel_ptsz" : "cudaLaunchKernel";
    const char *lex = ptsz ? "cudaLaunchKernelExC_ptsz" : "cudaLaunchKernelExC";
    int want = sim ? 0 : 35;
    ck_assert_int_eq((int)printed(out, "chevron r="), want);
    const cuprof_event *e = nth(d, CUPROF_EV_LAUNCH, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(ev_name(d, e), chevron);
    ck_assert_str_eq(kernel_name(d, e->a.launch.kernel), "_Z4addkPfi"); /* via the handle */
    ck_assert_uint_eq(e->a.launch.grid_x, 3);
    ck_assert_uint_eq(e->a.launch.grid_y, 2);
    ck_assert_uint_eq(e->a.launch.block[0], 32);
    ck_assert_uint_eq(e->a.launch.smem, 128);
    ck_assert_int_eq(e->result, want);
    e = nth(d, CUPROF_EV_LAUNCH, 1);
    ck_assert_str_eq(ev_name(d, e), chevron);
    ck_assert_str_eq(kernel_name(d, e->a.launch.kernel), "_Z4addkPfi");
    ck_assert_uint_eq(e->a.launch.grid_x, 5);
    ck_assert_uint_eq(e->a.launch.block[0], 64);
    ck_assert_uint_eq(e->a.launch.smem, 0);
    e = nth(d, CUPROF_EV_LAUNCH, 2);
    ck_assert_str_eq(ev_name(d, e), lk);
    ck_assert_str_eq(kernel_name(d, e->a.launch.kernel), "_Z5scalePff"); /* via the stub */
    ck_assert_uint_eq(e->a.launch.grid_x, 7);
    ck_assert_uint_eq(e->a.launch.block[0], 128);
    ck_assert_uint_eq(e->a.launch.smem, 256);
    ck_assert_int_eq(e->result, (int)printed(out, "launchkernel r="));
    e = nth(d, CUPROF_EV_LAUNCH, 3);
    ck_assert_str_eq(ev_name(d, e), lex);
    ck_assert_str_eq(kernel_name(d, e->a.launch.kernel), "_Z2tkILi3EEvPf");
    ck_assert_uint_eq(e->a.launch.grid_x, 9);
    ck_assert_uint_eq(e->a.launch.block[0], 96);
    ck_assert_uint_eq(e->a.launch.smem, 512);
    ck_assert_ptr_null(nth(d, CUPROF_EV_LAUNCH, 4));
    e = nth(d, CUPROF_EV_OCCUPANCY, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(kernel_name(d, e->a.occ.kernel), "_Z4addkPfi");
    ck_assert_int_eq(e->a.occ.block_size, 256);
    ck_assert_uint_eq(e->a.occ.smem, 64);
    ck_assert_int_eq(e->result, (int)printed(out, "occ r="));
    if (sim) /* the answer the runtime gave */
        ck_assert_int_gt(e->a.occ.answer, 0);
    /* __cudaGetKernel is a call of its own, once per kernel launched <<<>>> */
    int gk = 0;
    for (int i = 0; i < d->n_ev; i++)
        gk += !strcmp(ev_name(d, &d->ev[i]), "__cudaGetKernel");
    ck_assert_int_eq(gk, 1);
}

static void run_kernels(const char *prog, int ptsz, const char *libdir, int sim)
{
    dump *d = NULL;
    e2e_result plain = run_prog(prog, NULL, libdir, 0, NULL);
    e2e_result pre = run_prog(prog, NULL, libdir, 1, &d);
    ck_assert_int_eq(pre.status, 0);
    ck_assert_str_eq(pre.out, plain.out);
    check_kernels(d, pre.out, ptsz, sim);
    e2e_result_free(&plain);
    e2e_result_free(&pre);
    dump_free(d);
}

START_TEST(kernel_names_real_libs)
{
    run_kernels("prog_kernels", 0, real_libdir(), 0);
    run_kernels("prog_kernels_ptsz", 1, real_libdir(), 0);
}
END_TEST

START_TEST(kernel_names_sim)
{
    if (!have_sim()) {
        fprintf(stderr, "note: build/sim not built: sim run of the launch hooks skipped\n");
        return;
    }
    char sim[4200];
    snprintf(sim, sizeof sim, "%s/sim", e2e_build());
    run_kernels("prog_kernels", 0, sim, 1);
    run_kernels("prog_kernels_ptsz", 1, sim, 1);
}
END_TEST

/* ---- cuBLAS and cuBLASLt --------------------------------------------------- */

static void check_blas(const dump *d, const char *out, int sim)
{
    static const struct {
        const char *name;
        uint32_t m, batch;
        uint8_t ta, tb, atype, ctype;
        uint16_t compute;
        uint8_t beta; /* expected beta_nonzero on the sim (host pointer mode) */
    } want[] = {
        {"cublasSgemm_v2", 11, 1, 0, 1, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1},
        {"cublasSgemm_v2_64", 21, 1, 1, 0, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0},
        {"cublasHgemm", 31, 1, 1, 1, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, 1},
        {"cublasHgemm_64", 41, 1, 0, 0, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F, 1},
        {"cublasGemmEx", 51, 1, 0, 2, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 1},
        {"cublasGemmEx_64", 61, 1, 0, 0, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1},
        {"cublasGemmStridedBatchedEx", 71, 7, 1, 0, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 1},
        {"cublasGemmStridedBatchedEx_64", 81, 8, 0, 0, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 1},
        {"cublasGemmBatchedEx", 91, 9, 0, 1, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 0},
        {"cublasGemmBatchedEx_64", 101, 10, 0, 0, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1},
    };
    int n = (int)(sizeof want / sizeof want[0]);
    char key[128];
    for (int i = 0; i < n; i++) {
        const cuprof_event *e = nth(d, CUPROF_EV_BLAS, i);
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(ev_name(d, e), want[i].name);
        ck_assert_uint_eq(e->a.blas.m, want[i].m);
        ck_assert_uint_eq(e->a.blas.n, want[i].m + 1);
        ck_assert_uint_eq(e->a.blas.k, want[i].m + 2);
        ck_assert_uint_eq(e->a.blas.batch, want[i].batch);
        ck_assert_uint_eq(e->a.blas.transa, want[i].ta);
        ck_assert_uint_eq(e->a.blas.transb, want[i].tb);
        ck_assert_uint_eq(e->a.blas.atype, want[i].atype);
        ck_assert_uint_eq(e->a.blas.ctype, want[i].ctype);
        ck_assert_uint_eq(e->a.blas.compute, want[i].compute);
        ck_assert_uint_eq(e->a.blas.epilogue, 0);
        /* beta is read only through a live handle in host pointer mode */
        ck_assert_uint_eq(e->a.blas.beta_nonzero, sim ? want[i].beta : 0);
        snprintf(key, sizeof key, "%s st=", want[i].name);
        if (strstr(out, key)) /* present unless the library lacks it */
            ck_assert_int_eq(e->result, (int)printed(out, key));
        else
            ck_assert_int_eq(e->result, PRELOAD_CUBLAS_MISSING);
    }
    /* cublasLtMatmul: shape and types from the layouts, the rest from the
     * descriptor (these work without a driver) */
    static const struct {
        uint8_t ta;
        uint16_t epilogue;
        uint8_t beta;
    } lt[] = {
        {0, CUBLASLT_EPILOGUE_GELU_BIAS, 1}, /* host beta = 1 */
        {1, CUBLASLT_EPILOGUE_RELU_BIAS, 0}, /* host beta = 0 */
        {0, CUBLASLT_EPILOGUE_DEFAULT, 0},   /* device pointer mode: not read */
    };
    for (int i = 0; i < 3; i++) {
        const cuprof_event *e = nth(d, CUPROF_EV_BLAS, n + i);
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(ev_name(d, e), "cublasLtMatmul");
        ck_assert_uint_eq(e->a.blas.m, 128);
        ck_assert_uint_eq(e->a.blas.n, 256);
        ck_assert_uint_eq(e->a.blas.k, 64);
        ck_assert_uint_eq(e->a.blas.batch, 4);
        ck_assert_uint_eq(e->a.blas.transa, lt[i].ta);
        ck_assert_uint_eq(e->a.blas.transb, 0);
        ck_assert_uint_eq(e->a.blas.atype, CUDA_R_16F);
        ck_assert_uint_eq(e->a.blas.ctype, CUDA_R_32F);
        ck_assert_uint_eq(e->a.blas.compute, CUBLAS_COMPUTE_32F);
        ck_assert_uint_eq(e->a.blas.epilogue, lt[i].epilogue);
        ck_assert_uint_eq(e->a.blas.beta_nonzero, lt[i].beta);
        ck_assert_int_eq(e->result, sim ? 0 : 1);
    }
    /* the typed GEMMs: their types and compute types from the entry point */
    static const struct {
        const char *name;
        uint32_t m, batch;
        uint8_t ta, atype;
        uint16_t compute;
        uint8_t beta;
    } typed[] = {
        {"cublasDgemm_v2", 11, 1, 1, CUDA_R_64F, CUBLAS_COMPUTE_64F, 1},
        {"cublasZgemmStridedBatched_64", 5, 3, 2, CUDA_C_64F, CUBLAS_COMPUTE_64F, 0},
        {"cublasSgemmBatched", 21, 4, 0, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1},
    };
    for (int i = 0; i < 3; i++) {
        const cuprof_event *e = nth(d, CUPROF_EV_BLAS, n + 3 + i);
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(ev_name(d, e), typed[i].name);
        ck_assert_uint_eq(e->a.blas.m, typed[i].m);
        ck_assert_uint_eq(e->a.blas.n, typed[i].m + 1);
        ck_assert_uint_eq(e->a.blas.k, typed[i].m + 2);
        ck_assert_uint_eq(e->a.blas.batch, typed[i].batch);
        ck_assert_uint_eq(e->a.blas.transa, typed[i].ta);
        ck_assert_uint_eq(e->a.blas.atype, typed[i].atype);
        ck_assert_uint_eq(e->a.blas.ctype, typed[i].atype);
        ck_assert_uint_eq(e->a.blas.compute, typed[i].compute);
        ck_assert_uint_eq(e->a.blas.beta_nonzero, sim ? typed[i].beta : 0);
        snprintf(key, sizeof key, "%s st=", typed[i].name);
        if (strstr(out, key))
            ck_assert_int_eq(e->result, (int)printed(out, key));
        else
            ck_assert_int_eq(e->result, PRELOAD_CUBLAS_MISSING);
    }
    ck_assert_ptr_null(nth(d, CUPROF_EV_BLAS, n + 6));
    /* the library was asked (layouts, descriptor, pointer mode) inside the
     * guard, and every guard was left */
    ck_assert_int_gt(d->guard_enters, 0);
    ck_assert_int_eq(d->guard_enters, d->guard_leaves);
}

START_TEST(blas_hooks_real_libs)
{
    dump *d = NULL;
    e2e_result plain = run_prog("prog_blas", NULL, real_libdir(), 0, NULL);
    e2e_result pre = run_prog("prog_blas", NULL, real_libdir(), 1, &d);
    ck_assert_int_eq(plain.status, 0);
    ck_assert_int_eq(pre.status, 0);
    ck_assert_str_eq(pre.out, plain.out); /* every status passed through */
    ck_assert_ptr_nonnull(strstr(pre.out, "cublasSgemm_v2 st=1"));
    check_blas(d, pre.out, 0);
    e2e_result_free(&plain);
    e2e_result_free(&pre);
    dump_free(d);
}
END_TEST

START_TEST(blas_hooks_sim)
{
    if (!have_sim()) {
        fprintf(stderr, "note: build/sim not built: sim run of the cuBLAS hooks skipped\n");
        return;
    }
    char sim[4200];
    snprintf(sim, sizeof sim, "%s/sim", e2e_build());
    dump *d = NULL;
    e2e_result pre = run_prog("prog_blas", NULL, sim, 1, &d);
    ck_assert_int_eq(pre.status, 0);
    ck_assert_ptr_nonnull(strstr(pre.out, "cublasSgemm_v2 st=0"));
    check_blas(d, pre.out, 1);
    e2e_result_free(&pre);
    dump_free(d);
}
END_TEST

/* ---- resolution ----------------------------------------------------------- */

/* No CUDA loaded at all: the hooks return an error and do not crash. Then
 * libcudart comes in with RTLD_LOCAL (not in the global scope): the hooks
 * find it anyway (RTLD_NOLOAD) and pass its results through. */
START_TEST(resolution_absent_then_rtld_local)
{
    char lib[4200];
    snprintf(lib, sizeof lib, "%s/tests/preload/libuser.so", e2e_build());
    dump *d = NULL;
    e2e_result pre = run_prog("prog_dlopen", lib, real_libdir(), 1, &d);
    ck_assert_msg(pre.status == 0, "status %d: %s", pre.status, pre.err);
    ck_assert_int_eq((int)printed(pre.out, "absent cudaMalloc r="), cudaErrorSharedObjectSymbolNotFound);
    ck_assert_int_eq((int)printed(pre.out, "absent cudaDeviceSynchronize r="),
                     cudaErrorSharedObjectSymbolNotFound);
    ck_assert_int_eq((int)printed(pre.out, "absent cublasLtMatmul r="), CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq((int)printed(pre.out, "user cudaMalloc r="), 35);
    ck_assert_int_eq((int)printed(pre.out, "user cudaDeviceSynchronize r="), 35);
    /* 16 threads entering an unresolved hook at once: every call reached
     * the real library and was recorded, none lost */
    ck_assert_int_eq((int)printed(pre.out, "threads calls="), 3200);
    ck_assert_int_eq((int)printed(pre.out, "missed="), 0);
    ck_assert_int_eq(d->n_ev, 5 + 3200);
    int sync_id = api_id(d, "cudaStreamSynchronize");
    for (int i = 5; i < d->n_ev; i++) {
        ck_assert_int_eq(d->ev[i].api, sync_id);
        ck_assert_int_eq(d->ev[i].result, 35);
    }
    ck_assert_int_eq(d->ev[0].api, api_id(d, "cudaMalloc"));
    ck_assert_int_eq(d->ev[0].result, cudaErrorSharedObjectSymbolNotFound);
    ck_assert_uint_eq(d->ev[0].a.mem.bytes, 555);
    ck_assert_int_eq(d->ev[3].api, api_id(d, "cudaMalloc"));
    ck_assert_int_eq(d->ev[3].result, 35);
    ck_assert_uint_eq(d->ev[3].a.mem.bytes, 777);
    ck_assert_int_eq(d->ev[4].result, 35);
    e2e_result_free(&pre);
    dump_free(d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("preload");
    TCase *t = tcase_create("surface");
    tcase_add_test(t, exports_are_exactly_the_hooks);
    tcase_add_test(t, exports_map_is_the_hook_list);
    tcase_add_test(t, every_launch_entry_point_is_hooked);
    tcase_add_loop_test(t, every_math_library_entry_point_is_hooked, 0,
                        (int)(sizeof math_libs / sizeof math_libs[0]));
    tcase_add_test(t, every_driver_export_is_hooked);
    tcase_add_test(t, no_cuda_program_unchanged);
    tcase_add_test(t, program_references_are_versioned);
    suite_add_tcase(s, t);
    t = tcase_create("runtime");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, cudart_hooks_real_libs);
    tcase_add_test(t, cudart_hooks_sim);
    tcase_add_test(t, kernel_names_real_libs);
    tcase_add_test(t, kernel_names_sim);
    tcase_add_test(t, resolution_absent_then_rtld_local);
    suite_add_tcase(s, t);
    t = tcase_create("blas");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, blas_hooks_real_libs);
    tcase_add_test(t, blas_hooks_sim);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
