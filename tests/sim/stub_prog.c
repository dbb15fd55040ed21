/*
 * stub_prog.c - calls one entry point of each simulated library that the
 * sim does not model (tests/sim/gen_stubs.sh), twice, through the library
 * as a program links it (dlopen by soname, dlsym by name at the real
 * version), and prints what each returned; test_sim_exports.c runs it.
 *
 *   cudart  cudaGLGetDevices        -> cudaErrorNotSupported (801), kept as
 *                                      the last error (cudaGetLastError)
 *   cublas  cublasXtCreate          -> CUBLAS_STATUS_NOT_SUPPORTED (15)
 *   cupti   cuptiPCSamplingEnable   -> CUPTI_ERROR_NOT_SUPPORTED
 *   cupti   InitializeInjectionNvtx2 -> 0 (NVTX: "not initialised")
 *   cufft   cufftXtSetGPUs          -> CUFFT_NOT_SUPPORTED (16)
 *   curand  curandGetDirectionVectors32 -> CURAND_STATUS_INTERNAL_ERROR (999:
 *                                      cuRAND has no "not supported")
 *   cusparse cusparseSpSM_createDescr -> CUSPARSE_STATUS_NOT_SUPPORTED (10)
 *   cusolver cusolverDnSgesvdj      -> CUSOLVER_STATUS_NOT_SUPPORTED (9)
 */
#include <dlfcn.h>
#include <stdio.h>

static void *sym(const char *lib, const char *name, const char *version)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    void *f = h ? dlvsym(h, name, version) : NULL;
    if (!f)
        printf("%s: no %s@%s (%s)\n", lib, name, version, dlerror());
    return f;
}

int main(void)
{
    typedef int (*gl_devices)(unsigned *, int *, unsigned, int);
    typedef int (*last_error)(void);
    typedef int (*xt_create)(void **);
    typedef int (*pcs_enable)(void *);
    typedef int (*nvtx_init)(void *);
    gl_devices gl = (gl_devices)sym("libcudart.so.13", "cudaGLGetDevices", "libcudart.so.13");
    last_error le = (last_error)sym("libcudart.so.13", "cudaGetLastError", "libcudart.so.13");
    xt_create lg = (xt_create)sym("libcublas.so.13", "cublasXtCreate", "libcublas.so.13");
    pcs_enable pc = (pcs_enable)sym("libcupti.so.13", "cuptiPCSamplingEnable", "libcupti.so.13");
    nvtx_init nv = (nvtx_init)sym("libcupti.so.13", "InitializeInjectionNvtx2", "libcupti.so.13");
    typedef int (*any)(void *, void *);
    any ff = (any)sym("libcufft.so.12", "cufftXtSetGPUs", "libcufft.so.12");
    any rd = (any)sym("libcurand.so.10", "curandGetDirectionVectors32", "libcurand.so.10");
    any sp = (any)sym("libcusparse.so.12", "cusparseSpSM_createDescr", "libcusparse.so.12");
    any sv = (any)sym("libcusolver.so.12", "cusolverDnSgesvdj", "libcusolver.so.12");
    if (!gl || !le || !lg || !pc || !nv || !ff || !rd || !sp || !sv)
        return 1;
    unsigned count = 7;
    int devices[1];
    void *cb = &count;
    for (int i = 0; i < 2; i++) {
        printf("cudaGLGetDevices %d\n", gl(&count, devices, 1, 1));
        printf("cudaGetLastError %d\n", le());
        printf("cublasXtCreate %d\n", lg(&cb));
        printf("cuptiPCSamplingEnable %d\n", pc(NULL));
        printf("InitializeInjectionNvtx2 %d\n", nv(NULL));
        printf("cufftXtSetGPUs %d\n", ff(NULL, NULL));
        printf("curandGetDirectionVectors32 %d\n", rd(NULL, NULL));
        printf("cusparseSpSM_createDescr %d\n", sp(NULL, NULL));
        printf("cusolverDnSgesvdj %d\n", sv(NULL, NULL));
    }
    return 0;
}
