/*
 * quantile.c - a row's order statistics: exact samples up to a bound, a
 * log-bucket sketch past it (quantile.h has the bucket layout and its
 * error bound).
 */
#include "model/quantile.h"

#include <stdlib.h>
#include <string.h>

/* First room an exact row gets; doubled from there (most rows are small). */
#define QUANTILE_FIRST_CAP 16

void cuprof_quantile_init(cuprof_quantile *q, uint64_t exact_max)
{
    memset(q, 0, sizeof *q);
    q->min = UINT64_MAX;
    q->exact_max = exact_max ? exact_max : CUPROF_QUANTILE_EXACT_MAX;
}

void cuprof_quantile_free(cuprof_quantile *q)
{
    free(q->v);
    free(q->bucket);
    cuprof_quantile_init(q, q->exact_max);
}

/* x's bucket (quantile.h): below 128 itself, else 128 + 64 (e - 7) + the 6
 * bits after the leading one. */
static inline unsigned bucket_of(uint64_t x)
{
    if (x < 128)
        return (unsigned)x;
    unsigned e = 63u - (unsigned)__builtin_clzll(x);   /* >= 7 */
    unsigned j = (unsigned)(x >> (e - CUPROF_QUANTILE_SUB_BITS)) & 63u;
    return 128u + (e - 7u) * 64u + j;
}

/* The value a bucket stands for: its low end plus (width - 1) / 2. */
static uint64_t bucket_value(unsigned b)
{
    if (b < 128)
        return b;
    unsigned e = (b - 128u) / 64u + 7u, j = (b - 128u) % 64u;
    unsigned sh = e - CUPROF_QUANTILE_SUB_BITS;
    uint64_t lo = (uint64_t)(64u + j) << sh, w = (uint64_t)1 << sh;
    return lo + (w - 1) / 2;
}

/* Exact samples into a new histogram; v freed. -1: out of memory, q as it was. */
static int sketch(cuprof_quantile *q)
{
    uint64_t *b = calloc(CUPROF_QUANTILE_BUCKETS, sizeof *b);
    if (!b)
        return -1;
    for (uint64_t i = 0; i < q->n; i++)
        b[bucket_of(q->v[i])]++;
    free(q->v);
    q->v = NULL;
    q->cap = 0;
    q->bucket = b;
    return 0;
}

/* Room for want exact samples (want <= exact_max): doubling, capped. */
static int reserve(cuprof_quantile *q, uint64_t want)
{
    if (want <= q->cap)
        return 0;
    uint64_t cap = q->cap ? q->cap : QUANTILE_FIRST_CAP;
    while (cap < want)
        cap *= 2;
    if (cap > q->exact_max)
        cap = q->exact_max;
    uint64_t *v = realloc(q->v, cap * sizeof *v);
    if (!v)
        return -1;
    q->v = v;
    q->cap = cap;
    return 0;
}

int cuprof_quantile_add_slow(cuprof_quantile *q, uint64_t x)
{
    if (!q->bucket) {
        if (q->n < q->exact_max) {
            if (reserve(q, q->n + 1) < 0)
                return -1;
            return cuprof_quantile_add(q, x);
        }
        if (sketch(q) < 0)   /* the (exact_max + 1)-th sample */
            return -1;
    }
    q->bucket[bucket_of(x)]++;
    q->n++;
    if (x < q->min) q->min = x;
    if (x > q->max) q->max = x;
    return 0;
}

int cuprof_quantile_merge(cuprof_quantile *dst, const cuprof_quantile *src)
{
    if (src->n == 0)
        return 0;
    if (!dst->bucket && !src->bucket && dst->n + src->n <= dst->exact_max) {
        if (reserve(dst, dst->n + src->n) < 0)
            return -1;
        memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    } else {
        if (!dst->bucket && sketch(dst) < 0)
            return -1;
        if (src->bucket)
            for (unsigned b = 0; b < CUPROF_QUANTILE_BUCKETS; b++)
                dst->bucket[b] += src->bucket[b];
        else
            for (uint64_t i = 0; i < src->n; i++)
                dst->bucket[bucket_of(src->v[i])]++;
    }
    dst->n += src->n;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    return 0;
}

