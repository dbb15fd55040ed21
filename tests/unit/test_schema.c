/*
 * test_schema.c - summary.json's one field list (formats/summary_schema.h)
 * against its documentation and its two users.
 *
 *   - formats/SCHEMA.md documents every listed field in its row's section,
 *     with the listed type, marked "(added)" exactly when the field is not
 *     ALWAYS; and it documents no row field the list lacks.
 *   - A summary whose every listed field holds a distinct value, written by
 *     the writer and read back by compare's reader, comes back equal, field
 *     by field (both sides expanded from the same list).
 *   - A file without an ALWAYS field is refused; one without the ADDED and
 *     NONZERO fields is read, with "" and 0 for them.
 */
#include "formats/compare/summary_reader.h"
#include "formats/outbuf.h"
#include "formats/summary_schema.h"
#include "formats/writer.h"
#include "model/model.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the list, flattened -------------------------------------------------- */

typedef struct listed {
    const char *section;    /* SCHEMA.md section, e.g. "api[]" */
    const char *field;
    const char *kind;       /* "STR", "U32", "U64", "FIX6", "BOOL" */
    int when;
} listed;

#define ROW(KIND, m, WHEN) {SECTION, #m, #KIND, CUPROF_SCHEMA_##WHEN},
static const listed fields[] = {
#define SECTION "api[]"
    CUPROF_SCHEMA_API(ROW)
#undef SECTION
#define SECTION "kernels[]"
    CUPROF_SCHEMA_KERNEL(ROW)
#undef SECTION
#define SECTION "copies[]"
    CUPROF_SCHEMA_COPY(ROW)
#undef SECTION
#define SECTION "blas[]"
    CUPROF_SCHEMA_BLAS(ROW)
#undef SECTION
#define SECTION "blas[].shapes[]"
    CUPROF_SCHEMA_SHAPE(ROW)
#undef SECTION
#define SECTION "math[]"
    CUPROF_SCHEMA_MATH(ROW)
#undef SECTION
#define SECTION "ranges[]"
    CUPROF_SCHEMA_RANGE(ROW)
#undef SECTION
#define SECTION "steps[]"
    CUPROF_SCHEMA_STEP(ROW)
#undef SECTION
#define SECTION "step_list[]"
    CUPROF_SCHEMA_STEP_ROW(ROW)
#undef SECTION
#define SECTION "sites[]"
    CUPROF_SCHEMA_SITE(ROW)
#undef SECTION
#define SECTION "by_stack[]"
    CUPROF_SCHEMA_BY_STACK(ROW)
#undef SECTION
#define SECTION "findings[]"
    CUPROF_SCHEMA_FINDING(ROW)
#undef SECTION
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Row fields written by hand (nested parts), documented but not listed. */
static const char *const nested[][2] = {{"blas[]", "shapes"}, {"findings[]", "numbers"},
                                        {"by_stack[]", "frames"}};

/* ---- SCHEMA.md, parsed ---------------------------------------------------- */

typedef struct documented {
    char section[64];
    char field[64];
    char type[32];
    int added;              /* the meaning says "(added" */
} documented;

static documented docs[256];
static size_t ndocs;

/* Reads the tables under "## `SECTION`" headings: each row's first cell
 * names one or more fields in backticks, the second their type. */
static void load_schema(void)
{
    const char *top = getenv("CUPROF_TOP");
    char path[4096];
    snprintf(path, sizeof path, "%s/formats/SCHEMA.md", top ? top : ".");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[4096], section[64] = "";
    ndocs = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "# ", 2) == 0 && strstr(line, "cuprof.compare/"))
            break;                              /* the compare document follows */
        if (strncmp(line, "## ", 3) == 0) {
            section[0] = '\0';
            const char *a = strchr(line, '`'), *b = a ? strchr(a + 1, '`') : NULL;
            if (a && b && (size_t)(b - a - 1) < sizeof section && b[-1] == ']') {
                memcpy(section, a + 1, (size_t)(b - a - 1));
                section[b - a - 1] = '\0';
            }
            continue;
        }
        if (!section[0] || strncmp(line, "| `", 3) != 0)
            continue;
        char *cell1 = line + 1, *bar = strchr(cell1, '|');
        if (!bar)
            continue;
        *bar = '\0';
        char *cell2 = bar + 1, *bar2 = strchr(cell2, '|');
        if (!bar2)
            continue;
        *bar2 = '\0';
        char type[32] = "";
        sscanf(cell2, " %31s", type);
        int added = strstr(bar2 + 1, "(added") != NULL;
        for (char *p = strchr(cell1, '`'); p; p = strchr(p, '`')) {
            char *e = strchr(p + 1, '`');
            if (!e)
                break;
            ck_assert_uint_lt(ndocs, sizeof docs / sizeof docs[0]);
            documented *d = &docs[ndocs++];
            snprintf(d->section, sizeof d->section, "%s", section);
            snprintf(d->field, sizeof d->field, "%.*s", (int)(e - p - 1), p + 1);
            snprintf(d->type, sizeof d->type, "%s", type);
            d->added = added;
            p = e + 1;
        }
    }
    fclose(f);
    ck_assert_uint_gt(ndocs, 30);
}

