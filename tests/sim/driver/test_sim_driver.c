/*
 * test_sim_driver.c - tests of the simulated libcuda.so.1, linked like a
 * driver-API program (-lcuda): memsets of 8, 16 and 32-bit elements (1-D,
 * 2-D, async), the device records they and the copies make (value, bytes,
 * the call's correlation id), memory zeroed at allocation, virtual memory
 * (reserve, create, map, two mappings of one handle sharing bytes, what the
 * driver refuses), the stream-ordered allocator's records, pitched
 * allocations, pointer attributes, error names and strings; modules from a
 * cubin, a fatbin (its sm_90 ELF, else its PTX; refusals) and PTX, and the
 * JIT linker whose output is a cubin.
 */
#include "cusim.h"

#include <check.h>
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) ck_assert_int_eq((int)(x), CUDA_SUCCESS)
#define MIB (1u << 20)

/* ---- what the device reports, caught as a tool would --------------------- */

static cusim_copy_activity copies[16];
static int ncopies;
static cusim_memory_activity mems[16];
static int nmems;
static uint32_t last_corr;

static void on_exit_api(const cusim_api_call *c)
{
    last_corr = c->correlation_id;
}
static void on_copy(const cusim_copy_activity *a)
{
    if (ncopies < 16)
        copies[ncopies++] = *a;
}
static void on_memory(const cusim_memory_activity *a)
{
    if (nmems < 16)
        mems[nmems++] = *a;
}
static void on_nothing_k(const cusim_kernel_activity *a) { (void)a; }
static void on_nothing_s(const cusim_sync_activity *a) { (void)a; }
static const cusim_tool_ops tool = {
    .api_exit = on_exit_api, .kernel = on_nothing_k, .copy = on_copy, .sync = on_nothing_s, .memory = on_memory,
};

static void setup(void)
{
    CK(cuInit(0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CK(cuCtxSetCurrent(ctx));
}

START_TEST(memsets_fill_elements)
{
    setup();
    cusim_tool_set(&tool);
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 4096));
    unsigned char b[4096];
    CK(cuMemsetD32(d, 0xabcd1234u, 1024));
    ck_assert_int_eq(ncopies, 1);
    ck_assert(copies[0].is_memset);
    ck_assert_uint_eq((uint32_t)copies[0].value, 0xabcd1234u);
    ck_assert_uint_eq(copies[0].bytes, 4096);
    ck_assert_uint_eq(copies[0].correlation_id, last_corr);
    CK(cuMemcpyDtoH(b, d, sizeof b));
    ck_assert_uint_eq(copies[1].bytes, 4096);
    ck_assert_int_eq(copies[1].copy_kind, CUSIM_COPY_DTOH);
    uint32_t w;
    memcpy(&w, b + 4092, 4);
    ck_assert_uint_eq(w, 0xabcd1234u);
    CK(cuMemsetD16(d, 0x0102, 2048));
    CK(cuMemcpyDtoH(b, d, sizeof b));
    ck_assert(b[0] == 0x02 && b[1] == 0x01 && b[4094] == 0x02 && b[4095] == 0x01);
    /* 2-D: 4 rows of 8 16-bit elements, 64 bytes apart; the rest untouched */
    CK(cuMemsetD8(d, 0, 4096));
    CK(cuMemsetD2D16(d, 64, 0xffff, 8, 4));
    CK(cuMemcpyDtoH(b, d, sizeof b));
    ck_assert(b[0] == 0xff && b[15] == 0xff && b[16] == 0 && b[64 * 3 + 15] == 0xff && b[64 * 3 + 16] == 0);
    ck_assert_uint_eq(copies[ncopies - 2].bytes, 8 * 2 * 4);
    /* async on a stream, seen after its sync */
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuMemsetD8Async(d, 0x5a, 4096, s));
    ck_assert(copies[ncopies - 1].is_async);
    CK(cuStreamSynchronize(s));
    CK(cuMemcpyDtoH(b, d, sizeof b));
    ck_assert(b[0] == 0x5a && b[4095] == 0x5a);
    /* misaligned 32-bit memset: refused, as the driver does */
    ck_assert_int_eq(cuMemsetD32(d + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);
    CK(cuStreamDestroy(s));
    CK(cuMemFree(d));
    cusim_tool_set(NULL);
}
END_TEST

