/*
 * nvtx.c - NVTX ranges and marks, with no source change and no CUPTI.
 *
 * NVTX v3 is header-only: each library or program that uses it initializes
 * itself on its first NVTX call, dlopens the library NVTX_INJECTION64_PATH
 * names (prof.sh and collector/process_exec.c point it here) and calls its
 * InitializeInjectionNvtx2 with an export-table getter, through which we fill
 * the function tables of the CORE and CORE2 modules. From then on every
 * nvtxRangePush/Pop, Start/End and Mark of that module lands here and is
 * recorded as an instant event (cuprof_instant: same buffers, no lock); the
 * model pairs them into ranges (model/ranges.h). A push or mark with an
 * extended payload (NVTX's payload extension, nvtx_payload.c: NCCL's
 * ranges) carries the payload's decoded text as its event's id.
 *
 * Names are interned by content (registered strings too, at registration),
 * so a name built in a stack buffer is captured whatever happens to the
 * buffer afterwards. Domains are handles holding their name's string id.
 * Slots we leave empty (category and thread naming, resources) keep NVTX's
 * own no-op.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "preload/hooks.h"
#include "preload/nvtx_payload.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* Per thread: the open push ranges' level, for the values Push/Pop return. */
static _Thread_local int push_level;
/* nvtxRangeId_t of start/end ranges: unique in the process, never 0. */
static _Atomic uint64_t next_range_id = 1;

/* A wide string as UTF-8 (wchar_t is UTF-32 on Linux), cut to buf's size. */
static const char *utf8_of(const wchar_t *w, char *buf, size_t len)
{
    size_t o = 0;
    for (; w && *w && o + 5 < len; w++) {
        uint32_t c = (uint32_t)*w;
        if (c < 0x80) {
            buf[o++] = (char)c;
        } else if (c < 0x800) {
            buf[o++] = (char)(0xc0 | (c >> 6));
            buf[o++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            buf[o++] = (char)(0xe0 | (c >> 12));
            buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[o++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x110000) {
            buf[o++] = (char)(0xf0 | (c >> 18));
            buf[o++] = (char)(0x80 | ((c >> 12) & 0x3f));
            buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[o++] = (char)(0x80 | (c & 0x3f));
        }
    }
    buf[o] = '\0';
    return buf;
}

static uint32_t intern_w(const wchar_t *w)
{
    char buf[1024];
    return w ? cuprof_string_intern(utf8_of(w, buf, sizeof buf)) : 0;
}

/* The string id of an event's message (ASCII, wide or registered). */
static uint32_t message_of(const nvtxEventAttributes_t *a)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
        return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return cuprof_string_intern(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return intern_w(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return (uint32_t)(uintptr_t)a->message.registered;
    default:
        return 0;
    }
}

static uint32_t domain_of(nvtxDomainHandle_t d)
{
    return (uint32_t)(uintptr_t)d;
}

/* ---- recording ------------------------------------------------------------ */

int cuprof_nvtx_push(uint32_t domain, uint32_t name, uint32_t payload)
{
    int e = errno;
    cuprof_instant(PRELOAD_API_nvtxRangePush, CUPROF_EV_RANGE_PUSH, name, domain, payload);
    errno = e;
    return push_level++;
}

int cuprof_nvtx_pop(uint32_t domain)
{
    if (push_level <= 0)
        return -1;   /* NVTX's answer to a pop with nothing pushed */
    int e = errno;
    cuprof_instant(PRELOAD_API_nvtxRangePop, CUPROF_EV_RANGE_POP, 0, domain, 0);
    errno = e;
    return --push_level;
}

static nvtxRangeId_t start(uint32_t domain, uint32_t name)
{
    uint64_t id = atomic_fetch_add_explicit(&next_range_id, 1, memory_order_relaxed);
    int e = errno;
    cuprof_instant(PRELOAD_API_nvtxRangeStart, CUPROF_EV_RANGE_START, name, domain, id);
    errno = e;
    return id;
}

static void end(uint32_t domain, nvtxRangeId_t id)
{
    int e = errno;
    cuprof_instant(PRELOAD_API_nvtxRangeEnd, CUPROF_EV_RANGE_END, 0, domain, id);
    errno = e;
}

void cuprof_nvtx_mark(uint32_t domain, uint32_t name, uint32_t payload)
{
    int e = errno;
    cuprof_instant(PRELOAD_API_nvtxMark, CUPROF_EV_MARK, name, domain, payload);
    errno = e;
}

static int push(uint32_t domain, uint32_t name)
{
    return cuprof_nvtx_push(domain, name, 0);
}
static int pop(uint32_t domain)
{
    return cuprof_nvtx_pop(domain);
}
static void mark(uint32_t domain, uint32_t name)
{
    cuprof_nvtx_mark(domain, name, 0);
}

/* ---- CORE ---------------------------------------------------------------------- */

static int NVTX_API core_push_a(const char *m) { return push(0, cuprof_string_intern(m)); }
static int NVTX_API core_push_w(const wchar_t *m) { return push(0, intern_w(m)); }
static int NVTX_API core_push_ex(const nvtxEventAttributes_t *a)
{
    return cuprof_nvtx_push(0, message_of(a), cuprof_nvtx_attr_payload(0, a));
}
static int NVTX_API core_pop(void) { return pop(0); }
static nvtxRangeId_t NVTX_API core_start_a(const char *m) { return start(0, cuprof_string_intern(m)); }
static nvtxRangeId_t NVTX_API core_start_w(const wchar_t *m) { return start(0, intern_w(m)); }
static nvtxRangeId_t NVTX_API core_start_ex(const nvtxEventAttributes_t *a) { return start(0, message_of(a)); }
static void NVTX_API core_end(nvtxRangeId_t id) { end(0, id); }
static void NVTX_API core_mark_a(const char *m) { mark(0, cuprof_string_intern(m)); }
static void NVTX_API core_mark_w(const wchar_t *m) { mark(0, intern_w(m)); }
static void NVTX_API core_mark_ex(const nvtxEventAttributes_t *a)
{
    cuprof_nvtx_mark(0, message_of(a), cuprof_nvtx_attr_payload(0, a));
}

/* ---- CORE2: domains and registered strings ------------------------------------ */

static int NVTX_API d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    return cuprof_nvtx_push(domain_of(d), message_of(a), cuprof_nvtx_attr_payload(domain_of(d), a));
}
static int NVTX_API d_pop(nvtxDomainHandle_t d) { return pop(domain_of(d)); }
static nvtxRangeId_t NVTX_API d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    return start(domain_of(d), message_of(a));
}
static void NVTX_API d_end(nvtxDomainHandle_t d, nvtxRangeId_t id) { end(domain_of(d), id); }
static void NVTX_API d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    cuprof_nvtx_mark(domain_of(d), message_of(a), cuprof_nvtx_attr_payload(domain_of(d), a));
}

