/*
 * pftrace.c - a small reader of Perfetto protobuf traces (pftrace.h).
 */
#include "pftrace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* A protobuf message being read. */
typedef struct rd {
    const uint8_t *p, *end;
    int bad;
} rd;

/* One field: number, wire type, and its value (varint/fixed) or bytes. */
typedef struct fld {
    uint32_t num;
    unsigned wt;
    uint64_t v;
    rd sub;
} fld;

static uint64_t varint(rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* The next field, 0 at the end (or on a malformed message: r->bad). */
static int next(rd *r, fld *f)
{
    if (r->p >= r->end || r->bad)
        return 0;
    uint64_t key = varint(r);
    f->num = (uint32_t)(key >> 3);
    f->wt = key & 7;
    f->v = 0;
    if (f->wt == 0) {
        f->v = varint(r);
    } else if (f->wt == 1) {
        if (r->end - r->p < 8) { r->bad = 1; return 0; }
        for (int i = 0; i < 8; i++)
            f->v |= (uint64_t)r->p[i] << (8 * i);
        r->p += 8;
    } else if (f->wt == 2) {
        uint64_t n = varint(r);
        if (r->bad || (uint64_t)(r->end - r->p) < n) { r->bad = 1; return 0; }
        f->sub = (rd){r->p, r->p + n, 0};
        r->p += n;
    } else if (f->wt == 5) {
        if (r->end - r->p < 4) { r->bad = 1; return 0; }
        r->p += 4;
    } else {
        r->bad = 1;
        return 0;
    }
    return !r->bad;
}

static char *dup_bytes(const rd *s)
{
    size_t n = (size_t)(s->end - s->p);
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s->p, n);
        c[n] = '\0';
    }
    return c;
}

/* Interned strings: (kind, sequence, iid) -> string. */
typedef struct istr {
    uint32_t kind, seq;
    uint64_t iid;
    char *s;
} istr;

/* Per-sequence state. */
typedef struct seqst {
    uint32_t id;
    uint64_t track;          /* TrackEventDefaults.track_uuid */
    uint32_t clock;          /* TracePacketDefaults.timestamp_clock_id */
    uint64_t inc_last;       /* the incremental clock's last value */
    int inc_set;
} seqst;

typedef struct open_slice {
    uint64_t track;
    size_t slice;
} open_slice;

typedef struct ctx {
    pft *t;
    istr *is;
    size_t nis, capis;
    seqst *seqs;
    size_t nseqs;
    open_slice *open;
    size_t nopen, capopen;
    size_t capslices, captracks, capcounters;
    int counting;               /* pft_count */
} ctx;