/* Fresh memory reads zero, as on a GPU, small and large, after the same
 * sizes were written and freed (issue 41: programs read memory they never
 * wrote, and bare and profiled runs differed). */
START_TEST(memory_is_zeroed_at_allocation)
{
    setup();
    static const size_t sizes[] = {256, 8 * MIB};
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < 2; k++) {
            CUdeviceptr d;
            CK(cuMemAlloc(&d, sizes[k]));
            unsigned char *h = malloc(sizes[k]);
            CK(cuMemcpyDtoH(h, d, sizes[k]));
            for (size_t i = 0; i < sizes[k]; i += 997)
                ck_assert_msg(h[i] == 0, "byte %zu of %zu is %d", i, sizes[k], h[i]);
            ck_assert_int_eq(h[sizes[k] - 1], 0);
            CK(cuMemsetD8(d, 0xee, sizes[k]));
            CK(cuCtxSynchronize());
            CK(cuMemFree(d));
            free(h);
        }
    /* every kind the runtime hands out comes from the same allocator */
    static const enum cusim_mem_kind kinds[] = {CUSIM_MEM_DEVICE, CUSIM_MEM_MANAGED, CUSIM_MEM_PINNED};
    for (size_t k = 0; k < 3; k++) {
        unsigned char *p = cusim_mem_alloc(1000, kinds[k]);
        ck_assert_ptr_nonnull(p);
        memset(p, 0x77, 1000);
        ck_assert_int_eq(cusim_mem_free(p, kinds[k]), 0);
        p = cusim_mem_alloc(1000, kinds[k]);
        for (int i = 0; i < 1000; i++)
            ck_assert_int_eq(p[i], 0);
        ck_assert_int_eq(cusim_mem_free(p, kinds[k]), 0);
    }
}
END_TEST

