/*
 * profsh_prog.c - a tiny CUDA program for the prof.sh end-to-end tests.
 *
 *   profsh_prog [threads N] [fork] [memcpy-default] [exit CODE]
 *
 * Makes a few runtime calls (they fail with error 35 where there is no
 * driver: still recorded), optionally from N threads and from a forked
 * child, then exits with CODE (default 0). memcpy-default: first 5
 * cudaMemcpy with cudaMemcpyDefault (host -> device), whose direction the
 * profiler asks the runtime for. Prints "ok" on stdout.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *calls(void *arg)
{
    (void)arg;
    void *p = NULL;
    for (int i = 0; i < 10; i++) {
        cudaMalloc(&p, 256);
        cudaDeviceSynchronize();
        cudaFree(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 0, do_fork = 0, code = 0, mdefault = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "fork") == 0)
            do_fork = 1;
        else if (strcmp(argv[i], "memcpy-default") == 0)
            mdefault = 1;
        else if (strcmp(argv[i], "exit") == 0 && i + 1 < argc)
            code = atoi(argv[++i]);
    }
    if (mdefault) {
        static char host[4096];
        void *dev = NULL;
        cudaMalloc(&dev, sizeof host);
        for (int i = 0; i < 5; i++)
            cudaMemcpy(dev, host, sizeof host, cudaMemcpyDefault);
        cudaFree(dev);
    }
    calls(NULL);
    pthread_t th[64];
    for (int i = 0; i < threads && i < 64; i++)
        pthread_create(&th[i], NULL, calls, NULL);
    for (int i = 0; i < threads && i < 64; i++)
        pthread_join(th[i], NULL);
    if (do_fork) {
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            calls(NULL);
            exit(0);
        }
        waitpid(c, NULL, 0);
    }
    printf("ok\n");
    return code;
}
