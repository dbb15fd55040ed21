/*
 * pyframes.c - Python frames read from CPython's state in the calling
 * thread, and spliced into its native stack (see pyframes.h).
 */
#include "collector/pyframes.h"
#include "collector/config.h"
#include "collector/libc.h"
#include "collector/log.h"
#include "collector/stacks.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int cuprof_py_ready;

/* ---- the layouts ---------------------------------------------------------- */

#define NONE_OFF UINT32_MAX

typedef struct layout {
    int minor;                   /* 3.MINOR */
    uint32_t ts_thread_id;       /* PyThreadState.thread_id */
    uint32_t ts_frame;           /* .frame (3.10), .cframe (3.11, 3.12), .current_frame */
    uint32_t cf_current;         /* _PyCFrame.current_frame; NONE_OFF: no cframe */
    uint32_t fr_size;            /* bytes of a frame read */
    uint32_t fr_back;            /* f_back / previous */
    uint32_t fr_code;            /* f_code / f_executable */
    uint32_t fr_instr;           /* f_lasti (int, 3.10) / prev_instr / instr_ptr */
    uint32_t fr_owner;           /* owner (char); NONE_OFF in 3.10 */
    uint32_t fr_entry;           /* is_entry (bool, 3.11); NONE_OFF otherwise */
    uint32_t co_filename, co_name, co_qualname, co_linetable, co_firstlineno;
    uint32_t co_firsttraceable;  /* NONE_OFF in 3.10 */
    uint32_t co_version;         /* 3.12+: a serial number per code object; NONE_OFF before */
    uint32_t co_code;            /* 3.10: co_code (bytes); 3.11+: co_code_adaptive (inline) */
    uint32_t code_basicsize;     /* PyCode_Type.tp_basicsize */
    uint32_t frame_basicsize;    /* PyFrame_Type.tp_basicsize (3.10 checks frames' type) */
    uint32_t ascii_size;         /* sizeof(PyASCIIObject): a compact ASCII str's data */
    uint32_t compact_size;       /* sizeof(PyCompactUnicodeObject): other compact strs */
    uint32_t str_basicsize;      /* PyUnicode_Type.tp_basicsize */
    uint32_t rt_finalizing;      /* _PyRuntime._finalizing */
    uint32_t ep_interp;          /* 3.13: PyInterpreterState.func_state.next_version, the
                                    counter co_version comes from; NONE_OFF: not there
                                    (3.12: _Py_next_func_version, a static found by name) */
} layout;

/* From each version's headers (offsetof; tests/unit/test_pyframes.c checks
 * them against the installed interpreters' own headers). */
static const layout layouts[] = {
    {10, 176, 24, NONE_OFF, 104, 24, 32, 96, NONE_OFF, NONE_OFF,
     104, 112, 112 /* co_name: no co_qualname */, 120, 40, NONE_OFF, NONE_OFF, 48, 176, 360, 48,
     72, 80, 16, NONE_OFF},
    {11, 152, 56, 8, 72, 48, 32, 56, 69, 68,
     112, 120, 128, 136, 72, 168, NONE_OFF, 184, 184, 0, 48, 72, 80, 24, NONE_OFF},
    {12, 136, 56, 0, 72, 8, 0, 56, 70, NONE_OFF,
     112, 120, 128, 136, 68, 176, 92, 192, 192, 0, 40, 56, 64, 24, NONE_OFF},
    {13, 152, 72, NONE_OFF, 72, 8, 0, 56, 70, NONE_OFF,
     112, 120, 128, 136, 68, 184, 92, 200, 200, 0, 40, 56, 64, 608, 17000},
};

enum { OWNED_BY_THREAD = 0, OWNED_BY_GENERATOR = 1, OWNED_BY_FRAME_OBJECT = 2,
       OWNED_BY_CSTACK = 3 };

/* PyObject / PyVarObject / PyTypeObject / PyBytesObject / PyASCIIObject
 * fields common to the four versions (release builds). */
#define OB_TYPE 8
#define OB_SIZE 16
#define TP_NAME 24
#define TP_BASICSIZE 32
#define BYTES_SVAL 32
#define STR_LENGTH 16
#define STR_STATE 32
#define TS_INTERP 16                 /* PyThreadState.interp */

/* ---- the interpreter found ---------------------------------------------- */

static layout L;
static uintptr_t runtime;                 /* &_PyRuntime */
static uintptr_t code_type, frame_type, str_type, bytes_type;
static void *(*get_tstate)(void);         /* PyGILState_GetThisThreadState */
#define EVAL_RANGES 4
static uintptr_t eval_lo[EVAL_RANGES], eval_hi[EVAL_RANGES];
static int n_eval;
static uintptr_t interp_lo, interp_hi;    /* the interpreter's object (libpython or the exe) */
static uintptr_t main_lo, main_hi;        /* main, when it lies in interp's object */
static const _Atomic uint32_t *epoch_addr;  /* 3.12: _Py_next_func_version */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int enabled_cfg;
static _Atomic int looked;                /* set-up done (found or not) */
static _Atomic uint64_t retries;
static _Atomic uint64_t st_dropped, st_unmatched;

int cuprof_py_layout_text(int minor, char *buf, size_t cap)
{
    const layout *t = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].minor == minor)
            t = &layouts[i];
    if (!t)
        return -1;
    size_t w = 0;
#define F(name)                                                                           \
    if (t->name != NONE_OFF && w < cap)                                                   \
        w += (size_t)snprintf(buf + w, cap - w, "%s %u\n", #name, (unsigned)t->name);
    F(ts_thread_id) F(ts_frame) F(cf_current) F(fr_back) F(fr_code) F(fr_instr) F(fr_owner)
    F(fr_entry) F(co_filename) F(co_name) F(co_qualname) F(co_linetable) F(co_firstlineno)
    F(co_firsttraceable) F(co_version) F(co_code) F(code_basicsize) F(ascii_size) F(compact_size)
    F(str_basicsize) F(rt_finalizing) F(ep_interp)
#undef F
    if (t->frame_basicsize && w < cap)
        w += (size_t)snprintf(buf + w, cap - w, "frame_basicsize %u\n", t->frame_basicsize);
    return w < cap ? (int)w : -1;
}

