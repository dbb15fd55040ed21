/*
 * cupti_client.c - a minimal CUPTI activity client for the end-to-end tests,
 * built as build/tests/libcupti_client.so.
 *
 * It is loaded twice over, on purpose, as one library:
 *   - CUDA_INJECTION64_PATH names it, so the driver (real or simulated) calls
 *     InitializeInjection() when the runtime starts: there we register the
 *     buffer callbacks and enable the activity kinds, before any device work.
 *   - LD_PRELOAD names it too, so our cublasLtMatmul wraps the program's
 *     calls: it pushes an external correlation id around the real one (found
 *     with dlsym(RTLD_NEXT)), which CUPTI must report for every correlation id
 *     the call caused. The dynamic loader keeps one copy of a library loaded
 *     under one path, so both roles share the state below.
 *
 * At exit the activity buffers are flushed (forced) and every record is
 * written as one text line to the file named by CUPTI_CLIENT_OUT:
 *
 *   RUNTIME cbid=<n> corr=<n> start=<ns> end=<ns> tid=<n> ret=<n>
 *   KERNEL corr=<n> start=<ns> end=<ns> stream=<n> grid=<x>,<y>,<z> block=<x>,<y>,<z> name=<s>
 *   MEMCPY kind=<n> bytes=<n> corr=<n> start=<ns> end=<ns> stream=<n>
 *   MEMSET value=<n> bytes=<n> corr=<n> start=<ns> end=<ns> stream=<n>
 *   SYNC type=<n> corr=<n> start=<ns> end=<ns> stream=<n>
 *   EXTCORR kind=<n> ext=<n> corr=<n>
 *   OTHER kind=<n>
 *   PUSH ext=<n>                   (one per wrapped cublasLtMatmul)
 *
 * CUPTI_CLIENT_KINDS=kernels enables only the kernel, memcpy and memset
 * kinds; CUPTI_CLIENT_DRIVER=1 adds the driver API.
 *   END mono=<ns> cupti=<ns> dropped=<n>
 *
 * Timestamps are CUPTI's (cuptiGetTimestamp's clock); END gives the host's
 * CLOCK_MONOTONIC and CUPTI's clock at the same moment so a test can tell
 * the two apart. Errors go to stderr prefixed "cupti_client:".
 */
#include <cublasLt.h>
#include <cupti.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLIENT_EXPORT __attribute__((visibility("default")))
/* Activity buffer size and alignment CUPTI asks of client buffers. */
#define BUF_SIZE (1u << 20)
#define BUF_ALIGN 8
/* First external id we push; one more per wrapped call. */
#define EXT_ID_BASE UINT64_C(0xC0FFEE00)

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER; /* guards out */
static FILE *out;              /* CUPTI_CLIENT_OUT, open from init to exit */
static int initialized;        /* InitializeInjection ran (once) */
static uint64_t next_ext = EXT_ID_BASE; /* next external id to push */

#define CUPTI_OK(call)                                                                        \
    do {                                                                                      \
        CUptiResult r_ = (call);                                                              \
        if (r_ != CUPTI_SUCCESS) {                                                            \
            const char *s_ = "?";                                                             \
            cuptiGetResultString(r_, &s_);                                                    \
            fprintf(stderr, "cupti_client: %s failed: %s (%d)\n", #call, s_, (int)r_);        \
        }                                                                                     \
    } while (0)

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&out_lock);
    if (out)
        vfprintf(out, fmt, ap);
    pthread_mutex_unlock(&out_lock);
    va_end(ap);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(BUF_ALIGN, BUF_SIZE);
    *size = *buf ? BUF_SIZE : 0;
    *max_records = 0; /* as many as fit */
}

static void print_record(const CUpti_Activity *rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)rec;
        emit("%s cbid=%u corr=%u start=%" PRIu64 " end=%" PRIu64 " tid=%u ret=%u\n",
             rec->kind == CUPTI_ACTIVITY_KIND_DRIVER ? "DRIVER" : "RUNTIME", a->cbid,
             a->correlationId, a->start, a->end, a->threadId, a->returnValue);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        emit("KERNEL corr=%u start=%" PRIu64 " end=%" PRIu64 " stream=%u grid=%d,%d,%d"
             " block=%d,%d,%d name=%s\n", k->correlationId, k->start, k->end, k->streamId,
             k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
             k->name ? k->name : "(null)");
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        emit("MEMCPY kind=%u bytes=%" PRIu64 " corr=%u start=%" PRIu64 " end=%" PRIu64
             " stream=%u\n", m->copyKind, m->bytes, m->correlationId, m->start, m->end,
             m->streamId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        emit("MEMSET value=%u bytes=%" PRIu64 " corr=%u start=%" PRIu64 " end=%" PRIu64
             " stream=%u\n", m->value, m->bytes, m->correlationId, m->start, m->end, m->streamId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)rec;
        emit("SYNC type=%d corr=%u start=%" PRIu64 " end=%" PRIu64 " stream=%u\n", (int)s->type,
             s->correlationId, s->start, s->end, s->streamId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)rec;
        emit("EXTCORR kind=%d ext=%" PRIu64 " corr=%u\n", (int)e->externalKind, e->externalId,
             e->correlationId);
        break;
    }
    default:
        emit("OTHER kind=%d\n", (int)rec->kind);
    }
}

