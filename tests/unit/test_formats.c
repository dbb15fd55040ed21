/*
 * test_formats.c - unit tests of formats/: JSON string escaping of every
 * byte value, invalid UTF-8 and a 100 KB name (outputs parsed back with
 * jansson), the number and unit formatters, the trace's structure, the
 * summary.json schema field by field, the text table's layout, and the
 * temporary-file-then-rename output (no partial file on failure).
 *
 * The runs are built by hand: cuprof_run is plain data.
 */
#include "tests/unit/test_model.h"
#include "model/run.h"
#include "formats/formats.h"
#include "formats/outbuf.h"
#include "formats/units.h"
#include "formats/writer.h"

#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- a small hand-made run ---------------------------------------------- */

static const cuprof_api_desc APIS[] = {
    {"cudaLaunchKernel", "cuda_runtime"}, {"cudaMemcpy", "cuda_runtime"},
    {"cublasLtMatmul", "cublaslt"}, {"cudaMalloc", "cuda_runtime"},
    {"cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cuda_runtime"},
    {"cudaStreamSynchronize", "cuda_runtime"},
};

enum { NEV = 8 };
static cuprof_event evs[NEV];
static const cuprof_event *chunk_list[1] = {evs};
static cuprof_run_thread threads[1];
static const char *knames[3] = {"(unknown kernel)", "bias_add(float*, int)", NULL};
static const char *args[] = {"--mode", "eager", "with space"};
static cuprof_run run;

/* Fills the run: a BLAS call containing an occupancy query and a launch,
 * a failing malloc, two copies, a sync, a launch of kernel 2. */
static void make_run(const char *kernel2_name)
{
    memset(evs, 0, sizeof evs);
    uint64_t base = 5000000000ull;
    evs[0] = (cuprof_event){.t0 = base, .t1 = base + 10000, .api = 2, .depth = 0, .cls = CUPROF_EV_BLAS};
    evs[0].a.blas.m = 64; evs[0].a.blas.n = 32; evs[0].a.blas.k = 16; evs[0].a.blas.batch = 1;
    evs[0].a.blas.atype = 14; evs[0].a.blas.ctype = 14; evs[0].a.blas.compute = 68;
    evs[0].a.blas.epilogue = 4;
    evs[1] = (cuprof_event){.t0 = base + 1000, .t1 = base + 2000, .api = 4, .depth = 1, .cls = CUPROF_EV_OCCUPANCY};
    evs[1].a.occ.kernel = 1; evs[1].a.occ.block_size = 256; evs[1].a.occ.answer = 8;
    evs[2] = (cuprof_event){.t0 = base + 3000, .t1 = base + 6000, .api = 0, .depth = 1, .cls = CUPROF_EV_LAUNCH};
    evs[2].a.launch.kernel = 1; evs[2].a.launch.grid_x = 2; evs[2].a.launch.grid_y = 1;
    evs[2].a.launch.grid_z = 1; evs[2].a.launch.block[0] = 128; evs[2].a.launch.block[1] = 1;
    evs[2].a.launch.block[2] = 1; evs[2].a.launch.stream = 0x7f00deadbeefull;
    evs[3] = (cuprof_event){.t0 = base + 20000, .t1 = base + 20500, .api = 3, .cls = CUPROF_EV_ALLOC, .result = 2};
    evs[3].a.mem.bytes = 1 << 20;
    evs[4] = (cuprof_event){.t0 = base + 30000, .t1 = base + 31000, .api = 1, .cls = CUPROF_EV_COPY};
    evs[4].a.copy.bytes = 4096; evs[4].a.copy.dir = CUPROF_DIR_HTOD;
    evs[5] = (cuprof_event){.t0 = base + 32000, .t1 = base + 35000, .api = 1, .cls = CUPROF_EV_COPY};
    evs[5].a.copy.bytes = 4; evs[5].a.copy.dir = CUPROF_DIR_DTOH; evs[5].a.copy.async = 1;
    evs[6] = (cuprof_event){.t0 = base + 40000, .t1 = base + 41000, .api = 5, .cls = CUPROF_EV_SYNC};
    evs[7] = (cuprof_event){.t0 = base + 50000, .t1 = base + 50700, .api = 0, .cls = CUPROF_EV_LAUNCH};
    evs[7].a.launch.kernel = 2;
    knames[2] = kernel2_name;

    memset(threads, 0, sizeof threads);
    threads[0] = (cuprof_run_thread){.index = 1, .tid = 4321, .name = "app", .n = NEV,
                                     .per_chunk = NEV, .chunks = chunk_list};
    memset(&run, 0, sizeof run);
    run.program = "./bench/app";
    run.exe = "/abs/bench/app";
    run.argc = 3;
    run.argv = args;
    run.pid = 4321;
    run.t_start = base - 1000;
    run.t_end = base + 100000;
    run.wall_ns = run.t_end - run.t_start;
    run.clock = "CLOCK_MONOTONIC";
    run.napis = sizeof APIS / sizeof APIS[0];
    run.apis = APIS;
    run.nkernels = 2;
    run.kernel_names = knames;
    run.nthreads = 1;
    run.threads = threads;
    run.nevents = NEV;
    run.gpu.captured = 0;
    run.gpu.reason = "CUPTI not started";
}

