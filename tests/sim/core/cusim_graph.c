/*
 * cusim_graph.c - CUDA graphs on the simulated device (cusim.h, "graphs"):
 * stream capture, explicit construction, instantiation and replay.
 *
 * Taken from CUDA's and CUPTI's documented behaviour: work queued on a
 * capturing stream is not run but recorded as nodes (its API calls are still
 * traced, with their own correlation ids, and no device record); each node
 * has a process-unique id, its graph's id in the high 32 bits and its index
 * in the graph in the low (as the real CUPTI 13 numbers them: 4294967296 is
 * graph 1's first node, seen on an H200); cudaGraphInstantiate clones the
 * nodes, each told twice as on the H200: GRAPHNODE_CREATED (no original),
 * then GRAPHNODE_CLONED naming its original; and the exec gets a
 * graph id of its own; cudaGraphLaunch's device records all carry the
 * launch's correlation id, with graphId and graphNodeId set. The sim replays
 * the nodes one after another on the launching stream (no concurrency
 * between independent nodes), and a captured GEMM's result is computed when
 * it is captured, not at each replay (the data of device code is not
 * modelled anyway). A stream that waits on an event recorded in a capture
 * joins it (its work becomes nodes of the same graph) until the stream
 * that began the capture ends it.
 *
 * Host nodes run their function in stream order at replay (the device
 * drained first, as cudaLaunchHostFunc does in the sim). Allocation and free
 * nodes name an address of cusim_graph_mem.c's (which says how it lives);
 * an allocation node that depends directly on a free node of the same graph
 * reuses that address when it fits, as the real driver does.
 */
#include "cusim_internal.h"

#include <stdlib.h>
#include <string.h>

#define GRAPH_MAGIC 0x47525048u /* "GRPH" */
#define EXEC_MAGIC 0x47455843u  /* "GEXC" */
#define NODE_MAGIC 0x474e4f44u  /* "GNOD" */

_Thread_local cusim_replay cusim_replaying;

struct cusim_graph_node {
    uint32_t magic;
    int type;                       /* enum cusim_node_type */
    uint64_t id;
    struct cusim_graph_node *original;  /* a clone's original node, else NULL */
    cusim_kernel_desc kernel;       /* KERNEL */
    void *dst;                      /* MEMCPY, MEMSET */
    const void *src;
    size_t dpitch, spitch, width, height;
    int copy_kind, value;
    void (*host_fn)(void *);        /* HOST: the function, and its argument */
    void *host_data;
    cusim_gmem *mem;                /* MEM_ALLOC, MEM_FREE: the allocation */
};

struct cusim_graph {
    uint32_t magic;
    uint32_t id;
    cusim_graph_node **nodes;
    size_t n, cap;
    int capturing;                  /* streams capturing into it now */
};

struct cusim_graph_exec {
    uint32_t magic;
    cusim_graph graph;              /* the clones, and the exec's graph id */
    int auto_free;                  /* cudaGraphInstantiateFlagAutoFreeOnLaunch */
};

static pthread_mutex_t graph_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_graph_id = 1;
static uint64_t next_capture_id = 1;

/* ---- live handles ------------------------------------------------------------
 * A program may pass a handle it already destroyed (or one never made): the
 * sim answers cudaErrorInvalidValue without reading it, so every graph, exec
 * and node the sim hands out is in this set (open addressing, pointers
 * hashed; a removed slot becomes a tombstone) from its creation to its
 * destruction, and the *_get functions look a handle up before they touch
 * it. */
#define TOMB ((const void *)1)
static const void **live;
static size_t live_cap, live_used;   /* used: live entries and tombstones */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;

uint64_t cusim_ptr_hash(const void *p)
{
    uint64_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbu;
    x ^= x >> 11;
    return x;
}

static size_t live_slot(const void *p)
{
    return (size_t)cusim_ptr_hash(p) & (live_cap - 1);
}

/* The slot holding p, or (want_free) the first free or tombstone slot on
 * its probe sequence; live_cap when neither. Under live_mu. */
static size_t live_find(const void *p, int want_free)
{
    if (live_cap == 0)
        return 0;
    size_t first_free = live_cap;
    for (size_t i = live_slot(p), k = 0; k < live_cap; i = (i + 1) & (live_cap - 1), k++) {
        if (live[i] == p)
            return i;
        if (live[i] == TOMB && first_free == live_cap)
            first_free = i;
        if (live[i] == NULL)
            return want_free ? (first_free < live_cap ? first_free : i) : live_cap;
    }
    return want_free ? first_free : live_cap;
}

