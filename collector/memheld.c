/*
 * memheld.c - device memory held when a capture window opens (issue 33).
 *
 * A capture window records only the calls made inside it, so a window's
 * memory section knew nothing of the allocations made before it opened (a
 * model loaded at start-up: "0 allocations, peak 0" with gigabytes held).
 * While a capture window is configured, the allocation hooks tell this file
 * every successful device allocation and free, recorded or not (they are few:
 * no cost on the launch path), and each window's opening snapshots what is
 * held then; the snapshot goes to the run file as a MEM_HELD block (the
 * flusher's next round, or the end), which the model starts the window's
 * memory from. A run recorded whole tracks nothing.
 */
#include "collector/internal.h"
#include "collector/runfile.h"

#include <stdlib.h>
#include <string.h>

typedef struct held {
    uint64_t ptr, bytes;
    uint16_t api;
} held;

static pthread_mutex_t mh_lock = PTHREAD_MUTEX_INITIALIZER;
static held *map;            /* open addressing on ptr (0 = empty), mh_lock */
static size_t map_cap, map_n;
static uint8_t *pending;     /* snapshots not yet written: MEM_HELD payloads, back to back */
static size_t pending_len, pending_cap;

static size_t slot(uint64_t ptr)
{
    return (size_t)((ptr >> 4) * 0x9E3779B97F4A7C15ull) & (map_cap - 1);
}

static int grow(void)
{
    size_t cap = map_cap ? map_cap * 2 : 1024;
    held *m = calloc(cap, sizeof *m);
    if (!m)
        return -1;
    held *old = map;
    size_t old_cap = map_cap;
    map = m, map_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].ptr) {
            size_t j = slot(old[i].ptr);
            while (map[j].ptr)
                j = (j + 1) & (map_cap - 1);
            map[j] = old[i];
        }
    free(old);
    return 0;
}

void cuprof_memheld_note(int is_free, uint64_t ptr, uint64_t bytes, uint16_t api)
{
    if (ptr == 0 || cuprof_g_config.capture == CUPROF_CAPTURE_NONE)
        return;
    cuprof_api_mark(api);   /* a MEM_HELD entry names it */
    pthread_mutex_lock(&mh_lock);
    if (!is_free) {
        if ((map_n + 1) * 2 > map_cap && grow() < 0) {
            pthread_mutex_unlock(&mh_lock);
            return;
        }
        size_t j = slot(ptr);
        while (map[j].ptr && map[j].ptr != ptr)
            j = (j + 1) & (map_cap - 1);
        map_n += map[j].ptr == 0;
        map[j] = (held){ptr, bytes, api};
    } else if (map_cap) {
        size_t j = slot(ptr);
        while (map[j].ptr && map[j].ptr != ptr)
            j = (j + 1) & (map_cap - 1);
        if (map[j].ptr) {   /* deletion by backward shift */
            map[j].ptr = 0;
            map_n--;
            for (size_t k = (j + 1) & (map_cap - 1); map[k].ptr; k = (k + 1) & (map_cap - 1)) {
                held h = map[k];
                map[k].ptr = 0;
                size_t s = slot(h.ptr);
                while (map[s].ptr)
                    s = (s + 1) & (map_cap - 1);
                map[s] = h;
            }
        }
    }
    pthread_mutex_unlock(&mh_lock);
}

void cuprof_memheld_window_opened(uint32_t window, uint64_t t)
{
    if (cuprof_g_config.capture == CUPROF_CAPTURE_NONE)
        return;
    pthread_mutex_lock(&mh_lock);
    size_t need = sizeof(cuprof_rf_mem_held) + map_n * sizeof(cuprof_rf_held);
    if (pending_len + need > pending_cap) {
        size_t cap = (pending_len + need) * 2;
        uint8_t *p = realloc(pending, cap);
        if (!p) {
            pthread_mutex_unlock(&mh_lock);
            return;
        }
        pending = p, pending_cap = cap;
    }
    cuprof_rf_mem_held h = {.t = t, .window = window, .n = (uint32_t)map_n};
    memcpy(pending + pending_len, &h, sizeof h);
    size_t o = pending_len + sizeof h;
    for (size_t i = 0; i < map_cap; i++)
        if (map[i].ptr) {
            cuprof_rf_held e = {map[i].ptr, map[i].bytes, map[i].api, {0}};
            memcpy(pending + o, &e, sizeof e);
            o += sizeof e;
        }
    pending_len = o;
    pthread_mutex_unlock(&mh_lock);
}

void cuprof_memheld_flush(void)
{
    pthread_mutex_lock(&mh_lock);
    size_t o = 0;
    while (o + sizeof(cuprof_rf_mem_held) <= pending_len) {
        cuprof_rf_mem_held h;
        memcpy(&h, pending + o, sizeof h);
        size_t len = sizeof h + (size_t)h.n * sizeof(cuprof_rf_held);
        if (cuprof_runfile_put(CUPROF_RF_MEM_HELD, pending + o, len) != 0)
            break;   /* the next round tries again */
        o += len;
    }
    if (o > 0) {   /* pending is NULL until a window opened */
        memmove(pending, pending + o, pending_len - o);
        pending_len -= o;
    }
    pthread_mutex_unlock(&mh_lock);
}

void cuprof_memheld_atfork_child(void)
{
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    mh_lock = fresh;
    pending_len = 0;
}
