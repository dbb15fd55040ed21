/*
 * nvtx_payload.c - NVTX's payload extension: the schemas and enums a library
 * registers (NCCL registers one per API function in its "NCCL" domain:
 * communicator, message size, reduction operation, root or peer), and the
 * text of an event's extended payload, decoded by its schema.
 *
 * NVTX loads extension modules through the same library as the core
 * (NVTX_INJECTION64_PATH) and calls its InitializeInjectionNvtxExtension
 * with the module's function slots; for the payload module we fill
 * nvtxPayloadSchemaRegister and nvtxPayloadEnumRegister (and the payload
 * push, pop and mark calls). A push or mark whose attributes carry an
 * extended payload (payloadType NVTX_PAYLOAD_TYPE_EXT: an array of
 * nvtxPayloadData_t) is recorded with the payload's text interned as its id
 * (preload/nvtx.c): "Name: value, ..." in the schema's entry order, enums
 * by name.
 *
 * Decoded: integers of every width, sizes, floats, addresses, C strings,
 * registered enums. Not decoded (shown as "?"): nested schemas, arrays,
 * unions, wide strings; a registered string shows its handle's number. Schemas and enums are kept in fixed
 * tables (NVTX_SCHEMAS_MAX, NVTX_ENUMS_MAX); one beyond is ignored.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include "preload/hooks.h"
#include "preload/nvtx_payload.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVTX_SCHEMAS_MAX 256
#define NVTX_ENUMS_MAX 64
#define ENTRIES_MAX 32

typedef struct schema_entry {
    uint64_t type, offset;
    char name[48];
} schema_entry;

typedef struct schema {
    uint32_t domain;
    uint64_t id;
    size_t n;
    schema_entry e[ENTRIES_MAX];
} schema;

typedef struct enum_value {
    uint64_t value;
    char name[32];
} enum_value;

typedef struct penum {
    uint32_t domain;
    uint64_t id;
    size_t size, n;
    enum_value v[32];
} penum;

static schema schemas[NVTX_SCHEMAS_MAX];
static penum enums[NVTX_ENUMS_MAX];
static _Atomic size_t nschemas, nenums;      /* published after the entry is filled */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_dynamic = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;

static void copy_name(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* Size and alignment of a predefined entry type; 0 for the others. */
static size_t type_size(uint64_t t)
{
    switch (t) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_UCHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR8:
    case NVTX_PAYLOAD_ENTRY_TYPE_BYTE:
        return 1;
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_USHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR16:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_BF16:
        return 2;
    case NVTX_PAYLOAD_ENTRY_TYPE_INT:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_WCHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR32:
    case NVTX_PAYLOAD_ENTRY_TYPE_TF32:
    case NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY:
    case NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB:
    case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32:
        return 4;
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_SIZE:
    case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
    case NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID:
    case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING:
    case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8:
    case NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE:
        return 8;
    default:
        return 0;
    }
}

static const penum *find_enum(uint32_t domain, uint64_t id)
{
    size_t n = atomic_load_explicit(&nenums, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (enums[i].id == id && enums[i].domain == domain)
            return &enums[i];
    return NULL;
}

static const schema *find_schema(uint32_t domain, uint64_t id)
{
    size_t n = atomic_load_explicit(&nschemas, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (schemas[i].id == id && schemas[i].domain == domain)
            return &schemas[i];
    return NULL;
}

/* ---- registration --------------------------------------------------------- */

static uint64_t NVTX_API schema_register(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t *a)
{
    int err = errno;
    uint64_t id = 0;
    if (a == NULL || !(a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES) || a->entries == NULL)
        goto out;
    pthread_mutex_lock(&reg_lock);
    size_t k = atomic_load_explicit(&nschemas, memory_order_relaxed);
    if (k < NVTX_SCHEMAS_MAX) {
        schema *s = &schemas[k];
        memset(s, 0, sizeof *s);
        s->domain = (uint32_t)(uintptr_t)d;
        s->id = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) ? a->schemaId : next_dynamic++;
        size_t n = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES) ? a->numEntries : ENTRIES_MAX;
        uint64_t at = 0;
        for (size_t i = 0; i < n && i < ENTRIES_MAX && a->entries[i].type != 0; i++) {
            const nvtxPayloadSchemaEntry_t *e = &a->entries[i];
            size_t sz = type_size(e->type);
            if (sz == 0 && find_enum(s->domain, e->type) != NULL)
                sz = find_enum(s->domain, e->type)->size;
            /* no offset given: natural alignment after the previous entry */
            uint64_t off = (e->offset || i == 0 || sz == 0) ? e->offset : (at + sz - 1) / sz * sz;
            s->e[i].type = e->type;
            s->e[i].offset = off;
            copy_name(s->e[i].name, sizeof s->e[i].name, e->name);
            at = off + (sz ? sz : 8);
            s->n = i + 1;
        }
        id = s->id;
        atomic_store_explicit(&nschemas, k + 1, memory_order_release);
    }
    pthread_mutex_unlock(&reg_lock);
out:
    errno = err;
    return id;
}