static int live_add(const void *p)
{
    pthread_mutex_lock(&live_mu);
    if (2 * (live_used + 1) > live_cap) {   /* grow (and drop the tombstones) */
        size_t old_cap = live_cap, cap = live_cap ? 2 * live_cap : 256;
        const void **old = live, **v = calloc(cap, sizeof *v);
        if (v == NULL) {
            pthread_mutex_unlock(&live_mu);
            return -1;
        }
        live = v;
        live_cap = cap;
        live_used = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i] && old[i] != TOMB) {
                live[live_find(old[i], 1)] = old[i];
                live_used++;
            }
        free(old);
    }
    size_t i = live_find(p, 1);
    if (live[i] == NULL)
        live_used++;
    live[i] = p;
    pthread_mutex_unlock(&live_mu);
    return 0;
}

static void live_del(const void *p)
{
    pthread_mutex_lock(&live_mu);
    size_t i = live_find(p, 0);
    if (i < live_cap)
        live[i] = TOMB;
    pthread_mutex_unlock(&live_mu);
}

static int live_has(const void *p)
{
    pthread_mutex_lock(&live_mu);
    int has = p != NULL && p != TOMB && live_find(p, 0) < live_cap;
    pthread_mutex_unlock(&live_mu);
    return has;
}

static void tell(enum cusim_graph_what what, cusim_graph *g, cusim_graph_node *node,
                 cusim_graph_node *original, cusim_graph_exec *exec)
{
    const cusim_tool_ops *tool = cusim_tool_get();
    if (tool == NULL || tool->graph == NULL)
        return;
    cusim_graph_event e = {what, g, node, original, exec, node ? node->type : 0};
    tool->graph(&e);
}

static void graph_init(cusim_graph *g)
{
    memset(g, 0, sizeof *g);
    g->magic = GRAPH_MAGIC;
    pthread_mutex_lock(&graph_mu);
    g->id = next_graph_id++;
    pthread_mutex_unlock(&graph_mu);
}

cusim_graph *cusim_graph_create(void)
{
    cusim_graph *g = malloc(sizeof *g);
    if (g != NULL)
        graph_init(g);
    if (g != NULL && live_add(g) < 0) {
        free(g);
        return NULL;
    }
    return g;
}

cusim_graph *cusim_graph_get(const void *h)
{
    const cusim_graph *g = h;
    return live_has(g) && g->magic == GRAPH_MAGIC ? (cusim_graph *)g : NULL;
}

static void graph_clear(cusim_graph *g)
{
    for (size_t i = 0; i < g->n; i++) {
        live_del(g->nodes[i]);
        if (g->nodes[i]->mem != NULL)
            cusim_gmem_unref(g->nodes[i]->mem);
        g->nodes[i]->magic = 0;
        free(g->nodes[i]);
    }
    free(g->nodes);
    g->nodes = NULL;
    g->n = g->cap = 0;
    g->magic = 0;
}

void cusim_graph_destroy(cusim_graph *g)
{
    if (cusim_graph_get(g) == NULL)
        return;
    live_del(g);
    graph_clear(g);
    free(g);
}

uint32_t cusim_graph_id(const cusim_graph *g)
{
    return g->id;
}

/* A new node of g of this type (its id given, its fields zero), told to the
 * tool unless it is a clone. */
static cusim_graph_node *node_add(cusim_graph *g, int type, cusim_graph_node *original)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        cusim_graph_node **v = realloc(g->nodes, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        g->nodes = v;
        g->cap = cap;
    }
    cusim_graph_node *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    if (live_add(n) < 0) {
        free(n);
        return NULL;
    }
    n->magic = NODE_MAGIC;
    n->type = type;
    n->original = original;
    n->id = (uint64_t)g->id << 32 | (uint64_t)g->n;
    g->nodes[g->n++] = n;
    return n;
}

cusim_graph_node *cusim_graph_add_kernel(cusim_graph *g, const cusim_kernel_desc *k)
{
    cusim_graph_node *n = node_add(g, CUSIM_NODE_KERNEL, NULL);
    if (n != NULL) {
        n->kernel = *k;
        tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    }
    return n;
}