/* Runs one format into memory; returns the text (caller frees). */
static char *render(const cuprof_writer_ops *ops, const cuprof_summary *s)
{
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open_mem(&o), 0);
    ck_assert_int_eq(cuprof_writer_run(ops, &o, test_model_of(s)), 0);
    ck_assert_int_eq(cuprof_out_commit(&o), 0);
    return o.buf;
}

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    ck_assert_msg(j != NULL, "invalid JSON: %s (line %d col %d)", err.text, err.line, err.column);
    return j;
}

/* ---- escaping ----------------------------------------------------------- */

/* json_str of n bytes, decoded back by jansson (flags: e.g. JSON_ALLOW_NUL). */
static json_t *roundtrip(const char *s, size_t n, size_t flags)
{
    cuprof_out o;
    cuprof_out_open_mem(&o);
    cuprof_out_json_str(&o, s, n);
    cuprof_out_commit(&o);
    json_error_t err;
    json_t *j = json_loadb(o.buf, o.len, flags | JSON_DECODE_ANY, &err);
    ck_assert_msg(j && json_is_string(j), "not a JSON string: %s: %s", o.buf, err.text);
    cuprof_out_discard(&o);
    return j;
}

START_TEST(escape_every_byte)
{
    for (int b = 1; b < 256; b++) {
        char s[3] = {'a', (char)b, 'z'};
        json_t *j = roundtrip(s, 3, 0);
        const char *v = json_string_value(j);
        if (b < 0x80) {
            ck_assert_uint_eq(json_string_length(j), 3);
            ck_assert_int_eq((unsigned char)v[1], b);
        } else {   /* a lone byte >= 0x80 is never valid UTF-8 */
            ck_assert_str_eq(v, "a\xEF\xBF\xBDz");
        }
        json_decref(j);
    }
    char all[255];
    for (int b = 1; b < 256; b++)
        all[b - 1] = (char)b;
    json_t *j = roundtrip(all, sizeof all, 0);
    ck_assert_uint_eq(json_string_length(j), 127 + 128 * 3);
    json_decref(j);
    j = roundtrip("a\0b", 3, JSON_ALLOW_NUL);   /* NUL as \u0000 */
    ck_assert_uint_eq(json_string_length(j), 3);
    ck_assert_int_eq(json_string_value(j)[1], 0);
    json_decref(j);
}
END_TEST

