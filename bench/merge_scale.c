/*
 * merge_scale.c - bench/merge_scale.sh's program: a synthetic job of N
 * ranks made without running N processes, merged by cuprof-merge, timed.
 *
 *   build/bench/merge_scale N DIR [CUPROF-MERGE [ARGS...]]
 *
 * Writes DIR/job.rankR.summary.json for R in 0..N-1, each the size of a real
 * rank's: 200 steps (ProfilerStep), 100 000 calls in 40 entry points and
 * 90 000 GPU records in 60 kernels, 4 all-reduces a step (800 in
 * collectives.call_list), 8 ranks to a host (a boot id per host, each
 * host's CLOCK_REALTIME off by up to half a millisecond, as NTP leaves it).
 * Rank SLOW = N * 5 / 8 (rank 1 for N < 2... 0 for N == 1) arrives 4-7 ms
 * late at every all-reduce: the straggler. Each rank's trace.json (190 000
 * events: the calls, their GPU records, the steps) is one of two files
 * (the slow rank's, everyone else's) hard-linked under each rank's name:
 * the merge reads only the few it puts in the merged trace, and N real
 * copies would be N x 30 MB of disk for nothing. Then runs the merge (by
 * default build/cuprof-merge DIR) as a child, and prints one line:
 *
 *   merge_scale ranks=N seconds=S peak_rss_kb=K straggler=R
 *
 * S is the merge's wall time, K its peak RSS (wait4's ru_maxrss), R the
 * rank the merged summary.json's straggler finding names (-1 none).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STEPS 200
#define BUCKETS 4                 /* all-reduces a step */
#define STEP_NS 100000000ull      /* 100 ms */
#define RANKS_PER_HOST 8
#define NAPI 40
#define NKERN 60
#define CALLS_PER_STEP 500        /* 100 000 calls */
#define KERNELS_PER_STEP 450      /* 90 000 GPU records */

static const uint64_t REAL0 = 1795800000000000000ull;   /* the job's start, realtime */
static const uint64_t MONO0 = 5000000000000ull;         /* ... on every host's monotonic clock */

/* Deterministic jitter in [0, 300 us) for (rank, step, bucket). */
static uint64_t jitter(int r, int s, int b)
{
    uint64_t x = (uint64_t)r * 0x9E3779B97F4A7C15ull ^ (uint64_t)s * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)b * 0x165667B19E3779F9ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return x % 300000ull;
}

static int slow_rank(int n)
{
    return n > 1 ? n * 5 / 8 : 0;
}

/* Rank r's arrival at bucket b of step s, on the (shared) monotonic clock. */
static uint64_t arrival(int n, int r, int s, int b)
{
    uint64_t t = MONO0 + 1000000000ull + (uint64_t)s * STEP_NS + 20000000ull * (uint64_t)(b + 1) + jitter(r, s, b);
    if (r == slow_rank(n))
        t += 4000000ull + 1000000ull * (uint64_t)b;
    return t;
}

/* The meeting's end: the slow rank's arrival plus the transfer. */
static uint64_t meet_end(int n, int s, int b)
{
    return arrival(n, slow_rank(n), s, b) + 300000ull + 2000000ull;
}

static void kernel_name(char *out, size_t n, int k)
{
    static const char *const base[] = {"nvjet_sm90_tst_128x128_32x4_1x2_s_bz_coopA_NNT",
                                       "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
                                       "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>",
                                       "ampere_sgemm_128x64_tn", "flash_fwd_kernel<Flash_fwd_kernel_traits<128>>"};
    snprintf(out, n, "%s_v%d", base[k % 5], k);
}