/* ---- safe reads ------------------------------------------------------------ */

/* Pages seen readable: direct-mapped by page number (a collision costs one
 * more system call). */
#define PAGE_SLOTS (1u << 12)
static _Atomic uintptr_t pages[PAGE_SLOTS];

static long vm_read(void *dst, uintptr_t src, size_t n)
{
    struct iovec l = {dst, n}, r = {(void *)src, n};
    return syscall(SYS_process_vm_readv, (long)getpid(), &l, 1UL, &r, 1UL, 0UL);
}

static inline int user_ptr(uintptr_t p)
{
    return p >= 4096 && p < ((uintptr_t)1 << 56);
}

static __attribute__((noinline)) int page_learn(uintptr_t page)
{
    unsigned char b;
    int saved = errno;
    long r = vm_read(&b, page << 12, 1);
    errno = saved;
    if (r != 1)
        return 0;
    atomic_store_explicit(&pages[(page ^ (page >> 12)) & (PAGE_SLOTS - 1)], page,
                          memory_order_relaxed);
    return 1;
}

static inline int page_ok(uintptr_t a)
{
    uintptr_t page = a >> 12;
    if (atomic_load_explicit(&pages[(page ^ (page >> 12)) & (PAGE_SLOTS - 1)],
                             memory_order_relaxed) == page)
        return 1;
    return page_learn(page);
}

/* [p, p + n) may be read: in user space, 8-aligned, its pages readable. */
static inline int readable(uintptr_t p, size_t n)
{
    if (!user_ptr(p) || (p & 7) || !page_ok(p))
        return 0;
    return ((p + n - 1) >> 12) == (p >> 12) || page_ok(p + n - 1);
}

#define AT(base, off, type) (*(const type *)((base) + (off)))

/* ---- line tables ------------------------------------------------------------ */

/* A line table read through process_vm_readv, a block at a time. */
typedef struct tab_reader {
    const uint8_t *mem;          /* in memory (the unit test), or NULL */
    uintptr_t src;
    size_t len, pos;             /* table length, bytes consumed */
    size_t base, have;           /* buf holds table bytes [base, base + have) */
    int failed;
    uint8_t buf[512];
} tab_reader;

static int tab_at(tab_reader *r, size_t i)
{
    if (i >= r->len)
        return -1;
    if (r->mem)
        return r->mem[i];
    if (i < r->base || i >= r->base + r->have) {
        size_t n = r->len - i < sizeof r->buf ? r->len - i : sizeof r->buf;
        if (vm_read(r->buf, r->src + i, n) != (long)n) {
            r->failed = 1;
            return -1;
        }
        r->base = i;
        r->have = n;
    }
    return r->buf[i - r->base];
}

/* 3.10: (byte delta, signed line delta) pairs; -128: no line
 * (Objects/codeobject.c: advance, PyLineTable_NextAddressRange). */
static int line_310(tab_reader *r, int firstlineno, int addr)
{
    int start = -1, end = 0, line = -1, computed = firstlineno;
    while (end <= addr) {
        do {   /* next range; empty ones are skipped */
            int sd = tab_at(r, r->pos), ld = tab_at(r, r->pos + 1);
            if (sd < 0 || ld < 0)
                return -1;
            r->pos += 2;
            start = end;
            end += sd;
            ld = (int)(int8_t)(uint8_t)ld;
            if (ld == -128)
                line = -1;
            else
                line = computed += ld;
        } while (start == end);
    }
    return line;
}

static int varint(tab_reader *r, unsigned *out)
{
    int b = tab_at(r, r->pos++);
    if (b < 0)
        return -1;
    unsigned val = (unsigned)b & 63, shift = 0;
    while (b & 64) {
        if ((b = tab_at(r, r->pos++)) < 0 || shift > 24)
            return -1;
        shift += 6;
        val |= ((unsigned)b & 63) << shift;
    }
    *out = val;
    return 0;
}

/* 3.11+: the location table (Objects/locations.md; codeobject.c: advance,
 * get_line_delta, is_no_line_marker). Each entry: a byte 1CCCCLLL (code C,
 * LLL + 1 code units), then its data. */
