// coop_prog.cu - cooperative launches (grid-wide synchronisation with
// cooperative groups): N launches of a kernel whose blocks each add to a sum
// and meet at grid.sync() before block 0 reads it, through
// cudaLaunchCooperativeKernel. Prints "coop_prog: N launches, sum S (want W)";
// exit 0, or 3 when a CUDA call fails. (The sim runs no device code: S 0.)
//   coop_prog [N]
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

namespace cg = cooperative_groups;

__global__ void grid_sum(int *acc, int *out)
{
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0)
        atomicAdd(acc, 1);
    grid.sync();
    if (grid.thread_rank() == 0)
        *out += *acc;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "coop_prog: %s: %s\n", #x, cudaGetErrorString(e_)); return 3; } } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10, blocks = 8, *acc, *out, host = 0;
    CK(cudaMalloc(&acc, sizeof(int)));
    CK(cudaMalloc(&out, sizeof(int)));
    CK(cudaMemset(acc, 0, sizeof(int)));
    CK(cudaMemset(out, 0, sizeof(int)));
    void *args[] = {&acc, &out};
    for (int i = 0; i < n; i++)
        CK(cudaLaunchCooperativeKernel((const void *)grid_sum, dim3(blocks), dim3(64), args, 0, 0));
    CK(cudaMemcpy(&host, out, sizeof(int), cudaMemcpyDeviceToHost));
    long want = 0;
    for (int i = 1; i <= n; i++)
        want += (long)blocks * i;
    printf("coop_prog: %d launches, sum %d (want %ld)\n", n, host, want);
    return 0;
}