START_TEST(escape_utf8)
{
    static const struct { const char *in; const char *out; } cases[] = {
        {"caf\xC3\xA9", "caf\xC3\xA9"},                      /* valid 2-byte */
        {"\xE2\x82\xAC", "\xE2\x82\xAC"},                    /* valid 3-byte */
        {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},            /* valid 4-byte */
        {"\xC0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD"},            /* overlong NUL */
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* surrogate */
        {"\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* > U+10FFFF */
        {"\xE2\x82", "\xEF\xBF\xBD\xEF\xBF\xBD"},            /* truncated */
        {"x\x80y", "x\xEF\xBF\xBDy"},                        /* lone continuation */
        {"\xFF\xFE", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"q\"b\\s/\n\t\x01\x1f\x7f", "q\"b\\s/\n\t\x01\x1f\x7f"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = roundtrip(cases[i].in, strlen(cases[i].in), 0);
        ck_assert_str_eq(json_string_value(j), cases[i].out);
        json_decref(j);
    }
    cuprof_out o;
    cuprof_out_open_mem(&o);
    cuprof_out_json_str(&o, "\x01\"\\", 3);
    cuprof_out_json_cstr(&o, NULL);
    cuprof_out_commit(&o);
    ck_assert_str_eq(o.buf, "\"\\u0001\\\"\\\\\"null");
    cuprof_out_discard(&o);
}
END_TEST

/* A 100 KB kernel name of every byte value goes through all three formats. */
START_TEST(huge_hostile_name)
{
    size_t n = 100 * 1024;
    char *name = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)(1 + (i * 7919) % 255);
    name[n] = '\0';
    make_run(name);
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    char *trace = render(&cuprof_chrome_trace_ops, s);
    json_t *j = parse(trace);
    json_t *evsj = json_object_get(j, "traceEvents");
    int found = 0;
    for (size_t i = 0; i < json_array_size(evsj); i++) {
        json_t *k = json_object_get(json_object_get(json_array_get(evsj, i), "args"), "kernel");
        if (k && json_string_length(k) > n / 2)
            found++;
    }
    ck_assert_int_eq(found, 1);
    json_decref(j);
    free(trace);
    char *sj = render(&cuprof_summary_json_ops, s);
    j = parse(sj);
    json_decref(j);
    free(sj);
    char *txt = render(&cuprof_summary_txt_ops, s);
    for (const char *p = txt; *p; p++)   /* no control characters but newlines */
        ck_assert(*p == '\n' || (unsigned char)*p >= 0x20);
    free(txt);
    test_summary_destroy(s);
    free(name);
}
END_TEST

/* ---- numbers and units -------------------------------------------------- */

static char *fmt_num(void (*f)(cuprof_out *, uint64_t), uint64_t v)
{
    static char buf[64];
    cuprof_out o;
    cuprof_out_open_mem(&o);
    f(&o, v);
    cuprof_out_commit(&o);
    snprintf(buf, sizeof buf, "%s", o.buf);
    cuprof_out_discard(&o);
    return buf;
}

START_TEST(number_formatting)
{
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 0), "0");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 9), "9");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 10), "10");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 99), "99");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 100), "100");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, 1234567), "1234567");
    ck_assert_str_eq(fmt_num(cuprof_out_u64, UINT64_MAX), "18446744073709551615");
    ck_assert_str_eq(fmt_num(cuprof_out_ns_as_us, 0), "0.000");
    ck_assert_str_eq(fmt_num(cuprof_out_ns_as_us, 1), "0.001");
    ck_assert_str_eq(fmt_num(cuprof_out_ns_as_us, 1000), "1.000");
    ck_assert_str_eq(fmt_num(cuprof_out_ns_as_us, 123456), "123.456");
    ck_assert_str_eq(fmt_num(cuprof_out_ns_as_us, 1009678126252ull), "1009678126.252");
    ck_assert_str_eq(fmt_num(cuprof_out_hex, 0), "0");
    ck_assert_str_eq(fmt_num(cuprof_out_hex, 0x7f00deadbeefull), "0x7f00deadbeef");
    for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + 1) {   /* agrees with printf */
        char want[32];
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        ck_assert_str_eq(fmt_num(cuprof_out_u64, v), want);
    }
    cuprof_out o;
    cuprof_out_open_mem(&o);
    cuprof_out_i64(&o, INT64_MIN);
    cuprof_out_putc(&o, ' ');
    cuprof_out_i64(&o, -35);
    cuprof_out_commit(&o);
    ck_assert_str_eq(o.buf, "-9223372036854775808 -35");
    cuprof_out_discard(&o);
}
END_TEST

