/*
 * codec.c - compression through dlopen'ed libzstd and libz (see codec.h).
 * Only the types come from their headers; every function is looked up.
 */
#include "formats/codec.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#define ZSTD_LEVEL 1
#define DEFLATE_LEVEL 1

static struct {
    pthread_once_t once;
    int ok;
    ZSTD_CCtx *cctx;                 /* reused: blocks come one at a time */
    pthread_mutex_t mu;
    size_t (*bound)(size_t);
    unsigned (*is_error)(size_t);
    ZSTD_CCtx *(*create)(void);
    size_t (*compress)(ZSTD_CCtx *, void *, size_t, const void *, size_t, int);
} zs = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

static struct {
    pthread_once_t once;
    int ok;
    int (*init2)(z_streamp, int, int, int, int, int, const char *, int);
    int (*deflate)(z_streamp, int);
    int (*end)(z_streamp);
    uLong (*bound)(uLong);
} zl = {.once = PTHREAD_ONCE_INIT};

/* dlsym into a function pointer without the object/function cast warning. */
#define SYM(h, dst, name) (*(void **)(&(dst)) = dlsym((h), (name)))

static void zstd_open(void)
{
    void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    if (!SYM(h, zs.bound, "ZSTD_compressBound") || !SYM(h, zs.is_error, "ZSTD_isError") ||
        !SYM(h, zs.create, "ZSTD_createCCtx") || !SYM(h, zs.compress, "ZSTD_compressCCtx") ||
        !(zs.cctx = zs.create())) {
        dlclose(h);
        return;
    }
    zs.ok = 1;   /* h stays open: the functions are in use until exit */
}

static void zlib_open(void)
{
    void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    if (!SYM(h, zl.init2, "deflateInit2_") || !SYM(h, zl.deflate, "deflate") ||
        !SYM(h, zl.end, "deflateEnd") || !SYM(h, zl.bound, "compressBound")) {
        dlclose(h);
        return;
    }
    zl.ok = 1;
}

int cuprof_codec_load(int codec)
{
    if (codec == CUPROF_COMPRESS_ZSTD) {
        pthread_once(&zs.once, zstd_open);
        return zs.ok ? 0 : -1;
    }
    if (codec == CUPROF_COMPRESS_ZLIB) {
        pthread_once(&zl.once, zlib_open);
        return zl.ok ? 0 : -1;
    }
    return -1;
}

size_t cuprof_codec_bound(int codec, size_t n)
{
    if (codec == CUPROF_COMPRESS_ZSTD && zs.ok)
        return zs.bound(n);
    if (codec == CUPROF_COMPRESS_ZLIB && zl.ok)
        return zl.bound((uLong)n) + 64;   /* compressBound is for zlib's defaults */
    return 0;
}

/* deflateInit2 as zlib.h's macro spells it: the version and struct size
 * tell the library which ABI we were built against. */
static int deflate_init(z_stream *s, int window_bits)
{
    return zl.init2(s, DEFLATE_LEVEL, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY,
                    ZLIB_VERSION, (int)sizeof(z_stream));
}

size_t cuprof_codec_block(int codec, void *dst, size_t cap, const void *src, size_t n)
{
    if (codec == CUPROF_COMPRESS_ZSTD && zs.ok) {
        pthread_mutex_lock(&zs.mu);
        size_t k = zs.compress(zs.cctx, dst, cap, src, n, ZSTD_LEVEL);
        pthread_mutex_unlock(&zs.mu);
        return zs.is_error(k) ? 0 : k;
    }
    if (codec == CUPROF_COMPRESS_ZLIB && zl.ok) {
        z_stream s = {0};
        if (n > UINT32_MAX || cap > UINT32_MAX || deflate_init(&s, 15) != Z_OK)
            return 0;
        s.next_in = (Bytef *)(uintptr_t)src;
        s.avail_in = (uInt)n;
        s.next_out = dst;
        s.avail_out = (uInt)cap;
        int rc = zl.deflate(&s, Z_FINISH);
        size_t k = s.total_out;
        zl.end(&s);
        return rc == Z_STREAM_END ? k : 0;
    }
    return 0;
}

/* ---- gzip stream ---- */

#define GZ_OUT (256u * 1024u)

struct cuprof_gzip {
    z_stream s;
    int err;
    unsigned char out[GZ_OUT];
};

cuprof_gzip *cuprof_gzip_start(void)
{
    if (cuprof_codec_load(CUPROF_COMPRESS_ZLIB) < 0)
        return NULL;
    cuprof_gzip *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    if (deflate_init(&z->s, 15 + 16) != Z_OK) {   /* + 16: a gzip header and trailer */
        free(z);
        return NULL;
    }
    return z;
}

int cuprof_gzip_put(cuprof_gzip *z, const char *p, size_t n, int last, cuprof_gzip_sink write,
                    void *ctx)
{
    while (!z->err) {
        uInt chunk = n > (1u << 30) ? 1u << 30 : (uInt)n;
        z->s.next_in = (Bytef *)(uintptr_t)p;
        z->s.avail_in = chunk;
        int flush = last && chunk == n ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            z->s.next_out = z->out;
            z->s.avail_out = GZ_OUT;
            rc = zl.deflate(&z->s, flush);
            if (rc == Z_STREAM_ERROR) {
                z->err = EIO;
                return z->err;
            }
            size_t got = GZ_OUT - z->s.avail_out;
            int e = got ? write(ctx, (const char *)z->out, got) : 0;
            if (e) {
                z->err = e;
                return e;
            }
        } while (z->s.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
        p += chunk;
        n -= chunk;
        if (n == 0)
            break;
    }
    return z->err;
}

void cuprof_gzip_free(cuprof_gzip *z)
{
    if (z) {
        zl.end(&z->s);
        free(z);
    }
}
