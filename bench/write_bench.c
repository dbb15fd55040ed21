/*
 * write_bench.c - the exit path's cost for N recorded calls: how long
 * cuprof takes to write trace.json, summary.txt and summary.json at exit.
 *
 * A unit-level driver (faster than making N real CUDA calls): linked with the
 * collector's objects, it records N kernel-launch events on one thread
 * through cuprof_begin/cuprof_end (a named kernel, grid, block, stream, as
 * the launch hooks fill them; each full chunk goes to the run file), then
 * times cuprof_collector_finish(), the very function the atexit handler
 * runs: the run file completed, then cuprof-report (build/cuprof-report,
 * or CUPROF_REPORT) building the three files from it in its own process.
 *
 *   write_bench N          (CUPROF_OUT_DIR, CUPROF_NAME, CUPROF_FORMAT
 *                           from the environment, as for a real run)
 *
 * Prints one line on stdout:
 *   write_bench events=N fill_s=.. write_s=.. events_per_s=.. rss_kb=.. report_rss_kb=..
 * rss_kb is the peak RSS of the recording process, report_rss_kb the
 * report's (RUSAGE_CHILDREN: the process the exit path waited for).
 */
#include "collector/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const cuprof_api_desc bench_apis[] = {{"cudaLaunchKernel", "cuda_runtime"}};

static void bench_kernel_stub(void) {}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long long n = argc == 2 ? strtoll(argv[1], &end, 10) : 0;
    if (argc != 2 || *end || n < 1) {
        fprintf(stderr, "usage: write_bench N\n");
        return 2;
    }
    if (!getenv("CUPROF_REPORT")) {   /* beside this program's folder: build/cuprof-report */
        static char tool[4200];
        char self[4096];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        self[k > 0 ? k : 0] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(tool, sizeof tool, "%s/../cuprof-report", self);
        setenv("CUPROF_REPORT", tool, 1);
    }
    cuprof_collector_init();
    cuprof_api_register(bench_apis, 1);
    cuprof_kernel_register((const void *)bench_kernel_stub, "_Z12bench_kernelPfS_i");
    uint32_t kid = cuprof_kernel_lookup((const void *)bench_kernel_stub);

    double t0 = now_s();
    for (long long i = 0; i < n; i++) {
        cuprof_event *ev = cuprof_begin(0, CUPROF_EV_LAUNCH);
        if (!ev) {
            fprintf(stderr, "write_bench: event %lld not recorded (the run file could not grow)\n", i);
            return 1;
        }
        ev->a.launch.kernel = kid;
        ev->a.launch.grid_x = (uint32_t)(1 + i % 1024);
        ev->a.launch.grid_y = ev->a.launch.grid_z = 1;
        ev->a.launch.block[0] = 256;
        ev->a.launch.block[1] = ev->a.launch.block[2] = 1;
        ev->a.launch.stream = 0x5000 + (uint64_t)(i % 4) * 0x100;
        cuprof_end(ev, 0);
    }
    double t1 = now_s();
    int files = cuprof_collector_finish();
    double t2 = now_s();
    if (files < 1) {   /* 1: cuprof-report wrote them */
        fprintf(stderr, "write_bench: the exit path wrote nothing (%d)\n", files);
        return 1;
    }
    struct rusage ru, rc;
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_CHILDREN, &rc);
    printf("write_bench events=%lld fill_s=%.3f write_s=%.3f events_per_s=%.0f rss_kb=%ld "
           "report_rss_kb=%ld\n", n, t1 - t0, t2 - t1, (double)n / (t2 - t1), ru.ru_maxrss,
           rc.ru_maxrss);
    return 0;
}
