/*
 * mt_launch.cu - N threads (default 4), each launching K kernels (default
 * 2000; <<<>>> and cudaLaunchKernel in turn) on a stream of its own; each
 * kernel adds 1 to its thread's counter, and the program checks the sum.
 * For scripts/gpu_check.sh: under cuprof on a real GPU every kernel must be
 * tied to a launch on the thread that made it, and the result must not
 * change. (On the simulated device kernels do not run: the sum check fails
 * there, by design.)
 *   nvcc -cudart=shared -o mt_launch scripts/mt_launch.cu
 *   mt_launch [N [K]]
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
__global__ void k_thread(int *p, int t) { if (p) p[t] += 1; }
static int K = 2000; static int *dev;
static void *run(void *arg) {
    int t = (int)(long)arg; cudaStream_t s; cudaStreamCreate(&s);
    for (int i = 0; i < K; i++) {
        if (i & 1) k_thread<<<1, 1, 0, s>>>(dev, t);
        else { void *a[] = {&dev, &t}; cudaLaunchKernel((const void *)k_thread, dim3(1), dim3(1), a, 0, s); }
    }
    cudaStreamSynchronize(s); cudaStreamDestroy(s); return NULL;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4; if (argc > 2) K = atoi(argv[2]);
    cudaMalloc(&dev, 64 * sizeof(int)); cudaMemset(dev, 0, 64 * sizeof(int));
    pthread_t th[64]; for (int t = 0; t < n; t++) pthread_create(&th[t], NULL, run, (void *)(long)t);
    for (int t = 0; t < n; t++) pthread_join(th[t], NULL);
    int h[64]; cudaMemcpy(h, dev, sizeof h, cudaMemcpyDeviceToHost);
    long sum = 0; for (int t = 0; t < n; t++) sum += h[t];
    printf("mt_launch: threads=%d per_thread=%d sum=%ld (want %ld)\n", n, K, sum, (long)n * K);
    return sum == (long)n * K ? 0 : 1;
}
