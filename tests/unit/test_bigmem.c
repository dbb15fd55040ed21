/*
 * test_bigmem.c - the report tools' large allocations on a file
 * (tools/bigmem.h), linked with the same --wrap flags as cuprof-report: a
 * large block lands on the file, reads zero, keeps its bytes through a
 * realloc and through the trimmer dropping its pages, goes back on free;
 * the resident set stays near the budget while far more is written and
 * read; a large qsort gives glibc's (stable) order; no spill directory
 * means malloc, with one cuprof: line. Each test runs in a forked child
 * (Check's default), so each starts with a fresh store.
 */
#include "tools/bigmem.h"
#include "formats/gpu_rows.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/statvfs.h>
#include <unistd.h>

void __real_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

START_TEST(large_blocks_on_the_file)
{
    cuprof_bigmem_stats s0, s;
    cuprof_bigmem_get_stats(&s0);
    size_t n = 8u << 20;
    unsigned char *p = calloc(n, 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    size_t bad = 0;   /* (one assertion per loop: Check writes one message per assertion) */
    for (size_t i = 0; i < n; i += 4096)
        bad += p[i] != 0;
    ck_assert_uint_eq(bad, 0);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, s0.allocs + 1);
    ck_assert_uint_ge(s.bytes_now, n);
    /* grows: the bytes stay */
    p = realloc(p, 3 * n);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)(i * 7);
    for (size_t i = n; i < 3 * n; i += 4096)
        bad += p[i] != 0;
    ck_assert_uint_eq(bad, 0);
    /* a second block, then the first grows again (now by a copy) */
    void *q = malloc(2u << 20);
    ck_assert_ptr_nonnull(q);
    memset(q, 0x5a, 2u << 20);
    p = realloc(p, 5 * n);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)(i * 7);
    ck_assert_uint_eq(bad, 0);
    free(q);
    free(p);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.bytes_now, s0.bytes_now);
    /* small ones stay with malloc */
    void *small = malloc(1000);
    cuprof_bigmem_get_stats(&s0);
    free(small);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, s0.allocs);
}
END_TEST

/* Two vectors growing by turns (the reader's kernels and API records): each
 * grows into its own room in the file, not by a copy into a new block (no
 * allocation counted), and keeps its bytes. */
START_TEST(blocks_grow_in_their_room)
{
    cuprof_bigmem_stats s0, s;
    size_t n = 2u << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 3), b[i] = (unsigned char)(i * 5);
    cuprof_bigmem_get_stats(&s0);
    size_t bad = 0;
    for (size_t m = 2 * n; m <= (64u << 20); m *= 2) {
        a = realloc(a, m);
        b = realloc(b, m);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        for (size_t i = 0; i < n; i += 4096 / 8)
            bad += a[i] != (unsigned char)(i * 3) || b[i] != (unsigned char)(i * 5);
        a[m - 1] = 1, b[m - 1] = 2;
    }
    ck_assert_uint_eq(bad, 0);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, s0.allocs);   /* no block made for a copy */
    ck_assert_uint_ge(s.bytes_now, s0.bytes_now + 2 * (62u << 20));
    free(a);
    free(b);
}
END_TEST

/* A vector fitted to its elements (realloc to far less): its bytes stay,
 * the tail's file range goes back (bytes_now drops by it), and the block
 * still grows again and frees. */
