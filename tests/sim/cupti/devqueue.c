/*
 * devqueue.c - the simulated CUPTI "device buffer".
 *
 * A real GPU writes kernel, memcpy and memset timestamps into a buffer in
 * device memory; CUPTI copies them out later, and once that buffer (and its
 * pool) is full, further activities are lost. Here, device-timed records wait
 * in this queue until they are drained into the client's buffers (on every
 * cuptiActivityFlushAll, and on the worker's periodic flush when
 * cuptiActivityFlushPeriod set one). A default flush drains only records
 * whose activity has ended on the device clock; a forced flush drains all.
 * Records arriving while the queue holds `capacity` are dropped and counted.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_sim.h"

/* The real default: 3,200,000 bytes hold ~100,000 activities (32 bytes
 * each), and a context may use up to 250 such buffers. */
#define CS_DEV_DEFAULT_CAPACITY ((size_t)100000 * 250)

/* One device-timed record waiting to be drained. */
typedef struct cs_dev_rec {
    uint64_t end; /* device time the activity completes */
    size_t size;  /* bytes of the record in u */
    union {
        CUpti_Activity any;
        CUpti_ActivityKernel10 kernel;
        CUpti_ActivityMemcpy6 memcpy;
        CUpti_ActivityMemset4 memset;
    } u; /* the finished CUPTI record */
} cs_dev_rec;

static struct {
    pthread_mutex_t lock; /* guards everything below */
    cs_dev_rec *recs;     /* waiting records, in submission order */
    size_t n;             /* how many */
    size_t alloc;         /* slots allocated in recs */
    size_t capacity;      /* device buffer capacity, in records */
} dq = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .capacity = CS_DEV_DEFAULT_CAPACITY,
};

void cs_dev_set_capacity(size_t records)
{
    pthread_mutex_lock(&dq.lock);
    dq.capacity = records;
    pthread_mutex_unlock(&dq.lock);
}

void cs_dev_push(const void *rec, size_t size, uint64_t end)
{
    if (size > sizeof(((cs_dev_rec *)0)->u))
        return; /* not a device record: a bug in the caller */
    pthread_mutex_lock(&dq.lock);
    if (dq.n >= dq.capacity) {
        pthread_mutex_unlock(&dq.lock);
        cs_buf_count_dropped(1);
        return;
    }
    if (dq.n == dq.alloc) {
        size_t alloc = dq.alloc ? dq.alloc * 2 : 256;
        cs_dev_rec *recs = realloc(dq.recs, alloc * sizeof *recs);
        if (recs == NULL) {
            pthread_mutex_unlock(&dq.lock);
            cs_buf_count_dropped(1);
            return;
        }
        dq.recs = recs;
        dq.alloc = alloc;
    }
    cs_dev_rec *r = &dq.recs[dq.n++];
    r->end = end;
    r->size = size;
    memcpy(&r->u, rec, size);
    pthread_mutex_unlock(&dq.lock);
}

void cs_dev_drain(int forced)
{
    pthread_mutex_lock(&dq.lock);
    if (dq.n == 0) {
        pthread_mutex_unlock(&dq.lock);
        return;
    }
    uint64_t now = cusim_gpu_ns();
    size_t keep = 0;
    for (size_t i = 0; i < dq.n; i++) {
        cs_dev_rec *r = &dq.recs[i];
        if (forced || r->end <= now)
            cs_buf_write(CS_CH_DEVICE, &r->u, r->size);
        else
            dq.recs[keep++] = *r;
    }
    dq.n = keep;
    pthread_mutex_unlock(&dq.lock);
}

void cs_dev_reset_in_child(void)
{
    pthread_mutex_init(&dq.lock, NULL);
    dq.n = 0;
}