static int line_311(tab_reader *r, int firstlineno, int addr)
{
    int end = 0, line = -1, computed = firstlineno;
    while (end <= addr) {
        int b = tab_at(r, r->pos);
        if (b < 0 || !(b & 128))
            return -1;
        int code = (b >> 3) & 15, delta = 0;
        if (code == 13 || code == 14) {   /* no columns, long form: signed varint */
            size_t at = r->pos;
            r->pos++;
            unsigned u;
            if (varint(r, &u) < 0)
                return -1;
            delta = (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
            r->pos = at;
        }
        else if (code == 11 || code == 12)   /* one line forms, lines 1 and 2 on */
            delta = code - 10;
        computed += delta;
        line = code == 15 ? -1 : computed;
        end += ((b & 7) + 1) * 2;
        /* to the next entry's first byte */
        do
            r->pos++;
        while (r->pos < r->len && tab_at(r, r->pos) >= 0 && !(tab_at(r, r->pos) & 128));
        if (r->failed || (r->pos >= r->len && end <= addr))
            return -1;
    }
    return line;
}

static int addr2line(int minor, tab_reader *r, int firstlineno, int addr)
{
    if (addr < 0)
        return firstlineno;
    int line = minor == 10 ? line_310(r, firstlineno, addr) : line_311(r, firstlineno, addr);
    return r->failed ? -1 : line;
}

int cuprof_py_addr2line(int minor, const uint8_t *table, size_t len, int firstlineno, int addr)
{
    tab_reader r = {.mem = table, .len = len};
    return addr2line(minor, &r, firstlineno, addr);
}

/* ---- interned strings and frames ---------------------------------------------- */

#define STR_MAX 1024                 /* characters kept of a name or file */
#define STR_SLOTS (1u << 15)
#define FRAME_MAX (1u << 16)         /* distinct Python frames */
#define FRAME_SLOTS (1u << 17)
#define CODE_SLOTS (1u << 17)        /* (code, instruction) pairs cached */
#define CODE_PROBE 32

typedef struct pyframe {
    const char *qualname, *file;
    uint32_t line;
} pyframe;

/* The lock-free cache: (code object, instruction) -> frame id, with what the
 * code object held when it was met: a code object freed and another made
 * at its address is a different key. */
typedef struct code_ent {
    _Atomic uintptr_t code;      /* key, 0 = empty; stored last */
    uint32_t stamp;              /* stamp_of(code) when it was met */
    int32_t lasti;
    uint32_t id;
} code_ent;

static code_ent *codes;              /* [CODE_SLOTS] */
static _Atomic uint32_t ncodes;
static pyframe *frames;              /* [FRAME_MAX + 1], [id] */
static uint32_t *frame_slots;        /* content hash -> id */
static _Atomic uint32_t nframes;
static const char **str_slots;       /* content hash -> interned string */
static char *arena, *arena_end;      /* under lock */

static void *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

/* Under lock: s[0..n) interned (a NUL added); NULL when full. */
static const char *str_intern(const char *s, size_t n)
{
    uint64_t h = str_hash(s, n);
    for (uint32_t i = (uint32_t)h & (STR_SLOTS - 1), p = 0; p < STR_SLOTS / 2;
         p++, i = (i + 1) & (STR_SLOTS - 1)) {
        const char *e = str_slots[i];
        if (!e) {
            if (!arena || (size_t)(arena_end - arena) < n + 1) {
                size_t block = n + 1 > (1u << 16) ? n + 1 : (1u << 16);
                char *b = reserve(block);
                if (!b)
                    return NULL;
                arena = b;
                arena_end = b + block;
            }
            char *c = arena;
            memcpy(c, s, n);
            c[n] = '\0';
            arena += n + 1;
            str_slots[i] = c;
            return c;
        }
        if (!strncmp(e, s, n) && e[n] == '\0')
            return e;
    }
    return NULL;
}

/* Under lock: the id of (qualname, file, line), interned; 0 when full. */
static uint32_t frame_intern(const char *q, const char *f, uint32_t line)
{
    uint64_t h = mix((uintptr_t)q ^ mix((uintptr_t)f) ^ ((uint64_t)line << 40));
    for (uint32_t i = (uint32_t)h & (FRAME_SLOTS - 1), p = 0; p < FRAME_SLOTS / 2;
         p++, i = (i + 1) & (FRAME_SLOTS - 1)) {
        uint32_t id = frame_slots[i];
        if (id == 0) {
            uint32_t n = atomic_load_explicit(&nframes, memory_order_relaxed);
            if (n >= FRAME_MAX)
                return 0;
            id = n + 1;
            frames[id] = (pyframe){q, f, line};
            frame_slots[i] = id;
            atomic_store_explicit(&nframes, id, memory_order_release);
            return id;
        }
        if (frames[id].qualname == q && frames[id].file == f && frames[id].line == line)
            return id;
    }
    return 0;
}

/* A str object's text as UTF-8 into buf (at most STR_MAX characters);
 * its length, or -1 when obj is not a compact str. */
static int read_str(uintptr_t obj, char *buf, size_t cap)
{
    uint8_t head[80];
    if (!readable(obj, L.ascii_size) || L.compact_size > sizeof head ||
        vm_read(head, obj, L.compact_size) != (long)L.compact_size ||
        *(const uintptr_t *)(head + OB_TYPE) != str_type)
        return -1;
    int64_t len = *(const int64_t *)(head + STR_LENGTH);
    uint32_t state = *(const uint32_t *)(head + STR_STATE);
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || len < 0 || (kind != 1 && kind != 2 && kind != 4))
        return -1;
    if (len > STR_MAX)
        len = STR_MAX;
    uint8_t raw[STR_MAX * 4];
    uintptr_t data = obj + (ascii ? L.ascii_size : L.compact_size);
    size_t bytes = (size_t)len * kind;
    if (bytes && vm_read(raw, data, bytes) != (long)bytes)
        return -1;
    size_t w = 0;
    for (int64_t i = 0; i < len; i++) {
        uint32_t c = kind == 1 ? raw[i] : kind == 2 ? ((const uint16_t *)raw)[i]
                                                    : ((const uint32_t *)raw)[i];
        if (w + 4 >= cap)
            break;
        if (c < 0x80)
            buf[w++] = (char)c;
        else if (c < 0x800) {
            buf[w++] = (char)(0xc0 | (c >> 6));
            buf[w++] = (char)(0x80 | (c & 63));
        }
        else if (c < 0x10000) {
            buf[w++] = (char)(0xe0 | (c >> 12));
            buf[w++] = (char)(0x80 | ((c >> 6) & 63));
            buf[w++] = (char)(0x80 | (c & 63));
        }
        else if (c < 0x110000) {
            buf[w++] = (char)(0xf0 | (c >> 18));
            buf[w++] = (char)(0x80 | ((c >> 12) & 63));
            buf[w++] = (char)(0x80 | ((c >> 6) & 63));
            buf[w++] = (char)(0x80 | (c & 63));
        }
        else
            return -1;
    }
    return (int)w;
}

/* Under lock: a frame never met, from its code object (checked: PyCode_Type)
 * and instruction index; its id, or 0. */
static uint32_t frame_new(uintptr_t code, int lasti)
{
    static char name[STR_MAX * 4 + 8], file[STR_MAX * 4 + 8];
    int nl = read_str(AT(code, L.co_qualname, uintptr_t), name, sizeof name);
    int fl = read_str(AT(code, L.co_filename, uintptr_t), file, sizeof file);
    if (nl < 0 || fl < 0)
        return 0;
    /* the line table: a bytes object */
    uintptr_t tab = AT(code, L.co_linetable, uintptr_t);
    uint8_t head[BYTES_SVAL];
    if (!readable(tab, BYTES_SVAL) || vm_read(head, tab, sizeof head) != (long)sizeof head ||
        *(const uintptr_t *)(head + OB_TYPE) != bytes_type)
        return 0;
    int64_t tlen = *(const int64_t *)(head + OB_SIZE);
    if (tlen < 0 || tlen > (1 << 24))
        return 0;
    tab_reader r = {.src = tab + BYTES_SVAL, .len = (size_t)tlen};
    int line = addr2line(L.minor, &r, AT(code, L.co_firstlineno, int32_t), lasti * 2);
    const char *q = str_intern(name, (size_t)nl), *f = str_intern(file, (size_t)fl);
    if (!q || !f)
        return 0;
    return frame_intern(q, f, line > 0 ? (uint32_t)line : 0);
}