static uint64_t NVTX_API enum_register(nvtxDomainHandle_t d, const nvtxPayloadEnumAttr_t *a)
{
    int err = errno;
    uint64_t id = 0;
    if (a == NULL || !(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES) || a->entries == NULL)
        goto out;
    pthread_mutex_lock(&reg_lock);
    size_t k = atomic_load_explicit(&nenums, memory_order_relaxed);
    if (k < NVTX_ENUMS_MAX) {
        penum *p = &enums[k];
        memset(p, 0, sizeof *p);
        p->domain = (uint32_t)(uintptr_t)d;
        p->id = (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) ? a->schemaId : next_dynamic++;
        p->size = (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE) && a->sizeOfEnum ? a->sizeOfEnum : 4;
        size_t n = (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES) ? a->numEntries : 0;
        for (size_t i = 0; i < n && i < 32; i++) {
            p->v[i].value = a->entries[i].value;
            copy_name(p->v[i].name, sizeof p->v[i].name, a->entries[i].name);
            p->n = i + 1;
        }
        id = p->id;
        atomic_store_explicit(&nenums, k + 1, memory_order_release);
    }
    pthread_mutex_unlock(&reg_lock);
out:
    errno = err;
    return id;
}

/* ---- decoding ------------------------------------------------------------- */

static uint64_t load_u(const unsigned char *p, size_t sz)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (sz) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static int is_signed(uint64_t t)
{
    return t == NVTX_PAYLOAD_ENTRY_TYPE_CHAR || t == NVTX_PAYLOAD_ENTRY_TYPE_SHORT ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT || t == NVTX_PAYLOAD_ENTRY_TYPE_LONG ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG || t == NVTX_PAYLOAD_ENTRY_TYPE_INT8 ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT16 || t == NVTX_PAYLOAD_ENTRY_TYPE_INT32 ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT64;
}

