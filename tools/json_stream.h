/*
 * json_stream.h - a JSON document's top-level object read from a file in a
 * bounded buffer (issue 40: cuprof-export on a trace of any size).
 *
 * The file, plain or gzip'ed (zlib's gzread reads both), is read 1 MiB at
 * a time. Each member of the top-level object is handed over as its key
 * (unescaped) and its value's bytes, and the elements of the arrays the
 * caller chooses to walk one at a time: each value's extent is found by
 * balancing braces and brackets outside JSON strings (escapes honoured),
 * and parsing it is the caller's (jansson's json_loadb). The memory is the
 * buffer plus the largest value handed over, whatever the file's size.
 * The members may come in any order.
 *
 * What the scanner checks: the top level's shape (an object; names,
 * colons, commas; nothing after it), that every value ends before the
 * file does. The values themselves are checked by whoever parses them
 * (a value nobody asks for is skipped unchecked).
 */
#ifndef CUPROF_TOOLS_JSON_STREAM_H
#define CUPROF_TOOLS_JSON_STREAM_H

#include <stddef.h>

/* What jstream_read calls; any may be NULL (that part skipped unread).
 * A callback returns 0 to go on; anything else stops the read, and
 * jstream_read returns it. */
typedef struct jstream_ops {
    /* Whether the array member key is walked element by element (asked
     * only when its value is an array). */
    int (*walk)(void *arg, const char *key);
    /* One element of a walked array: its bytes (not NUL-terminated; valid
     * until the callback returns). */
    int (*element)(void *arg, const char *key, const char *val, size_t n);
    /* A member not walked: its key and its value's bytes. */
    int (*member)(void *arg, const char *key, const char *val, size_t n);
    /* After each read from the file: how far into it (its bytes as stored,
     * compressed or not: for a progress line). */
    void (*read)(void *arg, unsigned long long file_offset);
} jstream_ops;

#define JSTREAM_ERROR (-1)        /* unreadable, or not JSON: err says why */
#define JSTREAM_NOT_OBJECT (-2)   /* well begun, but the top level is an array */

/* Reads path's top-level object, calling ops with arg. Returns 0, a
 * callback's non-zero return, JSTREAM_ERROR (err: what and near which
 * byte of the uncompressed text, or the system's reason the file cannot
 * be opened or read) or JSTREAM_NOT_OBJECT. */
int jstream_read(const char *path, const jstream_ops *ops, void *arg, char *err, size_t errlen);

#endif