/* What tells the code object at code from one made later at its address:
 * 3.12+ its co_version, a serial number; before, (or once that counter
 * ran out) its name and file objects and first line. */
/* What tells the code object at code from one made later at its address:
 * 3.12+ its co_version, a serial number; before (or once that counter ran
 * out) a hash of its name and file objects and first line, top bit set. */
static inline __attribute__((always_inline)) uint32_t stamp_at(const layout *t, uintptr_t code)
{
    if (t->co_version != NONE_OFF) {
        uint32_t v = AT(code, t->co_version, uint32_t);
        if (v && !(v >> 31))
            return v;
    }
    uintptr_t n = AT(code, t->co_qualname, uintptr_t), f = AT(code, t->co_filename, uintptr_t);
    uint64_t h = (n ^ (f << 17 | f >> 47)) * 0x9e3779b97f4a7c15ull ^
                 (uint32_t)AT(code, t->co_firstlineno, int32_t);
    return (uint32_t)(h ^ h >> 32) | 1u << 31;
}

static uint32_t stamp_of(uintptr_t code)
{
    return stamp_at(&L, code);
}

static inline uint32_t code_slot(uintptr_t code, int lasti)
{
    return (uint32_t)mix(code ^ ((uint64_t)(uint32_t)lasti << 47)) & (CODE_SLOTS - 1);
}

/* The frame id of (code, lasti), code checked: the shared cache, or the
 * slow way. 0: none. */
