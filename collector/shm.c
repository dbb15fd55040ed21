/*
 * shm.c - the library's side of the recording memory prof.sh's supervisor
 * reads after a SIGKILL (collector/shm.h has the layout and the why).
 *
 * Attached once at init when CUPROF_SHM names this run's memory: the file
 * is mapped whole (MAP_SHARED, nothing touched) and its descriptor closed,
 * and the process takes a process slot. Then:
 *   - buffers.c takes a thread slot for each thread's record and chunk
 *     (cuprof_shm_slot_take, populated as its private chunk was) and gives
 *     it back at the thread's end (its pages punched out);
 *   - the names interned and the APIs first used go to the process's names
 *     log (once per name or API: never on the hot path);
 *   - the flusher stamps its heartbeat every round;
 *   - flight.c keeps its ring's state and bytes in the process's area;
 *   - the exit path marks the slot done once the run file is complete (an
 *     exec that fails marks it live again).
 * Nothing here runs per call. Every failure leaves the process recording
 * as it does without a supervisor (private memory, the flusher's 0.1 s).
 */
#include "collector/shm.h"
#include "collector/clock.h"
#include "collector/internal.h"
#include "collector/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static struct {
    uint8_t *base;               /* the whole file, mapped; NULL: not attached */
    uint64_t size;
    const cuprof_shm_header *h;
    cuprof_shm_proc *proc;       /* this process's slot, NULL none */
    uint32_t proc_ix;
    uint32_t hint;               /* where the next thread slot search starts */
} S;

static cuprof_shm_proc *proc_at(uint32_t i)
{
    return (cuprof_shm_proc *)(S.base + S.h->procs_off + (uint64_t)i * S.h->proc_bytes);
}

static _Atomic uint32_t *slot_state(uint32_t i)
{
    return (_Atomic uint32_t *)(S.base + S.h->slot_states_off) + i;
}

static uint8_t *slot_at(uint32_t i)
{
    return S.base + S.h->slots_off + (uint64_t)i * CUPROF_SHM_SLOT_BYTES;
}

static uint8_t *area_of(uint32_t i)
{
    return S.base + S.h->area_off + (uint64_t)i * S.h->area_bytes;
}

/* The file of CUPROF_SHM=FD:PID:TOKEN, checked (a regular file whose header
 * is ours with that token), or -1. *own: 1 when we opened it (else it is the
 * inherited descriptor). */
static int open_checked(int fd, long pid, uint64_t token, int *own, cuprof_shm_header *h)
{
    for (int k = 0; k < 2; k++) {
        int f = fd;
        *own = 0;
        if (k == 1) {   /* the supervisor's own descriptor, by its /proc path */
            char path[64];
            snprintf(path, sizeof path, "/proc/%ld/fd/%d", pid, fd);
            f = open(path, O_RDWR | O_CLOEXEC);
            if (f < 0)
                return -1;
            *own = 1;
        }
        struct stat st;
        if (f >= 0 && fstat(f, &st) == 0 && S_ISREG(st.st_mode) &&
            pread(f, h, sizeof *h, 0) == (ssize_t)sizeof *h &&
            memcmp(h->magic, CUPROF_SHM_MAGIC, sizeof CUPROF_SHM_MAGIC) == 0 &&
            h->version == CUPROF_SHM_VERSION && h->header_bytes == sizeof *h && h->token == token &&
            h->total_bytes <= (uint64_t)st.st_size && h->nslots && h->nprocs &&
            h->proc_bytes >= sizeof(cuprof_shm_proc))
            return f;
        if (*own)
            syscall(SYS_close, f);
    }
    return -1;
}

/* Frees what process slot i holds: its thread slots (their pages punched
 * out), its area's pages. The slot itself is the caller's. */
static void proc_release_memory(uint32_t i)
{
    for (uint32_t s = 0; s < S.h->nslots; s++)
        if (atomic_load_explicit(slot_state(s), memory_order_relaxed) == i + 1) {
            madvise(slot_at(s), CUPROF_SHM_SLOT_BYTES, MADV_REMOVE);
            atomic_store(slot_state(s), 0);
        }
    madvise(area_of(i), S.h->area_bytes, MADV_REMOVE);
}

/* Takes a process slot for pid: a free one; else one of a process that is
 * gone having completed its run file (done); our own pid's (the image
 * before an exec, or a killed process whose pid we got: its run file is
 * replaced by ours) given back first of all. A live slot of a process that
 * is gone is kept: the supervisor recovers it. Each move goes through BUSY
 * (a compare-and-swap), so one process at a time works on a slot. */
