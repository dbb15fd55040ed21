/*
 * pfcount.c - reads a Perfetto trace with the tests' decoder (pftrace.c)
 * and prints what it holds, for scripts (bench/long_run.sh):
 *
 *   pfcount FILE   ->  "packets=N track_events=N slices=N calls=N tracks=N"
 *
 * calls: slices of the CUDA runtime, cuBLAS and cuBLASLt categories (the
 * recorded calls). Exit 1 (and the rule broken on stderr) when the file
 * breaks a rule pftrace.h checks.
 */
#include "pftrace.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pfcount FILE.perfetto-trace\n");
        return 2;
    }
    pft t;
    int rc = pft_load(argv[1], &t);
    size_t calls = 0;
    for (size_t i = 0; i < t.nslices; i++)
        calls += !strcmp(t.slices[i].cat, "cuda_runtime") || !strcmp(t.slices[i].cat, "cublas") ||
                 !strcmp(t.slices[i].cat, "cublaslt");
    printf("packets=%llu track_events=%llu slices=%zu calls=%zu tracks=%zu\n",
           (unsigned long long)t.packets, (unsigned long long)t.track_events, t.nslices, calls,
           t.ntracks);
    if (rc != 0)
        fprintf(stderr, "pfcount: %s: %s\n", argv[1], t.error);
    pft_free(&t);
    return rc != 0;
}