/* A registered string's handle is its string id (never 0 for a string). */
static nvtxStringHandle_t NVTX_API d_register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    int e = errno;
    uint32_t id = cuprof_string_intern(s);
    errno = e;
    return (nvtxStringHandle_t)(uintptr_t)id;
}
static nvtxStringHandle_t NVTX_API d_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
    (void)d;
    int e = errno;
    uint32_t id = intern_w(s);
    errno = e;
    return (nvtxStringHandle_t)(uintptr_t)id;
}

/* A domain's handle is its name's string id: two creations of one name are
 * one domain, as in NVTX. An unnamed or failed one is the default domain. */
static nvtxDomainHandle_t NVTX_API d_create_a(const char *name)
{
    int e = errno;
    uint32_t id = cuprof_string_intern(name);
    errno = e;
    return (nvtxDomainHandle_t)(uintptr_t)id;
}
static nvtxDomainHandle_t NVTX_API d_create_w(const wchar_t *name)
{
    int e = errno;
    uint32_t id = intern_w(name);
    errno = e;
    return (nvtxDomainHandle_t)(uintptr_t)id;
}
static void NVTX_API d_destroy(nvtxDomainHandle_t d) { (void)d; }
static void NVTX_API d_initialize(const void *reserved) { (void)reserved; }

/* ---- the injection entry point ----------------------------------------------- */

/* Fills slot cbid of a module's table when the table has it. */
static void fill(NvtxFunctionTable table, unsigned size, unsigned cbid, NvtxFunctionPointer fn)
{
    if (cbid < size && table[cbid])
        *table[cbid] = fn;
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

/* Called by a program's (or library's) NVTX on its first NVTX call; 1 on
 * success. A module whose table cannot be had keeps NVTX's no-ops. */
PRELOAD_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    if (!get_table)
        return 0;
    const NvtxExportTableCallbacks *cb = get_table(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    NvtxFunctionTable t = NULL;
    unsigned n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) && t) {
        fill(t, n, NVTX_CBID_CORE_MarkEx, FN(core_mark_ex));
        fill(t, n, NVTX_CBID_CORE_MarkA, FN(core_mark_a));
        fill(t, n, NVTX_CBID_CORE_MarkW, FN(core_mark_w));
        fill(t, n, NVTX_CBID_CORE_RangeStartEx, FN(core_start_ex));
        fill(t, n, NVTX_CBID_CORE_RangeStartA, FN(core_start_a));
        fill(t, n, NVTX_CBID_CORE_RangeStartW, FN(core_start_w));
        fill(t, n, NVTX_CBID_CORE_RangeEnd, FN(core_end));
        fill(t, n, NVTX_CBID_CORE_RangePushEx, FN(core_push_ex));
        fill(t, n, NVTX_CBID_CORE_RangePushA, FN(core_push_a));
        fill(t, n, NVTX_CBID_CORE_RangePushW, FN(core_push_w));
        fill(t, n, NVTX_CBID_CORE_RangePop, FN(core_pop));
    }
    t = NULL;
    n = 0;
    if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) && t) {
        fill(t, n, NVTX_CBID_CORE2_DomainMarkEx, FN(d_mark_ex));
        fill(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, FN(d_start_ex));
        fill(t, n, NVTX_CBID_CORE2_DomainRangeEnd, FN(d_end));
        fill(t, n, NVTX_CBID_CORE2_DomainRangePushEx, FN(d_push_ex));
        fill(t, n, NVTX_CBID_CORE2_DomainRangePop, FN(d_pop));
        fill(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, FN(d_register_a));
        fill(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, FN(d_register_w));
        fill(t, n, NVTX_CBID_CORE2_DomainCreateA, FN(d_create_a));
        fill(t, n, NVTX_CBID_CORE2_DomainCreateW, FN(d_create_w));
        fill(t, n, NVTX_CBID_CORE2_DomainDestroy, FN(d_destroy));
        fill(t, n, NVTX_CBID_CORE2_Initialize, FN(d_initialize));
    }
    return 1;
}