static int write_summary(const char *dir, int n, int r)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/job.rank%d.summary.json", dir, r);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int host = r / RANKS_PER_HOST;
    int64_t ntp = (int64_t)((host * 7919) % 1000) * 1000 - 500000;   /* +-0.5 ms */
    uint64_t mono_end = MONO0 + 1000000000ull + STEPS * STEP_NS + 500000000ull;
    uint64_t wall = mono_end - MONO0;
    fprintf(f, "{\"schema\":\"cuprof.summary/1\",\"tool\":\"cuprof\",\"version\":\"0.1.0\",\"program\":\"train\","
               "\"exe\":\"/opt/train\",\"argv\":[\"--steps\",\"200\"],\"pid\":%d,\"wall_ns\":%llu,"
               "\"clock\":\"CLOCK_MONOTONIC\",\"start_ns\":%llu,\"events\":%d,\"dropped\":0,\"spilled\":0,",
            100000 + r, (unsigned long long)wall, (unsigned long long)MONO0, STEPS * CALLS_PER_STEP);
    fprintf(f, "\"threads\":[{\"tid\":%d,\"name\":\"train\",\"calls\":%d}],\"self_cpu_total_ns\":%llu,",
            100000 + r, STEPS * CALLS_PER_STEP, 9000000000ull + (unsigned long long)jitter(r, 0, 9) * 100);
    fprintf(f, "\"distributed\":{\"launcher\":\"torchrun\",\"rank\":%d,\"world_size\":%d,\"local_rank\":%d,"
               "\"local_size\":%d,\"host\":\"node%04d\",\"boot_id\":\"boot-%04d\",\"devices\":[%d],"
               "\"clocks\":{\"monotonic_start_ns\":%llu,\"realtime_start_ns\":%llu,\"monotonic_end_ns\":%llu,"
               "\"realtime_end_ns\":%llu}},",
            r, n, r % RANKS_PER_HOST, RANKS_PER_HOST, host, host, r % RANKS_PER_HOST, (unsigned long long)MONO0,
            (unsigned long long)((int64_t)REAL0 + ntp), (unsigned long long)mono_end,
            (unsigned long long)((int64_t)(REAL0 + (mono_end - MONO0)) + ntp));
    fprintf(f, "\"gpu\":{\"busy_ns\":%llu},", 14000000000ull + (unsigned long long)jitter(r, 1, 9) * 10);
    /* collectives */
    fprintf(f, "\"collectives\":{\"calls\":%d,\"nccl_kernel_ns\":%llu,\"exposed_ns\":%llu,"
               "\"step_exposed_share_median\":0.05,\"steps_exposed_ns\":[",
            STEPS * BUCKETS, 1600000000ull, 800000000ull);
    for (int s = 0; s < STEPS; s++)
        fprintf(f, "%s4000000", s ? "," : "");
    fprintf(f, "],\"rows\":[{\"op\":\"AllReduce\",\"dtype\":\"bf16\",\"algo\":\"RING/Simple ch32\","
               "\"size_bytes\":52428800,\"nranks\":%d,\"calls\":%d,\"gpu_total_ns\":1600000000,"
               "\"gpu_min_ns\":1900000,\"gpu_median_ns\":2000000,\"gpu_max_ns\":7000000,\"algbw_gbps\":26.2,"
               "\"busbw_gbps\":52.4}],\"call_fields\":[\"op\",\"comm\",\"seq\",\"start_ns\",\"end_ns\",\"gpu_end_ns\"],"
               "\"call_list\":[",
            n, STEPS * BUCKETS);
    for (int s = 0, q = 0; s < STEPS; s++)
        for (int b = 0; b < BUCKETS; b++, q++) {
            uint64_t a = arrival(n, r, s, b), e = meet_end(n, s, b);
            fprintf(f, "%s\n[\"AllReduce\",\"0x5ca1ab1e0000c0de\",%d,%llu,%llu,%llu]", q ? "," : "", q,
                    (unsigned long long)a, (unsigned long long)(a + 12000), (unsigned long long)e);
        }
    fprintf(f, "]},");
    /* api: 40 entry points, 100 000 calls */
    static const char *const api[] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaEventRecord", "cudaStreamWaitEvent",
                                      "ncclAllReduce", "cudaStreamSynchronize"};
    static const int per_step[] = {350, 100, 20, 20, 4, 1};
    fprintf(f, "\"api\":[");
    int left = STEPS * CALLS_PER_STEP;
    for (int k = 0; k < NAPI; k++) {
        char name[64];
        int calls;
        if (k < 6) {
            snprintf(name, sizeof name, "%s", api[k]);
            calls = per_step[k] * STEPS;
        } else {
            snprintf(name, sizeof name, "cudaFuncGetAttributes_%d", k);
            calls = k == NAPI - 1 ? left : 20;
        }
        left -= calls;
        uint64_t tot = (uint64_t)calls * (3000 + (uint64_t)k * 50) + jitter(r, k, 1);
        fprintf(f, "%s\n{\"name\":\"%s\",\"category\":\"%s\",\"calls\":%d,\"errors\":0,\"cpu_total_ns\":%llu,"
                   "\"cpu_self_ns\":%llu,\"min_ns\":1000,\"median_ns\":3000,\"max_ns\":90000,\"cuda_self_ns\":0,"
                   "\"cuda_total_ns\":0}",
                k ? "," : "", name, k == 4 ? "nccl" : "cuda_runtime", calls, (unsigned long long)tot,
                (unsigned long long)tot);
    }
    /* kernels: 60, 90 000 launches */
    fprintf(f, "],\"kernels\":[");
    for (int k = 0; k < NKERN; k++) {
        char name[160];
        kernel_name(name, sizeof name, k);
        int launches = KERNELS_PER_STEP * STEPS / NKERN;
        uint64_t tot = (uint64_t)launches * (20000 + (uint64_t)k * 300) + jitter(r, k, 2);
        fprintf(f, "%s\n{\"name\":\"%s\",\"launches\":%d,\"gpu_total_ns\":%llu,\"min_ns\":15000,"
                   "\"median_ns\":20000,\"max_ns\":40000}",
                k ? "," : "", name, launches, (unsigned long long)tot);
    }
    fprintf(f, "],\"steps\":[{\"name\":\"ProfilerStep\",\"domain\":\"\",\"chosen_by\":\"its name\",\"steps\":%d,"
               "\"median_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"first_ns\":%llu,\"steady_median_ns\":%llu,"
               "\"gpu_median_ns\":70000000,\"busy_median\":0.7}],\"step_list\":[",
            STEPS, STEP_NS - 1000000, STEP_NS - 2000000, STEP_NS, STEP_NS, STEP_NS - 1000000);
    for (int s = 0; s < STEPS; s++) {
        uint64_t start = MONO0 + 1000000000ull + (uint64_t)s * STEP_NS + jitter(r, s, 7) / 10;
        uint64_t end = meet_end(n, s, BUCKETS - 1) + 5000000ull;
        fprintf(f, "%s\n{\"index\":%d,\"start_ns\":%llu,\"dur_ns\":%llu,\"gpu_ns\":70000000,\"kernels\":%d,"
                   "\"busy_ns\":70000000}",
                s ? "," : "", s + 1, (unsigned long long)start, (unsigned long long)(end - start), KERNELS_PER_STEP);
    }
    fprintf(f, "],\"findings\":[]}\n");
    return fclose(f);
}

