/*
 * test_quantile.c - model/quantile.h: a row's order statistics.
 *
 *   - Under the bound, every answer equals a sort's: the median as
 *     cuprof_median_u64 defines it (odd and even counts, duplicates, n = 1),
 *     any rank, min, max, count.
 *   - Past a lowered bound, the median and p10/p90/p99 of uniform,
 *     log-normal and constant samples are within 1% (the bound,
 *     CUPROF_QUANTILE_REL_ERR) of a sort's; min and max stay exact; the
 *     buckets count every sample once.
 *   - Every bucket's value is within the bound of every value in it, from 0
 *     to 2^64 - 1.
 *   - Merges: exact + exact stays exact when it fits (and equals the exact
 *     union), sketches otherwise; sketch + sketch is the sketch of the union.
 */
#include "model/quantile.h"
#include "model/summary.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A small deterministic generator (xorshift64*), so failures repeat. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static double rnd01(void) { return (double)(rnd() >> 11) * 0x1p-53; }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted copy of v[0..n) (the reference). */
static uint64_t *sorted(const uint64_t *v, size_t n)
{
    uint64_t *s = malloc((n ? n : 1) * sizeof *s);
    ck_assert_ptr_nonnull(s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    return s;
}

static uint64_t sorted_median(const uint64_t *s, size_t n)
{
    if (n % 2)
        return s[n / 2];
    return s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2;
}

/* |got - want| <= want * the bound (and 1% at most). */
static void assert_close(uint64_t got, uint64_t want, const char *what)
{
    double err = fabs((double)got - (double)want);
    ck_assert_msg(err <= (double)want * CUPROF_QUANTILE_REL_ERR + 0.5, "%s: got %llu, want %llu (%.4f%%)",
                  what, (unsigned long long)got, (unsigned long long)want,
                  want ? 100.0 * err / (double)want : 0.0);
    ck_assert(CUPROF_QUANTILE_REL_ERR <= 0.01);
}

static void fill(cuprof_quantile *q, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(cuprof_quantile_add(q, v[i]), 0);
}

START_TEST(exact_equals_sort)
{
    rng_state = 0x9e3779b97f4a7c15ull;
    static const size_t sizes[] = {1, 2, 3, 4, 5, 16, 17, 18, 100, 101, 1000, 4097, 20000};
    uint64_t *v = malloc(20000 * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int kind = 0; kind < 3; kind++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++)   /* wide, few distinct (duplicates), all equal */
                v[i] = kind == 0 ? rnd() >> (rnd() % 64) : kind == 1 ? 1000 + rnd() % 7 : 42;
            uint64_t *s = sorted(v, n);
            uint64_t *copy = sorted(v, n);   /* cuprof_median_u64 sorts its own */
            cuprof_quantile q;
            cuprof_quantile_init(&q, 0);
            fill(&q, v, n);
            ck_assert_uint_eq(cuprof_quantile_count(&q), n);
            ck_assert_int_eq(cuprof_quantile_sketched(&q), 0);
            ck_assert_uint_eq(cuprof_quantile_min(&q), s[0]);
            ck_assert_uint_eq(cuprof_quantile_max(&q), s[n - 1]);
            ck_assert_uint_eq(cuprof_quantile_median(&q), sorted_median(s, n));
            ck_assert_uint_eq(cuprof_quantile_median(&q), cuprof_median_u64(copy, n));
            static const double ps[] = {0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0};
            for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
                size_t k = (size_t)(ps[pi] * (double)(n - 1) + 0.5);
                ck_assert_uint_eq(cuprof_quantile_quantile(&q, ps[pi]), s[k]);
            }
            for (size_t k = 0; k < n; k += 1 + n / 13)
                ck_assert_uint_eq(cuprof_quantile_rank(&q, k), s[k]);
            /* queries reorder, never lose: the median again */
            ck_assert_uint_eq(cuprof_quantile_median(&q), sorted_median(s, n));
            cuprof_quantile_free(&q);
            free(s);
            free(copy);
        }
    free(v);
}
END_TEST

START_TEST(empty)
{
    cuprof_quantile q;
    cuprof_quantile_init(&q, 0);
    ck_assert_uint_eq(q.exact_max, CUPROF_QUANTILE_EXACT_MAX);
    ck_assert_uint_eq(cuprof_quantile_median(&q), 0);
    ck_assert_uint_eq(cuprof_quantile_min(&q), 0);
    ck_assert_uint_eq(cuprof_quantile_max(&q), 0);
    ck_assert_uint_eq(cuprof_quantile_quantile(&q, 0.5), 0);
    cuprof_quantile_free(&q);
}
END_TEST

