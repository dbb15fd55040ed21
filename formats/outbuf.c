/*
 * outbuf.c - buffered, rename-on-commit output (see outbuf.h).
 */
#include "formats/outbuf.h"
#include "formats/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define OUT_FILE_BUF (256u * 1024u)   /* flushed to the file when full */
#define OUT_ALIGN 4096u               /* O_DIRECT's alignment (offsets, sizes, memory) */

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

/* ---- writing to the file ------------------------------------------------------
 *
 * Below OUT_PIPE_AFTER bytes the caller writes its 256 KiB buffer itself.
 * Past it, a helper thread takes over the writing: the caller fills one of
 * OUT_PIPE_NBUF aligned buffers while the helper writes the others, so
 * formatting and the kernel's work overlap (the exit path has the machine
 * to itself; bench/RESULTS.md). Only the helper touches the file then.
 *
 * Buffers are handed over in multiples of OUT_ALIGN (the unaligned tail is
 * carried into the next buffer), so every write but the last starts and ends
 * on a 4 KiB boundary, as O_DIRECT requires. */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* write() all of p[0..n) at the current offset; 0, or an errno. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Which of the two ways of writing the helper uses, by measuring both: each
 * way's time per byte is a running average over its recent buffers; the
 * faster is used, and every OUT_EXPLORE-th buffer goes the other way to keep
 * its figure current (the page cache's cost changes as dirty pages pile up
 * or freed memory runs out). Ordinary writes are kept unless direct ones
 * are 10% faster: where fresh page-cache pages are cheap (most machines)
 * they win, and the kernel writes the file back after the program is gone. */
#define OUT_EXPLORE 8

typedef struct out_sink {
    int fd;
    struct cuprof_gzip *gz;  /* compress first (no O_DIRECT then: sizes vary) */
    int direct_ok;           /* O_DIRECT may still be tried on fd */
    int direct_on;           /* fd has O_DIRECT set now */
    unsigned step;           /* buffers written */
    double ns_per_byte[2];   /* running averages, [0] ordinary, [1] direct; 0 = not measured */
} out_sink;

