/*
 * cusim_graph_mem.c - graph memory: the addresses allocation nodes hand out
 * (cusim_graph.c makes the nodes), after the CUDA programming guide's "Graph
 * Memory Nodes". An allocation node's address is fixed when the node is
 * made and stays its graph's (and its execs') for their lifetime, whatever
 * frees it; a launch maps it at the allocation node and unmaps it at a free
 * node, or a cudaFree / cudaFreeAsync outside the graph does. The sim keeps
 * the host memory behind the address while any node names it or it is
 * mapped, so a replay never touches freed memory (NVIDIA's graphMemoryNodes
 * crashed on a captured cudaFreeAsync that had freed it at once). The graph
 * pool's amounts (cudaDeviceGetGraphMemAttribute) are kept here too.
 */
#include "cusim_internal.h"

#include <stdlib.h>

/* One entry per address an allocation node handed out. Few of them live at
 * once (a graph's own allocations), so a list. */
struct cusim_gmem {
    struct cusim_gmem *next;
    void *ptr;
    size_t bytes;
    int refs;                       /* alloc and free nodes naming it, in graphs and execs */
    int mapped;                     /* a launch allocated it and nothing freed it since */
    const cusim_graph_node *freed_by; /* the free node after which its address may be
                                       * reused (construction), else NULL */
};

static pthread_mutex_t mem_mu = PTHREAD_MUTEX_INITIALIZER;
static cusim_gmem *mems;
/* The graph pool's physical memory: what launches have mapped and not
 * unmapped, and what the pool holds (it keeps its peak until trimmed, so a
 * later launch reuses it) with its high-water mark. */
static uint64_t mem_mapped, mem_held, mem_held_high;

/* Under mem_mu. */
static cusim_gmem *mem_find(const void *p)
{
    for (cusim_gmem *m = mems; m != NULL; m = m->next)
        if (m->ptr == p)
            return m;
    return NULL;
}

/* Under mem_mu: drops m from the list when nothing names it and it is not
 * mapped; returns the host memory to give back then, else NULL. */
static void *mem_maybe_drop(cusim_gmem *m)
{
    if (m->refs > 0 || m->mapped)
        return NULL;
    for (cusim_gmem **pp = &mems; *pp != NULL; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    void *p = m->ptr;
    free(m);
    return p;
}

void cusim_gmem_ref(cusim_gmem *m)
{
    pthread_mutex_lock(&mem_mu);
    m->refs++;
    pthread_mutex_unlock(&mem_mu);
}

void cusim_gmem_unref(cusim_gmem *m)
{
    pthread_mutex_lock(&mem_mu);
    m->refs--;
    void *p = mem_maybe_drop(m);
    pthread_mutex_unlock(&mem_mu);
    if (p != NULL)   /* outside the lock: freeing runs the deferred work first */
        cusim_mem_free(p, CUSIM_MEM_DEVICE);
}

/* Under mem_mu: m mapped (1) or unmapped (0), and the pool's amounts. */
static void mem_set_mapped(cusim_gmem *m, int map)
{
    if (map == m->mapped)
        return;
    m->mapped = map;
    if (map) {
        mem_mapped += m->bytes;
        if (mem_mapped > mem_held)
            mem_held = mem_mapped;
        if (mem_held > mem_held_high)
            mem_held_high = mem_held;
    } else {
        mem_mapped -= m->bytes;
    }
}

/* A launch reaching an allocation (map) or free node. */
void cusim_gmem_map(cusim_gmem *m, int map)
{
    pthread_mutex_lock(&mem_mu);
    mem_set_mapped(m, map);
    pthread_mutex_unlock(&mem_mu);
}

cusim_gmem *cusim_gmem_new(size_t bytes)
{
    void *p = cusim_mem_alloc(bytes, CUSIM_MEM_DEVICE);
    cusim_gmem *m;
    if (p == NULL)
        return NULL;
    if ((m = calloc(1, sizeof *m)) == NULL) {
        cusim_mem_free(p, CUSIM_MEM_DEVICE);
        return NULL;
    }
    m->ptr = p, m->bytes = bytes, m->refs = 1;
    pthread_mutex_lock(&mem_mu);
    m->next = mems;
    mems = m;
    pthread_mutex_unlock(&mem_mu);
    return m;
}

int cusim_gmem_reuse(cusim_gmem *m, const void *free_node, size_t bytes)
{
    int ok;
    pthread_mutex_lock(&mem_mu);
    ok = m->freed_by == free_node && m->bytes >= bytes;
    if (ok) {
        m->freed_by = NULL;
        m->refs++;
    }
    pthread_mutex_unlock(&mem_mu);
    return ok;
}

cusim_gmem *cusim_gmem_find_ref(const void *ptr)
{
    pthread_mutex_lock(&mem_mu);
    cusim_gmem *m = mem_find(ptr);
    if (m != NULL)
        m->refs++;
    pthread_mutex_unlock(&mem_mu);
    return m;
}

void cusim_gmem_set_freed_by(cusim_gmem *m, const void *free_node)
{
    pthread_mutex_lock(&mem_mu);
    m->freed_by = free_node;
    pthread_mutex_unlock(&mem_mu);
}

void *cusim_gmem_ptr(const cusim_gmem *m)
{
    return m->ptr;
}

int cusim_gmem_mapped(cusim_gmem *m)
{
    pthread_mutex_lock(&mem_mu);
    int mapped = m->mapped;
    pthread_mutex_unlock(&mem_mu);
    return mapped;
}

size_t cusim_gmem_bytes(const cusim_gmem *m)
{
    return m->bytes;
}

int cusim_graph_mem_free(void *ptr)
{
    pthread_mutex_lock(&mem_mu);
    cusim_gmem *m = mem_find(ptr);
    void *p = NULL;
    int found = m != NULL;
    if (found) {
        mem_set_mapped(m, 0);
        p = mem_maybe_drop(m);
    }
    pthread_mutex_unlock(&mem_mu);
    if (p != NULL)
        cusim_mem_free(p, CUSIM_MEM_DEVICE);
    return found;
}

void cusim_graph_mem_usage(uint64_t out[4])
{
    pthread_mutex_lock(&mem_mu);
    out[0] = mem_held, out[1] = mem_held_high, out[2] = mem_held, out[3] = mem_held_high;
    pthread_mutex_unlock(&mem_mu);
}

void cusim_graph_mem_trim(void)
{
    pthread_mutex_lock(&mem_mu);
    mem_held = mem_mapped;
    pthread_mutex_unlock(&mem_mu);
}

void cusim_graph_mem_reset_high(void)
{
    pthread_mutex_lock(&mem_mu);
    mem_held_high = mem_held;
    pthread_mutex_unlock(&mem_mu);
}

