/*
 * tls_prog.c - a CUDA program linked with a library of 120 KiB of TLS
 * (big_tls.c), calling the runtime for MS milliseconds, then exiting 0.
 * cuprof's own threads (the run file's flusher, the capture timer) must run
 * in it: on a real GPU, matmul_add (libcublasLt's TLS) crashed in the
 * flusher, whose 128 KiB stack was mostly TLS.
 *
 *   tls_prog MS [bad-device]
 *
 * bad-device: first a cudaSetDevice(99), which fails (cudaErrorInvalidDevice),
 * for the findings on failed calls.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int big_tls_touch(size_t i);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int ms = argc > 1 ? atoi(argv[1]) : 300, calls = 0;
    if (argc > 2 && !strcmp(argv[2], "bad-device"))
        (void)cudaSetDevice(99);
    double t0 = now_ms();
    while (now_ms() - t0 < ms) {
        void *p = NULL;
        if (cudaMalloc(&p, 256) == cudaSuccess)
            cudaFree(p);
        calls++;
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
    printf("tls_prog: %d calls, tls %d\n", calls > 0, big_tls_touch((size_t)calls));
    return 0;
}