START_TEST(units_like_torch)
{
    char b[32];
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 0), "0.000us");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 850), "850ns");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 1000), "1.000us");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 56000), "56.000us");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 999999), "999.999us");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 1234000), "1.234ms");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 1234567), "1.235ms");   /* rounded */
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 2314000), "2.314ms");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 3210000000ull), "3.210s");
    ck_assert_str_eq(cuprof_fmt_time(b, sizeof b, 208960000), "208.960ms");
    ck_assert_str_eq(cuprof_fmt_pct(b, sizeof b, 1, 3), "33.33%");
    ck_assert_str_eq(cuprof_fmt_pct(b, sizeof b, 5, 5), "100.00%");
    ck_assert_str_eq(cuprof_fmt_pct(b, sizeof b, 0, 0), "0.00%");
    ck_assert_str_eq(cuprof_fmt_bytes(b, sizeof b, 512), "512 B");
    ck_assert_str_eq(cuprof_fmt_bytes(b, sizeof b, 1536), "1.50 KiB");
    ck_assert_str_eq(cuprof_fmt_bytes(b, sizeof b, 12u << 20), "12.00 MiB");
}
END_TEST

/* ---- the three formats -------------------------------------------------- */

/* A dim3 argument of the trace: [x, y, z] as a JSON array of 3 integers. */
static int dim3_is(json_t *a, long long x, long long y, long long z)
{
    return json_is_array(a) && json_array_size(a) == 3 &&
           json_is_integer(json_array_get(a, 0)) && json_integer_value(json_array_get(a, 0)) == x &&
           json_is_integer(json_array_get(a, 1)) && json_integer_value(json_array_get(a, 1)) == y &&
           json_is_integer(json_array_get(a, 2)) && json_integer_value(json_array_get(a, 2)) == z;
}


START_TEST(trace_structure)
{
    make_run("void k<int>(int)");
    cuprof_summary *s = test_summary_build(&run);
    char *text = render(&cuprof_chrome_trace_ops, s);
    json_t *j = parse(text);
    ck_assert_str_eq(json_string_value(json_object_get(j, "displayTimeUnit")), "ns");
    json_t *te = json_object_get(j, "traceEvents");
    ck_assert(json_is_array(te));
    int nx = 0, nproc = 0, nthread = 0;
    json_t *blas = NULL, *launch = NULL, *malloc_ev = NULL, *copy = NULL;
    for (size_t i = 0; i < json_array_size(te); i++) {
        json_t *e = json_array_get(te, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        ck_assert_int_eq(json_integer_value(json_object_get(e, "pid")), 4321);
        if (strcmp(ph, "M") == 0) {
            nproc += strcmp(name, "process_name") == 0;
            nthread += strcmp(name, "thread_name") == 0;
            continue;
        }
        ck_assert_str_eq(ph, "X");
        ck_assert(json_is_number(json_object_get(e, "ts")));
        ck_assert(json_is_number(json_object_get(e, "dur")));
        ck_assert_int_eq(json_integer_value(json_object_get(e, "tid")), 4321);
        nx++;
        if (strcmp(name, "cublasLtMatmul") == 0) blas = e;
        if (strcmp(name, "cudaLaunchKernel") == 0 && !launch) launch = e;
        if (strcmp(name, "cudaMalloc") == 0) malloc_ev = e;
        if (strcmp(name, "cudaMemcpy") == 0 && !copy) copy = e;
    }
    ck_assert_int_eq(nx, NEV);
    ck_assert_int_eq(nproc, 1);
    ck_assert_int_eq(nthread, 1);
    ck_assert_str_eq(json_string_value(json_object_get(blas, "cat")), "cublaslt");
    json_t *ba = json_object_get(blas, "args");
    ck_assert_int_eq(json_integer_value(json_object_get(ba, "m")), 64);
    ck_assert_int_eq(json_integer_value(json_object_get(ba, "n")), 32);
    ck_assert_int_eq(json_integer_value(json_object_get(ba, "k")), 16);
    ck_assert_str_eq(json_string_value(json_object_get(ba, "dtype")), "bf16");
    ck_assert_str_eq(json_string_value(json_object_get(ba, "epilogue")), "BIAS");
    ck_assert_str_eq(json_string_value(json_object_get(ba, "transa")), "N");
    json_t *la = json_object_get(launch, "args");
    ck_assert_str_eq(json_string_value(json_object_get(la, "kernel")), "bias_add(float*, int)");
    ck_assert(dim3_is(json_object_get(la, "grid"), 2, 1, 1));
    ck_assert(dim3_is(json_object_get(la, "block"), 128, 1, 1));
    ck_assert_ptr_null(json_object_get(la, "class"));   /* per API, in otherData */
    json_t *classes = json_object_get(json_object_get(j, "otherData"), "api_classes");
    ck_assert_str_eq(json_string_value(json_object_get(classes, "cudaLaunchKernel")), "launch");
    ck_assert_str_eq(json_string_value(json_object_get(classes, "cublasLtMatmul")), "blas");
    ck_assert_str_eq(json_string_value(json_object_get(classes, "cudaMalloc")), "alloc");
    /* the cudaStream_t as a hex string, named apart from the GPU rows'
     * "stream" (CUPTI's stream id, a number): one name, one type */
    ck_assert_str_eq(json_string_value(json_object_get(la, "stream handle")), "0x7f00deadbeef");
    ck_assert_ptr_null(json_object_get(la, "stream"));
    /* the launch nests inside the BLAS call by time */
    double bts = json_number_value(json_object_get(blas, "ts"));
    double bdur = json_number_value(json_object_get(blas, "dur"));
    double lts = json_number_value(json_object_get(launch, "ts"));
    ck_assert(lts > bts && lts < bts + bdur);
    ck_assert(bdur > 9.999 && bdur < 10.001);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(malloc_ev, "args"), "result")), 2);
    ck_assert_ptr_null(json_object_get(la, "result"));   /* only when non-zero */
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(copy, "args"), "kind")), "HtoD");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(copy, "args"), "bytes")), 4096);
    json_t *od = json_object_get(j, "otherData");
    ck_assert_str_eq(json_string_value(json_object_get(od, "program")), "./bench/app");
    ck_assert(json_is_false(json_object_get(json_object_get(od, "gpu_timeline"), "captured")));
    json_decref(j);
    free(text);
    test_summary_destroy(s);
}
END_TEST

