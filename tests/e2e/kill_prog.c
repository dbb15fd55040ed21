/*
 * kill_prog.c - a program for the tests of a process killed outright
 * (test_e2e_runfile.c: SIGKILL, the flight recorder, the OOM killer). It
 * keeps its own count of its calls where the kill cannot take it away.
 *
 *   kill_prog count FILE THREADS [US]
 *       THREADS threads (main is one) each make cudaMemset calls on a
 *       buffer of their own (a GPU record each), one every US microseconds
 *       (default 0: back to back), forever. After each call returns, the
 *       thread adds 1 to its counter in FILE (mapped MAP_SHARED: a uint64_t
 *       per thread, 64 bytes apart; the file must hold 64 * THREADS bytes).
 *       Every 1024th call is followed by an NVTX mark of a new name
 *       ("t<thread>.<call>": the names interned last are needed too).
 *   kill_prog oom MB
 *       device memory first (cudaMalloc 8 MiB, cudaMallocManaged 4 MiB,
 *       cudaMalloc 4 MiB: owners cudaMalloc 12 MiB in 2, then
 *       cudaMallocManaged), then MB MiB of host memory more every
 *       20 ms, each page touched, a cudaMemset between: the kernel's OOM
 *       killer ends it under a memory limit. Prints "oom ready" once the
 *       device memory is held.
 *   kill_prog oom-worker MB
 *       the same in a forked child (a worker), waited for: then one
 *       cudaMalloc/cudaFree pair here, "worker ended by signal N", exit 0.
 * Linked against the toolkit's libcudart; the tests put the sim first.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t *counts;
static unsigned us;

static void *caller(void *arg)
{
    int k = (int)(intptr_t)arg;
    void *d = NULL;
    if (cudaMalloc(&d, 256) != cudaSuccess)
        return NULL;
    volatile uint64_t *mine = counts + (size_t)k * 8;
    for (uint64_t i = 0;; i++) {
        cudaMemset(d, (int)(i & 0xff), 256);
        *mine = *mine + 1;   /* the call returned: it counts */
        if ((i & 1023) == 1023) {
            char name[48];
            snprintf(name, sizeof name, "t%d.%llu", k, (unsigned long long)i);
            nvtxMarkA(name);
        }
        if (us) {
            struct timespec ts = {0, (long)us * 1000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static int count(const char *file, int threads)
{
    int fd = open(file, O_RDWR);
    if (fd < 0) {
        perror(file);
        return 2;
    }
    counts = mmap(NULL, (size_t)threads * 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (counts == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    for (int k = 1; k < threads; k++) {
        pthread_t th;
        pthread_create(&th, NULL, caller, (void *)(intptr_t)k);
    }
    caller((void *)0);
    return 0;
}

static int oom(int mb)
{
    void *a = NULL, *b = NULL, *c = NULL;
    if (cudaMalloc(&a, 8u << 20) != cudaSuccess ||
        cudaMallocManaged(&b, 4u << 20, cudaMemAttachGlobal) != cudaSuccess ||
        cudaMalloc(&c, 4u << 20) != cudaSuccess)
        return 2;
    printf("oom ready\n");
    fflush(stdout);
    for (;;) {
        char *p = malloc((size_t)mb << 20);
        if (!p)
            return 4;
        for (size_t off = 0; off < ((size_t)mb << 20); off += 4096)
            p[off] = 1;
        cudaMemset(a, 0, 256);
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "count")) {
        us = argc >= 5 ? (unsigned)atoi(argv[4]) : 0;
        return count(argv[2], atoi(argv[3]));
    }
    if (argc >= 3 && !strcmp(argv[1], "oom"))
        return oom(atoi(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "oom-worker")) {
        pid_t w = fork();
        if (w == 0)
            _exit(oom(atoi(argv[2])));
        int st = 0;
        waitpid(w, &st, 0);
        void *d = NULL;
        cudaMalloc(&d, 256);
        cudaFree(d);
        printf("worker ended by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        return 0;
    }
    fprintf(stderr, "usage: kill_prog count FILE THREADS [US] | kill_prog oom MB | "
                    "kill_prog oom-worker MB\n");
    return 2;
}