cusim_graph_node *cusim_graph_add_memcpy(cusim_graph *g, void *dst, size_t dpitch, const void *src,
                                         size_t spitch, size_t width, size_t height, int kind)
{
    cusim_graph_node *n = node_add(g, CUSIM_NODE_MEMCPY, NULL);
    if (n != NULL) {
        n->dst = dst, n->src = src, n->dpitch = dpitch, n->spitch = spitch;
        n->width = width, n->height = height, n->copy_kind = kind;
        tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    }
    return n;
}

cusim_graph_node *cusim_graph_add_memset(cusim_graph *g, void *dst, size_t pitch, int value, size_t width,
                                         size_t height)
{
    cusim_graph_node *n = node_add(g, CUSIM_NODE_MEMSET, NULL);
    if (n != NULL) {
        n->dst = dst, n->dpitch = pitch, n->value = value, n->width = width, n->height = height;
        tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    }
    return n;
}

cusim_graph_node *cusim_graph_add_empty(cusim_graph *g)
{
    cusim_graph_node *n = node_add(g, CUSIM_NODE_EMPTY, NULL);
    if (n != NULL)
        tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    return n;
}

cusim_graph_node *cusim_graph_node_get(const void *h)
{
    const cusim_graph_node *n = h;
    return live_has(n) && n->magic == NODE_MAGIC ? (cusim_graph_node *)n : NULL;
}

uint64_t cusim_graph_node_id(const cusim_graph_node *n)
{
    return n->id;
}

int cusim_graph_node_type(const cusim_graph_node *n)
{
    return n->type;
}

size_t cusim_graph_nodes(const cusim_graph *g, cusim_graph_node **out, size_t cap)
{
    for (size_t i = 0; out != NULL && i < g->n && i < cap; i++)
        out[i] = g->nodes[i];
    return g->n;
}

/* ---- host nodes ------------------------------------------------------------ */

cusim_graph_node *cusim_graph_add_host(cusim_graph *g, void (*fn)(void *), void *data)
{
    cusim_graph_node *n = node_add(g, CUSIM_NODE_HOST, NULL);
    if (n != NULL) {
        n->host_fn = fn, n->host_data = data;
        tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    }
    return n;
}

int cusim_graph_node_host(const cusim_graph_node *n, void (**fn)(void *), void **data)
{
    if (n->type != CUSIM_NODE_HOST)
        return -1;
    *fn = n->host_fn, *data = n->host_data;
    return 0;
}

/* ---- graph memory nodes (the addresses: cusim_graph_mem.c) ---------------- */

cusim_graph_node *cusim_graph_add_mem_alloc(cusim_graph *g, size_t bytes, cusim_graph_node *const *deps,
                                            size_t ndeps, void **dptr)
{
    cusim_gmem *m = NULL;
    /* an address freed by a free node this one depends on (same graph) */
    for (size_t i = 0; i < ndeps && deps != NULL && m == NULL; i++) {
        const cusim_graph_node *d = deps[i];
        if (d != NULL && d->type == CUSIM_NODE_MEM_FREE && d->id >> 32 == g->id &&
            cusim_gmem_reuse(d->mem, d, bytes))
            m = d->mem;
    }
    if (m == NULL && (m = cusim_gmem_new(bytes)) == NULL)
        return NULL;
    cusim_graph_node *n = node_add(g, CUSIM_NODE_MEM_ALLOC, NULL);
    if (n == NULL) {
        cusim_gmem_unref(m);
        return NULL;
    }
    n->mem = m, n->dst = cusim_gmem_ptr(m), n->width = bytes;
    *dptr = n->dst;
    tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    return n;
}

int cusim_graph_add_mem_free(cusim_graph *g, void *ptr, cusim_graph_node **out)
{
    cusim_gmem *m = cusim_gmem_find_ref(ptr);
    if (m == NULL)
        return -1;
    /* the last node of g naming m must not be a free already (twice in one
     * graph: cudaErrorInvalidValue) */
    for (size_t i = g->n; i-- > 0;)
        if (g->nodes[i]->mem == m) {
            if (g->nodes[i]->type == CUSIM_NODE_MEM_FREE) {
                cusim_gmem_unref(m);
                return -1;
            }
            break;
        }
    cusim_graph_node *n = node_add(g, CUSIM_NODE_MEM_FREE, NULL);
    if (n == NULL) {
        cusim_gmem_unref(m);
        return -2;
    }
    n->mem = m, n->dst = cusim_gmem_ptr(m), n->width = cusim_gmem_bytes(m);
    cusim_gmem_set_freed_by(m, n);
    tell(CUSIM_GRAPH_NODE_CREATED, g, n, NULL, NULL);
    *out = n;
    return 0;
}

