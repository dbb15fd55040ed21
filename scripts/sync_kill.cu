/*
 * sync_kill.cu - a signal while the GPU is busy: a kernel that spins ~20 s,
 * main waiting in cudaDeviceSynchronize, SIGTERM from another thread after
 * 300 ms. Plain, the process ends with 143 at once; under cuprof it must end
 * with 143 too, within the exit path's 5 s bound for CUDA, with its files
 * written (scripts/gpu_check.sh; bench/H100.md). GPU machines only.
 *   nvcc -cudart=shared -o sync_kill scripts/sync_kill.cu
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
__global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
static void *killer(void *a) { (void)a; usleep(300000); kill(getpid(), SIGTERM); return NULL; }
int main() {
    void *p; cudaMalloc(&p, 256);
    spin<<<1, 1>>>(40000000000LL);   // ~20 s at ~2 GHz
    pthread_t t; pthread_create(&t, NULL, killer, NULL);
    printf("sync_kill: waiting\n"); fflush(stdout);
    cudaDeviceSynchronize();
    printf("sync_kill: sync returned (not expected)\n");
    return 0;
}
