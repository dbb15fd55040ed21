/*
 * outbuf.c - buffered, rename-on-commit output (see outbuf.h).
 */
#include "formats/outbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_FILE_BUF (256u * 1024u)   /* flushed to the file when full */

int cuprof_out_open(cuprof_out *o, const char *dir, const char *file)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    int n1 = snprintf(o->path, sizeof o->path, "%s/%s", dir, file);
    int n2 = snprintf(o->tmp, sizeof o->tmp, "%s/.%s.%ld.tmp", dir, file, (long)getpid());
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof o->path || (size_t)n2 >= sizeof o->tmp) {
        o->err = ENAMETOOLONG;
        return -1;
    }
    o->buf = malloc(OUT_FILE_BUF);
    if (!o->buf) {
        o->err = ENOMEM;
        return -1;
    }
    o->cap = OUT_FILE_BUF;
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    o->fd = open(o->tmp, flags, 0666);
    if (o->fd < 0 && errno == EEXIST) {   /* left by a killed process with our pid */
        unlink(o->tmp);
        o->fd = open(o->tmp, flags, 0666);
    }
    if (o->fd < 0) {
        o->err = errno;
        free(o->buf);
        o->buf = NULL;
        return -1;
    }
    return 0;
}

int cuprof_out_open_mem(cuprof_out *o)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->cap = 4096;
    o->buf = malloc(o->cap);
    if (!o->buf) {
        o->err = ENOMEM;
        return -1;
    }
    return 0;
}

/* Writes the pending bytes to the file. */
static void out_flush(cuprof_out *o)
{
    const char *p = o->buf;
    size_t n = o->len;
    while (n > 0 && !o->err) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->err = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    o->len = 0;
}

int cuprof_out_reserve(cuprof_out *o, size_t n)
{
    if (o->err || !o->buf)
        return -1;
    if (o->cap - o->len >= n)
        return 0;
    if (o->fd >= 0) {
        out_flush(o);
        if (o->err)
            return -1;
        if (o->cap >= n)
            return 0;
    }
    size_t cap = o->cap ? o->cap : 4096;
    while (cap - o->len < n) {
        if (cap > SIZE_MAX / 2) {
            o->err = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    char *b = realloc(o->buf, cap);
    if (!b) {
        o->err = ENOMEM;
        return -1;
    }
    o->buf = b;
    o->cap = cap;
    return 0;
}

void cuprof_out_write_slow(cuprof_out *o, const void *p, size_t n)
{
    while (n > 0) {
        if (o->len == o->cap && cuprof_out_reserve(o, n < 4096 ? n : 4096) < 0)
            return;
        size_t k = o->cap - o->len < n ? o->cap - o->len : n;
        memcpy(o->buf + o->len, p, k);
        o->len += k;
        p = (const char *)p + k;
        n -= k;
    }
}

void cuprof_out_printf(cuprof_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        cuprof_out_write(o, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->err = o->err ? o->err : ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cuprof_out_write(o, big, (size_t)n);
    free(big);
}

/* Two decimal digits per step ("00".."99"). */
static const char DIGITS2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v's decimal digits ending at end; returns the first digit. */
static char *fmt_u64(char *end, uint64_t v)
{
    char *p = end;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = DIGITS2[d + 1];
        *--p = DIGITS2[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--p = DIGITS2[d + 1];
        *--p = DIGITS2[d];
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

void cuprof_out_u64(cuprof_out *o, uint64_t v)
{
    char buf[24];
    char *p = fmt_u64(buf + sizeof buf, v);
    cuprof_out_write(o, p, (size_t)(buf + sizeof buf - p));
}

void cuprof_out_i64(cuprof_out *o, int64_t v)
{
    if (v < 0) {
        cuprof_out_putc(o, '-');
        cuprof_out_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        cuprof_out_u64(o, (uint64_t)v);
    }
}

void cuprof_out_ns_as_us(cuprof_out *o, uint64_t ns)
{
    char buf[32];
    char *end = buf + sizeof buf;
    unsigned frac = (unsigned)(ns % 1000);
    end[-1] = (char)('0' + frac % 10);
    end[-2] = (char)('0' + frac / 10 % 10);
    end[-3] = (char)('0' + frac / 100);
    end[-4] = '.';
    char *p = fmt_u64(end - 4, ns / 1000);
    cuprof_out_write(o, p, (size_t)(end - p));
}

void cuprof_out_hex(cuprof_out *o, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    if (v == 0) {
        cuprof_out_putc(o, '0');
        return;
    }
    char buf[20];
    char *p = buf + sizeof buf;
    for (; v; v >>= 4)
        *--p = hex[v & 15];
    *--p = 'x';
    *--p = '0';
    cuprof_out_write(o, p, (size_t)(buf + sizeof buf - p));
}

size_t cuprof_utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;   /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;          /* no overlong forms */
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;          /* no UTF-16 surrogates */
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;          /* nothing above U+10FFFF */
    else return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

void cuprof_out_json_str(cuprof_out *o, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    cuprof_out_putc(o, '"');
    size_t i = 0;
    while (i < n) {
        size_t run = i;   /* copy runs of bytes that need nothing in one go */
        while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            cuprof_out_write(o, s + i, run - i);
            i = run;
            if (i == n)
                break;
        }
        unsigned c = s[i];
        if (c >= 0x80) {
            size_t len = cuprof_utf8_seq_len(s + i, n - i);
            if (len) {
                cuprof_out_write(o, s + i, len);
                i += len;
            } else {
                cuprof_out_write(o, "\\ufffd", 6);
                i++;
            }
            continue;
        }
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t elen = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
            esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
            elen = 6;
        }
        cuprof_out_write(o, esc, elen);
        i++;
    }
    cuprof_out_putc(o, '"');
}

void cuprof_out_json_cstr(cuprof_out *o, const char *s)
{
    if (!s)
        cuprof_out_puts(o, "null");
    else
        cuprof_out_json_str(o, s, strlen(s));
}

void cuprof_out_pad(cuprof_out *o, const char *s, int width, int right)
{
    size_t n = strlen(s);
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    static const char spaces[] = "                                                                ";
    if (!right)
        cuprof_out_write(o, s, n);
    while (pad > 0) {
        size_t k = pad < sizeof spaces - 1 ? pad : sizeof spaces - 1;
        cuprof_out_write(o, spaces, k);
        pad -= k;
    }
    if (right)
        cuprof_out_write(o, s, n);
}

int cuprof_out_commit(cuprof_out *o)
{
    if (o->fd < 0) {   /* memory mode */
        if (!o->err && cuprof_out_reserve(o, 1) == 0)
            o->buf[o->len] = '\0';
        return o->err ? -1 : 0;
    }
    out_flush(o);
    if (close(o->fd) != 0 && !o->err)
        o->err = errno;
    o->fd = -1;
    if (!o->err && rename(o->tmp, o->path) != 0)
        o->err = errno;
    if (o->err)
        unlink(o->tmp);
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
    return o->err ? -1 : 0;
}

void cuprof_out_discard(cuprof_out *o)
{
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
        o->fd = -1;
    }
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}