static const documented *doc_of(const char *section, const char *field)
{
    for (size_t i = 0; i < ndocs; i++)
        if (!strcmp(docs[i].section, section) && !strcmp(docs[i].field, field))
            return &docs[i];
    return NULL;
}

static const char *doc_type(const char *kind)
{
    return !strcmp(kind, "STR") ? "string" : !strcmp(kind, "FIX6") ? "number" : !strcmp(kind, "BOOL") ? "bool" : "int";
}

START_TEST(every_listed_field_is_documented)
{
    load_schema();
    for (size_t i = 0; i < NFIELDS; i++) {
        const listed *l = &fields[i];
        const documented *d = doc_of(l->section, l->field);
        ck_assert_msg(d != NULL, "SCHEMA.md: `%s` has no row for `%s`", l->section, l->field);
        ck_assert_msg(!strcmp(d->type, doc_type(l->kind)), "SCHEMA.md: `%s` `%s` is %s, listed %s",
                      l->section, l->field, d->type, doc_type(l->kind));
        ck_assert_msg(d->added == (l->when != CUPROF_SCHEMA_ALWAYS),
                      "SCHEMA.md: `%s` `%s`: \"(added)\" %s but the list says %s", l->section,
                      l->field, d->added ? "present" : "absent",
                      l->when == CUPROF_SCHEMA_ALWAYS ? "ALWAYS" : "ADDED/NONZERO");
    }
}
END_TEST

START_TEST(every_documented_row_field_is_listed)
{
    load_schema();
    for (size_t i = 0; i < ndocs; i++) {
        const documented *d = &docs[i];
        int found = 0;
        for (size_t j = 0; j < NFIELDS && !found; j++)
            found = !strcmp(fields[j].section, d->section) && !strcmp(fields[j].field, d->field);
        for (size_t j = 0; j < sizeof nested / sizeof nested[0] && !found; j++)
            found = !strcmp(nested[j][0], d->section) && !strcmp(nested[j][1], d->field);
        ck_assert_msg(found, "SCHEMA.md documents `%s` `%s`, which formats/summary_schema.h does not list",
                      d->section, d->field);
    }
}
END_TEST

/* ---- round trip ----------------------------------------------------------- */

/* Fills every listed field of a row with a value no other field has. */
static unsigned counter;
static char strings[256][48];
static size_t nstrings;

static void fill_STR(const char **p, const char *m)
{
    ck_assert_uint_lt(nstrings, 256);
    snprintf(strings[nstrings], sizeof strings[0], "%s-%u", m, ++counter);
    *p = strings[nstrings++];
}
static void fill_U64(uint64_t *p, const char *m) { (void)m; *p = 1000003ull * ++counter; }
static void fill_U32(uint32_t *p, const char *m) { (void)m; *p = 7u * ++counter; }
static void fill_FIX6(double *p, const char *m) { (void)m; *p = 0.125 * ++counter; }
static void fill_BOOL(int *p, const char *m) { (void)m; *p = (int)(++counter % 2); }

#define FILL(KIND, m, WHEN) fill_##KIND(&row->m, #m);

static void same_STR(const char *a, const char *b, const char *m)
{
    ck_assert_msg(!strcmp(a, b), "%s: wrote \"%s\", read \"%s\"", m, a, b);
}
static void same_U64(uint64_t a, uint64_t b, const char *m)
{
    ck_assert_msg(a == b, "%s: wrote %llu, read %llu", m, (unsigned long long)a,
                  (unsigned long long)b);
}
static void same_U32(uint32_t a, uint32_t b, const char *m) { same_U64(a, b, m); }
static void same_FIX6(double a, double b, const char *m)
{
    ck_assert_msg(a - b < 1e-6 && b - a < 1e-6, "%s: wrote %f, read %f", m, a, b);
}

static void same_BOOL(int a, int b, const char *m)
{
    ck_assert_msg(a == b, "%s: wrote %d, read %d", m, a, b);
}

#define SAME(KIND, m, WHEN) same_##KIND(w->m, r->m, #m);