static int fail(ctx *c, const char *fmt, ...)
{
    if (!c->t->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->t->error, sizeof c->t->error, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static seqst *seq_of(ctx *c, uint32_t id)
{
    for (size_t i = 0; i < c->nseqs; i++)
        if (c->seqs[i].id == id)
            return &c->seqs[i];
    seqst *s = realloc(c->seqs, (c->nseqs + 1) * sizeof *s);
    if (!s)
        return NULL;
    c->seqs = s;
    s = &c->seqs[c->nseqs++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->clock = 6;   /* BOOTTIME unless the defaults say otherwise */
    return s;
}

static const char *lookup(ctx *c, uint32_t kind, uint32_t seq, uint64_t iid)
{
    for (size_t i = c->nis; i-- > 0;)
        if (c->is[i].kind == kind && c->is[i].seq == seq && c->is[i].iid == iid)
            return c->is[i].s;
    return NULL;
}

static int interned(ctx *c, uint32_t seq, rd r)
{
    fld f, g;
    while (next(&r, &f)) {
        if (f.wt != 2)
            continue;
        uint64_t iid = 0;
        char *s = NULL;
        rd e = f.sub;
        while (next(&e, &g)) {
            if (g.num == 1 && g.wt == 0)
                iid = g.v;
            else if (g.num == 2 && g.wt == 2) {
                free(s);
                s = dup_bytes(&g.sub);
            }
        }
        if (!iid || !s) {
            free(s);
            return fail(c, "interned entry (field %u) without iid or string", f.num);
        }
        const char *had = lookup(c, f.num, seq, iid);
        for (size_t i = 0; i < c->nis && !had; i++)   /* iids are session-wide */
            if (c->is[i].kind == f.num && c->is[i].iid == iid && strcmp(c->is[i].s, s) != 0)
                return free(s), fail(c, "iid %llu of field %u names two strings",
                                     (unsigned long long)iid, f.num);
        if (c->nis == c->capis) {
            c->capis = c->capis ? 2 * c->capis : 256;
            istr *n = realloc(c->is, c->capis * sizeof *n);
            if (!n)
                return free(s), -1;
            c->is = n;
        }
        c->is[c->nis++] = (istr){f.num, seq, iid, s};
    }
    return r.bad ? fail(c, "malformed interned data") : 0;
}

static int descriptor(ctx *c, rd r)
{
    pft *t = c->t;
    pft_track tr = {0, 0, NULL, -1, -1};
    fld f, g;
    while (next(&r, &f)) {
        if (f.num == 1 && f.wt == 0)
            tr.uuid = f.v;
        else if (f.num == 5 && f.wt == 0)
            tr.parent = f.v;
        else if (f.num == 2 && f.wt == 2) {
            free(tr.name);
            tr.name = dup_bytes(&f.sub);
        } else if ((f.num == 3 || f.num == 4) && f.wt == 2) {
            rd d = f.sub;
            while (next(&d, &g)) {
                if (g.num == 1 && g.wt == 0)
                    tr.pid = (int64_t)g.v;
                else if (f.num == 4 && g.num == 2 && g.wt == 0)
                    tr.tid = (int64_t)g.v;
                else if (g.wt == 2 && ((f.num == 3 && g.num == 6) || (f.num == 4 && g.num == 5))) {
                    free(tr.name);
                    tr.name = dup_bytes(&g.sub);
                }
            }
        }
    }
    if (!tr.uuid)
        return free(tr.name), fail(c, "track descriptor without uuid");
    if (pft_track_of(t, tr.uuid))
        return free(tr.name), fail(c, "track %llu described twice", (unsigned long long)tr.uuid);
    if (t->ntracks == c->captracks) {
        c->captracks = c->captracks ? 2 * c->captracks : 64;
        pft_track *n = realloc(t->tracks, c->captracks * sizeof *n);
        if (!n)
            return free(tr.name), -1;
        t->tracks = n;
    }
    t->tracks[t->ntracks++] = tr;
    return 0;
}

static int clock_snapshot(ctx *c, seqst *s, rd r)
{
    fld f, g;
    while (next(&r, &f)) {
        if (f.num == 2 && f.wt == 0)
            c->t->primary_clock = (int)f.v;
        if (f.num != 1 || f.wt != 2)
            continue;
        uint64_t id = 0, ts = 0, inc = 0;
        rd k = f.sub;
        while (next(&k, &g)) {
            if (g.num == 1) id = g.v;
            else if (g.num == 2) ts = g.v;
            else if (g.num == 3) inc = g.v;
        }
        if (id >= 64 && id < 128) {
            if (!inc)
                return fail(c, "sequence clock %llu is not incremental", (unsigned long long)id);
            s->inc_last = ts;
            s->inc_set = 1;
        }
    }
    return 0;
}

/* pft_count: slice k has ended; counted, and dropped when it is the newest. */
static void ended(ctx *c, size_t k)
{
    pft *t = c->t;
    if (!c->counting)
        return;
    pft_slice *sl = &t->slices[k];
    t->ended++;
    t->ended_calls += !strcmp(sl->cat, "cuda_runtime") || !strcmp(sl->cat, "cublas") ||
                      !strcmp(sl->cat, "cublaslt");
    if (k + 1 != t->nslices)
        return;
    free(sl->name);
    free(sl->cat);
    free(sl->args);
    t->nslices--;
}

static pft_slice *new_slice(ctx *c)
{
    pft *t = c->t;
    if (t->nslices == c->capslices) {
        c->capslices = c->capslices ? 2 * c->capslices : 1024;
        pft_slice *n = realloc(t->slices, c->capslices * sizeof *n);
        if (!n)
            return NULL;
        t->slices = n;
    }
    pft_slice *s = &t->slices[t->nslices++];
    memset(s, 0, sizeof *s);
    return s;
}

static int track_event(ctx *c, seqst *s, uint64_t ts, rd r)
{
    pft *t = c->t;
    uint64_t type = 0, name_iid = 0, cat_iid = 0, track = s->track, value = 0;
    unsigned nargs = 0, nout = 0, nin = 0;
    uint64_t fout = 0, fin = 0;
    char *args = NULL;              /* "key=value\n" per annotation */
    size_t args_len = 0, args_cap = 0;
    fld f, g;
    while (next(&r, &f)) {
        if (f.num == 9 && f.wt == 0) type = f.v;
        else if (f.num == 10 && f.wt == 0) name_iid = f.v;
        else if (f.num == 3 && f.wt == 0) cat_iid = f.v;
        else if (f.num == 11 && f.wt == 0) track = f.v;
        else if (f.num == 30 && f.wt == 0) value = f.v;
        else if (f.num == 47 && f.wt == 1) { if (!nout++) fout = f.v; }
        else if (f.num == 48 && f.wt == 1) { if (!nin++) fin = f.v; }
        else if (f.num == 4 && f.wt == 2) {
            nargs++;
            rd a = f.sub;
            uint64_t an = 0;
            char val[512] = "";
            while (next(&a, &g)) {
                if (g.num == 1 && g.wt == 0)
                    an = g.v;
                else if (g.num == 17 && g.wt == 0) {
                    const char *v = lookup(c, 29, s->id, g.v);
                    if (!v)
                        return free(args), fail(c, "string value iid %llu not sent on sequence %u",
                                                (unsigned long long)g.v, s->id);
                    snprintf(val, sizeof val, "%s", v);
                } else if (g.num == 2 && g.wt == 0)
                    snprintf(val, sizeof val, "%s", g.v ? "true" : "false");
                else if (g.num == 3 && g.wt == 0)
                    snprintf(val, sizeof val, "%llu", (unsigned long long)g.v);
                else if (g.num == 4 && g.wt == 0)
                    snprintf(val, sizeof val, "%lld", (long long)g.v);
                else if (g.num == 7 && g.wt == 0)   /* as trace.json spells one: 0, 0x1f */
                    snprintf(val, sizeof val, g.v ? "0x%llx" : "0", (unsigned long long)g.v);
                else if (g.num == 6 && g.wt == 2)
                    snprintf(val, sizeof val, "%.*s", (int)(g.sub.end - g.sub.p), (const char *)g.sub.p);
                else if (g.num == 5 && g.wt == 1) {
                    double d;
                    memcpy(&d, &g.v, sizeof d);
                    snprintf(val, sizeof val, "%g", d);
                }
            }
            const char *key = an ? lookup(c, 3, s->id, an) : NULL;
            if (!key)
                return free(args), fail(c, "annotation name iid %llu not sent on sequence %u",
                                        (unsigned long long)an, s->id);
            size_t need = strlen(key) + strlen(val) + 3;
            if (args_len + need > args_cap) {
                args_cap = (args_len + need) * 2;
                char *n = realloc(args, args_cap);
                if (!n)
                    return free(args), -1;
                args = n;
            }
            args_len += (size_t)sprintf(args + args_len, "%s=%s\n", key, val);
        }
    }
    if (r.bad)
        return free(args), fail(c, "malformed track event");
    if (type != 1 && type != 3)
        free(args), args = NULL;   /* only slices and instants keep theirs */
    t->track_events++;
    if (!pft_track_of(t, track))
        return free(args), fail(c, "event on undescribed track %llu", (unsigned long long)track);
    if (type == 2) {   /* END: the innermost open slice of its track */
        for (size_t i = c->nopen; i-- > 0;) {
            if (c->open[i].track != track)
                continue;
            pft_slice *sl = &t->slices[c->open[i].slice];
            if (ts < sl->t0)
                return fail(c, "slice %s ends before it begins", sl->name);
            sl->t1 = ts;
            size_t k = c->open[i].slice;
            memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof *c->open);
            c->nopen--;
            ended(c, k);
            return 0;
        }
        return fail(c, "END with no open slice on track %llu", (unsigned long long)track);
    }
    if (type == 4 && c->counting) {   /* COUNTER, counted */
        t->ncounters++;
        return 0;
    }
    if (type == 4) {   /* COUNTER */
        if (t->ncounters == c->capcounters) {
            c->capcounters = c->capcounters ? 2 * c->capcounters : 256;
            pft_counter *n = realloc(t->counters, c->capcounters * sizeof *n);
            if (!n)
                return -1;
            t->counters = n;
        }
        t->counters[t->ncounters++] = (pft_counter){track, ts, (int64_t)value};
        return 0;
    }
    if (type != 1 && type != 3)
        return fail(c, "track event of type %llu", (unsigned long long)type);
    const char *name = lookup(c, 2, s->id, name_iid);
    const char *cat = cat_iid ? lookup(c, 1, s->id, cat_iid) : "";
    if (!name || !cat)
        return free(args), fail(c, "name iid %llu or category iid %llu not sent on sequence %u",
                    (unsigned long long)name_iid, (unsigned long long)cat_iid, s->id);
    pft_slice *sl = new_slice(c);
    if (!sl || !(sl->name = strdup(name)) || !(sl->cat = strdup(cat)))
        return free(args), -1;
    *sl = (pft_slice){track, sl->name, sl->cat, ts, ts, type == 3, nargs, fout, fin, nout, nin,
                      args ? args : strdup("")};
    if (!sl->args)
        return -1;
    if (type == 1) {
        if (c->nopen == c->capopen) {
            c->capopen = c->capopen ? 2 * c->capopen : 64;
            open_slice *n = realloc(c->open, c->capopen * sizeof *n);
            if (!n)
                return -1;
            c->open = n;
        }
        c->open[c->nopen++] = (open_slice){track, t->nslices - 1};
    } else {
        ended(c, t->nslices - 1);
    }
    return 0;
}

static int packet(ctx *c, rd r)
{
    fld f, g;
    uint32_t seqid = 0, clock = 0;
    int has_ts = 0, flags = 0;
    uint64_t ts = 0;
    rd te = {0}, intd = {0}, defs = {0}, cs = {0}, td = {0};
    int has_te = 0, has_int = 0, has_defs = 0, has_cs = 0, has_td = 0;
    while (next(&r, &f)) {
        switch (f.num) {
        case 8: ts = f.v; has_ts = 1; break;
        case 10: seqid = (uint32_t)f.v; break;
        case 13: flags = (int)f.v; break;
        case 58: clock = (uint32_t)f.v; break;
        case 11: te = f.sub; has_te = 1; break;
        case 12: intd = f.sub; has_int = 1; break;
        case 59: defs = f.sub; has_defs = 1; break;
        case 6: cs = f.sub; has_cs = 1; break;
        case 60: td = f.sub; has_td = 1; break;
        default: break;
        }
    }
    if (r.bad)
        return fail(c, "malformed packet");
    c->t->packets++;
    if (!seqid)
        return fail(c, "packet without trusted_packet_sequence_id");
    seqst *s = seq_of(c, seqid);
    if (!s)
        return -1;
    if (flags & 1) {   /* incremental state cleared: interned data starts anew */
        for (size_t i = 0; i < c->nis; i++)
            if (c->is[i].seq == seqid)
                c->is[i].seq = 0;
        s->inc_set = 0;
    }
    if (has_defs) {
        rd d = defs;
        while (next(&d, &f)) {
            if (f.num == 58 && f.wt == 0)
                s->clock = (uint32_t)f.v;
            else if (f.num == 11 && f.wt == 2) {
                rd e = f.sub;
                while (next(&e, &g))
                    if (g.num == 11 && g.wt == 0)
                        s->track = g.v;
            }
        }
    }
    if (has_cs && clock_snapshot(c, s, cs) < 0)
        return -1;
    if (has_td && descriptor(c, td) < 0)
        return -1;
    if (has_int && interned(c, seqid, intd) < 0)
        return -1;
    if (!has_te)
        return 0;
    if (!has_ts)
        return fail(c, "track event without timestamp");
    uint32_t clk = clock ? clock : s->clock;
    if (clk >= 64 && clk < 128) {
        if (!s->inc_set)
            return fail(c, "timestamp on clock %u before its snapshot (sequence %u)", clk, seqid);
        ts += s->inc_last;
        s->inc_last = ts;
    }
    return track_event(c, s, ts, te);
}

/* The packets of a Trace message (the file, or a compressed block's
 * contents: blocks may not nest). */
static int trace_packets(ctx *c, rd r, int nested);

/* A compressed block (TracePacket.compressed_packets, 50: zlib;
 * .zstd_compressed_packets, 133: zstd) holds a Trace of packets. */
static int compressed(ctx *c, unsigned field, rd b)
{
    size_t n = (size_t)(b.end - b.p), cap = n * 8 + 4096, got = 0;
    uint8_t *out = NULL;
    if (field == 133) {
        unsigned long long size = ZSTD_getFrameContentSize(b.p, n);
        if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1u << 30))
            return fail(c, "zstd block without a content size");
        out = malloc(size ? (size_t)size : 1);
        got = out ? ZSTD_decompress(out, (size_t)size, b.p, n) : 0;
        if (!out || ZSTD_isError(got) || got != size) {
            free(out);
            return fail(c, "zstd block does not decompress");
        }
    } else {
        for (;;) {
            uLongf len = (uLongf)cap;
            out = malloc(cap);
            if (!out)
                return fail(c, "out of memory");
            int rc = uncompress(out, &len, b.p, (uLong)n);
            if (rc == Z_OK) {
                got = len;
                break;
            }
            free(out);
            if (rc != Z_BUF_ERROR || cap > (1u << 30))
                return fail(c, "zlib block does not decompress (%d)", rc);
            cap *= 2;
        }
    }
    if (field == 133)
        c->t->zstd_blocks++;
    else
        c->t->zlib_blocks++;
    c->t->uncompressed_bytes += got;
    int rc = trace_packets(c, (rd){out, out + got, 0}, 1);
    free(out);
    return rc;
}