/* Asserts that object o has key k of the given jansson type. */
#define HAS(o, k, type) ck_assert_msg(json_object_get((o), (k)) && json_typeof(json_object_get((o), (k))) == (type), \
                                      "field %s missing or of the wrong type", (k))

START_TEST(summary_json_schema)
{
    make_run("void k<int>(int)");
    cuprof_summary *s = test_summary_build(&run);
    char *text = render(&cuprof_summary_json_ops, s);
    json_t *j = parse(text);
    ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "cuprof.summary/1");
    HAS(j, "program", JSON_STRING);
    HAS(j, "argv", JSON_ARRAY);
    HAS(j, "pid", JSON_INTEGER);
    HAS(j, "wall_ns", JSON_INTEGER);
    HAS(j, "gpu_timeline", JSON_OBJECT);
    HAS(j, "api", JSON_ARRAY);
    HAS(j, "kernels", JSON_ARRAY);
    HAS(j, "copies", JSON_ARRAY);
    HAS(j, "blas", JSON_ARRAY);
    HAS(j, "findings", JSON_ARRAY);
    ck_assert_str_eq(json_string_value(json_object_get(j, "program")), "./bench/app");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "argv")), 3);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "argv"), 2)), "with space");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "pid")), 4321);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "wall_ns")), 101000);
    json_t *g = json_object_get(j, "gpu_timeline");
    ck_assert(json_is_false(json_object_get(g, "captured")));
    ck_assert_str_eq(json_string_value(json_object_get(g, "reason")), "CUPTI not started");

    static const char *const api_ints[] = {"calls", "errors", "cpu_total_ns", "cpu_self_ns", "min_ns",
                                           "median_ns", "max_ns", "cuda_self_ns", "cuda_total_ns"};
    json_t *api = json_object_get(j, "api");
    ck_assert_uint_eq(json_array_size(api), 6);
    json_t *a;
    size_t i;
    json_array_foreach(api, i, a) {
        HAS(a, "name", JSON_STRING);
        for (size_t f = 0; f < sizeof api_ints / sizeof api_ints[0]; f++)
            HAS(a, api_ints[f], JSON_INTEGER);
    }
    a = json_array_get(api, 0);   /* the BLAS call: most CPU total */
    ck_assert_str_eq(json_string_value(json_object_get(a, "name")), "cublasLtMatmul");
    ck_assert_int_eq(json_integer_value(json_object_get(a, "cpu_total_ns")), 10000);
    ck_assert_int_eq(json_integer_value(json_object_get(a, "cpu_self_ns")), 6000);
    json_array_foreach(api, i, a)
        if (strcmp(json_string_value(json_object_get(a, "name")), "cudaMalloc") == 0)
            ck_assert_int_eq(json_integer_value(json_object_get(a, "errors")), 1);

    json_t *k = json_object_get(j, "kernels");
    ck_assert_uint_eq(json_array_size(k), 2);
    json_array_foreach(k, i, a) {
        HAS(a, "name", JSON_STRING);
        HAS(a, "launches", JSON_INTEGER);
        HAS(a, "gpu_total_ns", JSON_INTEGER);
        HAS(a, "min_ns", JSON_INTEGER);
        HAS(a, "median_ns", JSON_INTEGER);
        HAS(a, "max_ns", JSON_INTEGER);
    }
    json_t *c = json_object_get(j, "copies");
    ck_assert_uint_eq(json_array_size(c), 2);
    json_array_foreach(c, i, a) {
        HAS(a, "kind", JSON_STRING);
        HAS(a, "calls", JSON_INTEGER);
        HAS(a, "bytes", JSON_INTEGER);
        HAS(a, "gpu_total_ns", JSON_INTEGER);
    }
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "kind")), "HtoD");
    json_t *b = json_object_get(j, "blas");
    ck_assert_uint_eq(json_array_size(b), 1);
    a = json_array_get(b, 0);
    HAS(a, "name", JSON_STRING);
    HAS(a, "calls", JSON_INTEGER);
    HAS(a, "shapes", JSON_ARRAY);
    json_t *sh = json_array_get(json_object_get(a, "shapes"), 0);
    static const char *const shape_ints[] = {"m", "n", "k", "batch", "calls"};
    for (size_t f = 0; f < 5; f++)
        HAS(sh, shape_ints[f], JSON_INTEGER);
    HAS(sh, "dtype", JSON_STRING);
    HAS(sh, "epilogue", JSON_STRING);
    ck_assert_str_eq(json_string_value(json_object_get(sh, "dtype")), "bf16");
    ck_assert_str_eq(json_string_value(json_object_get(sh, "epilogue")), "BIAS");
    json_decref(j);
    free(text);
    test_summary_destroy(s);
}
END_TEST