/* One rank's trace (the slow rank's, or everyone else's): its calls, their
 * GPU records and its steps, as cuprof writes them (no launch arrows). */
static int write_trace(const char *path, int n, int r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    uint64_t base = MONO0 - 30000;
    int pid = 100000 + r;
    fprintf(f, "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
               "\"args\":{\"name\":\"train (rank %d of %d)\"}}",
            pid, r, n);
    for (int s = 0; s < STEPS; s++) {
        uint64_t t0 = MONO0 + 1000000000ull + (uint64_t)s * STEP_NS, end = meet_end(n, s, BUCKETS - 1) + 5000000ull;
        fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"ProfilerStep#%d\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
                   "\"dur\":%.3f,\"args\":{\"domain\":\"\"}}",
                s, pid, pid, (double)(t0 - base) / 1e3, (double)(end - t0) / 1e3);
        int b = 0;
        for (int c = 0; c < CALLS_PER_STEP; c++) {
            uint64_t t = t0 + 100000ull + (uint64_t)c * 150000ull;
            if (c % (CALLS_PER_STEP / BUCKETS) == CALLS_PER_STEP / BUCKETS - 1 && b < BUCKETS) {
                uint64_t a = arrival(n, r, s, b);
                fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"nccl\",\"name\":\"ncclAllReduce\",\"pid\":%d,\"tid\":%d,"
                           "\"ts\":%.3f,\"dur\":12.0,\"args\":{\"count\":26214400,\"dtype\":\"bf16\",\"op\":\"sum\","
                           "\"comm\":\"0x5ca1ab1e0000c0de\",\"rank\":%d,\"nranks\":%d}}",
                        pid, pid, (double)(a - base) / 1e3, r, n);
                fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\","
                           "\"pid\":1073741824,\"tid\":14,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"device\":0,"
                           "\"stream\":14}}",
                        (double)(a - base) / 1e3, (double)(meet_end(n, s, b) - a) / 1e3);
                b++;
                continue;
            }
            const char *name = c % 10 < 7 ? "cudaLaunchKernel" : c % 10 < 9 ? "cudaMemcpyAsync" : "cudaEventRecord";
            fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
                       "\"dur\":3.1,\"args\":{\"correlation\":%d,\"stream handle\":\"0x55d0c0ffee00\"}}",
                    name, pid, pid, (double)(t - base) / 1e3, s * CALLS_PER_STEP + c);
            if (c % 10 < 9) {
                char kn[160];
                kernel_name(kn, sizeof kn, c % NKERN);
                fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1073741824,\"tid\":13,"
                           "\"ts\":%.3f,\"dur\":20.0,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":13,"
                           "\"grid\":[128,1,1],\"block\":[256,1,1]}}",
                        c % 10 < 7 ? "kernel" : "gpu_memcpy", c % 10 < 7 ? kn : "Memcpy HtoD", (double)(t + 8000 - base) / 1e3,
                        s * CALLS_PER_STEP + c);
            }
        }
    }
    fprintf(f, "\n],\"displayTimeUnit\":\"ns\",\"baseTimeNanoseconds\":%llu,\"otherData\":{\"tool\":\"cuprof\"}}\n",
            (unsigned long long)base);
    return fclose(f);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "cuprof: merge_scale: usage: merge_scale N DIR [CUPROF-MERGE [ARGS...]]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    const char *dir = argv[2];
    char normal[4200], slow[4200];
    snprintf(normal, sizeof normal, "%s/.normal.trace.json", dir);
    snprintf(slow, sizeof slow, "%s/.slow.trace.json", dir);
    if (write_trace(normal, n, n > 1 ? 0 : 1) < 0 || write_trace(slow, n, slow_rank(n)) < 0) {
        fprintf(stderr, "cuprof: merge_scale: cannot write into %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (int r = 0; r < n; r++) {
        char t[4200];
        snprintf(t, sizeof t, "%s/job.rank%d.trace.json", dir, r);
        unlink(t);
        if (write_summary(dir, n, r) < 0 || link(r == slow_rank(n) ? slow : normal, t) < 0) {
            fprintf(stderr, "cuprof: merge_scale: cannot write into %s: %s\n", dir, strerror(errno));
            return 1;
        }
    }
    char *def[] = {"build/cuprof-merge", (char *)dir, NULL};
    char **cmd = argc > 3 ? argv + 3 : def;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", 1);
        if (null >= 0)
            dup2(null, 1);
        execv(cmd[0], cmd);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "cuprof: merge_scale: %s failed (status %d)\n", cmd[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 1;
    }
    double secs = now_s() - t0;
    char mp[4200];
    snprintf(mp, sizeof mp, "%s/job.merged.summary.json", dir);
    json_t *m = json_load_file(mp, 0, NULL), *f;
    long long straggler = -1;
    size_t i;
    json_array_foreach(json_object_get(m, "findings"), i, f)
        if (!strcmp(json_string_value(json_object_get(f, "rule")) ? json_string_value(json_object_get(f, "rule")) : "",
                    "straggler"))
            straggler = json_integer_value(json_object_get(json_object_get(f, "numbers"), "rank"));
    json_decref(m);
    printf("merge_scale ranks=%d seconds=%.2f peak_rss_kb=%ld straggler=%lld\n", n, secs, ru.ru_maxrss, straggler);
    return straggler == slow_rank(n) ? 0 : 1;
}