static __attribute__((noinline)) uint32_t frame_id(uintptr_t code, int lasti, uint32_t stamp)
{
    uint32_t i = code_slot(code, lasti);
    for (uint32_t p = 0; p < CODE_PROBE; p++, i = (i + 1) & (CODE_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&codes[i].code, memory_order_acquire);
        if (k == 0)
            break;
        if (k == code && codes[i].lasti == lasti && codes[i].stamp == stamp)
            return codes[i].id;
    }
    /* new */
    int saved = errno;
    pthread_mutex_lock(&lock);
    uint32_t id = frame_new(code, lasti);
    if (id) {
        i = code_slot(code, lasti);
        for (uint32_t p = 0; p < CODE_PROBE; p++, i = (i + 1) & (CODE_SLOTS - 1)) {
            uintptr_t k = atomic_load_explicit(&codes[i].code, memory_order_relaxed);
            if (k == code && codes[i].lasti == lasti && codes[i].stamp == stamp)
                break;   /* another thread put it in */
            if (k != 0)
                continue;
            codes[i].stamp = stamp;
            codes[i].lasti = lasti;
            codes[i].id = id;
            atomic_store_explicit(&codes[i].code, code, memory_order_release);
            atomic_fetch_add_explicit(&ncodes, 1, memory_order_relaxed);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
    return id;
}

/* ---- the walk --------------------------------------------------------------- */

#define WALK_MAX 160                 /* frames followed, entry frames and frames not
                                        started included (each remembered: MEMO) */
#define SEG_MAX 256                  /* evaluations */
#define MEMO_MAX WALK_MAX

typedef struct walk {
    uint32_t ids[WALK_MAX];
    int n;                           /* frames in ids */
    uint16_t seg_end[SEG_MAX];       /* segment s: ids [seg_end[s-1], seg_end[s]) */
    int nseg;
    int cut;                         /* the chain went on past WALK_MAX or SEG_MAX */
    int steps;                       /* frames followed */
    int misses;                      /* steps the memo did not know */
} walk;

/* What the thread's last walks met at each step: a frame seen again with
 * the same code object (stamp) at the same instruction is the same Python
 * frame, checked already: its id is taken from here, without the checks
 * and the shared cache. Per thread, made on its first Python stack
 * (mmap'ed: freed at the thread's end). */
typedef struct memo_ent {
    uintptr_t f, code, instr;
    uint32_t stamp;                  /* stamp_of(code) */
    uint32_t epoch;                  /* the code-object counter when the stamp was last
                                        checked (3.12+; 0: never) */
    uint32_t id;                     /* 0: no frame to show (not started, no code) */
    uint32_t owner;                  /* owner | is_entry << 8 */
} memo_ent;

typedef struct memo {
    memo_ent e[MEMO_MAX];
    /* the thread's last stack: a capture whose native frames are these and
     * whose walk met only memo entries, as many as last time, is that stack
     * again (its id: no splice, no interning) */
    int last_steps;                  /* steps of the last walk (-1: none to reuse) */
    int last_n;
    uint32_t last_id;                /* its id, once interned (cuprof_py_remember) */
    uintptr_t last_pcs[CUPROF_STACK_NATIVE_MAX];
} memo;

static __thread memo *tls_memo __attribute__((tls_model("initial-exec")));
static __thread int tls_memo_failed __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static int memo_key_ok;

static void memo_free(void *m)
{
    munmap(m, sizeof(memo));
}

static __attribute__((noinline)) memo *memo_make(void)
{
    if (tls_memo_failed)
        return NULL;
    memo *m = mmap(NULL, sizeof(memo), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || !memo_key_ok || pthread_setspecific(memo_key, m) != 0) {
        if (m != MAP_FAILED)
            munmap(m, sizeof(memo));
        tls_memo_failed = 1;
        return NULL;
    }
    tls_memo = m;
    return m;
}

static inline void seg_close(walk *w)
{
    if (w->nseg < SEG_MAX)
        w->seg_end[w->nseg++] = (uint16_t)w->n;
    else
        w->cut = 1;
}

/* A frame met for the first time at this step: checked; its id (0: none
 * to show), or -1 when a check fails. */
static __attribute__((noinline)) int64_t frame_checked(uintptr_t f, uintptr_t code, uintptr_t instr,
                                                       int owner, uint32_t *stamp)
{
    if (!readable(code, L.code_basicsize) || AT(code, OB_TYPE, uintptr_t) != code_type)
        return L.minor >= 13 ? 0 : -1;   /* 3.13: f_executable may be other than code */
    *stamp = stamp_of(code);
    int64_t lasti;
    if (L.minor == 10) {
        if (AT(f, OB_TYPE, uintptr_t) != frame_type)
            return -1;
        lasti = (int32_t)instr;
        uintptr_t bytes = AT(code, L.co_code, uintptr_t);
        if (!readable(bytes, BYTES_SVAL) || lasti < -1 || lasti * 2 >= AT(bytes, OB_SIZE, int64_t))
            return -1;
    }
    else {
        lasti = ((intptr_t)instr - (intptr_t)(code + L.co_code)) / 2;
        if (lasti < -1 || lasti >= AT(code, OB_SIZE, int64_t))   /* code units */
            return -1;
        /* _PyFrame_IsIncomplete: not started yet, as traceback skips it */
        if (owner != OWNED_BY_GENERATOR && lasti < AT(code, L.co_firsttraceable, int32_t))
            return 0;
    }
    uint32_t id = frame_id(code, (int)lasti, *stamp);
    return id ? (int64_t)id : -1;
}

/* 1: w holds the chain; 0: a check failed (no Python frames then). One
 * copy per version (t: a constant), so that its offsets are too. */
/* A frame the memo did not know at this step: checked, remembered; its id
 * (0: none to show), or -1 when a check fails. */
static __attribute__((noinline)) int64_t step_miss(memo_ent *me, uintptr_t f, uintptr_t code,
                                                   uintptr_t instr, int owner, int key,
                                                   uint32_t epoch)
{
    uint32_t stamp = 0;
    int64_t r = frame_checked(f, code, instr, owner, &stamp);
    if (r >= 0)   /* not an object that is not code (stamp 0): its fields are not read again */
        *me = (memo_ent){stamp ? f : 0, code, instr, stamp, epoch, (uint32_t)r, (uint32_t)key};
    return r;
}

/* The memo's stamp still the code object's: 3.12+ one load (co_version). */
static inline __attribute__((always_inline)) int stamp_same(const layout *t, uintptr_t code,
                                                           uint32_t stamp)
{
    if (t->co_version != NONE_OFF) {
        uint32_t v = AT(code, t->co_version, uint32_t);
        if (__builtin_expect(v != 0 && !(v >> 31), 1))
            return v == stamp;
    }
    return stamp_at(t, code) == stamp;
}

/* 1: w holds the chain; 0: a check failed (no Python frames then). One
 * copy per version (t: a constant), so that its offsets are too. */
static inline __attribute__((always_inline)) int walk_impl(const layout *t, uintptr_t head,
                                                           walk *restrict w, memo_ent *restrict e,
                                                           uint32_t epoch)
{
    uintptr_t f = head;
    int n = 0, step = 0, misses = 0;
    for (; f; step++) {
        if (__builtin_expect(step == WALK_MAX, 0)) {   /* n <= step: ids has room */
            w->cut = 1;
            break;
        }
        memo_ent *me = &e[step];
        if (me->f != f && !readable(f, t->fr_size))
            return 0;
        uintptr_t back = AT(f, t->fr_back, uintptr_t);
        int owner = t->fr_owner == NONE_OFF ? 0 : AT(f, t->fr_owner, int8_t);
        if (t->minor >= 12 && owner == OWNED_BY_CSTACK) {   /* an evaluation's entry frame */
            if (!(me->f == f && me->owner == OWNED_BY_CSTACK)) {
                misses++;
                *me = (memo_ent){f, 0, 0, 0, 0, 0, OWNED_BY_CSTACK};
            }
            w->n = n;
            seg_close(w);
            f = back;
            continue;
        }
        if (owner < 0 || owner > OWNED_BY_FRAME_OBJECT)
            return 0;
        /* 3.11: is_entry, kept with the owner */
        int entry = t->minor == 11 && AT(f, t->fr_entry, uint8_t);
        int key = owner | entry << 8;
        uintptr_t code = AT(f, t->fr_code, uintptr_t);
        uintptr_t instr = t->minor == 10 ? (uintptr_t)(uint32_t)AT(f, t->fr_instr, int32_t)
                                         : AT(f, t->fr_instr, uintptr_t);
        int64_t id;
        /* a frame seen here before: the same code object still if no code
         * object was made since its stamp was checked (3.12+: the counter
         * co_version comes from did not move), else by its stamp */
        /* 3.12+: the instruction lies in the code object: the same one, or
         * one made since over its memory (its co_version tells) */
        if (me->f == f && me->instr == instr && (t->minor >= 12 || me->code == code) &&
            me->owner == (uint32_t)key &&
            ((epoch && me->epoch == epoch) || (stamp_same(t, code, me->stamp) &&
                                               (me->epoch = epoch, 1))))
            id = me->id;
        else {
            misses++;
            if ((id = step_miss(me, f, code, instr, owner, key, epoch)) < 0)
                return 0;
        }
        w->ids[n] = (uint32_t)id;
        n += id != 0;
        if (t->minor == 10 || entry) {
            w->n = n;
            seg_close(w);
        }
        f = back;
    }
    w->n = n;
    w->steps = step;
    w->misses = misses;
    /* 3.11+: frames after the last entry frame would be an evaluation of
     * their own (never seen; the chain ends at an entry frame) */
    if (w->n > (w->nseg ? w->seg_end[w->nseg - 1] : 0))
        seg_close(w);
    return 1;
}

static int py_walk_in(uintptr_t head, walk *w, memo_ent *e, uint32_t epoch)
{
    switch (L.minor) {
    case 10:
        return walk_impl(&layouts[0], head, w, e, 0);
    case 11:
        return walk_impl(&layouts[1], head, w, e, 0);
    case 12:
        return walk_impl(&layouts[2], head, w, e, epoch);
    default:
        return walk_impl(&layouts[3], head, w, e, epoch);
    }
}

/* No memo of its own (its mmap failed): one on the stack, for this walk. */
static __attribute__((noinline)) int py_walk_alone(uintptr_t head, walk *w)
{
    memo_ent e[MEMO_MAX];
    memset(e, 0, sizeof e);
    int r = py_walk_in(head, w, e, 0);
    w->misses = 1;   /* nothing to reuse */
    return r;
}

/* The counter every new code object takes its co_version from (3.12+),
 * or 0 when it is not known or ran out. */
static inline uint32_t epoch_now(uintptr_t ts)
{
    uint32_t v = 0;
    if (epoch_addr)
        v = atomic_load_explicit(epoch_addr, memory_order_relaxed);
    else if (L.ep_interp != NONE_OFF) {
        uintptr_t in = AT(ts, TS_INTERP, uintptr_t);
        if (!readable(in, L.ep_interp + 4))
            return 0;
        v = atomic_load_explicit((const _Atomic uint32_t *)(in + L.ep_interp), memory_order_relaxed);
    }
    return v;
}

static int py_walk(uintptr_t ts, uintptr_t head, walk *w, memo *m)
{
    return m ? py_walk_in(head, w, m->e, epoch_now(ts)) : py_walk_alone(head, w);
}

/* The head of the calling thread's chain: the frame pointer, or 0. */
static inline uintptr_t chain_head(uintptr_t ts)
{
    uintptr_t p = AT(ts, L.ts_frame, uintptr_t);
    if (L.cf_current == NONE_OFF || !p)
        return p;
    if (!readable(p, L.cf_current + 8))
        return 0;
    return AT(p, L.cf_current, uintptr_t);
}

/* ---- the splice --------------------------------------------------------------- */

static inline int in_eval(uintptr_t pc)
{
    for (int i = 0; i < n_eval; i++)
        if (pc > eval_lo[i] && pc <= eval_hi[i])   /* a return address: the call is before */
            return 1;
    return 0;
}

/* A native frame left out of a stack with Python frames: the interpreter's
 * own, but main. */
static inline int interp_frame(uintptr_t pc)
{
    return pc > interp_lo && pc <= interp_hi && !(pc > main_lo && pc <= main_hi);
}

int cuprof_py_splice(const uintptr_t *pcs, int n, uintptr_t *out, int max, uint32_t *same_id)
{
    /* not while the interpreter is ending: other threads' states are freed */
    if (AT(runtime, L.rt_finalizing, uintptr_t) != 0)
        return -1;
    uintptr_t ts = (uintptr_t)get_tstate();
    if (!ts || !readable(ts, L.ts_frame + 8) || !readable(ts + L.ts_thread_id, 8) ||
        AT(ts, L.ts_thread_id, unsigned long) != (unsigned long)pthread_self())
        return -1;
    uintptr_t head = chain_head(ts);
    if (!head)
        return -1;
    walk w;
    w.n = w.nseg = w.cut = 0;
    memo *m = tls_memo;
    if (__builtin_expect(!m, 0))
        m = memo_make();
    if (!py_walk(ts, head, &w, m) || chain_head(ts) != head) {
        atomic_fetch_add_explicit(&st_dropped, 1, memory_order_relaxed);
        if (m)
            m->last_steps = -1;
        return -1;
    }
    if (w.n == 0) {   /* only frames not started yet */
        if (m)
            m->last_steps = -1;   /* the memo moved on from the last stack */
        return -1;
    }
    if (m) {
        /* the same stack as the thread's last one */
        if (w.misses == 0 && w.steps == m->last_steps && n == m->last_n && m->last_id &&
            !memcmp(pcs, m->last_pcs, (size_t)n * sizeof *pcs)) {
            *same_id = m->last_id;
            return 0;
        }
        m->last_steps = n <= CUPROF_STACK_NATIVE_MAX ? w.steps : -1;
        m->last_n = n;
        m->last_id = 0;
        if (n <= CUPROF_STACK_NATIVE_MAX)
            memcpy(m->last_pcs, pcs, (size_t)n * sizeof *pcs);
    }
    int n_ev = 0;
    for (int i = 0; i < n; i++)
        n_ev += in_eval(pcs[i]);
    int k = 0, seg = 0;
    if (n_ev == w.nseg && !w.cut) {
        /* each evaluation frame becomes its Python frames */
        for (int i = 0; i < n && k < max; i++) {
            if (in_eval(pcs[i])) {
                for (int j = seg ? w.seg_end[seg - 1] : 0; j < w.seg_end[seg] && k < max; j++)
                    out[k++] = CUPROF_PY_PC | w.ids[j];
                seg++;
            }
            else if (!interp_frame(pcs[i]))
                out[k++] = pcs[i];
        }
    }
    else {
        /* natives to the first evaluation frame, the Python frames, the
         * natives after the last one */
        atomic_fetch_add_explicit(&st_unmatched, 1, memory_order_relaxed);
        int first = n, last = n;
        for (int i = 0; i < n; i++)
            if (in_eval(pcs[i])) {
                if (first == n)
                    first = i;
                last = i;
            }
        for (int i = 0; i < first && k < max; i++)
            if (!interp_frame(pcs[i]))
                out[k++] = pcs[i];
        for (int j = 0; j < w.n && k < max; j++)
            out[k++] = CUPROF_PY_PC | w.ids[j];
        for (int i = last + 1; i < n && k < max; i++)
            if (!interp_frame(pcs[i]))
                out[k++] = pcs[i];
    }
    return k;
}

void cuprof_py_remember(uint32_t id)
{
    memo *m = tls_memo;
    if (m && m->last_steps >= 0)
        m->last_id = id;
}

/* ---- finding the interpreter --------------------------------------------------- */

typedef struct find_mod {
    uintptr_t addr;              /* in: an address of the object */
    uintptr_t lo, hi;            /* out: its mapped range */
    const char *libpython;       /* in/out: the path of a libpython3 found */
    char path[512];
} find_mod;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    find_mod *fm = data;
    uintptr_t lo, hi;
    cuprof_object_range(info, &lo, &hi);
    if (fm->addr) {
        if (fm->addr >= lo && fm->addr < hi) {
            fm->lo = lo;
            fm->hi = hi;
            return 1;
        }
        return 0;
    }
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!strncmp(base, "libpython3", 10)) {
        snprintf(fm->path, sizeof fm->path, "%s", name);
        fm->libpython = fm->path;
        return 1;
    }
    return 0;
}

