// driver_jit: NVIDIA's ptxjit sample's shape on the driver API alone (linked
// with -lcuda): PTX text handed to the JIT linker (cuLinkCreate with its wall
// time and log options, cuLinkAddData, cuLinkComplete), the cubin it makes
// loaded as a module (cuModuleLoadDataEx) and its kernel launched on a
// stream; then the same PTX loaded straight as a module (cuModuleLoadData
// compiles it) and launched again; the modules unloaded, the link destroyed.
//@ link -lcuda
//@ api cuLinkCreate_v2 1
//@ api cuLinkAddData_v2 1
//@ api cuLinkComplete 1
//@ api cuLinkDestroy 1
//@ api cuModuleLoadDataEx 1
//@ api cuModuleLoadData 1
//@ api cuModuleGetFunction 3
//@ api cuLaunchKernel 2
//@ api cuModuleUnload 2
//@ kernel noop_kernel 2
#include "common.h"
#include <cstring>

// A kernel that does nothing, as PTX a program would ship or generate.
static const char ptx[] = "//\n"
                          "// driver_jit's kernel\n"
                          "//\n"
                          ".version 8.0\n"
                          ".target sm_90\n"
                          ".address_size 64\n"
                          "\n"
                          ".visible .entry noop_kernel()\n"
                          "{\n"
                          "\tret;\n"
                          "}\n";

int main()
{
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    // the JIT linker, with the options ptxjit asks for (not the verbose log)
    float walltime = -1;
    char info_log[4096], error_log[4096];
    CUjit_option options[5] = {CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                               CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[5] = {&walltime, info_log, (void *)(size_t)sizeof info_log, error_log,
                       (void *)(size_t)sizeof error_log};
    CUlinkState link;
    CHECK_CU(cuLinkCreate(5, options, values, &link));
    CUresult added = cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, sizeof ptx, "noop.ptx", 0, NULL, NULL);
    if (added != CUDA_SUCCESS) {
        fprintf(stderr, "driver_jit: PTX link error: %s\n", error_log);
        return 1;
    }
    void *cubin = NULL;
    size_t cubin_size = 0;
    CHECK_CU(cuLinkComplete(link, &cubin, &cubin_size));
    printf("driver_jit: linked a cubin: %s, wall time reported: %s\n", cubin && cubin_size ? "yes" : "no",
           walltime >= 0 ? "yes" : "no");

    CUmodule linked, direct;
    CUfunction f;
    CHECK_CU(cuModuleLoadDataEx(&linked, cubin, 0, NULL, NULL));
    CHECK_CU(cuModuleGetFunction(&f, linked, "noop_kernel"));
    CHECK_CU(cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, stream, NULL, NULL));
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuLinkDestroy(link));   // the cubin goes with it: the module keeps its own

    CHECK_CU(cuModuleLoadData(&direct, ptx));
    CHECK_CU(cuModuleGetFunction(&f, direct, "noop_kernel"));
    CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL));
    CHECK_CU(cuStreamSynchronize(stream));
    CUfunction missing;
    CUresult r = cuModuleGetFunction(&missing, direct, "no_such_kernel");
    printf("driver_jit: a kernel the module lacks: %s\n", r == CUDA_ERROR_NOT_FOUND ? "not found" : "other");

    CHECK_CU(cuModuleUnload(linked));
    CHECK_CU(cuModuleUnload(direct));
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    printf("driver_jit: done\n");
    return 0;
}