static cuprof_shm_proc *proc_claim(long pid)
{
    const cuprof_shm_header *h = S.h;
    for (uint32_t i = 0; i < h->nprocs; i++) {   /* our pid's: an exec'd image before us */
        cuprof_shm_proc *p = proc_at(i);
        uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
        if (p->pid == pid && (st == CUPROF_SHM_LIVE || st == CUPROF_SHM_DONE) &&
            __atomic_compare_exchange_n(&p->state, &st, CUPROF_SHM_BUSY, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            proc_release_memory(i);
            __atomic_store_n(&p->state, CUPROF_SHM_FREE, __ATOMIC_RELEASE);
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < h->nprocs; i++) {
            cuprof_shm_proc *p = proc_at(i);
            uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
            int reuse = st == CUPROF_SHM_FREE ||
                        (pass == 1 && st == CUPROF_SHM_DONE &&
                         kill((pid_t)p->pid, 0) != 0 && errno == ESRCH);
            if (!reuse || !__atomic_compare_exchange_n(&p->state, &st, CUPROF_SHM_BUSY, 0,
                                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
                continue;
            if (pass == 1)
                proc_release_memory(i);
            memset((uint8_t *)p + sizeof p->state, 0, h->proc_bytes - sizeof p->state);
            p->pid = (int32_t)pid;
            p->t_start = cuprof_clock_now();
            p->rec = (cuprof_shm_layout){
                .index = offsetof(cuprof_thread, index), .tid = offsetof(cuprof_thread, tid),
                .name = offsetof(cuprof_thread, name), .first = offsetof(cuprof_thread, first),
                .committed = offsetof(cuprof_thread, committed),
                .dropped = offsetof(cuprof_thread, dropped),
                .written = offsetof(cuprof_thread, written), .gen = offsetof(cuprof_thread, gen),
                .tail = offsetof(cuprof_thread, tail), .wp = offsetof(cuprof_thread, wp),
                .chunk_anchor = offsetof(cuprof_chunk, anchor),
                .chunk_data = offsetof(cuprof_chunk, data), .chunk_data_bytes = CUPROF_CHUNK_DATA};
            S.proc_ix = i;
            __atomic_store_n(&p->state, CUPROF_SHM_LIVE, __ATOMIC_RELEASE);
            return p;
        }
    return NULL;
}

_Static_assert(sizeof(cuprof_thread) <= CUPROF_SHM_REC_BYTES, "a thread record fits its slot");
_Static_assert(CUPROF_SHM_SLOT_BYTES - CUPROF_SHM_REC_BYTES == CUPROF_CHUNK_BYTES,
               "a chunk fits its slot");

/* Maps the file (once) and closes its descriptor: at load, so that a
 * program that never calls CUDA (a shell that starts the real one) does
 * not keep the inherited descriptor or pass it on. */
static char map_why[200];   /* why it is not mapped (said at init: the configuration is
                               not read at load) */

static void shm_map(void)
{
    static int tried;
    const char *v = getenv(CUPROF_SHM_ENV);
    if (tried || !v || !*v || S.base)
        return;
    tried = 1;
    int fd;
    long pid;
    unsigned long long token;
    if (sscanf(v, "%d:%ld:%llx", &fd, &pid, &token) != 3 || fd < 0 || pid <= 0) {
        snprintf(map_why, sizeof map_why, "%s=%.100s is not FD:PID:TOKEN", CUPROF_SHM_ENV, v);
        return;
    }
    int e = errno, own = 0;
    cuprof_shm_header h;
    int f = open_checked(fd, pid, (uint64_t)token, &own, &h);
    if (f < 0) {
        snprintf(map_why, sizeof map_why, "%.100s cannot be opened (%s)", v, strerror(errno));
        errno = e;
        return;
    }
    void *m = mmap(NULL, h.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, f, 0);
    int me = errno;
    /* the mapping holds the file: the descriptor is not needed (the inherited
     * one is closed too, so nothing the program does with descriptors, or an
     * exec'd image's, meets it: a later image opens it by the /proc path) */
    syscall(SYS_close, f);
    errno = e;
    if (m == MAP_FAILED) {
        snprintf(map_why, sizeof map_why, "%.100s cannot be mapped (%s)", v, strerror(me));
        return;
    }
    S.base = m;
    S.size = h.total_bytes;
    S.h = (const cuprof_shm_header *)S.base;
    errno = e;
}

__attribute__((constructor)) static void shm_at_load(void)
{
    shm_map();
}

void cuprof_shm_attach(void)
{
    shm_map();
    if (!S.base && map_why[0])
        cuprof_debug(CUPROF_DBG_COLLECTOR, "the supervisor's recording memory: %s; a SIGKILL "
                     "loses the calls of the flusher's last 0.1 s", map_why);
    if (!S.base || S.proc)
        return;
    int e = errno;
    S.proc = proc_claim(getpid());
    if (!S.proc) {
        cuprof_debug(CUPROF_DBG_COLLECTOR, "the supervisor's memory has no process slot left");
        munmap(S.base, S.size);
        memset(&S, 0, sizeof S);
    }
    errno = e;
}

int cuprof_shm_on(void)
{
    return S.proc != NULL;
}

/* ---- thread slots ------------------------------------------------------------ */

void *cuprof_shm_slot_take(void)
{
    if (!S.proc || cuprof_process_is_vfork_child())
        return NULL;
    uint32_t n = S.h->nslots, want = S.proc_ix + 1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (S.hint + k) % n, free_ = 0;
        if (atomic_load_explicit(slot_state(i), memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong(slot_state(i), &free_, want))
            continue;
        S.hint = i + 1;
        S.proc->stamps = cuprof_clock_tsc ? 2 : 1;   /* (the clock is chosen by now) */
        uint8_t *p = slot_at(i);
        /* populated now, as the private chunk was (MAP_POPULATE): no page
         * fault lands inside the calls being timed */
        if (madvise(p, CUPROF_SHM_SLOT_BYTES, MADV_POPULATE_WRITE) != 0)
            for (size_t off = 0; off < CUPROF_SHM_SLOT_BYTES; off += 4096)
                ((volatile uint8_t *)p)[off] = 0;
        return p;
    }
    return NULL;
}

int cuprof_shm_slot_owns(const void *rec)
{
    const uint8_t *p = rec;
    return S.proc && p >= S.base + S.h->slots_off &&
           p < S.base + S.h->slots_off + (uint64_t)S.h->nslots * CUPROF_SHM_SLOT_BYTES;
}

void cuprof_shm_slot_give(void *rec)
{
    if (!cuprof_shm_slot_owns(rec))
        return;
    uint32_t i = (uint32_t)(((uint8_t *)rec - (S.base + S.h->slots_off)) / CUPROF_SHM_SLOT_BYTES);
    madvise(slot_at(i), CUPROF_SHM_SLOT_BYTES, MADV_REMOVE);   /* memory back, as munmap did */
    atomic_store_explicit(slot_state(i), 0, memory_order_release);
}

/* ---- the names log ------------------------------------------------------------- */

static void log_put(uint8_t kind, uint32_t id, const char *a, const char *b)
{
    cuprof_shm_proc *p = S.proc;
    if (!p || !a || cuprof_process_is_vfork_child())
        return;
    size_t la = strlen(a), lb = b ? strlen(b) : 0, len = la + (b ? 1 + lb : 0);
    uint64_t bytes = (sizeof(cuprof_shm_name) + len + 7) & ~(uint64_t)7;
    uint64_t at = __atomic_fetch_add(&p->names_used, bytes, __ATOMIC_RELAXED);
    if (bytes > UINT32_MAX || at + bytes > S.h->names_bytes)
        return;   /* full: the flusher's names are what the file has */
    cuprof_shm_name *e = (cuprof_shm_name *)(area_of(S.proc_ix) + at);
    __atomic_store_n(&e->bytes, (uint32_t)bytes, __ATOMIC_RELAXED);
    e->kind = kind;
    e->id = id;
    e->len = (uint32_t)len;
    char *t = (char *)(e + 1);
    memcpy(t, a, la);
    if (b) {
        t[la] = '\0';
        memcpy(t + la + 1, b, lb);
    }
    __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
}

void cuprof_shm_name_kernel(uint32_t id, const char *name)
{
    log_put(CUPROF_SHM_NAME_KERNEL, id, name, NULL);
}

void cuprof_shm_name_string(uint32_t id, const char *s)
{
    log_put(CUPROF_SHM_NAME_STRING, id, s, NULL);
}

void cuprof_shm_api_first_used(uint16_t api)
{
    if (!S.proc || api >= cuprof_g.napis || !cuprof_g.apis)
        return;
    const cuprof_api_desc *d = &cuprof_g.apis[api];
    log_put(CUPROF_SHM_NAME_API, api, d->category ? d->category : "", d->name ? d->name : "");
}

/* ---- the rest ------------------------------------------------------------------ */

void cuprof_shm_alive(uint64_t now)
{
    if (S.proc)
        __atomic_store_n(&S.proc->alive_ns, now, __ATOMIC_RELAXED);
}

cuprof_shm_ring *cuprof_shm_ring_area(uint64_t cap, uint8_t **mem)
{
    if (!S.proc || cap == 0 || cap > S.h->ring_bytes)
        return NULL;
    *mem = area_of(S.proc_ix) + S.h->names_bytes;
    S.proc->ring.cap = cap;
    return &S.proc->ring;
}

void cuprof_shm_set_done(int done)
{
    if (!S.proc || cuprof_process_is_vfork_child())
        return;
    __atomic_store_n(&S.proc->state, done ? CUPROF_SHM_DONE : CUPROF_SHM_LIVE, __ATOMIC_RELEASE);
}

/* A forked child shares the parent's mapping: it takes a slot of its own,
 * and logs the names it inherited (its run file will need them). */
void cuprof_shm_atfork_child(void)
{
    if (!S.base)
        return;
    S.proc = proc_claim(getpid());
    S.hint = 0;
    if (!S.proc)
        return;
    for (uint32_t id = 1; id <= cuprof_kernel_count(); id++)
        cuprof_shm_name_kernel(id, cuprof_kernel_raw_name(id));
    for (uint32_t id = 1; id <= cuprof_string_count(); id++)
        cuprof_shm_name_string(id, cuprof_string_get(id));
    for (size_t a = 0; a < CUPROF_MAX_APIS; a++)
        if (atomic_load_explicit(&cuprof_api_used[a >> 6], memory_order_relaxed) >> (a & 63) & 1)
            cuprof_shm_api_first_used((uint16_t)a);
}