static void swap_u64(uint64_t *a, uint64_t *b)
{
    uint64_t t = *a;
    *a = *b;
    *b = t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The k-th smallest of v[0..n) (0 when k >= n), in linear time: v is
 * reordered so that v[0..k) <= v[k] <= v(k..n). Quickselect with a median-of-three pivot
 * and a three-way partition (many calls have the same duration); a range
 * still large after 64 rounds is sorted instead, so the worst case stays
 * O(n log n) (summary.c's median_select was this: qsort of the durations
 * was ~15% of the exit path at 10 M calls, bench/RESULTS.md). */
uint64_t cuprof_kth_u64(uint64_t *v, size_t n, size_t k)
{
    if (k >= n)
        return 0;
    size_t lo = 0, hi = n;   /* the k-th smallest is in v[lo..hi) */
    for (int round = 0; hi - lo > 16; round++) {
        if (round == 64) {
            qsort(v + lo, hi - lo, sizeof *v, cmp_u64);
            return v[k];
        }
        uint64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        uint64_t p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t lt = lo, i = lo, gt = hi;   /* [lo,lt) < p, [lt,i) == p, [gt,hi) > p */
        while (i < gt) {
            if (v[i] < p)
                swap_u64(&v[lt++], &v[i++]);
            else if (v[i] > p)
                swap_u64(&v[i], &v[--gt]);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return v[k];   /* == p */
    }
    for (size_t i = lo + 1; i < hi; i++)   /* a few left: insertion sort */
        for (size_t j = i; j > lo && v[j - 1] > v[j]; j--)
            swap_u64(&v[j - 1], &v[j]);
    return v[k];
}

/* The sketch's value of rank k: the bucket where the running count passes
 * k, kept inside [min, max] (every sample is). */
static uint64_t sketch_rank(const cuprof_quantile *q, uint64_t k)
{
    if (k == 0)
        return q->min;
    if (k + 1 >= q->n)
        return q->max;
    uint64_t seen = 0;
    for (unsigned b = 0; b < CUPROF_QUANTILE_BUCKETS; b++) {
        seen += q->bucket[b];
        if (seen > k) {
            uint64_t x = bucket_value(b);
            return x < q->min ? q->min : x > q->max ? q->max : x;
        }
    }
    return q->max;
}

uint64_t cuprof_quantile_rank(cuprof_quantile *q, uint64_t k)
{
    if (q->n == 0)
        return 0;
    if (k >= q->n)
        k = q->n - 1;
    if (q->bucket)
        return sketch_rank(q, k);
    return cuprof_kth_u64(q->v, (size_t)q->n, (size_t)k);
}

uint64_t cuprof_quantile_median(cuprof_quantile *q)
{
    if (q->n == 0)
        return 0;
    uint64_t k = q->n / 2;
    uint64_t b = cuprof_quantile_rank(q, k);
    if (q->n % 2)
        return b;
    uint64_t a;
    if (q->bucket) {
        a = sketch_rank(q, k - 1);
    } else {   /* the (k-1)-th smallest: the largest of v[0..k), all <= v[k] */
        a = 0;
        for (uint64_t i = 0; i < k; i++)
            if (q->v[i] > a)
                a = q->v[i];
    }
    return a + (b - a) / 2;
}

uint64_t cuprof_quantile_quantile(cuprof_quantile *q, double p)
{
    if (q->n == 0)
        return 0;
    if (!(p > 0.0))
        p = 0.0;
    if (p > 1.0)
        p = 1.0;
    return cuprof_quantile_rank(q, (uint64_t)(p * (double)(q->n - 1) + 0.5));
}