typedef struct sym_scan {
    uintptr_t base;
    int n;
    uintptr_t lo[EVAL_RANGES], hi[EVAL_RANGES];
    uintptr_t main_lo, main_hi;
} sym_scan;

static void on_function(const char *name, uint64_t value, uint64_t size, void *ctx)
{
    sym_scan *s = ctx;
    static const char eval[] = "_PyEval_EvalFrameDefault";
    if (!strncmp(name, eval, sizeof eval - 1) &&
        (name[sizeof eval - 1] == '\0' || name[sizeof eval - 1] == '.') && size > 0 &&
        s->n < EVAL_RANGES) {
        s->lo[s->n] = s->base + value;
        s->hi[s->n] = s->base + value + size;
        s->n++;
    }
    else if (!strcmp(name, "main") && size > 0) {
        s->main_lo = s->base + value;
        s->main_hi = s->base + value + size;
    }
}

/* One symbol of the interpreter, from handle h (RTLD_DEFAULT or libpython's). */
static uintptr_t sym(void *h, const char *name)
{
    return (uintptr_t)cuprof_libc_dlsym(h, name);
}

/* The version as 0xMMmm (3.10 -> 0x030a), or 0. */
static unsigned version_of(void *h, char *text, size_t cap)
{
    const unsigned long *pv = (const unsigned long *)sym(h, "Py_Version");
    const char *(*get_version)(void) = (const char *(*)(void))sym(h, "Py_GetVersion");
    unsigned major = 0, minor = 0, micro = 0;
    if (pv) {
        major = (unsigned)(*pv >> 24) & 0xff;
        minor = (unsigned)(*pv >> 16) & 0xff;
        micro = (unsigned)(*pv >> 8) & 0xff;
    }
    else if (get_version) {
        const char *v = get_version();
        if (!v || sscanf(v, "%u.%u.%u", &major, &minor, &micro) < 2)
            return 0;
    }
    else
        return 0;
    snprintf(text, cap, "%u.%u.%u", major, minor, micro);
    return major << 8 | minor;
}

