/*
 * bigmem.h - the report tools' large allocations on a file, so that their
 * resident memory stays under a budget whatever the run's size (issue 40).
 *
 * Linked into the tools that build a model (cuprof-report) with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free (and
 * qsort, qsort_r, mmap, munmap): the calls that model/, formats/ and
 * tools/ make land here, libc's own (strdup, stdio, libdw, zlib) do not.
 *
 *   - malloc/calloc/realloc of at least BIGMEM_MIN bytes get pages of one
 *     unlinked file (O_TMPFILE in the spill directory), mapped shared:
 *     what the model holds for every call (the 64-byte events, the GPU
 *     records, the joins) lives in the page cache and on disk, not in the
 *     process's anonymous memory. Smaller ones go to libc's malloc.
 *   - A read-only file mapping of at least BIGMEM_MIN bytes (the run file
 *     the reader maps) is watched too.
 *   - A thread reads the resident set (/proc/self/statm) every few
 *     milliseconds; above the budget it drops every watched page from the
 *     process (madvise MADV_DONTNEED: a shared file page comes back from
 *     the page cache, or the disk, on its next touch; nothing is lost).
 *   - qsort/qsort_r of a large array: a stable merge sort whose scratch
 *     buffer is one of these allocations (glibc's qsort takes an anonymous
 *     scratch as large as the array).
 *
 * The disk takes what the model holds: about 64 bytes per call and 300
 * per GPU record, given back when the report exits (the file has no name).
 * When no file can be made, or the disk is full (the space is reserved with
 * fallocate before a page is touched, so a full disk is never a SIGBUS),
 * the allocation falls back to malloc, with one cuprof: line.
 *
 * Past twice the budget (pages coming back faster than they are dropped:
 * read-ahead maps a fault's large folio and its neighbours), the blocks are
 * read without read-ahead (MADV_RANDOM): a page a fault, slower, bounded;
 * CUPROF_REPORT_READAHEAD=0 from the start (the first such burst is past the
 * budget before the trimmer sees it). The report also switches once its
 * reading is done, when the blocks fit in half the memory available
 * (cuprof_bigmem_reading_done): the model's passes then re-read the page
 * cache a page a fault at no cost in time, and no pass outruns the trimmer.
 *
 * Environment: CUPROF_REPORT_RSS_MB (the budget, MiB; default 128; 0: no
 * budget, no spill file: every block from malloc, the run held in memory
 * as before: the fastest where it fits), CUPROF_REPORT_SPILL_DIR (default: TMPDIR, else /tmp; the
 * report sets the output directory with cuprof_bigmem_dir first).
 */
#ifndef CUPROF_TOOLS_BIGMEM_H
#define CUPROF_TOOLS_BIGMEM_H

#include <stddef.h>
#include <stdint.h>

#define BIGMEM_MIN ((size_t)1 << 20)     /* smaller: libc's malloc */

/* Where the spill file goes when CUPROF_REPORT_SPILL_DIR is not set (the
 * outputs' directory: the user chose it for big files). Before the first
 * large allocation; copied. */
void cuprof_bigmem_dir(const char *dir);

/* The budget, bytes (0: none: every block in memory). */
uint64_t cuprof_bigmem_budget(void);

/* What the store did, for the bench and the tests. */
typedef struct cuprof_bigmem_stats {
    uint64_t allocs;        /* allocations placed on the file */
    uint64_t fallbacks;     /* large ones that went to malloc instead */
    uint64_t bytes_now;     /* file bytes held now */
    uint64_t bytes_peak;    /* the most held at once */
    uint64_t trims;         /* times the resident pages were dropped */
    uint64_t budget;        /* bytes (0: no trimming) */
    uint64_t rss_seen_max;  /* the largest resident set the trimmer read */
    uint64_t longest_gap_ns;/* the longest time between two of its reads (its lag) */
    int random;             /* 1: the blocks went without read-ahead (twice the budget seen) */
} cuprof_bigmem_stats;
void cuprof_bigmem_get_stats(cuprof_bigmem_stats *s);

/* Whether the spill file's disk has room for need bytes (what the report
 * estimates it will hold): 0 when it has, or when there is no spill file
 * (no budget, none could be made: that says its own line); 1 when not,
 * with one line in line (n bytes; no "cuprof:" prefix) saying so and what
 * to do. Makes the spill file if no allocation has yet. */
int cuprof_bigmem_room_for(uint64_t need, char *line, size_t n);

/* The reading is done: its blocks hold what the model reads. When they fit
 * in half the memory available (the page cache keeps them), the blocks go
 * without read-ahead from now on (MADV_RANDOM, as past twice the budget):
 * the model's passes then map a page cache page a fault instead of a large
 * folio's worth, slowly enough for the trimmer (issue 40: at 10 M launches a
 * pass mapped 400-500 MB of the kernel records in 30-60 ms; 277-290 MB peak
 * RSS with read-ahead, 171-177 without, in the same time). Past that they
 * keep read-ahead: pages the kernel wrote out come back a read at a time
 * without it. 1 when it switched. */
int cuprof_bigmem_reading_done(void);

/* Drops every watched page from the process now, as the trimmer does past
 * the budget (for the tests: no waiting on the thread). */
void cuprof_bigmem_trim_now(void);

#endif /* CUPROF_TOOLS_BIGMEM_H */