int cusim_graph_node_mem(const cusim_graph_node *n, void **ptr, size_t *bytes)
{
    if (n->type != CUSIM_NODE_MEM_ALLOC && n->type != CUSIM_NODE_MEM_FREE)
        return -1;
    *ptr = cusim_gmem_ptr(n->mem), *bytes = cusim_gmem_bytes(n->mem);
    return 0;
}

/* ---- capture --------------------------------------------------------------- */

int cusim_stream_begin_capture(cusim_stream *s)
{
    return cusim_stream_begin_capture_to(s, NULL);
}

int cusim_stream_begin_capture_to(cusim_stream *s, cusim_graph *into)
{
    if (s->capture != NULL)
        return -1;
    cusim_graph *g = into ? into : cusim_graph_create();
    if (g == NULL)
        return -1;
    __atomic_add_fetch(&g->capturing, 1, __ATOMIC_RELAXED);
    s->capture_to = into != NULL;
    s->capture_joined = 0;
    pthread_mutex_lock(&graph_mu);
    s->capture_id = next_capture_id++;
    pthread_mutex_unlock(&graph_mu);
    s->capture = g;
    return 0;
}

cusim_graph *cusim_stream_end_capture(cusim_stream *s)
{
    cusim_graph *g = s->capture;
    uint64_t id = s->capture_id;
    int joined = s->capture_joined;
    s->capture = NULL;
    s->capture_id = 0;
    s->capture_to = 0;
    s->capture_joined = 0;
    if (g == NULL)
        return NULL;
    int n = 1;
    /* the stream that began it ends it for the streams that joined it too */
    if (!joined)
        n += cusim_streams_leave_capture(g, id);
    __atomic_sub_fetch(&g->capturing, n, __ATOMIC_RELAXED);
    return g;
}

void cusim_stream_join_capture(cusim_stream *s, cusim_graph *g, uint64_t id)
{
    /* only while the capture is on: its graph alive and captured into */
    if (!live_has(g) || g->magic != GRAPH_MAGIC || !cusim_graph_capturing(g))
        return;
    __atomic_add_fetch(&g->capturing, 1, __ATOMIC_RELAXED);
    s->capture = g, s->capture_id = id, s->capture_to = 1, s->capture_joined = 1;
}

int cusim_stream_capture_joined(const cusim_stream *s)
{
    return s->capture_joined;
}

cusim_graph *cusim_stream_capture_graph(const cusim_stream *s)
{
    return s->capture;
}

int cusim_stream_capture_to(const cusim_stream *s)
{
    return s->capture_to;
}

uint64_t cusim_stream_capture_id(const cusim_stream *s)
{
    return s->capture_id;
}

void cusim_capture_kernel(cusim_graph *g, const cusim_kernel_desc *k)
{
    cusim_graph_add_kernel(g, k);
}

void cusim_capture_copy(cusim_graph *g, void *dst, size_t dpitch, const void *src, size_t spitch,
                        size_t width, size_t height, int kind)
{
    cusim_graph_add_memcpy(g, dst, dpitch, src, spitch, width, height, kind);
}

void cusim_capture_memset(cusim_graph *g, void *dst, size_t pitch, int value, size_t width, size_t height)
{
    cusim_graph_add_memset(g, dst, pitch, value, width, height);
}

/* ---- instantiation and replay --------------------------------------------- */

/* Copies g's nodes into dst (new ids; each clone names its original and
 * holds its own reference to the graph memory it names), told as created
 * then cloned: 0, or -1 when out of memory. */
static int clone_nodes(cusim_graph *dst, const cusim_graph *g, cusim_graph_exec *exec)
{
    for (size_t i = 0; i < g->n; i++) {
        cusim_graph_node *o = g->nodes[i], *c = node_add(dst, o->type, o);
        if (c == NULL)
            return -1;
        uint64_t id = c->id;
        *c = *o;
        c->id = id;
        c->original = o;
        if (c->mem != NULL)
            cusim_gmem_ref(c->mem);
        tell(CUSIM_GRAPH_NODE_CREATED, dst, c, NULL, exec);
        tell(CUSIM_GRAPH_NODE_CLONED, dst, c, o, exec);
    }
    return 0;
}