/* Appends one value's text to buf at *o. */
static void put_value(char *buf, size_t len, size_t *o, uint32_t domain, const schema_entry *e,
                      const unsigned char *p, size_t avail)
{
    size_t sz = type_size(e->type);
    const penum *en = sz == 0 ? find_enum(domain, e->type) : NULL;
    if (en != NULL)
        sz = en->size;
    int w = 0;
    if (sz == 0 || e->offset + sz > avail) {
        w = snprintf(buf + *o, len - *o, "?");
    } else if (en != NULL) {
        uint64_t v = load_u(p + e->offset, sz);
        const char *name = NULL;
        for (size_t i = 0; i < en->n && !name; i++)
            if (en->v[i].value == v)
                name = en->v[i].name;
        w = name ? snprintf(buf + *o, len - *o, "%s", name)
                 : snprintf(buf + *o, len - *o, "%llu", (unsigned long long)v);
    } else {
        uint64_t v = load_u(p + e->offset, sz);
        switch (e->type) {
        case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
        case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32: {
            float f;
            memcpy(&f, p + e->offset, 4);
            w = snprintf(buf + *o, len - *o, "%g", (double)f);
            break;
        }
        case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
        case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64: {
            double f;
            memcpy(&f, p + e->offset, 8);
            w = snprintf(buf + *o, len - *o, "%g", f);
            break;
        }
        case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
            w = snprintf(buf + *o, len - *o, "0x%llx", (unsigned long long)v);
            break;
        case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING:
        case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8: {
            const char *s = (const char *)(uintptr_t)v;
            w = snprintf(buf + *o, len - *o, "%.64s", s ? s : "");
            break;
        }
        default:
            if (is_signed(e->type)) {
                int64_t s = sz == 1 ? (int8_t)v : sz == 2 ? (int16_t)v : sz == 4 ? (int32_t)v : (int64_t)v;
                w = snprintf(buf + *o, len - *o, "%lld", (long long)s);
            } else {
                w = snprintf(buf + *o, len - *o, "%llu", (unsigned long long)v);
            }
        }
    }
    if (w > 0)
        *o = *o + (size_t)w < len ? *o + (size_t)w : len - 1;
}

/* The text of a payload seen before on this thread: the same domain,
 * schema and bytes give the same text (NCCL passes the same communicator,
 * size and operation call after call), so it is decoded and interned once.
 * A schema with a C string is not cached (its bytes hold a pointer, not the
 * text). Direct-mapped, per thread: no lock. */
#define PAYLOAD_CACHE 64
#define PAYLOAD_CACHE_BYTES 48
typedef struct payload_memo {
    uint64_t schema;
    uint32_t domain, id;   /* id: the text's string id, 0 = empty slot */
    uint32_t size;
    unsigned char bytes[PAYLOAD_CACHE_BYTES];
} payload_memo;
/* Each thread's cache, allocated at its first payload (a thread that sends
 * none pays nothing, and the library's static TLS, which glibc takes from
 * every thread's stack, stays small), freed when the thread ends. */
static _Thread_local payload_memo *memo;
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;
static int memo_key_ok;

static void memo_key_make(void)
{
    memo_key_ok = pthread_key_create(&memo_key, free) == 0;
}

/* This thread's cache, or NULL (out of memory: no caching). */
static payload_memo *memo_get(void)
{
    if (memo == NULL) {
        pthread_once(&memo_once, memo_key_make);
        if (!memo_key_ok || (memo = calloc(PAYLOAD_CACHE, sizeof *memo)) == NULL)
            return NULL;
        if (pthread_setspecific(memo_key, memo) != 0) {
            free(memo);
            memo = NULL;
        }
    }
    return memo;
}

static int cacheable(const schema *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING || s->e[i].type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8)
            return 0;
    return 1;
}

static uint32_t decode(uint32_t domain, const nvtxPayloadData_t *pd, size_t count);

uint32_t cuprof_nvtx_payload_text(uint32_t domain, const void *data, size_t count)
{
    const nvtxPayloadData_t *pd = data;
    if (pd == NULL || count != 1 || pd->payload == NULL || pd->size > PAYLOAD_CACHE_BYTES)
        return decode(domain, pd, count);
    const schema *s = find_schema(domain, pd->schemaId);
    payload_memo *cache = s != NULL && cacheable(s) ? memo_get() : NULL;
    if (cache == NULL)
        return decode(domain, pd, count);
    uint64_t h = pd->schemaId * 0x9E3779B97F4A7C15ull ^ domain;
    const unsigned char *b = pd->payload;
    for (size_t i = 0; i < pd->size; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    payload_memo *m = &cache[(h ^ h >> 32) % PAYLOAD_CACHE];
    if (m->id && m->schema == pd->schemaId && m->domain == domain && m->size == pd->size &&
        memcmp(m->bytes, b, pd->size) == 0)
        return m->id;
    uint32_t id = decode(domain, pd, count);
    if (id) {
        m->schema = pd->schemaId, m->domain = domain, m->size = (uint32_t)pd->size, m->id = id;
        memcpy(m->bytes, b, pd->size);
    }
    return id;
}

static uint32_t decode(uint32_t domain, const nvtxPayloadData_t *pd, size_t count)
{
    char buf[512];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t k = 0; pd != NULL && k < count && k < 8; k++) {
        const schema *s = find_schema(domain, pd[k].schemaId);
        if (s == NULL || pd[k].payload == NULL)
            continue;
        for (size_t i = 0; i < s->n && o + 2 < sizeof buf; i++) {
            int w = snprintf(buf + o, sizeof buf - o, "%s%s: ", o ? ", " : "", s->e[i].name);
            if (w > 0)
                o = o + (size_t)w < sizeof buf ? o + (size_t)w : sizeof buf - 1;
            put_value(buf, sizeof buf, &o, domain, &s->e[i], pd[k].payload, pd[k].size);
        }
    }
    return o ? cuprof_string_intern(buf) : 0;
}