/* n samples of one distribution: 0 uniform, 1 log-normal, 2 constant. */
static void draw(uint64_t *v, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        if (kind == 0) {
            v[i] = 1 + rnd() % 1000000000ull;
        } else if (kind == 1) {   /* exp(N(ln 50 us, 1.5)): Box-Muller */
            double z = sqrt(-2.0 * log(1.0 - rnd01())) * cos(6.283185307179586 * rnd01());
            v[i] = (uint64_t)(50000.0 * exp(1.5 * z));
        } else {
            v[i] = 123457;
        }
    }
}

START_TEST(sketch_within_one_percent)
{
    rng_state = 12345;
    const size_t n = 200001, bound = 1000;
    uint64_t *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int kind = 0; kind < 3; kind++) {
        draw(v, n, kind);
        for (size_t m = n - 1; m <= n; m++) {   /* even, then odd counts */
            uint64_t *s = sorted(v, m);
            cuprof_quantile q;
            cuprof_quantile_init(&q, bound);
            fill(&q, v, m);
            ck_assert_int_eq(cuprof_quantile_sketched(&q), 1);
            ck_assert_ptr_null(q.v);   /* the exact samples are gone */
            ck_assert_uint_eq(cuprof_quantile_count(&q), m);
            uint64_t counted = 0;   /* every sample in one bucket */
            for (unsigned b = 0; b < CUPROF_QUANTILE_BUCKETS; b++)
                counted += q.bucket[b];
            ck_assert_uint_eq(counted, m);
            ck_assert_uint_eq(cuprof_quantile_min(&q), s[0]);
            ck_assert_uint_eq(cuprof_quantile_max(&q), s[m - 1]);
            assert_close(cuprof_quantile_median(&q), sorted_median(s, m), "median");
            static const double ps[] = {0.1, 0.5, 0.9, 0.99};
            for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
                assert_close(cuprof_quantile_quantile(&q, ps[pi]), s[(size_t)(ps[pi] * (double)(m - 1) + 0.5)],
                             "quantile");
            if (kind == 2)   /* one value: the answer is it (kept inside [min, max]) */
                ck_assert_uint_eq(cuprof_quantile_median(&q), 123457);
            cuprof_quantile_free(&q);
            free(s);
        }
    }
    free(v);
}
END_TEST

/* The bound itself: exact at exact_max samples, sketched at one more. */
START_TEST(bound_is_inclusive)
{
    cuprof_quantile q;
    cuprof_quantile_init(&q, 100);
    for (uint64_t i = 0; i < 100; i++)
        ck_assert_int_eq(cuprof_quantile_add(&q, 1000 + i), 0);
    ck_assert_int_eq(cuprof_quantile_sketched(&q), 0);
    ck_assert_uint_le(q.cap, 100);
    ck_assert_uint_eq(cuprof_quantile_median(&q), 1049);
    ck_assert_int_eq(cuprof_quantile_add(&q, 1100), 0);
    ck_assert_int_eq(cuprof_quantile_sketched(&q), 1);
    ck_assert_uint_eq(cuprof_quantile_count(&q), 101);
    assert_close(cuprof_quantile_median(&q), 1050, "median");
    cuprof_quantile_free(&q);
}
END_TEST

/* Each bucket's value against values all over the range: {0, x, 2^64 - 1}
 * sketched, rank 1 is x's bucket's value. */
START_TEST(every_bucket_within_bound)
{
    rng_state = 777;
    for (int i = 0; i < 200000; i++) {
        uint64_t x = i < 4096 ? (uint64_t)i : rnd() >> (rnd() % 64);
        if (i == 4096)
            x = UINT64_MAX - 1;
        cuprof_quantile q;
        cuprof_quantile_init(&q, 1);
        ck_assert_int_eq(cuprof_quantile_add(&q, 0), 0);
        ck_assert_int_eq(cuprof_quantile_add(&q, x), 0);
        ck_assert_int_eq(cuprof_quantile_add(&q, UINT64_MAX), 0);
        ck_assert_int_eq(cuprof_quantile_sketched(&q), 1);
        uint64_t got = cuprof_quantile_rank(&q, 1);
        uint64_t d = got > x ? got - x : x - got;
        ck_assert_msg((double)d <= (double)x * CUPROF_QUANTILE_REL_ERR, "x %llu: bucket value %llu",
                      (unsigned long long)x, (unsigned long long)got);
        if (x < 128)
            ck_assert_uint_eq(got, x);   /* small values are exact */
        cuprof_quantile_free(&q);
    }
}
END_TEST