START_TEST(shrunk_block_gives_its_tail_back)
{
    cuprof_bigmem_stats s0, s;
    cuprof_bigmem_get_stats(&s0);
    size_t n = 16u << 20;
    unsigned char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 13);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_ge(s.bytes_now, s0.bytes_now + n);
    uintptr_t at = (uintptr_t)p;
    unsigned char *q = realloc(p, 3u << 20);   /* 13 MiB less */
    ck_assert_uint_eq((uintptr_t)q, at);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_lt(s.bytes_now, s0.bytes_now + (4u << 20));
    size_t bad = 0;
    for (size_t i = 0; i < (3u << 20); i++)
        bad += q[i] != (unsigned char)(i * 13);
    ck_assert_uint_eq(bad, 0);
    /* a little less: in place, nothing given back (under a megabyte) */
    uintptr_t was = (uintptr_t)q;
    q = realloc(q, (3u << 20) - 4096);
    ck_assert_uint_eq((uintptr_t)q, was);
    q = realloc(q, n);   /* and it grows again */
    ck_assert_ptr_nonnull(q);
    for (size_t i = 0; i < (3u << 20) - 4096; i++)
        bad += q[i] != (unsigned char)(i * 13);
    ck_assert_uint_eq(bad, 0);
    free(q);
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.bytes_now, s0.bytes_now);
}
END_TEST

/* 256 MiB written and read back twice under a 16 MiB budget: the trimmer
 * runs, every byte survives it; dropping the pages by hand then leaves the
 * process a few MB whatever it touched. (The peak itself depends on the
 * trimmer getting a core in time: bench/long_run.sh measures it, no
 * test asserts it.) */
START_TEST(resident_set_stays_near_the_budget)
{
    setenv("CUPROF_REPORT_RSS_MB", "16", 1);
    size_t n = (size_t)32 << 20;   /* uint64s */
    uint64_t *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < n; i++)
        v[i] = i * 0x9e3779b97f4a7c15ull;
    cuprof_bigmem_stats s;
    for (int ms = 0; ms < 10000; ms++) {   /* the thread's first drop */
        cuprof_bigmem_get_stats(&s);
        if (s.trims > 0)
            break;
        usleep(1000);
    }
    ck_assert_uint_gt(s.trims, 0);
    ck_assert_uint_eq(s.budget, 16u << 20);
    size_t bad = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            bad += v[i] != i * 0x9e3779b97f4a7c15ull;
    ck_assert_uint_eq(bad, 0);
    long before = status_kb("VmRSS");
    cuprof_bigmem_trim_now();
    long after = status_kb("VmRSS");
    ck_assert_msg(after < 48 * 1024, "resident %ld kB after a drop (%ld kB before)", after, before);
    for (size_t i = 0; i < n; i += 512)   /* and it all comes back */
        bad += v[i] != i * 0x9e3779b97f4a7c15ull;
    ck_assert_uint_eq(bad, 0);
    free(v);
}
END_TEST

typedef struct item {
    uint32_t key;
    uint32_t order;
} item;

static int cmp_key(const void *a, const void *b)
{
    const item *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_key_r(const void *a, const void *b, void *arg)
{
    (void)arg;
    return cmp_key(a, b);
}

/* The merge sort of a large array: glibc's order (stable: equal keys keep
 * theirs), with qsort and qsort_r. */
START_TEST(large_sort_is_stable_like_glibc)
{
    size_t n = 600000;   /* 4.8 MB */
    item *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    ck_assert(a && b && c);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = (item){(uint32_t)(x % 5000), (uint32_t)i};
    }
    memcpy(b, a, n * sizeof *a);
    memcpy(c, a, n * sizeof *a);
    qsort(a, n, sizeof *a, cmp_key);
    qsort_r(c, n, sizeof *c, cmp_key_r, NULL);
    __real_qsort(b, n, sizeof *b, cmp_key);   /* glibc's */
    size_t bad = 0;   /* (one assertion: Check writes one message per assertion) */
    for (size_t i = 0; i < n; i++) {
        bad += a[i].key != b[i].key || a[i].order != b[i].order || c[i].order != b[i].order;
        if (i)
            bad += !(a[i - 1].key < a[i].key ||
                     (a[i - 1].key == a[i].key && a[i - 1].order < a[i].order));
    }
    ck_assert_uint_eq(bad, 0);
    free(a), free(b), free(c);
}
END_TEST