/* The BLAS shape table's columns line up whatever the dtype's name (the
 * longest, "complex_fp64", pushed the epilogue right of its header). */
START_TEST(summary_txt_blas_columns)
{
    make_run("void k<int>(int)");
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_uint_ge(s->nblas, 1);
    s->blas[0].shapes[0].dtype = "complex_fp64";
    char *text = render(&cuprof_summary_txt_ops, s);
    const char *head = strstr(text, "op(A),op(B)");
    ck_assert_ptr_nonnull(head);
    const char *hl = head;
    while (hl > text && hl[-1] != '\n')
        hl--;
    const char *row = strchr(head, '\n') + 1;
    const char *epi_h = strstr(hl, "epilogue"), *epi_r = strstr(row, "BIAS");
    ck_assert_ptr_nonnull(epi_r);
    ck_assert_int_eq((int)(epi_h - hl), (int)(epi_r - row));
    /* and the FLOPs after it: right-aligned under their header */
    const char *fl_h = strstr(hl, "FLOPs/call"), *fl_r = strchr(epi_r, 'K');
    ck_assert_ptr_nonnull(fl_h);
    ck_assert_ptr_nonnull(fl_r);
    ck_assert_int_eq((int)(fl_h + strlen("FLOPs/call") - hl), (int)(fl_r + 1 - row));
    free(text);
    test_summary_destroy(s);
}
END_TEST

