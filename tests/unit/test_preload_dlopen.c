/*
 * test_preload_dlopen.c - loads libuser.so (argv[1]) with RTLD_LOCAL and
 * runs it. Before that, with no CUDA library loaded at all, it calls the
 * hooks by name if they are there (only under the profiler): they must
 * return an error and not crash. After it, 16 threads start at once on a
 * hook nobody has called yet (all of them on the resolution slow path).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 16
#define CALLS 200

static pthread_barrier_t start;
static int (*sync_many)(int);

static void *worker(void *arg)
{
    pthread_barrier_wait(&start);
    *(int *)arg = sync_many(CALLS);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int (*cuda_malloc)(void **, size_t) = (int (*)(void **, size_t))dlsym(RTLD_DEFAULT, "cudaMalloc");
    int (*sync)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize");
    int (*lt)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "cublasLtMatmul");
    if (cuda_malloc != NULL && sync != NULL && lt != NULL) {
        void *p = NULL;
        printf("absent cudaMalloc r=%d\n", cuda_malloc(&p, 555));
        printf("absent cudaDeviceSynchronize r=%d\n", sync());
        /* cublasLtMatmul with no library: the shape is not read (no real
         * helpers either), the status says not initialized. Arguments are
         * never dereferenced on this path. */
        int (*matmul)(void *, void *, const void *, const void *, void *, const void *, void *,
                      const void *, const void *, void *, void *, void *, const void *, void *,
                      size_t, void *) = (void *)lt;
        printf("absent cublasLtMatmul r=%d\n",
               matmul(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    }
    void *h = dlopen(argv[1], RTLD_LOCAL | RTLD_NOW);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "user_run");
    sync_many = (int (*)(int))dlsym(h, "user_sync_many");
    if (run == NULL || sync_many == NULL)
        return 1;
    run();
    pthread_t t[THREADS];
    int missed[THREADS], total = 0;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, &missed[i]);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        total += missed[i];
    }
    printf("threads calls=%d missed=%d\n", THREADS * CALLS, total);
    return 0;
}
