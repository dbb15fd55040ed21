// ddp_step: data-parallel training steps as PyTorch's DDP runs them, in C
// and CUDA with cuBLAS and NCCL (no PyTorch): per step a forward pass of
// LAYERS GEMMs, then the backward pass in reverse, one GEMM per layer; as
// each layer's gradient is ready its bucket is all-reduced on a second
// stream ("comm"), overlapping the next layer's backward GEMM (an event
// tells the comm stream the gradient is there); then an optimizer kernel
// waits for every bucket. --no-overlap all-reduces each bucket on the
// compute stream instead, right after its GEMM: nothing hides the
// communication. Each step is an NVTX range ProfilerStep#N, as PyTorch's
// profiler marks them; before the first, one all-reduce of a single float
// (the ranks start at different times: DDP's broadcast of the parameters
// at construction absorbs that skew the same way).
//
// One process per rank, as torchrun starts them: RANK, WORLD_SIZE,
// LOCAL_RANK from the environment (scripts/launch.sh sets them, with
// MASTER_ADDR and MASTER_PORT); the ncclUniqueId goes from rank 0 to the
// others through a file named by MASTER_PORT in DDP_STORE (default /tmp),
// where torchrun would use its TCP store. Prints what it passed to NCCL
// (calls and bytes), which the profile must show.
//
//   ddp_step [--steps N] [--layers L] [--hidden H] [--batch B] [--no-overlap]
//            [--slow RANK [--slow-ms MS]] [--fail-init RANK]
// --slow RANK: that rank's backward takes MS ms (5) more per layer, before
// each bucket's all-reduce (a slower GPU, host or input on one rank).
// --fail-init RANK: that rank passes a communicator size of 0 to
// ncclCommInitRank, which fails: it exits with status 1 (the others go on
// without it, as far as the sim's NCCL lets them).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "ddp_step: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
    fprintf(stderr, "ddp_step: %s: %s\n", #x, ncclGetErrorString(r_)); exit(1); } } while (0)
#define BK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "ddp_step: %s: cuBLAS status %d\n", #x, (int)s_); exit(1); } } while (0)

__global__ void sgd(float *w, const float *g, int n, float lr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] -= lr * g[i];
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static char store_path[4096];

/* The id from rank 0 to the others, through the store's file (removed by
 * rank 0 once every rank met it at the first collective). */
static void share_id(ncclUniqueId *id, int rank)
{
    const char *dir = getenv("DDP_STORE") ? getenv("DDP_STORE") : "/tmp";
    char *path = store_path, tmp[4200];
    snprintf(path, sizeof store_path, "%s/ddp_step.%s.id", dir, getenv("MASTER_PORT") ? getenv("MASTER_PORT") : "29500");
    if (rank == 0) {
        NK(ncclGetUniqueId(id));
        snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0) {
            perror("ddp_step: store");
            exit(1);
        }
        return;
    }
    FILE *f = NULL;
    for (int i = 0; i < 3000 && !(f = fopen(path, "rb")); i++)
        usleep(10000);
    if (!f || fread(id, sizeof *id, 1, f) != 1) {
        fprintf(stderr, "ddp_step: rank %d: no id from rank 0 in %s\n", rank, path);
        exit(1);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    int steps = 5, layers = 4, hidden = 2048, batch = 2048, overlap = 1, slow = -1, slow_ms = 5, fail = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--layers") && i + 1 < argc) layers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--hidden") && i + 1 < argc) hidden = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-overlap")) overlap = 0;
        else if (!strcmp(argv[i], "--slow") && i + 1 < argc) slow = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--slow-ms") && i + 1 < argc) slow_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fail-init") && i + 1 < argc) fail = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: ddp_step [--steps N] [--layers L] [--hidden H] [--batch B] "
                            "[--no-overlap] [--slow RANK [--slow-ms MS]] [--fail-init RANK]\n");
            return 2;
        }
    }
    int rank = env_int("RANK", 0), world = env_int("WORLD_SIZE", 1), local = env_int("LOCAL_RANK", 0);
    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(local % (ndev > 0 ? ndev : 1)));
    ncclUniqueId id;
    share_id(&id, rank);
    ncclComm_t comm;
    NK(ncclCommInitRank(&comm, rank == fail ? 0 : world, id, rank));

    const size_t wn = (size_t)hidden * hidden, an = (size_t)batch * hidden;
    float **w = (float **)calloc(layers, sizeof *w), **g = (float **)calloc(layers, sizeof *g);
    float **act = (float **)calloc(layers + 1, sizeof *act);
    cudaEvent_t *ready = (cudaEvent_t *)calloc(layers, sizeof *ready);
    for (int l = 0; l < layers; l++) {
        CK(cudaMalloc(&w[l], wn * sizeof(float)));
        CK(cudaMalloc(&g[l], wn * sizeof(float)));
        CK(cudaMemset(w[l], 0, wn * sizeof(float)));
        CK(cudaEventCreateWithFlags(&ready[l], cudaEventDisableTiming));
    }
    for (int l = 0; l <= layers; l++) {
        CK(cudaMalloc(&act[l], an * sizeof(float)));
        CK(cudaMemset(act[l], 0, an * sizeof(float)));
    }
    cudaStream_t compute, comm_stream;
    cudaEvent_t comm_done;
    CK(cudaStreamCreate(&compute));
    CK(cudaStreamCreate(&comm_stream));
    CK(cudaEventCreateWithFlags(&comm_done, cudaEventDisableTiming));
    cublasHandle_t h;
    BK(cublasCreate(&h));
    BK(cublasSetStream(h, compute));
    const float one = 1.0f, zero = 0.0f;
    long long calls = 0, bytes = 0;
    NK(ncclAllReduce(g[0], g[0], 1, ncclFloat, ncclSum, comm, compute));   /* every rank is here */
    CK(cudaStreamSynchronize(compute));
    if (rank == 0)
        unlink(store_path);   /* every rank has read it: it is in the communicator */
    calls++;
    bytes += (long long)sizeof(float);
    for (int s = 0; s < steps; s++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", s);
        nvtxRangePushA(name);
        /* forward: act[l+1] = act[l] x w[l] */
        for (int l = 0; l < layers; l++)
            BK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, hidden, batch, hidden, &one, w[l], hidden, act[l],
                           hidden, &zero, act[l + 1], hidden));
        /* backward, last layer first: its weight gradient, then its bucket
         * (the slow rank's backward takes slow_ms more per layer) */
        for (int l = layers - 1; l >= 0; l--) {
            BK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, hidden, hidden, batch, &one, act[l + 1], hidden,
                           act[l], hidden, &zero, g[l], hidden));
            if (rank == slow)
                usleep((useconds_t)slow_ms * 1000u);
            if (overlap) {
                CK(cudaEventRecord(ready[l], compute));
                CK(cudaStreamWaitEvent(comm_stream, ready[l], 0));
                NK(ncclAllReduce(g[l], g[l], wn, ncclFloat, ncclSum, comm, comm_stream));
            } else {
                NK(ncclAllReduce(g[l], g[l], wn, ncclFloat, ncclSum, comm, compute));
            }
            calls++;
            bytes += (long long)(wn * sizeof(float));
        }
        if (overlap) {
            CK(cudaEventRecord(comm_done, comm_stream));
            CK(cudaStreamWaitEvent(compute, comm_done, 0));
        }
        for (int l = 0; l < layers; l++)
            sgd<<<(unsigned)((wn + 255) / 256), 256, 0, compute>>>(w[l], g[l], (int)wn, 0.01f);
        CK(cudaStreamSynchronize(compute));
        nvtxRangePop();
    }
    CK(cudaDeviceSynchronize());
    NK(ncclCommDestroy(comm));
    BK(cublasDestroy(h));
    printf("ddp_step: rank %d of %d: %d steps, %s, ncclAllReduce calls %lld bytes %lld\n", rank, world, steps,
           overlap ? "overlapped" : "not overlapped", calls, bytes);
    return 0;
}