cusim_graph *cusim_graph_clone(const cusim_graph *g)
{
    cusim_graph *c = cusim_graph_create();
    if (c != NULL && clone_nodes(c, g, NULL) < 0) {
        cusim_graph_destroy(c);
        return NULL;
    }
    return c;
}

int cusim_graph_has_mem_nodes(const cusim_graph *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->mem != NULL)
            return 1;
    return 0;
}

int cusim_graph_capturing(const cusim_graph *g)
{
    return __atomic_load_n(&g->capturing, __ATOMIC_RELAXED) > 0;
}

cusim_graph_exec *cusim_graph_instantiate(cusim_graph *g)
{
    cusim_graph_exec *e = malloc(sizeof *e);
    if (e == NULL)
        return NULL;
    e->magic = EXEC_MAGIC;
    e->auto_free = 0;
    graph_init(&e->graph);
    if (live_add(e) < 0) {
        free(e);
        return NULL;
    }
    tell(CUSIM_GRAPH_EXEC_CREATED, g, NULL, NULL, e);
    if (clone_nodes(&e->graph, g, e) < 0) {
        cusim_graph_exec_destroy(e);
        return NULL;
    }
    return e;
}

cusim_graph_exec *cusim_graph_exec_get(const void *h)
{
    const cusim_graph_exec *e = h;
    return live_has(e) && e->magic == EXEC_MAGIC ? (cusim_graph_exec *)e : NULL;
}

uint32_t cusim_graph_exec_id(const cusim_graph_exec *e)
{
    return e->graph.id;
}

void cusim_graph_exec_destroy(cusim_graph_exec *e)
{
    if (cusim_graph_exec_get(e) == NULL)
        return;
    live_del(e);
    graph_clear(&e->graph);
    e->magic = 0;
    free(e);
}

int cusim_graph_exec_set_kernel(cusim_graph_exec *e, const cusim_graph_node *node, const cusim_kernel_desc *k)
{
    for (size_t i = 0; i < e->graph.n; i++) {
        cusim_graph_node *c = e->graph.nodes[i];
        if ((c->original == node || c == node) && c->type == CUSIM_NODE_KERNEL) {
            c->kernel = *k;
            return 0;
        }
    }
    return -1;
}

void cusim_graph_exec_set_auto_free(cusim_graph_exec *e, int on)
{
    e->auto_free = on;
}

int cusim_graph_exec_unfreed(cusim_graph_exec *e)
{
    int unfreed = 0;
    for (size_t i = 0; i < e->graph.n; i++) {
        cusim_graph_node *n = e->graph.nodes[i];
        if (n->type != CUSIM_NODE_MEM_ALLOC || !cusim_gmem_mapped(n->mem))
            continue;
        if (e->auto_free)   /* as if the launch called cudaFreeAsync on it first */
            cusim_gmem_map(n->mem, 0);
        else
            unfreed = 1;
    }
    return unfreed;
}

void cusim_graph_launch(cusim_graph_exec *e, cusim_stream *s, uint32_t corr)
{
    cusim_replay saved = cusim_replaying;
    for (size_t i = 0; i < e->graph.n; i++) {
        const cusim_graph_node *n = e->graph.nodes[i];
        cusim_replaying = (cusim_replay){e->graph.id, n->id, 1};
        switch (n->type) {
        case CUSIM_NODE_KERNEL:
            cusim_launch(s, &n->kernel, corr);
            break;
        case CUSIM_NODE_MEMCPY:
            cusim_memcpy2d(s, n->dst, n->dpitch, n->src, n->spitch, n->width, n->height, n->copy_kind, 0,
                           corr);
            break;
        case CUSIM_NODE_MEMSET:
            cusim_memset2d(s, n->dst, n->dpitch, n->value, n->width, n->height, 0, corr);
            break;
        case CUSIM_NODE_HOST:
            /* in stream order, as cudaLaunchHostFunc: the device's earlier
             * work (and the bytes it moves) done first */
            cusim_device_drain();
            n->host_fn(n->host_data);
            break;
        case CUSIM_NODE_MEM_ALLOC:
        case CUSIM_NODE_MEM_FREE:
            cusim_gmem_map(n->mem, n->type == CUSIM_NODE_MEM_ALLOC);
            break;
        default:
            break;
        }
    }
    cusim_replaying = saved;
}