/* Runs on a CUPTI thread (or in FlushAll): prints and frees one buffer. */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid)
{
    (void)ctx; (void)stream; (void)size;
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
        print_record(rec);
    free(buf);
}

static void client_finish(void)
{
    CUPTI_OK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 0;
    uint64_t cupti_now = 0;
    struct timespec ts;
    CUPTI_OK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    CUPTI_OK(cuptiGetTimestamp(&cupti_now));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    emit("END mono=%" PRIu64 " cupti=%" PRIu64 " dropped=%zu\n", mono, cupti_now, dropped);
    pthread_mutex_lock(&out_lock);
    if (out)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&out_lock);
}

/* Called by the driver when CUDA starts; returns 1 on success. */
CLIENT_EXPORT int InitializeInjection(void)
{
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_MEMCPY,            CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    };
    if (__atomic_exchange_n(&initialized, 1, __ATOMIC_ACQ_REL))
        return 1;
    const char *path = getenv("CUPTI_CLIENT_OUT");
    if (!path || !*path) {
        fprintf(stderr, "cupti_client: CUPTI_CLIENT_OUT is not set; recording nothing\n");
        return 1;
    }
    out = fopen(path, "w");
    if (!out) {
        perror("cupti_client: CUPTI_CLIENT_OUT");
        return 1;
    }
    CUPTI_OK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    /* CUPTI_CLIENT_KINDS=kernels: the kernel, memcpy and memset kinds only
     * (what cuprof's --gpu kernels enables: scripts/gpu_check.sh's baseline). */
    const char *only = getenv("CUPTI_CLIENT_KINDS");
    int device_only = only && !strcmp(only, "kernels");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!device_only || kinds[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            kinds[i] == CUPTI_ACTIVITY_KIND_MEMCPY || kinds[i] == CUPTI_ACTIVITY_KIND_MEMSET)
            CUPTI_OK(cuptiActivityEnable(kinds[i]));
    /* CUPTI_CLIENT_DRIVER=1: driver-API records too (cuBLAS 13's launches). */
    const char *drv = getenv("CUPTI_CLIENT_DRIVER");
    if (drv && !strcmp(drv, "1"))
        CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
    atexit(client_finish);
    return 1;
}

typedef cublasStatus_t (*lt_matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                       const void *, cublasLtMatrixLayout_t, const void *,
                                       cublasLtMatrixLayout_t, const void *, const void *,
                                       cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                       const cublasLtMatmulAlgo_t *, void *, size_t,
                                       cudaStream_t);

/* The program's cublasLtMatmul (via LD_PRELOAD): the real call, bracketed by
 * an external correlation id, like a framework's op-level annotation. */
CLIENT_EXPORT cublasStatus_t cublasLtMatmul(
    cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha, const void *a,
    cublasLtMatrixLayout_t a_desc, const void *b, cublasLtMatrixLayout_t b_desc,
    const void *beta, const void *c, cublasLtMatrixLayout_t c_desc, void *d,
    cublasLtMatrixLayout_t d_desc, const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_size,
    cudaStream_t stream)
{
    static lt_matmul_fn real;
    if (!real)
        real = (lt_matmul_fn)dlsym(RTLD_NEXT, "cublasLtMatmul");
    if (!real) {
        fprintf(stderr, "cupti_client: no cublasLtMatmul after this library: %s\n", dlerror());
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    uint64_t id = __atomic_fetch_add(&next_ext, 1, __ATOMIC_RELAXED), popped = 0;
    CUPTI_OK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id));
    cublasStatus_t st = real(h, desc, alpha, a, a_desc, b, b_desc, beta, c, c_desc, d, d_desc,
                             algo, ws, ws_size, stream);
    CUPTI_OK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                   &popped));
    if (popped != id)
        fprintf(stderr, "cupti_client: popped external id %" PRIu64 ", pushed %" PRIu64 "\n",
                popped, id);
    emit("PUSH ext=%" PRIu64 "\n", id);
    return st;
}
