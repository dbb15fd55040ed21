/*
 * codec.h - compression for the writers, through libraries loaded when a
 * file first asks for them (dlopen of libzstd.so.1 and libz.so.1, both in
 * every Debian system), never linked: the preloaded library links libc,
 * libdl and libpthread only, and a run that compresses nothing loads
 * nothing.
 *
 *  - Blocks: one buffer in, one compressed buffer out, as a zstd frame or a
 *    zlib stream (the payloads of Perfetto's TracePacket.zstd_compressed_packets
 *    and .compressed_packets). Fast levels (zstd 1, deflate 1): written at
 *    exit, where time is the user's.
 *  - A gzip stream, fed buffer by buffer (trace.json.gz).
 */
#ifndef CUPROF_CODEC_H
#define CUPROF_CODEC_H

#include <stddef.h>

#include "model/run.h"   /* CUPROF_COMPRESS_* */

/* Loads what codec (CUPROF_COMPRESS_ZSTD or _ZLIB) needs, once. Returns 0
 * when it can be used, -1 when the library is missing (the caller writes
 * uncompressed, or another codec). */
int cuprof_codec_load(int codec);

/* The most bytes compressing n bytes can give (a loaded codec). */
size_t cuprof_codec_bound(int codec, size_t n);

/* Compresses src[0..n) into dst (cap bytes, at least the bound). Returns
 * the compressed size, or 0 on failure. */
size_t cuprof_codec_block(int codec, void *dst, size_t cap, const void *src, size_t n);

/* A gzip stream. write(ctx, p, n) receives the compressed bytes and
 * returns 0 or an errno. */
typedef struct cuprof_gzip cuprof_gzip;
typedef int (*cuprof_gzip_sink)(void *ctx, const char *p, size_t n);

/* NULL when libz cannot be loaded or memory is short. */
cuprof_gzip *cuprof_gzip_start(void);
/* Compresses p[0..n) (last: the end of the stream, trailer written).
 * Returns 0 or an errno (the first one is kept: later calls return it). */
int cuprof_gzip_put(cuprof_gzip *z, const char *p, size_t n, int last, cuprof_gzip_sink write,
                    void *ctx);
void cuprof_gzip_free(cuprof_gzip *z);

#endif /* CUPROF_CODEC_H */
