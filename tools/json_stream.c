/*
 * json_stream.c - a JSON document's top-level object, member by member and
 * element by element, in a bounded buffer (json_stream.h).
 */
#include "tools/json_stream.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define JS_BUF (1u << 20)   /* bytes read at a time */
#define JS_END (-3)         /* js_peek: the end of the file (not JSTREAM_*) */

typedef struct jstream {
    gzFile gz;
    unsigned char *buf;   /* JS_BUF bytes read, [pos, len) not yet used */
    size_t pos, len;
    uint64_t off;         /* bytes of the text before buf */
    int eof;              /* gzread found the end */
    char *val;            /* the value being gathered (vlen bytes, NUL after) */
    size_t vlen, vcap;
    char *err;            /* the caller's message buffer */
    size_t errlen;
    const jstream_ops *ops;   /* (its read callback, after each read) */
    void *arg;
} jstream;

static int js_error(jstream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->err, s->errlen, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < s->errlen)
        snprintf(s->err + n, s->errlen - (size_t)n, " near byte %llu",
                 (unsigned long long)(s->off + s->pos));
    return JSTREAM_ERROR;
}

/* More bytes in buf: 1, 0 at the end of the file, JSTREAM_ERROR. */
static int js_fill(jstream *s)
{
    if (s->pos < s->len)
        return 1;
    if (s->eof)
        return 0;
    s->off += s->len;
    s->pos = s->len = 0;
    int k = gzread(s->gz, s->buf, JS_BUF);
    if (k < 0) {
        int zerr;
        const char *why = gzerror(s->gz, &zerr);
        return js_error(s, "%s", zerr == Z_ERRNO ? strerror(errno) : why);
    }
    if (k == 0) {
        s->eof = 1;
        return 0;
    }
    s->len = (size_t)k;
    if (s->ops && s->ops->read)
        s->ops->read(s->arg, (unsigned long long)gzoffset(s->gz));
    return 1;
}

/* The next byte that is not white space, left unread: the byte, JS_END at
 * the end of the file, JSTREAM_ERROR. */