START_TEST(summary_txt_layout)
{
    make_run("void k<int>(int)");
    cuprof_summary *s = test_summary_build(&run);
    char *text = render(&cuprof_summary_txt_ops, s);
    static const char *const must[] = {
        "  program:       ./bench/app\n", "  arguments:     --mode eager 'with space'\n",
        "  pid:           4321\n", "GPU timeline:  not captured: CUPTI not started\n",
        "Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA"
        "   Self CUDA %    CUDA total  CUDA time avg    # of Calls           Min        Median           Max  \n",
        "Self CPU time total: ", "Self CUDA time total: 0.000us",
        "bias_add(float*, int)", "void k<int>(int)", "HtoD", "4.00 KiB",
        "cublasLtMatmul: 1 call\n", "bf16", "BIAS",
    };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        ck_assert_msg(strstr(text, must[i]), "summary.txt lacks \"%s\":\n%s", must[i], text);
    /* cublasLtMatmul row: 10us total, 6us self, first (most CPU total) */
    const char *first_row = strstr(strstr(strstr(text, "# of Calls"), "\n") + 1, "\n") + 1;
    ck_assert_msg(strncmp(strstr(first_row, "cublasLtMatmul"), "cublasLtMatmul  ", 16) == 0, "%s", text);
    ck_assert_ptr_nonnull(strstr(first_row, "10.000us"));
    ck_assert_ptr_nonnull(strstr(first_row, "6.000us"));
    /* dash rules: three, all the same length as the header line */
    ck_assert_int_eq((int)(strstr(text, "\n-") != NULL), 1);
    free(text);
    test_summary_destroy(s);
}
END_TEST

/* ---- files: temporary name, rename, no partial file --------------------- */

static char dir[256];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/cuprof-tf.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int nfiles(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (dp)
        closedir(dp);
    return n;
}

static void rm_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(write_all_files)
{
    mkdir_tmp();
    make_run("k2");
    cuprof_summary *s = test_summary_build(&run);
    char written[256], err[512], p[512];
    snprintf(p, sizeof p, "%s/r1.trace.json", dir);
    FILE *f = fopen(p, "w");   /* an older file of the same name is replaced whole */
    fputs("old content that is longer than nothing at all", f);
    fclose(f);
    ck_assert_int_eq(cuprof_formats_write_all(test_model_of(s), dir, "r1", written, sizeof written, err, sizeof err), 3);
    ck_assert_str_eq(written, "{trace.json,summary.txt,summary.json}");
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(nfiles(dir), 3);   /* no temporary file left */
    json_error_t jerr;
    json_t *j = json_load_file(p, 0, &jerr);
    ck_assert_msg(j != NULL, "%s", jerr.text);
    json_decref(j);
    ck_assert_int_eq(cuprof_formats_write_all(test_model_of(s), "/nonexistent/dir", "r1", written, sizeof written,
                                              err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "cannot create files in /nonexistent/dir"));
    ck_assert_str_eq(written, "");
    test_summary_destroy(s);
    rm_dir();
}
END_TEST

START_TEST(failed_write_leaves_nothing)
{
    mkdir_tmp();
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open(&o, dir, "x.json"), 0);
    cuprof_out_puts(&o, "{\"partial\":");
    ck_assert_int_eq(nfiles(dir), 1);   /* only the temporary file exists */
    o.err = 5;                           /* EIO, as if the disk failed */
    ck_assert_int_eq(cuprof_out_commit(&o), -1);
    ck_assert_int_eq(nfiles(dir), 0);

    /* A real failure mid-file: the file size limit stops the writes. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {4096, 4096};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    static cuprof_event big[40000];
    for (int i = 0; i < 40000; i++)
        big[i] = (cuprof_event){.t0 = 1000 + (uint64_t)i * 10, .t1 = 1005 + (uint64_t)i * 10, .api = 1,
                                .cls = CUPROF_EV_CALL};
    make_run("k2");
    static const cuprof_event *bl[1] = {big};
    threads[0].chunks = bl;
    threads[0].n = threads[0].per_chunk = 40000;
    run.nevents = 40000;
    cuprof_summary *s = test_summary_build(&run);
    char written[256], err[512];
    int n = cuprof_formats_write_all(test_model_of(s), dir, "big", written, sizeof written, err, sizeof err);
    ck_assert_int_lt(n, 3);   /* the trace (about 4 MB) cannot fit */
    ck_assert_ptr_nonnull(strstr(err, "writing big.trace.json failed"));
    char p[512];
    snprintf(p, sizeof p, "%s/big.trace.json", dir);
    ck_assert_int_ne(access(p, F_OK), 0);
    DIR *dp = opendir(dir);
    struct dirent *e;
    while ((e = readdir(dp)))
        ck_assert_msg(!strstr(e->d_name, ".tmp"), "temporary file left: %s", e->d_name);
    closedir(dp);
    test_summary_destroy(s);
    rm_dir();
}
END_TEST