uint32_t cuprof_nvtx_attr_payload(uint32_t domain, const void *attr)
{
    const nvtxEventAttributes_t *a = attr;
    if (a == NULL || a->size < sizeof *a || a->payloadType != NVTX_PAYLOAD_TYPE_EXT)
        return 0;
    int err = errno;
    uint32_t id = cuprof_nvtx_payload_text(domain, (const void *)(uintptr_t)a->payload.ullValue,
                                           a->reserved0 > 0 ? (size_t)a->reserved0 : 1);
    errno = err;
    return id;
}

/* ---- the module ----------------------------------------------------------- */

static int NVTX_API push_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t count)
{
    return cuprof_nvtx_push((uint32_t)(uintptr_t)d, 0,
                            cuprof_nvtx_payload_text((uint32_t)(uintptr_t)d, pd, count));
}
static int NVTX_API pop_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t count)
{
    (void)pd, (void)count;
    return cuprof_nvtx_pop((uint32_t)(uintptr_t)d);
}
static void NVTX_API mark_payload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t count)
{
    cuprof_nvtx_mark((uint32_t)(uintptr_t)d, 0, cuprof_nvtx_payload_text((uint32_t)(uintptr_t)d, pd, count));
}
static uint8_t NVTX_API domain_enabled(nvtxDomainHandle_t d)
{
    (void)d;
    return 1;
}

#define SLOT(f) ((intptr_t)(void (*)(void))(f))

/* Called by each NVTX extension module of a program or library on its first
 * use; 1 when we attached to it (the payload module), else 0. */
PRELOAD_EXPORT int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *info)
{
    if (info == NULL || info->moduleId != NVTX_EXT_PAYLOAD_MODULEID || info->segmentsCount < 1 ||
        info->segments == NULL || info->segments[0].functionSlots == NULL)
        return 0;
    intptr_t *slot = info->segments[0].functionSlots;
    size_t n = info->segments[0].slotCount;
    if (n > NVTX3EXT_CBID_nvtxPayloadSchemaRegister)
        slot[NVTX3EXT_CBID_nvtxPayloadSchemaRegister] = SLOT(schema_register);
    if (n > NVTX3EXT_CBID_nvtxPayloadEnumRegister)
        slot[NVTX3EXT_CBID_nvtxPayloadEnumRegister] = SLOT(enum_register);
    if (n > NVTX3EXT_CBID_nvtxMarkPayload)
        slot[NVTX3EXT_CBID_nvtxMarkPayload] = SLOT(mark_payload);
    if (n > NVTX3EXT_CBID_nvtxRangePushPayload)
        slot[NVTX3EXT_CBID_nvtxRangePushPayload] = SLOT(push_payload);
    if (n > NVTX3EXT_CBID_nvtxRangePopPayload)
        slot[NVTX3EXT_CBID_nvtxRangePopPayload] = SLOT(pop_payload);
    if (n > NVTX3EXT_CBID_nvtxDomainIsEnabled)
        slot[NVTX3EXT_CBID_nvtxDomainIsEnabled] = SLOT(domain_enabled);
    return 1;
}