static int js_peek(jstream *s)
{
    for (;;) {
        int r = js_fill(s);
        if (r <= 0)
            return r == 0 ? JS_END : r;
        while (s->pos < s->len) {
            unsigned char c = s->buf[s->pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                return c;
            s->pos++;
        }
    }
}

static int js_append(jstream *s, const unsigned char *p, size_t n)
{
    if (s->vlen + n + 1 > s->vcap) {
        size_t cap = s->vcap ? s->vcap : 4096;
        while (cap < s->vlen + n + 1)
            cap *= 2;
        char *v = realloc(s->val, cap);
        if (!v)
            return js_error(s, "out of memory for a value of %zu bytes", s->vlen + n);
        s->val = v;
        s->vcap = cap;
    }
    memcpy(s->val + s->vlen, p, n);
    s->vlen += n;
    s->val[s->vlen] = 0;
    return 0;
}

/* The value starting at the next byte that is not white space, to its end:
 * an object or array to its balanced close, a string to its closing quote,
 * anything else to the next delimiter. Gathered into s->val when keep.
 * 0, or JSTREAM_ERROR. */
static int js_value(jstream *s, int keep)
{
    int c = js_peek(s);
    if (c == JSTREAM_ERROR)
        return c;
    if (c == JS_END)
        return js_error(s, "unexpected end of file: a value expected");
    int scalar = c != '{' && c != '[' && c != '"';
    int instr = 0, esc = 0;
    long depth = 0;
    s->vlen = 0;
    for (;;) {
        int r = js_fill(s);
        if (r < 0)
            return r;
        if (r == 0) {
            if (scalar)   /* what follows it is the caller's to want */
                return 0;
            return js_error(s, "unexpected end of file inside a%s",
                            instr ? " string" : "n object or array");
        }
        const unsigned char *p = s->buf + s->pos, *end = s->buf + s->len, *q = p;
        int done = 0;
        for (; q < end && !done; q++) {
            unsigned char b = *q;
            if (instr) {
                if (esc)
                    esc = 0;
                else if (b == '\\')
                    esc = 1;
                else if (b == '"') {
                    instr = 0;
                    done = depth == 0;
                }
            } else if (scalar) {
                if (b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\n' ||
                    b == '\r') {
                    done = 1;
                    q--;   /* the delimiter is not the value's */
                }
            } else if (b == '"') {
                instr = 1;
            } else if (b == '{' || b == '[') {
                depth++;
            } else if (b == '}' || b == ']') {
                done = --depth == 0;
            }
        }
        if (keep && js_append(s, p, (size_t)(q - p)) < 0)
            return JSTREAM_ERROR;
        s->pos = (size_t)(q - s->buf);
        if (done)
            return 0;
    }
}

/* The elements of the array whose '[' is next. */
static int js_walk(jstream *s, const jstream_ops *ops, void *arg, const char *key)
{
    s->pos++;   /* '[' */
    int c = js_peek(s);
    if (c == JSTREAM_ERROR)
        return c;
    if (c == ']') {
        s->pos++;
        return 0;
    }
    for (;;) {
        if (js_value(s, ops->element != NULL) < 0)
            return JSTREAM_ERROR;
        if (ops->element) {
            int rc = ops->element(arg, key, s->val, s->vlen);
            if (rc)
                return rc;
        }
        c = js_peek(s);
        if (c == JSTREAM_ERROR)
            return c;
        if (c == ']') {
            s->pos++;
            return 0;
        }
        if (c != ',')
            return js_error(s, c == JS_END ? "unexpected end of file in the array %s"
                                        : "',' or ']' expected in the array %s", key);
        s->pos++;
    }
}

/* One member: its name (a string, next), ':', its value. */
static int js_member(jstream *s, const jstream_ops *ops, void *arg)
{
    if (js_value(s, 1) < 0)
        return JSTREAM_ERROR;
    json_error_t jerr;
    json_t *k = json_loadb(s->val, s->vlen, JSON_DECODE_ANY, &jerr);
    if (!json_is_string(k)) {
        json_decref(k);
        return js_error(s, "a member's name is not a string");
    }
    char *key = strdup(json_string_value(k));
    json_decref(k);
    if (!key)
        return js_error(s, "out of memory");
    int rc = 0, c = js_peek(s);
    if (c != ':') {
        rc = c == JSTREAM_ERROR ? c : js_error(s, "':' expected after \"%.64s\"", key);
        goto out;
    }
    s->pos++;
    c = js_peek(s);
    if (c == '[' && ops->walk && ops->walk(arg, key)) {
        rc = js_walk(s, ops, arg, key);
    } else if (js_value(s, ops->member != NULL) < 0) {
        rc = JSTREAM_ERROR;
    } else if (ops->member) {
        rc = ops->member(arg, key, s->val, s->vlen);
    }
out:
    free(key);
    return rc;
}

static int js_object(jstream *s, const jstream_ops *ops, void *arg)
{
    int c = js_peek(s);
    if (c == JSTREAM_ERROR)
        return c;
    if (c == '[') {   /* JSON, but not an object: skimmed to its end */
        if (js_value(s, 0) < 0)
            return JSTREAM_ERROR;
        return js_peek(s) == JS_END ? JSTREAM_NOT_OBJECT
                                 : js_error(s, "end of file expected after the array");
    }
    if (c != '{')
        return js_error(s, c == JS_END ? "'{' expected, found the end of the file" : "'{' expected");
    s->pos++;
    c = js_peek(s);
    if (c == '}')
        s->pos++;
    while (c != '}') {
        if (c != '"')
            return c == JSTREAM_ERROR ? c
                   : js_error(s, c == JS_END ? "unexpected end of file: a member expected"
                                          : "a member's name expected");
        int rc = js_member(s, ops, arg);
        if (rc)
            return rc;
        c = js_peek(s);
        if (c == '}') {
            s->pos++;
            break;
        }
        if (c != ',')
            return c == JSTREAM_ERROR ? c
                   : js_error(s, c == JS_END ? "unexpected end of file: ',' or '}' expected"
                                          : "',' or '}' expected");
        s->pos++;
        c = js_peek(s);
    }
    c = js_peek(s);
    return c == JS_END ? 0 : c == JSTREAM_ERROR ? c : js_error(s, "end of file expected after the object");
}

int jstream_read(const char *path, const jstream_ops *ops, void *arg, char *err, size_t errlen)
{
    jstream s = {.err = err, .errlen = errlen, .ops = ops, .arg = arg};
    errno = 0;
    s.gz = gzopen(path, "rb");
    if (!s.gz) {
        snprintf(err, errlen, "%s", strerror(errno ? errno : ENOENT));
        return JSTREAM_ERROR;
    }
    gzbuffer(s.gz, JS_BUF);
    s.buf = malloc(JS_BUF);
    int rc = s.buf ? js_object(&s, ops, arg) : js_error(&s, "out of memory");
    free(s.buf);
    free(s.val);
    gzclose(s.gz);
    return rc;
}