static int sink_set_direct(out_sink *k, int on)
{
    if (k->direct_on == on)
        return 0;
    int fl = fcntl(k->fd, F_GETFL);
    if (fl < 0 || fcntl(k->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
        return -1;   /* e.g. a file system without O_DIRECT (EINVAL) */
    k->direct_on = on;
    return 0;
}

/* The way to write the next whole aligned buffer: 0 ordinary, 1 direct. */
static int sink_choose(out_sink *k)
{
    if (!k->direct_ok)
        return 0;
    const double *e = k->ns_per_byte;
    if (e[0] == 0 || e[1] == 0)
        return e[0] != 0;   /* measure ordinary writes first, then direct ones */
    int best = e[1] < 0.9 * e[0];
    return k->step % OUT_EXPLORE == OUT_EXPLORE - 1 ? !best : best;
}

/* Writes one handed-over buffer (aligned start; aligned length unless
 * last). Returns 0 or an errno. */
static int fd_sink(void *ctx, const char *p, size_t n)
{
    return write_all(*(const int *)ctx, p, n);
}

static int sink_write(out_sink *k, const char *p, size_t n, int last)
{
    if (k->gz)
        return cuprof_gzip_put(k->gz, p, n, last, fd_sink, &k->fd);
    int aligned = n % OUT_ALIGN == 0 && (uintptr_t)p % OUT_ALIGN == 0 && !last && n > 0;
    int want = aligned ? sink_choose(k) : 0;
    k->step++;
    if (sink_set_direct(k, want) < 0) {
        k->direct_ok = 0;
        want = 0;
        if (sink_set_direct(k, 0) < 0)
            return errno ? errno : EIO;
    }
    uint64_t t0 = now_ns();
    int e = write_all(k->fd, p, n);
    if (e == EINVAL && want) {   /* alignment the device refuses: never again */
        k->direct_ok = 0;
        if (sink_set_direct(k, 0) < 0)
            return e;
        t0 = now_ns();
        e = write_all(k->fd, p, n);
        want = 0;
    }
    if (e)
        return e;
    if (aligned) {
        double x = (double)(now_ns() - t0) / (double)n, *avg = &k->ns_per_byte[want];
        *avg = *avg == 0 ? x : 0.5 * *avg + 0.5 * x;
        if (*avg == 0)
            *avg = 1e-9;   /* measured (a clock too coarse to see it) */
    }
    return 0;
}

#define OUT_PIPE_AFTER (4u << 20)  /* bytes written before the helper starts */
#define OUT_PIPE_BUF (4u << 20)    /* size of each of its buffers */
#define OUT_PIPE_NBUF 4

struct cuprof_out_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;             /* any change of nfull or quit */
    pthread_t th;
    char *bufs[OUT_PIPE_NBUF];     /* filled in ring order */
    size_t lens[OUT_PIPE_NBUF];    /* bytes handed over in each */
    unsigned cur;                  /* the buffer the caller fills */
    unsigned nfull;                /* handed over, not yet written: cur - nfull .. cur - 1 */
    int last;                      /* the newest handed buffer is the file's end */
    int quit;                      /* no more buffers: write what is left, then end */
    int drop;                      /* discard: end without writing */
    int err;                       /* the helper's first write error */
    out_sink sink;                 /* the helper's (only it writes the file) */
};

static void *pipe_main(void *arg)
{
    struct cuprof_out_pipe *pp = arg;
    prctl(PR_SET_NAME, "cuprof-write", 0, 0, 0);
    pthread_mutex_lock(&pp->mu);
    for (;;) {
        while (pp->nfull == 0 && !pp->quit)
            pthread_cond_wait(&pp->cv, &pp->mu);
        if (pp->nfull == 0)
            break;
        unsigned i = (pp->cur + OUT_PIPE_NBUF - pp->nfull) % OUT_PIPE_NBUF;
        int last = pp->nfull == 1 && pp->last, skip = pp->err || pp->drop;
        pthread_mutex_unlock(&pp->mu);
        int e = skip ? 0 : sink_write(&pp->sink, pp->bufs[i], pp->lens[i], last);
        pthread_mutex_lock(&pp->mu);
        if (e && !pp->err)
            pp->err = e;
        pp->nfull--;
        pthread_cond_broadcast(&pp->cv);
    }
    pthread_mutex_unlock(&pp->mu);
    return NULL;
}

static void pipe_free(struct cuprof_out_pipe *pp)
{
    for (unsigned i = 0; i < OUT_PIPE_NBUF; i++)
        free(pp->bufs[i]);
    pthread_cond_destroy(&pp->cv);
    pthread_mutex_destroy(&pp->mu);
    free(pp);
}

/* Starts the helper; NULL when it cannot (the caller goes on writing). */
static struct cuprof_out_pipe *pipe_start(int fd, struct cuprof_gzip *gz)
{
    struct cuprof_out_pipe *pp = calloc(1, sizeof *pp);
    if (!pp)
        return NULL;
    pthread_mutex_init(&pp->mu, NULL);
    pthread_cond_init(&pp->cv, NULL);
    pp->sink = (out_sink){.fd = fd, .gz = gz, .direct_ok = !gz};
    for (unsigned i = 0; i < OUT_PIPE_NBUF; i++) {
        void *b = NULL;
        if (posix_memalign(&b, OUT_ALIGN, OUT_PIPE_BUF) != 0) {
            pipe_free(pp);
            return NULL;
        }
        pp->bufs[i] = b;
    }
    /* No signal for the helper: the program's handlers (and process.c's
     * deferral of SIGINT & co while writing) stay on the caller's thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&pp->th, NULL, pipe_main, pp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pipe_free(pp);
        return NULL;
    }
    return pp;
}

/* Ends the helper after it wrote (or, with drop, skipped) what it has;
 * returns its first error (0 if none) and frees it. */
static int pipe_stop(struct cuprof_out_pipe *pp, int drop)
{
    pthread_mutex_lock(&pp->mu);
    pp->quit = 1;
    pp->drop |= drop;
    pthread_cond_broadcast(&pp->cv);
    pthread_mutex_unlock(&pp->mu);
    pthread_join(pp->th, NULL);
    int e = pp->err;
    pipe_free(pp);
    return e;
}

/* Hands the caller's buffer (n bytes; last: the end of the file) to the
 * helper and gives the caller the next free one. */
static void pipe_hand(cuprof_out *o, size_t n, int last)
{
    struct cuprof_out_pipe *pp = o->pipe;
    pthread_mutex_lock(&pp->mu);
    pp->lens[pp->cur] = n;
    pp->last = last;
    pp->nfull++;
    pp->cur = (pp->cur + 1) % OUT_PIPE_NBUF;
    pthread_cond_broadcast(&pp->cv);
    while (pp->nfull == OUT_PIPE_NBUF)   /* the next buffer is still being written */
        pthread_cond_wait(&pp->cv, &pp->mu);
    if (pp->err && !o->err)
        o->err = pp->err;
    pthread_mutex_unlock(&pp->mu);
    o->buf = pp->bufs[pp->cur];
    o->cap = OUT_PIPE_BUF;
    o->off += n;
}

/* Writes the pending bytes (last: all of them, else all but the tail past
 * the last OUT_ALIGN boundary, which moves to the front of the buffer). */
static void out_flush(cuprof_out *o, int last)
{
    size_t n = last ? o->len : o->len / OUT_ALIGN * OUT_ALIGN;
    size_t tail = o->len - n;
    if (o->pipe) {
        const char *old = o->buf;
        pipe_hand(o, n, last);
        memcpy(o->buf, old + n, tail);
        o->len = tail;
        return;
    }
    if (!o->err) {
        int e = o->gz ? cuprof_gzip_put(o->gz, o->buf, n, last, fd_sink, &o->fd)
                      : write_all(o->fd, o->buf, n);
        if (e)
            o->err = e;
    }
    memmove(o->buf, o->buf + n, tail);
    o->len = tail;
    o->off += n;
    /* once, when the file passes OUT_PIPE_AFTER (no thread: go on here) */
    if (!last && !o->err && o->off >= OUT_PIPE_AFTER && o->off - n < OUT_PIPE_AFTER &&
        (o->pipe = pipe_start(o->fd, o->gz)) != NULL) {
        memcpy(o->pipe->bufs[0], o->buf, o->len);
        free(o->buf);
        o->buf = o->pipe->bufs[0];
        o->cap = OUT_PIPE_BUF;
    }
}

int cuprof_out_reserve(cuprof_out *o, size_t n)
{
    if (o->err || !o->buf)
        return -1;
    if (o->cap - o->len >= n)
        return 0;
    if (o->fd >= 0) {
        out_flush(o, 0);
        if (o->err)
            return -1;
        if (o->cap - o->len >= n)
            return 0;
        if (o->pipe) {   /* the helper's buffers do not grow; nobody asks for */
            o->err = ENOBUFS;   /* that much at once (write_slow: 4 KiB at most) */
            return -1;
        }
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

const char cuprof_digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void cuprof_out_u64(cuprof_out *o, uint64_t v)
{
    char buf[24];
    cuprof_out_write(o, buf, (size_t)(cuprof_fmt_u64(buf, v) - buf));
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
    cuprof_out_write(o, buf, (size_t)(cuprof_fmt_ns_as_us(buf, ns) - buf));
}

void cuprof_out_hex(cuprof_out *o, uint64_t v)
{
    char buf[24];
    cuprof_out_write(o, buf, (size_t)(cuprof_fmt_hex(buf, v) - buf));
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
    out_flush(o, 1);
    if (o->pipe) {
        int e = pipe_stop(o->pipe, 0);
        if (e && !o->err)
            o->err = e;
        o->pipe = NULL;
        o->buf = NULL;   /* was the helper's */
    }
    cuprof_gzip_free(o->gz);
    o->gz = NULL;
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

int cuprof_out_gzip(cuprof_out *o)
{
    if (o->fd < 0 || o->off || o->len || o->gz)
        return -1;
    o->gz = cuprof_gzip_start();
    return o->gz ? 0 : -1;
}

void cuprof_out_discard(cuprof_out *o)
{
    if (o->pipe) {
        pipe_stop(o->pipe, 1);
        o->pipe = NULL;
        o->buf = NULL;   /* was the helper's */
    }
    cuprof_gzip_free(o->gz);
    o->gz = NULL;
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
        o->fd = -1;
    }
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}