START_TEST(virtual_memory)
{
    setup();
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t g = 0, free0, free1, total;
    CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    ck_assert_uint_eq(g, 2 * MIB);
    CK(cuMemGetInfo(&free0, &total));
    CUdeviceptr base;
    CK(cuMemAddressReserve(&base, 4 * g, 0, 0, 0));
    ck_assert_uint_eq(base % g, 0);
    ck_assert_int_eq(cuMemAddressReserve(&base, g + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CUmemGenericAllocationHandle h0, h1;
    CK(cuMemCreate(&h0, g, &prop, 0));
    CK(cuMemCreate(&h1, g, &prop, 0));
    ck_assert_int_eq(cuMemCreate(&h1, g / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    CK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free0 - free1, 2 * g);   /* physical memory is what counts */
    CK(cuMemMap(base, g, 0, h0, 0));
    CK(cuMemMap(base + g, g, 0, h1, 0));
    CK(cuMemMap(base + 2 * g, g, 0, h0, 0));   /* a second view of h0 */
    ck_assert_int_eq(cuMemMap(base, g, 0, h1, 0), CUDA_ERROR_INVALID_VALUE);   /* taken */
    CUmemAccessDesc acc = {.location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CK(cuMemSetAccess(base, 3 * g, &acc, 1));
    ck_assert_int_eq(cuMemSetAccess(base, 4 * g, &acc, 1), CUDA_ERROR_INVALID_VALUE);   /* unmapped part */
    CK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free0 - free1, 2 * g);   /* mappings take none */
    /* fresh physical memory is zero; two mappings of one handle share it */
    unsigned v = 1;
    CK(cuMemcpyDtoH(&v, base + 2 * g + 64, sizeof v));
    ck_assert_uint_eq(v, 0);
    CK(cuMemsetD32(base, 0x11223344u, 2 * g / 4));   /* across two mappings */
    CK(cuMemcpyDtoH(&v, base + 2 * g + 64, sizeof v));
    ck_assert_uint_eq(v, 0x11223344u);
    CK(cuMemcpyDtoH(&v, base + 2 * g - 4, sizeof v));
    ck_assert_uint_eq(v, 0x11223344u);
    unsigned vd = 0;
    CK(cuPointerGetAttribute(&vd, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, base + g + 8));
    ck_assert_uint_eq(vd, CU_MEMORYTYPE_DEVICE);
    /* release while mapped: the memory stays until its last unmap */
    CK(cuMemRelease(h0));
    ck_assert_int_eq(cuMemRelease(h0), CUDA_ERROR_INVALID_VALUE);
    CK(cuMemcpyDtoH(&v, base, sizeof v));
    ck_assert_uint_eq(v, 0x11223344u);
    ck_assert_int_eq(cuMemUnmap(base, g / 2), CUDA_ERROR_INVALID_VALUE);   /* part of a mapping */
    ck_assert_int_eq(cuMemAddressFree(base, 4 * g), CUDA_ERROR_INVALID_VALUE);   /* still mapped */
    CK(cuMemUnmap(base, 3 * g));
    ck_assert_int_eq(cuPointerGetAttribute(&vd, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, base), CUDA_ERROR_INVALID_VALUE);
    CK(cuMemRelease(h1));
    CK(cuMemAddressFree(base, 4 * g));
    CK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free1, free0);
}
END_TEST

START_TEST(stream_ordered_and_pitched)
{
    setup();
    cusim_tool_set(&tool);
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr p;
    CK(cuMemAllocAsync(&p, MIB, s));
    ck_assert_int_eq(nmems, 1);
    ck_assert(mems[0].is_async && !mems[0].release && mems[0].bytes == MIB && mems[0].address == p);
    ck_assert_uint_ne(mems[0].stream_id, 0);
    CK(cuMemFreeAsync(p, s));
    ck_assert(mems[1].release && mems[1].is_async && mems[1].address == p);
    CK(cuStreamSynchronize(s));
    CUdeviceptr q;
    size_t pitch = 0;
    CK(cuMemAllocPitch(&q, &pitch, 1000, 64, 4));
    ck_assert_uint_eq(pitch, 1024);
    ck_assert_uint_eq(mems[2].bytes, 1024 * 64);
    CK(cuMemFree(q));
    ck_assert(mems[3].release && mems[3].bytes == 1024 * 64);
    void *host;
    CK(cuMemAllocHost(&host, 4096));
    unsigned t = 0;
    CK(cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)host));
    ck_assert_uint_eq(t, CU_MEMORYTYPE_HOST);
    CK(cuMemFreeHost(host));
    CK(cuStreamDestroy(s));
    cusim_tool_set(NULL);
}
END_TEST

