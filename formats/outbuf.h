/*
 * outbuf.h - buffered output for the writers: a file written to a temporary
 * name and renamed when complete (or a growing memory buffer, for tests),
 * with fast number formatting and JSON string escaping.
 *
 * Errors are sticky: the first failing write records errno in err and later
 * writes are dropped; cuprof_out_commit reports it and removes the partial
 * temporary file.
 *
 * A large file (more than a few MiB) is written by a helper thread while the
 * caller formats the next buffer (two cores: the kernel's copy into the
 * page cache no longer adds to the formatting time), and the helper picks,
 * by timing both, between ordinary writes and O_DIRECT ones that skip the
 * page cache (bench/RESULTS.md: on a VM whose fresh page-cache pages cost
 * ~12 us each, direct writes are 3x faster). The bytes are the same either
 * way.
 */
#ifndef CUPROF_OUTBUF_H
#define CUPROF_OUTBUF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cuprof_out_pipe;
struct cuprof_gzip;

typedef struct cuprof_out {
    int fd;                  /* temporary file; -1 for a memory buffer */
    char *buf;               /* pending bytes (memory mode: everything) */
    size_t len;              /* bytes in buf */
    size_t cap;              /* size of buf */
    int err;                 /* first errno seen, 0 if none */
    char tmp[PATH_MAX];      /* temporary path (file mode) */
    char path[PATH_MAX];     /* final path (file mode) */
    uint64_t off;            /* bytes handed to the file so far (file mode) */
    struct cuprof_out_pipe *pipe; /* helper thread and its buffers; NULL while small */
    struct cuprof_gzip *gz;  /* set: the file is the bytes gzip-compressed (codec.h) */
} cuprof_out;

/* Opens DIR/.FILE.PID.tmp for writing (exclusive, not following symlinks);
 * commit renames it to DIR/FILE. Returns 0, or -1 with o->err set. */
int cuprof_out_open(cuprof_out *o, const char *dir, const char *file);
/* Starts an in-memory output: o->buf holds o->len bytes, NUL-terminated
 * after cuprof_out_commit. Returns 0 or -1 (out of memory). */
int cuprof_out_open_mem(cuprof_out *o);
/* Flushes, closes and renames to the final name. Returns 0, or -1 with
 * o->err set (the temporary file removed). Memory mode: keeps o->buf for
 * the caller (free it with cuprof_out_discard). */
int cuprof_out_commit(cuprof_out *o);
/* From here on the file holds the bytes gzip-compressed (file mode, before
 * the first write; compressed by the helper thread once there is one).
 * Returns 0, or -1 when libz cannot be loaded (the file stays plain). */
int cuprof_out_gzip(cuprof_out *o);
/* Abandons the output: closes and removes the temporary file, frees buf. */
void cuprof_out_discard(cuprof_out *o);

/* Makes room for n more bytes (at most 4 MiB - 4 KiB once a helper thread
 * writes the file; the writers ask for 4 KiB at most); 0 or -1 (error
 * recorded). The room can be filled in place at buf + len. */
int cuprof_out_reserve(cuprof_out *o, size_t n);

static inline void cuprof_out_putc(cuprof_out *o, char c)
{
    if (o->len < o->cap || cuprof_out_reserve(o, 1) == 0)
        o->buf[o->len++] = c;
}

/* The slow path of cuprof_out_write: the buffer is full (or failed). */
void cuprof_out_write_slow(cuprof_out *o, const void *p, size_t n);

/* Appends n bytes. Inline, so the usual case (room in the buffer) is one
 * memcpy of a size the compiler often knows (bench/: the trace writer spent
 * a third of its time in the out-of-line copy and strlen of literals). */
static inline void cuprof_out_write(cuprof_out *o, const void *p, size_t n)
{
    if (__builtin_expect(o->cap - o->len >= n && o->buf != NULL, 1)) {
        memcpy(o->buf + o->len, p, n);
        o->len += n;
    } else {
        cuprof_out_write_slow(o, p, n);
    }
}

