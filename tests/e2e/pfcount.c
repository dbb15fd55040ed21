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
    pft t;   /* counted, not kept: a long run's trace in the memory of its open slices */
    int rc = pft_count(argv[1], &t);
    printf("packets=%llu track_events=%llu slices=%llu calls=%llu tracks=%zu\n",
           (unsigned long long)t.packets, (unsigned long long)t.track_events,
           (unsigned long long)t.ended, (unsigned long long)t.ended_calls, t.ntracks);
    if (rc != 0)
        fprintf(stderr, "pfcount: %s: %s\n", argv[1], t.error);
    pft_free(&t);
    return rc != 0;
}