START_TEST(merge_exact_and_sketch)
{
    rng_state = 99;
    const size_t n = 50000;
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *u = malloc(2 * n * sizeof *u);
    ck_assert(a && b && u);
    draw(a, n, 0);
    draw(b, n, 1);
    memcpy(u, a, n * sizeof *a);
    memcpy(u + n, b, n * sizeof *b);
    uint64_t *s = sorted(u, 2 * n);

    /* exact + exact, fits: exact, the union's answers */
    cuprof_quantile x, y;
    cuprof_quantile_init(&x, 2 * n);
    cuprof_quantile_init(&y, 2 * n);
    fill(&x, a, n);
    fill(&y, b, n);
    ck_assert_int_eq(cuprof_quantile_merge(&x, &y), 0);
    ck_assert_int_eq(cuprof_quantile_sketched(&x), 0);
    ck_assert_uint_eq(cuprof_quantile_count(&x), 2 * n);
    ck_assert_uint_eq(cuprof_quantile_median(&x), sorted_median(s, 2 * n));
    ck_assert_uint_eq(cuprof_quantile_min(&x), s[0]);
    ck_assert_uint_eq(cuprof_quantile_max(&x), s[2 * n - 1]);
    ck_assert_uint_eq(cuprof_quantile_count(&y), n);   /* src unchanged */
    cuprof_quantile_free(&x);
    cuprof_quantile_free(&y);

    /* exact + exact, too many: a sketch within the bound */
    cuprof_quantile_init(&x, n + 10);
    cuprof_quantile_init(&y, n + 10);
    fill(&x, a, n);
    fill(&y, b, n);
    ck_assert_int_eq(cuprof_quantile_merge(&x, &y), 0);
    ck_assert_int_eq(cuprof_quantile_sketched(&x), 1);
    ck_assert_uint_eq(cuprof_quantile_count(&x), 2 * n);
    assert_close(cuprof_quantile_median(&x), sorted_median(s, 2 * n), "median");
    cuprof_quantile_free(&x);
    cuprof_quantile_free(&y);

    /* sketch + sketch = the sketch of the union (same buckets: same answers) */
    cuprof_quantile all;
    cuprof_quantile_init(&x, 1000);
    cuprof_quantile_init(&y, 1000);
    cuprof_quantile_init(&all, 1000);
    fill(&x, a, n);
    fill(&y, b, n);
    fill(&all, u, 2 * n);
    ck_assert_int_eq(cuprof_quantile_merge(&x, &y), 0);
    ck_assert_uint_eq(cuprof_quantile_count(&x), 2 * n);
    ck_assert_int_eq(memcmp(x.bucket, all.bucket, CUPROF_QUANTILE_BUCKETS * sizeof *x.bucket), 0);
    ck_assert_uint_eq(cuprof_quantile_min(&x), s[0]);
    ck_assert_uint_eq(cuprof_quantile_max(&x), s[2 * n - 1]);
    static const double ps[] = {0.1, 0.5, 0.9, 0.99};
    for (size_t pi = 0; pi < 4; pi++) {
        uint64_t want = s[(size_t)(ps[pi] * (double)(2 * n - 1) + 0.5)];
        ck_assert_uint_eq(cuprof_quantile_quantile(&x, ps[pi]), cuprof_quantile_quantile(&all, ps[pi]));
        assert_close(cuprof_quantile_quantile(&x, ps[pi]), want, "merged quantile");
    }
    assert_close(cuprof_quantile_median(&x), sorted_median(s, 2 * n), "merged median");
    cuprof_quantile_free(&y);

    /* exact into a sketch, and a sketch into an exact one */
    cuprof_quantile e;
    cuprof_quantile_init(&e, 0);
    fill(&e, a, 10);
    ck_assert_int_eq(cuprof_quantile_merge(&x, &e), 0);
    ck_assert_uint_eq(cuprof_quantile_count(&x), 2 * n + 10);
    ck_assert_int_eq(cuprof_quantile_merge(&e, &all), 0);
    ck_assert_int_eq(cuprof_quantile_sketched(&e), 1);
    ck_assert_uint_eq(cuprof_quantile_count(&e), 2 * n + 10);
    ck_assert_int_eq(memcmp(x.bucket, e.bucket, CUPROF_QUANTILE_BUCKETS * sizeof *x.bucket), 0);
    cuprof_quantile_free(&e);
    cuprof_quantile_free(&x);
    cuprof_quantile_free(&all);
    free(s);
    free(a);
    free(b);
    free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quantile");
    TCase *tc = tcase_create("quantile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, exact_equals_sort);
    tcase_add_test(tc, empty);
    tcase_add_test(tc, sketch_within_one_percent);
    tcase_add_test(tc, bound_is_inclusive);
    tcase_add_test(tc, every_bucket_within_bound);
    tcase_add_test(tc, merge_exact_and_sketch);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
