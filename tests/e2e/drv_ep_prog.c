/*
 * drv_ep_prog.c - the driver's copy, memset, allocation and sync reached both
 * ways a program reaches them: linked (-lcuda) and by address from the
 * runtime's cudaGetDriverEntryPointByVersion (as PyTorch does), each once.
 * Prints "ok" and exits 0 when the bytes came back, 3 when a call fails.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { int r_ = (int)(x); if (r_ != 0) { \
    fprintf(stderr, "drv_ep_prog: %s failed: %d\n", #x, r_); return 3; } } while (0)

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*set_fn)(CUdeviceptr, unsigned int, size_t);
typedef CUresult (*sync_fn)(CUstream);
typedef CUresult (*free_fn)(CUdeviceptr);

/* The driver's function for name, from the runtime. */
static void *entry(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &st) != cudaSuccess ||
        st != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

int main(void)
{
    alloc_fn ep_alloc = (alloc_fn)entry("cuMemAlloc");
    htod_fn ep_htod = (htod_fn)entry("cuMemcpyHtoD");
    set_fn ep_set = (set_fn)entry("cuMemsetD32");
    sync_fn ep_sync = (sync_fn)entry("cuStreamSynchronize");
    free_fn ep_free = (free_fn)entry("cuMemFree");
    if (!ep_alloc || !ep_htod || !ep_set || !ep_sync || !ep_free) {
        fprintf(stderr, "drv_ep_prog: an entry point is missing\n");
        return 3;
    }
    unsigned host[1024], back[1024];
    for (unsigned i = 0; i < 1024; i++)
        host[i] = i;
    CUdeviceptr a, b;
    CK(cudaFree(0));   /* the runtime's primary context, current: the driver calls need one
                          (without it a real driver answers 201, invalid context; the sim did not) */
    CK(cuMemAlloc(&a, sizeof host));                /* linked */
    CK(ep_alloc(&b, sizeof host));                  /* by address */
    CK(cuMemcpyHtoD(a, host, sizeof host));
    CK(ep_htod(b, host, sizeof host));
    CK(cuMemsetD32(a, 7u, 1024));
    CK(ep_set(b, 9u, 1024));
    CK(cuStreamSynchronize(NULL));
    CK(ep_sync(NULL));
    CK(cuMemcpyDtoH(back, b, sizeof back));
    int ok = back[0] == 9u && back[1023] == 9u;
    CK(cuMemFree(a));
    CK(ep_free(b));
    printf("drv_ep_prog: %s\n", ok ? "ok" : "BAD");
    return ok ? 0 : 3;
}