/* 3.13: _Py_DebugOffsets at the head of _PyRuntime (3.13.x's layout of it:
 * stable within 3.13) must say what our table says. */
static const char *check_debug_offsets(const layout *t)
{
    const unsigned char *d = (const unsigned char *)runtime;
    if (memcmp(d, "xdebugpy", 8) != 0)
        return "no _Py_DebugOffsets at the head of _PyRuntime";
    uint64_t v[96];
    memcpy(v, d + 8, sizeof v);
    if ((v[0] >> 16) != 0x030d)
        return "_Py_DebugOffsets names another version";
    if (v[1] != 0)
        return "a free-threaded build";
    /* [0] version [1] free_threaded [2..4] runtime_state (size, finalizing,
     * interpreters_head) [5..17] interpreter_state [18..26] thread_state
     * (size, prev, next, interp, current_frame, thread_id, native_thread_id,
     * datastack_chunk, status) [27..32] interpreter_frame (size, previous,
     * executable, instr_ptr, localsplus, owner) [33..42] code_object (size,
     * filename, name, qualname, linetable, firstlineno, argcount,
     * localsplusnames, localspluskinds, co_code_adaptive) ... unicode_object
     * (size, state, length, asciiobject_size) */
    const struct {
        unsigned idx;
        uint32_t want;
    } checks[] = {
        {3, t->rt_finalizing},   {22, t->ts_frame},       {23, t->ts_thread_id},
        {28, t->fr_back},        {29, t->fr_code},        {30, t->fr_instr},
        {32, t->fr_owner},       {34, t->co_filename},    {35, t->co_name},
        {36, t->co_qualname},    {37, t->co_linetable},   {38, t->co_firstlineno},
        {42, t->co_code},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (v[checks[i].idx] != checks[i].want)
            return "its _Py_DebugOffsets differ from 3.13's layout";
    /* then pyobject [43, 44] (size, ob_type), type_object [45..48], tuple
     * [49..51], list [52..54], dict [55..57], float [58, 59], long
     * [60..62], bytes [63..65] (size, ob_size, ob_sval), unicode_object
     * [66..69] (size, state, length, asciiobject_size) */
    if (v[44] != OB_TYPE || v[64] != OB_SIZE || v[65] != BYTES_SVAL || v[67] != STR_STATE ||
        v[68] != STR_LENGTH || v[69] != t->ascii_size)
        return "its _Py_DebugOffsets differ from 3.13's layout (objects)";
    return NULL;
}

/* Under lock: looks for CPython; publishes cuprof_py_ready when its frames
 * can be read. Returns 1 when the question is settled (found, or found
 * and not readable), 0 when there is no Python yet. */
static int setup(void)
{
    void *h = RTLD_DEFAULT;
    int saved = errno;
    runtime = sym(h, "_PyRuntime");
    if (!runtime) {   /* libpython loaded RTLD_LOCAL by an embedding program */
        find_mod fm = {0};
        dl_iterate_phdr(find_object, &fm);
        if (fm.libpython && (h = dlopen(fm.libpython, RTLD_NOLOAD | RTLD_LAZY)) != NULL)
            runtime = sym(h, "_PyRuntime");
        /* the handle is kept: the interpreter must not go away under us */
    }
    errno = saved;
    if (!runtime)
        return 0;
    char ver[32] = "?";
    const char *why = NULL;
    unsigned v = version_of(h, ver, sizeof ver);
    const layout *t = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (v == (0x300u | (unsigned)layouts[i].minor))
            t = &layouts[i];
    code_type = sym(h, "PyCode_Type");
    frame_type = sym(h, "PyFrame_Type");
    str_type = sym(h, "PyUnicode_Type");
    bytes_type = sym(h, "PyBytes_Type");
    *(void **)&get_tstate = cuprof_libc_dlsym(h, "PyGILState_GetThisThreadState");
    uintptr_t eval = sym(h, "_PyEval_EvalFrameDefault");
    if (!t)
        why = "this cuprof reads CPython 3.10 to 3.13";
    else if (!code_type || !frame_type || !str_type || !bytes_type || !get_tstate || !eval)
        why = "symbols missing (PyCode_Type, PyGILState_GetThisThreadState, "
              "_PyEval_EvalFrameDefault)";
    else if (sym(h, "_Py_NegativeRefcount") || sym(h, "_Py_PrintReferences"))
        why = "a debug build";
    else if (t->minor == 13 && (why = check_debug_offsets(t)) != NULL)
        ;
    else if (AT(code_type, TP_BASICSIZE, int64_t) != (int64_t)t->code_basicsize ||
             AT(str_type, TP_BASICSIZE, int64_t) != (int64_t)t->str_basicsize ||
             (t->frame_basicsize &&
              AT(frame_type, TP_BASICSIZE, int64_t) != (int64_t)t->frame_basicsize) ||
             strcmp(AT(code_type, TP_NAME, const char *), "code") != 0)
        why = "its objects' layout is not the one of its version";
    else {
        uint64_t probe = 0, x = 42;
        if (vm_read(&probe, (uintptr_t)&x, sizeof x) != (long)sizeof x || probe != 42)
            why = "process_vm_readv is not permitted here (a seccomp filter?): frames could "
                  "not be read safely";
    }
    if (why) {
        cuprof_log("stacks: Python %s in this process: its frames are not read (%s); "
                   "its stacks show native frames only",
                   ver, why);
        return 1;
    }
    L = *t;
    /* the evaluation function, its .cold part, and main, from the
     * interpreter object's symbol table; the exported symbol alone without
     * one */
    find_mod fm = {.addr = eval};
    dl_iterate_phdr(find_object, &fm);
    interp_lo = fm.lo;
    interp_hi = fm.hi;
    Dl_info di;
    const ElfW(Sym) *es = NULL;
    sym_scan sc = {0};
    if (dladdr1((void *)eval, &di, (void **)&es, RTLD_DL_SYMENT) && di.dli_fname) {
        sc.base = (uintptr_t)di.dli_fbase;
        /* an executable's dli_fbase is its load address; ELF values of a
         * non-PIE one are absolute */
        if (es && (uintptr_t)di.dli_saddr - es->st_value != sc.base)
            sc.base = (uintptr_t)di.dli_saddr - es->st_value;
        char exe[4096];
        const char *path = di.dli_fname;
        if (path[0] != '/') {   /* the executable */
            ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
            exe[len > 0 ? len : 0] = '\0';
            path = exe;
        }
        cuprof_elf_functions(path, on_function, &sc);
        uint64_t nv;
        if (t->minor == 12 && cuprof_elf_object(path, "_Py_next_func_version", &nv) == 0)
            epoch_addr = (const _Atomic uint32_t *)(sc.base + nv);
    }
    if (sc.n == 0 && es && es->st_size) {
        sc.lo[0] = eval;
        sc.hi[0] = eval + es->st_size;
        sc.n = 1;
    }
    if (sc.n == 0) {
        cuprof_log("stacks: Python %s in this process: the size of _PyEval_EvalFrameDefault is "
                   "unknown; its stacks show native frames only",
                   ver);
        return 1;
    }
    n_eval = sc.n;
    memcpy(eval_lo, sc.lo, sizeof eval_lo);
    memcpy(eval_hi, sc.hi, sizeof eval_hi);
    if (sc.main_lo >= interp_lo && sc.main_hi <= interp_hi) {
        main_lo = sc.main_lo;
        main_hi = sc.main_hi;
    }
    codes = reserve((size_t)CODE_SLOTS * sizeof *codes);
    frames = reserve((size_t)(FRAME_MAX + 1) * sizeof *frames);
    frame_slots = reserve((size_t)FRAME_SLOTS * sizeof *frame_slots);
    str_slots = reserve((size_t)STR_SLOTS * sizeof *str_slots);
    if (!codes || !frames || !frame_slots || !str_slots) {
        cuprof_log("stacks: no memory for the Python frames' tables; native frames only");
        return 1;
    }
    memo_key_ok = pthread_key_create(&memo_key, memo_free) == 0;
    cuprof_debug(CUPROF_DBG_COLLECTOR,
                 "stacks: Python %s: frames read (%d evaluation ranges, interpreter at %#lx-%#lx)",
                 ver, n_eval, (unsigned long)interp_lo, (unsigned long)interp_hi);
    __atomic_store_n(&cuprof_py_ready, 1, __ATOMIC_RELEASE);
    return 1;
}

void cuprof_py_init(int enabled)
{
    enabled_cfg = enabled;
    if (!enabled)
        return;
    pthread_mutex_lock(&lock);
    if (!atomic_load(&looked) && setup())
        atomic_store(&looked, 1);
    pthread_mutex_unlock(&lock);
}

void cuprof_py_retry(void)
{
    if (!enabled_cfg || atomic_load_explicit(&looked, memory_order_relaxed))
        return;
    /* at the 1st, 2nd, 4th, 8th ... new stack: a dlsym costs microseconds */
    uint64_t r = atomic_fetch_add_explicit(&retries, 1, memory_order_relaxed) + 1;
    if (r & (r - 1))
        return;
    pthread_mutex_lock(&lock);
    if (!atomic_load(&looked) && setup())
        atomic_store(&looked, 1);
    pthread_mutex_unlock(&lock);
}

int cuprof_py_frame(uint32_t id, const char **qualname, const char **file, uint32_t *line)
{
    if (id == 0 || id > atomic_load_explicit(&nframes, memory_order_acquire))
        return 0;
    *qualname = frames[id].qualname;
    *file = frames[id].file;
    *line = frames[id].line;
    return 1;
}

void cuprof_py_stats_get(cuprof_py_stats *out)
{
    out->dropped = atomic_load(&st_dropped);
    out->unmatched = atomic_load(&st_unmatched);
    out->frames = atomic_load(&nframes);
    out->codes = atomic_load(&ncodes);
}

void cuprof_py_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void cuprof_py_fork_done(int child)
{
    if (child)
        pthread_mutex_init(&lock, NULL);
    else
        pthread_mutex_unlock(&lock);
}