/* Writes sum through the summary.json writer; returns the text. */
static char *write_json(const cuprof_summary *sum)
{
    static cuprof_run run;
    memset(&run, 0, sizeof run);
    run.program = "prog";
    run.exe = "";
    run.clock = "CLOCK_MONOTONIC";
    run.gpu.reason = "not captured";
    cuprof_model m = {.run = &run, .summary = (cuprof_summary *)sum};
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open_mem(&o), 0);
    ck_assert_int_eq(cuprof_writer_run(&cuprof_summary_json_ops, &o, &m), 0);
    ck_assert_int_eq(cuprof_out_commit(&o), 0);
    return o.buf;
}

START_TEST(writer_and_reader_agree_on_every_field)
{
    cuprof_stat_api api[2];
    cuprof_stat_kernel kernels[1];
    cuprof_stat_copy copies[1];
    cuprof_stat_shape shapes[2];
    cuprof_stat_blas blas[1];
    cuprof_finding findings[1];
    cuprof_stat_range ranges[2];
    cuprof_stat_step steps[1];
    memset(ranges, 0, sizeof ranges);
    memset(steps, 0, sizeof steps);
    memset(api, 0, sizeof api);
    memset(kernels, 0, sizeof kernels);
    memset(copies, 0, sizeof copies);
    memset(shapes, 0, sizeof shapes);
    memset(blas, 0, sizeof blas);
    memset(findings, 0, sizeof findings);
    for (cuprof_stat_api *row = api; row < api + 2; row++) { CUPROF_SCHEMA_API(FILL) }
    for (cuprof_stat_kernel *row = kernels; row < kernels + 1; row++) { CUPROF_SCHEMA_KERNEL(FILL) }
    for (cuprof_stat_copy *row = copies; row < copies + 1; row++) { CUPROF_SCHEMA_COPY(FILL) }
    for (cuprof_stat_shape *row = shapes; row < shapes + 2; row++) { CUPROF_SCHEMA_SHAPE(FILL) }
    for (cuprof_stat_blas *row = blas; row < blas + 1; row++) { CUPROF_SCHEMA_BLAS(FILL) }
    for (cuprof_finding *row = findings; row < findings + 1; row++) { CUPROF_SCHEMA_FINDING(FILL) }
    for (cuprof_stat_range *row = ranges; row < ranges + 2; row++) { CUPROF_SCHEMA_RANGE(FILL) }
    for (cuprof_stat_step *row = steps; row < steps + 1; row++) { CUPROF_SCHEMA_STEP(FILL) }
    blas[0].shapes = shapes;
    blas[0].nshapes = 2;
    cuprof_summary sum = {.napi = 2, .api = api, .nkernels = 1, .kernels = kernels,
                          .ncopies = 1, .copies = copies, .nblas = 1, .blas = blas,
                          .nfindings = 1, .findings = findings, .nranges = 2, .ranges = ranges,
                          .nsteps = 1, .steps = steps};

    char *text = write_json(&sum);
    summary *s = NULL;
    char err[SUMMARY_ERR_MAX];
    ck_assert_msg(cmp_summary_parse(text, strlen(text), "rt", &s, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(s->n_api, 2);
    ck_assert_uint_eq(s->n_kernels, 1);
    ck_assert_uint_eq(s->n_copies, 1);
    ck_assert_uint_eq(s->n_blas, 1);
    ck_assert_uint_eq(s->blas[0].nshapes, 2);
    ck_assert_uint_eq(s->n_findings, 1);
    for (size_t i = 0; i < 2; i++) {
        const cuprof_stat_api *w = &api[i], *r = &s->api[i];
        CUPROF_SCHEMA_API(SAME)
    }
    {
        const cuprof_stat_kernel *w = kernels, *r = s->kernels;
        CUPROF_SCHEMA_KERNEL(SAME)
    }
    {
        const cuprof_stat_copy *w = copies, *r = s->copies;
        CUPROF_SCHEMA_COPY(SAME)
    }
    {
        const cuprof_stat_blas *w = blas, *r = s->blas;
        CUPROF_SCHEMA_BLAS(SAME)
    }
    for (size_t i = 0; i < 2; i++) {
        const cuprof_stat_shape *w = &shapes[i], *r = &s->blas[0].shapes[i];
        CUPROF_SCHEMA_SHAPE(SAME)
    }
    {
        const cuprof_finding *w = findings, *r = s->findings;
        CUPROF_SCHEMA_FINDING(SAME)
    }
    ck_assert_uint_eq(s->n_ranges, 2);
    for (size_t i = 0; i < 2; i++) {
        const cuprof_stat_range *w = &ranges[i], *r = &s->ranges[i];
        CUPROF_SCHEMA_RANGE(SAME)
    }
    ck_assert_uint_eq(s->n_steps, 1);
    {
        const cuprof_stat_step *w = steps, *r = s->steps;
        CUPROF_SCHEMA_STEP(SAME)
    }
    cmp_summary_destroy(s);
    free(text);
}
END_TEST

/* ---- required and optional fields ------------------------------------------ */

static const char *minimal =
    "{\"schema\":\"cuprof.summary/1\",\"program\":\"p\",\"argv\":[],\"pid\":1,\"wall_ns\":5,"
    "\"gpu_timeline\":{\"captured\":false,\"reason\":\"\"},"
    "\"api\":[{\"name\":\"cudaMalloc\",\"calls\":1,\"errors\":0,\"cpu_total_ns\":2,"
    "\"cpu_self_ns\":2,\"min_ns\":2,\"median_ns\":2,\"max_ns\":2,\"cuda_self_ns\":0,"
    "\"cuda_total_ns\":0}],"
    "\"kernels\":[],"
    "\"copies\":[{\"kind\":\"HtoD\",\"calls\":1,\"bytes\":4,\"gpu_total_ns\":0}],"
    "\"blas\":[{\"name\":\"cublasGemmEx\",\"calls\":1,\"shapes\":[{\"m\":1,\"n\":2,\"k\":3,"
    "\"batch\":1,\"dtype\":\"fp32\",\"epilogue\":\"DEFAULT\",\"calls\":1}]}],"
    "\"findings\":[{\"rule\":\"r\",\"severity\":\"info\",\"message\":\"m\"}]}";

START_TEST(added_fields_are_optional)
{
    summary *s = NULL;
    char err[SUMMARY_ERR_MAX];
    ck_assert_msg(cmp_summary_parse(minimal, strlen(minimal), "min", &s, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_str_eq(s->api[0].category, "");
    ck_assert_uint_eq(s->api[0].dropped, 0);
    ck_assert_uint_eq(s->copies[0].gpu_copies, 0);
    ck_assert_str_eq(s->blas[0].shapes[0].transa, "");
    ck_assert_str_eq(s->findings[0].advice, "");
    ck_assert_uint_eq(s->blas[0].shapes[0].k, 3);
    ck_assert_uint_eq(s->n_ranges, 0);   /* written before NVTX: no section */
    ck_assert_uint_eq(s->n_steps, 0);
    cmp_summary_destroy(s);
}
END_TEST

/* Each ALWAYS field of the api row, removed in turn, makes the file refused
 * with a line naming it. */
START_TEST(always_fields_are_required)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        const listed *l = &fields[i];
        if (strcmp(l->section, "api[]") || l->when != CUPROF_SCHEMA_ALWAYS)
            continue;
        json_error_t je;
        json_t *root = json_loads(minimal, 0, &je);
        ck_assert_ptr_nonnull(root);
        json_object_del(json_array_get(json_object_get(root, "api"), 0), l->field);
        char *text = json_dumps(root, 0);
        summary *s = NULL;
        char err[SUMMARY_ERR_MAX] = "";
        ck_assert_int_eq(cmp_summary_parse(text, strlen(text), "cut", &s, err, sizeof err), -1);
        char want[96];
        snprintf(want, sizeof want, "api[0] has no \"%s\" field", l->field);
        ck_assert_msg(strstr(err, want) != NULL, "without %s: %s", l->field, err);
        free(text);
        json_decref(root);
    }
}
END_TEST

/* A shape dimension over 32 bits is refused, not cut. */
START_TEST(shape_dimensions_fit_32_bits)
{
    char *text = strdup(minimal);
    char *k = strstr(text, "\"k\":3");
    ck_assert_ptr_nonnull(k);
    size_t need = strlen(text) + 16;
    char *big = malloc(need);
    snprintf(big, need, "%.*s\"k\":4294967296%s", (int)(k - text), text, k + 5);
    summary *s = NULL;
    char err[SUMMARY_ERR_MAX] = "";
    ck_assert_int_eq(cmp_summary_parse(big, strlen(big), "big", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "blas[0].shapes[0].k") != NULL, "%s", err);
    free(big);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("schema");
    tcase_add_test(tc, every_listed_field_is_documented);
    tcase_add_test(tc, every_documented_row_field_is_listed);
    tcase_add_test(tc, writer_and_reader_agree_on_every_field);
    tcase_add_test(tc, added_fields_are_optional);
    tcase_add_test(tc, always_fields_are_required);
    tcase_add_test(tc, shape_dimensions_fit_32_bits);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
