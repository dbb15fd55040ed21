/*
 * mpi_prog.c - an MPI + CUDA job for the multi-rank tests (test_e2e_ranks):
 * every rank runs STEPS steps of one GEMM on its own GPU (cuBLAS), a device
 * synchronization, an MPI_Allreduce of a checksum and an MPI_Barrier. The
 * rank named by --slow does --slow-gemms GEMMs a step instead of one, so it
 * reaches every barrier last and the others wait for it there.
 *
 *   mpi_prog [--steps N] [--size N] [--slow RANK] [--slow-gemms N] [--exit N]
 *
 * Rank 0 prints the steps' reduced checksum on stdout; every rank exits
 * with --exit's status (default 0) after MPI_Finalize.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(int ok, const char *what, int rank)
{
    if (!ok) {
        fprintf(stderr, "mpi_prog: rank %d: %s failed\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return ok;
}

int main(int argc, char **argv)
{
    int steps = 6, n = 2048, slow = -1, slow_gemms = 150, status = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--steps")) steps = v;
        else if (!strcmp(argv[i], "--size")) n = v;
        else if (!strcmp(argv[i], "--slow")) slow = v;
        else if (!strcmp(argv[i], "--slow-gemms")) slow_gemms = v;
        else if (!strcmp(argv[i], "--exit")) status = v;
        else {
            fprintf(stderr, "mpi_prog: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    size_t bytes = (size_t)n * n * sizeof(float);
    float *h = malloc(bytes), *a, *b, *c;
    check(h != NULL, "malloc", rank);
    for (size_t i = 0; i < (size_t)n * n; i++)
        h[i] = (float)((i + (size_t)rank) % 7) / 7.0f;
    check(cudaMalloc((void **)&a, bytes) == cudaSuccess, "cudaMalloc", rank);
    check(cudaMalloc((void **)&b, bytes) == cudaSuccess, "cudaMalloc", rank);
    check(cudaMalloc((void **)&c, bytes) == cudaSuccess, "cudaMalloc", rank);
    check(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy", rank);
    check(cudaMemcpy(b, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy", rank);
    cublasHandle_t handle;
    check(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate", rank);

    double total = 0;
    const float one = 1.0f, zero = 0.0f;
    for (int s = 0; s < steps; s++) {
        int gemms = rank == slow ? slow_gemms : 1;
        for (int g = 0; g < gemms; g++)
            check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) ==
                      CUBLAS_STATUS_SUCCESS, "cublasSgemm", rank);
        check(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize", rank);
        float corner;
        check(cudaMemcpy(&corner, c, sizeof corner, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy",
              rank);
        double mine = corner, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += sum;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("ranks %d steps %d checksum %.3f\n", size, steps, total);
    cublasDestroy(handle);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    free(h);
    MPI_Finalize();
    return status;
}