static int trace_packets(ctx *c, rd r, int nested)
{
    fld f, g;
    int rc = 0;
    while (rc == 0 && next(&r, &f)) {
        if (f.num != 1 || f.wt != 2) {
            rc = fail(c, "top-level field %u is not Trace.packet", f.num);
            break;
        }
        /* a compressed block is a packet with that one field */
        rd q = f.sub;
        unsigned z = 0, others = 0;
        rd zb = {0};
        while (next(&q, &g)) {
            if ((g.num == 50 || g.num == 133) && g.wt == 2) {
                z = g.num;
                zb = g.sub;
            } else {
                others++;
            }
        }
        if (!z)
            rc = packet(c, f.sub);
        else if (nested)
            rc = fail(c, "compressed block inside a compressed block");
        else if (others)
            rc = fail(c, "compressed block with other fields beside it");
        else
            rc = compressed(c, z, zb);
    }
    if (rc == 0 && r.bad)
        rc = fail(c, "malformed Trace");
    return rc;
}

static int load(const char *path, pft *t, int counting)
{
    memset(t, 0, sizeof *t);
    ctx c = {.t = t, .counting = counting};
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return fail(&c, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
        fclose(fp);
        free(buf);
        return fail(&c, "cannot read %s", path);
    }
    fclose(fp);
    int rc = trace_packets(&c, (rd){buf, buf + len, 0}, 0);
    if (rc == 0 && c.nopen)
        rc = fail(&c, "%zu slices never end", c.nopen);
    for (size_t i = 0; i < c.nis; i++)
        free(c.is[i].s);
    free(c.is);
    free(c.seqs);
    free(c.open);
    free(buf);
    return rc;
}

int pft_load(const char *path, pft *t)
{
    return load(path, t, 0);
}

int pft_count(const char *path, pft *t)
{
    return load(path, t, 1);
}

void pft_free(pft *t)
{
    for (size_t i = 0; i < t->ntracks; i++)
        free(t->tracks[i].name);
    for (size_t i = 0; i < t->nslices; i++) {
        free(t->slices[i].name);
        free(t->slices[i].cat);
        free(t->slices[i].args);
    }
    free(t->tracks);
    free(t->slices);
    free(t->counters);
    memset(t, 0, sizeof *t);
}

const pft_track *pft_track_of(const pft *t, uint64_t uuid)
{
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].uuid == uuid)
            return &t->tracks[i];
    return NULL;
}