/* Appends a NUL-terminated string (strlen of a literal folds at compile time). */
static inline void cuprof_out_puts(cuprof_out *o, const char *s)
{
    cuprof_out_write(o, s, strlen(s));
}
/* ---- formatting in place, for writers that format a whole line at once:
 * each writes at p (room is the caller's business) and returns the end. */

/* "00".."99": two decimal digits per step. */
extern const char cuprof_digits2[201];

/* Number of decimal digits of v (1..20), without a loop of divisions. */
static inline unsigned cuprof_ndigits(uint64_t v)
{
    static const uint64_t pow10[20] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
        10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
        100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
    unsigned b = 64 - (unsigned)__builtin_clzll(v | 1);   /* bits: 1..64 */
    unsigned n = (b * 1233) >> 12;                      /* floor(log10(2^b)) */
    return n + ((v | 1) >= pow10[n]);   /* v | 1: 0 has one digit */
}

/* Decimal digits of v (at most 20). */
static inline char *cuprof_fmt_u64(char *p, uint64_t v)
{
    unsigned n = cuprof_ndigits(v);
    char *end = p + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = cuprof_digits2[d + 1];
        *--end = cuprof_digits2[d];
    }
    if (v >= 10) {
        *--end = cuprof_digits2[v * 2 + 1];
        *--end = cuprof_digits2[v * 2];
    } else {
        *--end = (char)('0' + v);
    }
    return p + n;
}

/* ns as microseconds with three decimals (at most 24 bytes): 1234 -> "1.234". */
static inline char *cuprof_fmt_ns_as_us(char *p, uint64_t ns)
{
    unsigned frac = (unsigned)(ns % 1000);
    p = cuprof_fmt_u64(p, ns / 1000);
    p[0] = '.';
    p[1] = (char)('0' + frac / 100);
    p[2] = cuprof_digits2[frac % 100 * 2];
    p[3] = cuprof_digits2[frac % 100 * 2 + 1];
    return p + 4;
}

/* "0x1f" style hexadecimal, "0" for 0 (at most 18 bytes). */
static inline char *cuprof_fmt_hex(char *p, uint64_t v)
{
    if (v == 0) {
        *p = '0';
        return p + 1;
    }
    unsigned n = 0;
    for (uint64_t t = v; t; t >>= 4)
        n++;
    p[0] = '0';
    p[1] = 'x';
    char *end = p + 2 + n;
    for (char *q = end; v; v >>= 4)
        *--q = "0123456789abcdef"[v & 15];
    return end;
}

/* A literal, without its NUL. */
#define CUPROF_FMT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

void cuprof_out_printf(cuprof_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal integers. */
void cuprof_out_u64(cuprof_out *o, uint64_t v);
void cuprof_out_i64(cuprof_out *o, int64_t v);
/* ns as microseconds with three decimals: 123456 -> "123.456". */
void cuprof_out_ns_as_us(cuprof_out *o, uint64_t ns);
/* "0x1f" style hexadecimal ("0" for 0). */
void cuprof_out_hex(cuprof_out *o, uint64_t v);
/* s (n bytes, any values) as a JSON string with its quotes: '"' '\' and
 * control characters escaped, valid UTF-8 kept, each byte of an invalid
 * sequence replaced by \ufffd, so the result is always valid JSON. */
void cuprof_out_json_str(cuprof_out *o, const char *s, size_t n);
/* The same for a NUL-terminated string; NULL writes null. */
void cuprof_out_json_cstr(cuprof_out *o, const char *s);
/* s right-aligned (right != 0) or left-aligned in width columns, as printf
 * %*s would (a longer s is written whole). */
void cuprof_out_pad(cuprof_out *o, const char *s, int width, int right);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid; n is the
 * number of bytes available. ASCII counts as valid (1). */
size_t cuprof_utf8_seq_len(const unsigned char *s, size_t n);

#endif /* CUPROF_OUTBUF_H */