START_TEST(error_names_and_strings)
{
    const char *s = NULL;
    CK(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_OUT_OF_MEMORY");
    CK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    ck_assert_str_eq(s, "out of memory");
    CK(cuGetErrorName(CUDA_ERROR_NOT_READY, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_NOT_READY");
    CK(cuGetErrorName(CUDA_SUCCESS, &s));
    ck_assert_str_eq(s, "CUDA_SUCCESS");
    CK(cuGetErrorName(CUDA_ERROR_STUB_LIBRARY, &s));   /* one with no message of the sim's */
    ck_assert_str_eq(s, "CUDA_ERROR_STUB_LIBRARY");
    ck_assert_int_eq(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* ---- modules: cubin, fatbin, PTX, the linker ------------------------------ */

static const char ptx_two[] = "//\n// Generated by hand\n.version 8.8\n.target sm_90\n.address_size 64\n"
                              ".visible .entry k_one(\n .param .u64 p\n)\n{\n ret;\n}\n"
                              ".entry k_two()\n{\n ret;\n}\n";

/* The options of a link, which must outlive it (CUDA writes into them). */
typedef struct link_opts {
    float wall;
    char info[64];
    CUjit_option o[3];
    void *v[3];
} link_opts;

/* A cubin naming the kernels of ptx, made by the sim's linker; *n its size. */
static void *cubin_of(const char *ptx, size_t *n, CUlinkState *ls, link_opts *lo)
{
    lo->wall = -1.0f;
    memset(lo->info, 'x', sizeof lo->info);
    lo->o[0] = CU_JIT_WALL_TIME, lo->o[1] = CU_JIT_INFO_LOG_BUFFER, lo->o[2] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    lo->v[0] = &lo->wall, lo->v[1] = lo->info, lo->v[2] = (void *)(uintptr_t)sizeof lo->info;
    CK(cuLinkCreate(3, lo->o, lo->v, ls));
    CK(cuLinkAddData(*ls, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "k.ptx", 0, NULL, NULL));
    void *cubin = NULL;
    CK(cuLinkComplete(*ls, &cubin, n));
    ck_assert(lo->wall == 0.0f);
    ck_assert_str_eq(lo->info, "");   /* written: the program prints it */
    ck_assert_ptr_nonnull(cubin);
    return cubin;
}

/* Appends a fatbin entry (kind, arch, flags) with its payload to fb at *at. */
static void fat_entry(unsigned char *fb, size_t *at, uint16_t kind, uint32_t arch, uint64_t flags, const void *p,
                      uint64_t n)
{
    unsigned char *e = fb + *at;
    memset(e, 0, 0x40);
    memcpy(e, &kind, 2);
    uint32_t hs = 0x40;
    memcpy(e + 4, &hs, 4);
    memcpy(e + 8, &n, 8);
    memcpy(e + 0x1c, &arch, 4);
    memcpy(e + 0x28, &flags, 8);
    memcpy(e + 0x40, p, n);
    *at += 0x40 + n;
    uint64_t total = *at - 16;
    memcpy(fb + 8, &total, 8);
}

static size_t fat_begin(unsigned char *fb)
{
    uint32_t magic = 0xBA55ED50u;
    uint16_t ver = 1, hs = 16;
    memset(fb, 0, 16);
    memcpy(fb, &magic, 4);
    memcpy(fb + 4, &ver, 2);
    memcpy(fb + 6, &hs, 2);
    return 16;
}

static int has_kernel(CUmodule m, const char *name)
{
    CUfunction f;
    return cuModuleGetFunction(&f, m, name) == CUDA_SUCCESS;
}

START_TEST(modules_from_fatbin_ptx_and_link)
{
    setup();
    CUlinkState ls, other;
    size_t n, n2;
    static link_opts lo1, lo2;
    void *cubin = cubin_of(ptx_two, &n, &ls, &lo1);
    void *cubin75 = cubin_of(".version 8.8\n.target sm_75\n.entry k_old()\n{\n}\n", &n2, &other, &lo2);
    CUmodule m;
    CK(cuModuleLoadData(&m, cubin));   /* the link's output is a cubin */
    ck_assert(has_kernel(m, "k_one") && has_kernel(m, "k_two"));
    CUfunction f;
    ck_assert_int_eq(cuModuleGetFunction(&f, m, "k_three"), CUDA_ERROR_NOT_FOUND);
    CK(cuModuleGetFunction(&f, m, "k_two"));
    const char *name;
    CK(cuFuncGetName(&name, f));
    ck_assert_str_eq(name, "k_two");
    CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CK(cuCtxSynchronize());
    CK(cuModuleUnload(m));

    /* a fatbin as nvcc -fatbin writes one: the sm_90 ELF, not the sm_75 one */
    static unsigned char fb[16384];
    size_t at = fat_begin(fb);
    fat_entry(fb, &at, 2, 75, 0x11, cubin75, n2);
    fat_entry(fb, &at, 1, 90, 0x8011, "(\xb5/\xfd", 4);   /* a zstd-compressed PTX */
    fat_entry(fb, &at, 2, 90, 0x11, cubin, n);
    CK(cuModuleLoadData(&m, fb));
    ck_assert(has_kernel(m, "k_one") && !has_kernel(m, "k_old"));
    CK(cuModuleLoadFatBinary(&m, fb));
    ck_assert(has_kernel(m, "k_two"));
    char err[32] = "untouched";
    CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[2] = {err, (void *)(uintptr_t)sizeof err};
    CK(cuModuleLoadDataEx(&m, fb, 2, o, v));
    ck_assert(has_kernel(m, "k_one"));
    ck_assert_str_eq(err, "");
    /* nvcc's wrapper around a fatbin (fatbinary_section.h) */
    struct { int magic, version; const void *data; void *filename; } wrap = {0x466243B1, 1, fb, NULL};
    CK(cuModuleLoadFatBinary(&m, &wrap));
    ck_assert(has_kernel(m, "k_two"));

    /* no sm_90 ELF: the PTX entry's names (the real driver JIT-compiles it) */
    at = fat_begin(fb);
    fat_entry(fb, &at, 2, 75, 0x11, cubin75, n2);
    fat_entry(fb, &at, 1, 90, 0x11, ptx_two, sizeof ptx_two - 1);   /* no NUL in a fatbin's PTX */
    CK(cuModuleLoadData(&m, fb));
    ck_assert(has_kernel(m, "k_one") && has_kernel(m, "k_two") && !has_kernel(m, "k_old"));

    /* nothing for the device, or only compressed: refused as the driver would */
    at = fat_begin(fb);
    fat_entry(fb, &at, 2, 75, 0x11, cubin75, n2);
    ck_assert_int_eq(cuModuleLoadData(&m, fb), CUDA_ERROR_NO_BINARY_FOR_GPU);
    fat_entry(fb, &at, 2, 90, 0x2011, "\xa2\x7f" "EL", 4);   /* LZ4 */
    ck_assert_int_eq(cuModuleLoadData(&m, fb), CUDA_ERROR_NOT_SUPPORTED);
    /* an entry whose size runs past the fatbin: no read past it */
    at = fat_begin(fb);
    fat_entry(fb, &at, 2, 90, 0x11, cubin, n);
    uint64_t big = 1u << 30;
    memcpy(fb + 16 + 8, &big, 8);
    ck_assert_int_eq(cuModuleLoadData(&m, fb), CUDA_ERROR_INVALID_IMAGE);
    ck_assert_int_eq(cuLinkAddData(other, CU_JIT_INPUT_FATBINARY, fb, 64, NULL, 0, NULL, NULL),
                     CUDA_ERROR_INVALID_IMAGE);
    ck_assert_int_eq(cuLinkAddData(other, CU_JIT_INPUT_CUBIN, cubin, 40, NULL, 0, NULL, NULL),
                     CUDA_ERROR_INVALID_IMAGE);   /* a cubin cut short */
    ck_assert_int_eq(cuModuleLoadData(&m, "\x01\x02garbage"), CUDA_ERROR_INVALID_IMAGE);
    ck_assert_int_eq(cuModuleLoadData(NULL, fb), CUDA_ERROR_INVALID_VALUE);

    /* a link of a cubin and a fatbin: both inputs' kernels */
    at = fat_begin(fb);
    fat_entry(fb, &at, 2, 90, 0x11, cubin75, n2);   /* k_old, as an sm_90 entry */
    CUlinkState l3;
    CK(cuLinkCreate(0, NULL, NULL, &l3));
    CK(cuLinkAddData(l3, CU_JIT_INPUT_CUBIN, cubin, n, NULL, 0, NULL, NULL));
    CK(cuLinkAddData(l3, CU_JIT_INPUT_FATBINARY, fb, at, NULL, 0, NULL, NULL));
    ck_assert_int_eq(cuLinkAddData(l3, CU_JIT_INPUT_LIBRARY, fb, at, NULL, 0, NULL, NULL),
                     CUDA_ERROR_NOT_SUPPORTED);
    void *out;
    size_t nout;
    CK(cuLinkComplete(l3, &out, &nout));
    CK(cuModuleLoadData(&m, out));
    ck_assert(has_kernel(m, "k_one") && has_kernel(m, "k_two") && has_kernel(m, "k_old"));
    CK(cuLinkDestroy(l3));
    ck_assert_int_eq(cuLinkDestroy(l3), CUDA_ERROR_INVALID_HANDLE);   /* stale: refused */
    ck_assert_int_eq(cuLinkAddFile(l3, CU_JIT_INPUT_PTX, "/nonexistent", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_HANDLE);
    CK(cuLinkDestroy(ls));
    CK(cuLinkDestroy(other));
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sim_driver");
    TCase *tc = tcase_create("driver");
    tcase_add_test(tc, memsets_fill_elements);
    tcase_add_test(tc, memory_is_zeroed_at_allocation);
    tcase_add_test(tc, virtual_memory);
    tcase_add_test(tc, stream_ordered_and_pitched);
    tcase_add_test(tc, error_names_and_strings);
    tcase_add_test(tc, modules_from_fatbin_ptx_and_link);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
