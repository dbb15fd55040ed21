/*
 * fuzz_summary_reader.c - libFuzzer target for the summary reader and for
 * the comparison built from what it accepts (make fuzz-reader;
 * tests/fuzz/fuzz_reader.sh builds it with clang -fsanitize=fuzzer,address).
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks the
 * reader's contract: a rejected input yields exactly one "cuprof: " line, and
 * an accepted one can be compared and printed both ways.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/compare/compare.h"

/* A small valid run to compare every accepted input against. */
static const char base_json[] =
    "{\"schema\":\"cuprof.summary/1\",\"program\":\"bench/matmul_add\","
    "\"argv\":[\"bench/matmul_add\",\"--mode\",\"eager\"],\"pid\":1,\"wall_ns\":1000000,"
    "\"gpu_timeline\":{\"captured\":true,\"reason\":\"\"},"
    "\"api\":[{\"name\":\"cudaLaunchKernel\",\"calls\":2,\"errors\":0,\"cpu_total_ns\":10,"
    "\"cpu_self_ns\":10,\"min_ns\":5,\"median_ns\":5,\"max_ns\":5,\"cuda_self_ns\":0,"
    "\"cuda_total_ns\":0}],"
    "\"kernels\":[{\"name\":\"gemm\",\"launches\":2,\"gpu_total_ns\":8,\"min_ns\":4,"
    "\"median_ns\":4,\"max_ns\":4}],"
    "\"copies\":[{\"kind\":\"DtoD\",\"calls\":1,\"bytes\":64,\"gpu_total_ns\":1}],"
    "\"blas\":[{\"name\":\"cublasLtMatmul\",\"calls\":1,\"shapes\":[{\"m\":64,\"n\":64,\"k\":64,"
    "\"batch\":1,\"dtype\":\"bf16\",\"epilogue\":\"DEFAULT\",\"calls\":1}]}],"
    "\"findings\":[],\"gpu\":{\"busy_ns\":10,\"idle_share\":0.5},\"iterations\":2}";

static summary *base;
static FILE *sink;

static void exercise(const summary *const *runs, size_t n)
{
    compare c;
    if (cmp_build(&c, runs, n))
        abort();    /* only out of memory fails, and the fuzzer limits rss */
    if (cmp_print_text(&c, sink) || cmp_print_json(&c, sink))
        abort();
    cmp_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[SUMMARY_ERR_MAX];
    if (!sink) {
        sink = fopen("/dev/null", "w");
        if (!sink || cmp_summary_parse(base_json, sizeof base_json - 1, "base", &base, err,
                                   sizeof err))
            abort();
    }
    summary *s = NULL;
    if (cmp_summary_parse((const char *)data, size, "fuzz", &s, err, sizeof err)) {
        if (s || strncmp(err, "cuprof: fuzz: ", 14) != 0 || strchr(err, '\n') ||
            !strchr(err, ';'))
            abort();
        return 0;
    }
    const summary *two[2] = {base, s}, *three[3] = {s, base, s};
    exercise(two, 2);
    exercise(three, 3);
    cmp_summary_destroy(s);
    return 0;
}
