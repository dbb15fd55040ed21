/*
 * hooks_dlsym.c - dlsym on a CUDA library's own handle gives the hook.
 *
 * A program that opens a CUDA library itself and looks its functions up on
 * that handle (Python's ctypes.CDLL("libcudart.so").cudaMalloc, a plugin's
 * dlopen + dlsym(handle, "cuMemCreate")) gets the library's own function:
 * the dynamic linker searches the handle's scope, where libcuprof.so is
 * not, and every such call bypassed the hooks (no call recorded, on the
 * sim as on the H200: bench/H200.md). dlsym is interposed:
 *  - RTLD_DEFAULT and RTLD_NEXT: the real dlsym, entered by a jump (the
 *    assembly entry below) so that it sees the program's return address:
 *    both lookups depend on who asks;
 *  - a handle: the real dlsym; when the name is a hook's and what it found
 *    is the very function that hook calls (resolve.c's), the hook is
 *    returned instead, as a program linked with -lcudart gets it. Not when
 *    the caller is a CUDA library itself (libcudart opening libcuda, cuDNN
 *    opening cuBLAS: their calls to each other are theirs, as linked ones
 *    are) or this library; never for cuGetProcAddress(_v2) and
 *    cuGetExportTable: a runtime linked statically into the program (nvcc's
 *    default) finds the driver with dlopen + dlsym(h, "cuGetProcAddress_v2")
 *    from the program's own code, and all its own driver calls would then
 *    come through the entry-point hooks (hooks_driver.c).
 * x86-64 and AArch64 (the entry is assembly: a C wrapper would be the
 * caller the real dlsym sees); elsewhere dlsym is not interposed.
 */
#include "preload/hooks.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

__attribute__((visibility("hidden"))) void *preload_real_dlsym;

/* The real dlsym (the entry's slow path when it is not known yet). */
__attribute__((visibility("hidden"), used)) void *preload_dlsym_resolve(void)
{
    void *p = preload_real_dlsym;
    if (p)
        return p;
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"};
    for (size_t i = 0; !p && i < sizeof versions / sizeof versions[0]; i++)
        p = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    __atomic_store_n(&preload_real_dlsym, p, __ATOMIC_RELEASE);
    return p;
}

/* 1: a CUDA library (by its file's name), 2: this library, 0: other. */
static int object_kind(const char *path)
{
    static const char *const libs[] = {"libcudart", "libcublas", "libcuda.", "libcudnn", "libnccl",
                                       "libcupti", "libnvrtc", "libcufft", "libcurand", "libcusparse",
                                       "libcusolver", "libnvJit", "libnvblas"};
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    if (!strncmp(b, "libcuprof", 9))
        return 2;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(b, libs[i], strlen(libs[i])))
            return 1;
    return 0;
}

static void *self_handle;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void self_open(void)
{
    Dl_info di;
    if (dladdr((void *)preload_dlsym_resolve, &di) && di.dli_fname)
        self_handle = dlopen(di.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
}

/* dlsym(handle, name) for a real handle, called from the entry by a jump:
 * the return address is the program's. */
__attribute__((visibility("hidden"), used, noinline)) void *
preload_dlsym_handle(void *handle, const char *name)
{
    void *(*real)(void *, const char *) = (void *(*)(void *, const char *))preload_dlsym_resolve();
    if (!real)
        return NULL;
    void *p = real(handle, name);
    if (!p || !name)
        return p;
    int fn = cuprof_preload_hook_of(name);
    if (fn < 0 || !strncmp(name, "cuGetProcAddress", 16) || !strcmp(name, "cuGetExportTable"))
        return p;   /* the entry points a static runtime bootstraps from (see above) */
    /* asked by the program (not by CUDA or us), found in a CUDA library */
    Dl_info caller, found;
    if (!dladdr(__builtin_return_address(0), &caller) || !caller.dli_fname ||
        object_kind(caller.dli_fname) != 0 || !dladdr(p, &found) || !found.dli_fname ||
        object_kind(found.dli_fname) != 1)
        return p;
    if (preload_real((unsigned)fn) != p)
        return p;   /* another copy of the library than the one the hook calls */
    pthread_once(&self_once, self_open);
    void *hook = self_handle ? real(self_handle, name) : NULL;
    return hook ? hook : p;
}

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    .cfi_startproc\n"
        "    testq %rdi, %rdi\n"              /* RTLD_DEFAULT */
        "    je 1f\n"
        "    cmpq $-1, %rdi\n"                /* RTLD_NEXT */
        "    je 1f\n"
        "    jmp preload_dlsym_handle\n"
        "1:  movq preload_real_dlsym(%rip), %rax\n"
        "    testq %rax, %rax\n"
        "    je 2f\n"
        "    jmp *%rax\n"
        "2:  pushq %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %rsi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    subq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    call preload_dlsym_resolve\n"
        "    addq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    popq %rsi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    popq %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    testq %rax, %rax\n"
        "    je 3f\n"
        "    jmp *%rax\n"
        "3:  ret\n"
        "    .cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, %function\n"
        "dlsym:\n"
        "    .cfi_startproc\n"
        "    cbz x0, 1f\n"                    /* RTLD_DEFAULT */
        "    cmn x0, #1\n"                    /* RTLD_NEXT */
        "    b.eq 1f\n"
        "    b preload_dlsym_handle\n"
        "1:  adrp x16, preload_real_dlsym\n"
        "    ldr x16, [x16, :lo12:preload_real_dlsym]\n"
        "    cbz x16, 2f\n"
        "    br x16\n"
        "2:  stp x29, x30, [sp, #-32]!\n"
        "    .cfi_def_cfa_offset 32\n"
        "    .cfi_offset 29, -32\n"
        "    .cfi_offset 30, -24\n"
        "    mov x29, sp\n"
        "    stp x0, x1, [sp, #16]\n"
        "    bl preload_dlsym_resolve\n"
        "    mov x16, x0\n"
        "    ldp x0, x1, [sp, #16]\n"
        "    ldp x29, x30, [sp], #32\n"
        "    .cfi_def_cfa_offset 0\n"
        "    cbz x16, 3f\n"
        "    br x16\n"
        "3:  mov x0, #0\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#endif
