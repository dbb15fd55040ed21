/*
 * test_preload_user.c - libuser.so: a library that links libcudart and is
 * loaded by test_preload_dlopen.c with RTLD_LOCAL (as python loads
 * extension modules), so libcudart never enters the global scope: the
 * hooks' dlsym(RTLD_NEXT) misses and they must find it with RTLD_NOLOAD.
 */
#include <stdio.h>

#include <cuda_runtime_api.h>

int user_run(void)
{
    void *p = NULL;
    printf("user cudaMalloc r=%d\n", (int)cudaMalloc(&p, 777));
    printf("user cudaDeviceSynchronize r=%d\n", (int)cudaDeviceSynchronize());
    return 0;
}

/* Calls cudaStreamSynchronize n times; returns how many calls did not reach
 * the real library (cudaErrorSharedObjectSymbolNotFound from the hook). */
int user_sync_many(int n)
{
    int missed = 0;
    for (int i = 0; i < n; i++)
        missed += cudaStreamSynchronize(0) == cudaErrorSharedObjectSymbolNotFound;
    return missed;
}