/* No spill directory: malloc's memory, one cuprof: line on stderr. */
START_TEST(no_spill_dir_falls_back_to_malloc)
{
    setenv("CUPROF_REPORT_SPILL_DIR", "/nonexistent/cuprof-spill", 1);
    char path[] = "/tmp/cuprof-bigmem-err.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    unsigned char *p = calloc(4u << 20, 1);
    unsigned char *q = malloc(4u << 20);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ck_assert(p && q);
    p[12345] = 1;
    q[0] = 2;
    cuprof_bigmem_stats s;
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, 0);
    free(p);
    free(q);
    char buf[1024] = "";
    ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
    buf[k > 0 ? k : 0] = '\0';
    close(fd);
    unlink(path);
    ck_assert_msg(!strncmp(buf, "cuprof: cannot make a spill file in /nonexistent/cuprof-spill",
                           strlen("cuprof: cannot make a spill file in /nonexistent/cuprof-spill")),
                  "stderr: %s", buf);
    ck_assert_msg(strchr(buf, '\n') == buf + strlen(buf) - 1, "one line: %s", buf);
}
END_TEST

/* CUPROF_REPORT_RSS_MB=0: no budget, no spill file, nothing said. */
START_TEST(no_budget_keeps_it_in_memory)
{
    setenv("CUPROF_REPORT_RSS_MB", "0", 1);
    unsigned char *p = calloc(4u << 20, 1);
    ck_assert_ptr_nonnull(p);
    p[4095] = 3;
    cuprof_bigmem_stats s;
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, 0);
    ck_assert_uint_eq(s.fallbacks, 0);
    ck_assert_uint_eq(s.budget, 0);
    free(p);
}
END_TEST

/* CUPROF_REPORT_READAHEAD=0: the blocks go without read-ahead from the
 * first one on, and keep their bytes. */
START_TEST(readahead_off_from_the_start)
{
    setenv("CUPROF_REPORT_READAHEAD", "0", 1);
    unsigned char *p = malloc(4u << 20);
    ck_assert_ptr_nonnull(p);
    memset(p, 7, 4u << 20);
    cuprof_bigmem_stats s;
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_eq(s.allocs, 1);
    ck_assert_int_eq(s.random, 1);
    cuprof_bigmem_trim_now();
    size_t bad = 0;
    for (size_t i = 0; i < (4u << 20); i += 4096)
        bad += p[i] != 7;
    ck_assert_uint_eq(bad, 0);
    free(p);
}
END_TEST

/* After the reading, blocks that fit in half the memory available go
 * without read-ahead and keep their bytes; no budget: nothing to switch. */
START_TEST(no_readahead_after_the_reading)
{
    if (_i == 1)
        setenv("CUPROF_REPORT_RSS_MB", "0", 1);
    unsigned char *p = malloc(8u << 20);
    ck_assert_ptr_nonnull(p);
    memset(p, 9, 8u << 20);
    cuprof_bigmem_stats s;
    cuprof_bigmem_get_stats(&s);
    ck_assert_int_eq(s.random, 0);
    int switched = cuprof_bigmem_reading_done();
    cuprof_bigmem_get_stats(&s);
    if (_i == 1) {
        ck_assert_int_eq(switched, 0);
        ck_assert_int_eq(s.random, 0);
    } else {
        ck_assert_int_eq(switched, 1);   /* 8 MiB: far under half of any machine's memory */
        ck_assert_int_eq(s.random, 1);
        ck_assert_int_eq(cuprof_bigmem_reading_done(), 0);   /* once */
    }
    cuprof_bigmem_trim_now();
    size_t bad = 0;
    for (size_t i = 0; i < (8u << 20); i += 4096)
        bad += p[i] != 9;
    ck_assert_uint_eq(bad, 0);
    free(p);
}
END_TEST

/* GPU rows past 1 MiB re-sorted by row go through bigmem's merge sort,
 * which compares copies of the elements (held on its stack): the rows come
 * out in order, row 0's records then row 1's. */