/* Bytes i of the large-file tests' content. */
static char big_byte(size_t i)
{
    return (char)('a' + (i * 2654435761u >> 7) % 26);
}

/* Writes n bytes of big_byte() in pieces of varied sizes (1 byte to 9 KiB,
 * through putc, write, reserve + in place) to dir/name. */
static int write_big(const char *name, size_t n)
{
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open(&o, dir, name), 0);
    static char piece[9000];
    size_t i = 0;
    for (unsigned k = 0; i < n; k++) {
        size_t len = k % 3 == 0 ? 1 : (k * 7919u) % sizeof piece + 1;
        if (len > n - i)
            len = n - i;
        if (k % 5 == 0 && len <= 4096) {   /* in place, as the trace's lines are */
            if (cuprof_out_reserve(&o, len) < 0)
                break;
            for (size_t j = 0; j < len; j++)
                o.buf[o.len + j] = big_byte(i + j);
            o.len += len;
        } else if (len == 1) {
            cuprof_out_putc(&o, big_byte(i));
        } else {
            for (size_t j = 0; j < len; j++)
                piece[j] = big_byte(i + j);
            cuprof_out_write(&o, piece, len);
        }
        i += len;
    }
    return cuprof_out_commit(&o);
}

/* A file past the helper thread's start (outbuf.c: OUT_PIPE_AFTER), with
 * tails that are not 4 KiB multiples: every byte arrives, in order, whichever
 * way (page cache or O_DIRECT) the helper wrote each buffer. */
START_TEST(large_file_through_helper)
{
    mkdir_tmp();
    size_t sizes[] = {(40u << 20) + 12345, 5u << 20, (4u << 20) + 1};
    for (int t = 0; t < 3; t++) {
        ck_assert_int_eq(write_big("big.json", sizes[t]), 0);
        char p[512];
        snprintf(p, sizeof p, "%s/big.json", dir);
        FILE *f = fopen(p, "rb");
        ck_assert_ptr_nonnull(f);
        size_t i = 0;
        int c;
        while ((c = getc(f)) != EOF) {
            if (i >= sizes[t] || c != big_byte(i))   /* not ck_assert: one per byte is slow */
                ck_abort_msg("byte %zu of %zu differs", i, sizes[t]);
            i++;
        }
        fclose(f);
        ck_assert_uint_eq(i, sizes[t]);
        ck_assert_int_eq(nfiles(dir), 1);
        unlink(p);
    }
    /* a write error in the helper (file size limit) fails the commit and
     * leaves no file */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {16u << 20, 16u << 20};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    ck_assert_int_eq(write_big("big.json", 40u << 20), -1);
    ck_assert_int_eq(nfiles(dir), 0);
    rm_dir();
}
END_TEST

START_TEST(ops_tables)
{
    const cuprof_writer_ops *all[] = {&cuprof_chrome_trace_ops, &cuprof_summary_txt_ops,
                                      &cuprof_summary_json_ops};
    for (int i = 0; i < 3; i++) {
        ck_assert_ptr_nonnull(all[i]->suffix);
        ck_assert_ptr_nonnull(all[i]->write);
        ck_assert_uint_ge(all[i]->size, sizeof(cuprof_writer));
    }
}
END_TEST

Suite *formats_suite(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, escape_every_byte);
    tcase_add_test(tc, escape_utf8);
    tcase_add_test(tc, huge_hostile_name);
    tcase_add_test(tc, number_formatting);
    tcase_add_test(tc, units_like_torch);
    suite_add_tcase(s, tc);
    tc = tcase_create("writers");
    tcase_add_test(tc, trace_structure);
    tcase_add_test(tc, summary_json_schema);
    tcase_add_test(tc, summary_txt_layout);
    tcase_add_test(tc, summary_txt_blas_columns);
    tcase_add_test(tc, ops_tables);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_add_test(tc, write_all_files);
    tcase_add_test(tc, failed_write_leaves_nothing);
    tcase_add_test(tc, large_file_through_helper);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(formats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
