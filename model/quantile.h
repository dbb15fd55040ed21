/*
 * quantile.h - order statistics of one row (a row's call durations, a
 * kernel's executions, a range's occurrences) in bounded memory.
 *
 * A row keeps its samples exactly while it has at most exact_max of them
 * (CUPROF_QUANTILE_EXACT_MAX unless the caller lowers it): its median is
 * then exactly cuprof_median_u64's (the middle value, or the mean of the two
 * middle values rounded down), found in linear time. Past that bound the
 * samples are folded into a log-bucket histogram (DDSketch's idea, with
 * buckets from the value's binary exponent and its next 6 bits, so an index
 * costs a count-leading-zeros and a shift, no log()): every value it gives
 * is within CUPROF_QUANTILE_REL_ERR of a sample of the right rank, and the
 * exact samples are freed. Min, max and the count stay exact either way.
 *
 * Buckets: values below 128 each have their own (exact); a value x >= 128
 * with binary exponent e (2^e <= x < 2^(e+1)) and next 6 bits j falls in
 * [(64 + j) 2^(e-6), (64 + j + 1) 2^(e-6)), a bucket of width w = 2^(e-6)
 * whose low end is at least 64 w. The bucket's value is its low end plus
 * (w - 1) / 2, at most w / 2 from any x in it, so the relative error is at
 * most (w / 2) / (64 w) = 1/128 (0.78%, under the 1% asked of it). 3776
 * buckets cover 0 .. 2^64 - 1 ns: 30 KB per sketched row.
 *
 * Mergeable (cuprof_quantile_merge), no global state, no I/O.
 */
#ifndef CUPROF_QUANTILE_H
#define CUPROF_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

/* Samples a row keeps exactly, at most: 1 M (8 MB of one row's durations).
 * Rows under it give the exact medians they always gave (the goldens, every
 * test run); a row past it costs 30 KB however many calls follow (at 200 M
 * calls the exact arrays were 1.6 GB, issue 40). */
#define CUPROF_QUANTILE_EXACT_MAX 1000000u

/* Bits of a value's mantissa that pick its bucket inside its power of 2. */
#define CUPROF_QUANTILE_SUB_BITS 6
/* The sketch's relative error bound: 2^-(SUB_BITS + 1) (see above). */
#define CUPROF_QUANTILE_REL_ERR (1.0 / 128.0)
/* Buckets of a sketch: 128 exact values, then 64 per exponent 7 .. 63. */
#define CUPROF_QUANTILE_BUCKETS (128 + (64 - 7) * 64)

typedef struct cuprof_quantile {
    uint64_t n;            /* samples added */
    uint64_t min, max;     /* exact (min UINT64_MAX, max 0 while n is 0) */
    uint64_t exact_max;    /* samples kept exactly, at most */
    uint64_t *v;           /* the samples v[0..n) while exact; NULL once sketched */
    uint64_t cap;          /* room in v (0 once sketched: every add takes the slow path) */
    uint64_t *bucket;      /* [CUPROF_QUANTILE_BUCKETS] counts once sketched, else NULL */
} cuprof_quantile;

/* An empty accumulator keeping up to exact_max samples exactly (0:
 * CUPROF_QUANTILE_EXACT_MAX; tests lower it). Allocates nothing. */
void cuprof_quantile_init(cuprof_quantile *q, uint64_t exact_max);

/* Frees what q holds; q is empty (with its bound) afterwards. */
void cuprof_quantile_free(cuprof_quantile *q);

/* The slow path of cuprof_quantile_add: grow v, or sketch. */
int cuprof_quantile_add_slow(cuprof_quantile *q, uint64_t x);

/* Adds one sample. 0, or -1 when out of memory (q unchanged). */
static inline int cuprof_quantile_add(cuprof_quantile *q, uint64_t x)
{
    if (q->n < q->cap) {   /* exact, with room */
        q->v[q->n++] = x;
        if (x < q->min) q->min = x;
        if (x > q->max) q->max = x;
        return 0;
    }
    return cuprof_quantile_add_slow(q, x);
}

/* Adds src's samples to dst (src unchanged): exact when both are exact and
 * their sum fits dst's bound, else dst is (or becomes) a sketch holding
 * both. 0, or -1 when out of memory (dst unchanged). */
int cuprof_quantile_merge(cuprof_quantile *dst, const cuprof_quantile *src);

/* The sample of rank k (0-based, k < count; the largest when k is past
 * it), exact when not sketched, else within CUPROF_QUANTILE_REL_ERR of it.
 * Reorders q's exact samples (not their multiset); 0 when empty. */
uint64_t cuprof_quantile_rank(cuprof_quantile *q, uint64_t k);

/* The median as cuprof_median_u64 defines it (the middle sample, or the mean
 * of the two middle ones rounded down); 0 when empty. */
uint64_t cuprof_quantile_median(cuprof_quantile *q);

/* The sample of rank round(p (n - 1)), p in [0, 1] (clamped): no
 * interpolation. 0 when empty. */
uint64_t cuprof_quantile_quantile(cuprof_quantile *q, double p);

static inline uint64_t cuprof_quantile_count(const cuprof_quantile *q) { return q->n; }
/* 0 when empty */
static inline uint64_t cuprof_quantile_min(const cuprof_quantile *q) { return q->n ? q->min : 0; }
static inline uint64_t cuprof_quantile_max(const cuprof_quantile *q) { return q->max; }
/* 1 when the answers are approximate (past the bound) */
static inline int cuprof_quantile_sketched(const cuprof_quantile *q) { return q->bucket != NULL; }

/* A double in [0, 1] as an integer the accumulator orders the same way
 * (x 2^62: exact for every double of at least 2^-10, the rest within
 * 2^-62), and back. */
static inline uint64_t cuprof_quantile_of_share(double s)
{
    return s <= 0.0 ? 0 : s >= 1.0 ? (uint64_t)1 << 62 : (uint64_t)(s * 0x1p62);
}
static inline double cuprof_quantile_share(uint64_t v) { return (double)v * 0x1p-62; }

/* The k-th smallest of v[0..n) (0 when k >= n), in linear time: v is
 * reordered (every value before v[k] is <= it, every one after >= it), not
 * sorted (quickselect; a range still large after 64 rounds is sorted). */
uint64_t cuprof_kth_u64(uint64_t *v, size_t n, size_t k);

#endif /* CUPROF_QUANTILE_H */