static int by_row(const cuprof_gpu_row_item *x, const cuprof_gpu_row_item *y)
{
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

START_TEST(gpu_rows_sorted_through_bigmem)
{
    size_t n = 300000;   /* 2.4 MB of 8-byte refs */
    cuprof_gpu_kernel *k = calloc(n, sizeof *k);
    ck_assert_ptr_nonnull(k);
    for (size_t i = 0; i < n; i++) {   /* pairs that overlap by 500 ns: rows 0 and 1 */
        k[i].start_ns = 1000000 + (i / 2) * 10000 + (i % 2) * 100;
        k[i].end_ns = k[i].start_ns + 600;
        k[i].stream = 7;
        k[i].name = "k";
    }
    cuprof_gpu_run g;
    memset(&g, 0, sizeof g);
    g.kernels = k;
    g.n_kernels = n;
    cuprof_gpu_rows rows;
    ck_assert_int_eq(cuprof_gpu_rows_make(&g, &rows), 0);
    cuprof_gpu_rows_sort(&rows, by_row);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(&rows, i);
        size_t want = i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1;   /* row 0's, then row 1's */
        bad += x.idx != want || x.sub != (i >= n / 2);
    }
    ck_assert_uint_eq(bad, 0);
    cuprof_bigmem_stats s;
    cuprof_bigmem_get_stats(&s);
    ck_assert_uint_ge(s.allocs, 1);   /* the refs (and the sort's scratch) on the file */
    cuprof_gpu_rows_free(&rows);
    free(k);
}
END_TEST

/* The disk's room for a report's spill, against the directory's real free
 * space: a need within it says nothing; a need past it one line naming the
 * directory and what to do; no budget (no spill file) says nothing. */
START_TEST(room_for_the_spill)
{
    char dir[] = "/tmp/cuprof-bigmem-room.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CUPROF_REPORT_SPILL_DIR", dir, 1);
    if (_i == 1)
        setenv("CUPROF_REPORT_RSS_MB", "0", 1);
    struct statvfs sv;
    ck_assert_int_eq(statvfs(dir, &sv), 0);
    uint64_t room = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    char line[PATH_MAX + 400] = "";
    ck_assert_int_eq(cuprof_bigmem_room_for(room / 2, line, sizeof line), 0);
    ck_assert_str_eq(line, "");
    int said = cuprof_bigmem_room_for(room + (16ull << 30), line, sizeof line);
    rmdir(dir);
    if (_i == 1) {
        ck_assert_int_eq(said, 0);
        return;
    }
    ck_assert_int_eq(said, 1);
    ck_assert_msg(strstr(line, dir) && strstr(line, "CUPROF_REPORT_SPILL_DIR") &&
                      !strchr(line, '\n') && strncmp(line, "cuprof:", 7),
                  "%s", line);
    char need[64];
    snprintf(need, sizeof need, "up to about %.1f GB", (double)(room + (16ull << 30)) / 1e9);
    ck_assert_msg(strstr(line, need), "%s (want %s)", line, need);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bigmem");
    const TTest *tests[] = {large_blocks_on_the_file, resident_set_stays_near_the_budget,
                            large_sort_is_stable_like_glibc, no_spill_dir_falls_back_to_malloc,
                            no_budget_keeps_it_in_memory, readahead_off_from_the_start,
                            shrunk_block_gives_its_tail_back, blocks_grow_in_their_room};
    static const char *const names[] = {"blocks", "resident", "sort", "fallback", "no_budget",
                                        "readahead", "shrink", "room"};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        TCase *t = tcase_create(names[i]);
        tcase_set_timeout(t, 120);
        tcase_add_test(t, tests[i]);
        suite_add_tcase(s, t);
    }
    TCase *gr = tcase_create("gpu_rows");
    tcase_set_timeout(gr, 120);
    tcase_add_test(gr, gpu_rows_sorted_through_bigmem);
    suite_add_tcase(s, gr);
    TCase *ra = tcase_create("after_reading");   /* 0: spilled; 1: no budget */
    tcase_add_loop_test(ra, no_readahead_after_the_reading, 0, 2);
    suite_add_tcase(s, ra);
    TCase *t = tcase_create("disk");   /* 0: spilled; 1: no budget */
    tcase_add_loop_test(t, room_for_the_spill, 0, 2);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
