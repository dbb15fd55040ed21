/*
 * cusim_defer.c - work the sim does on the host CPU on the device's behalf,
 * run later.
 *
 * Two kinds of work go through this queue: the cuBLAS sim's GEMM results
 * (computed on the CPU: milliseconds at 512^3) and the bytes of asynchronous
 * copies and memsets (a memmove of tens of MiB). Doing either inside the API
 * call would put the sim's own CPU time on the program's host timeline and,
 * through the gap before the next launch, on the device's. Instead the work
 * is queued here, in submission (and so stream) order, and runs on the first
 * thread that does something able to observe device memory or the device's
 * completion (a blocking copy or memset, a synchronization, a query, an
 * elapsed time, a free), before that thing. A job's own cusim calls run
 * their work inline, in the job's place in the order.
 */
#include "cusim_internal.h"

#include <stdlib.h>

typedef struct defer_job {
    void (*fn)(void *arg);
    void *arg;
    struct defer_job *next;
} defer_job;

static pthread_mutex_t queue_mu = PTHREAD_MUTEX_INITIALIZER; /* guards the queue */
static defer_job *queue_head, **queue_tail = &queue_head;
static _Atomic int pending; /* queued or running jobs: the drain's fast path */
/* Held while jobs run, so a second drainer waits for a job in progress (its
 * results may be what it is about to observe). */
static pthread_mutex_t run_mu = PTHREAD_MUTEX_INITIALIZER;
/* This thread is running jobs: a job's own cusim calls do not drain. */
static _Thread_local int draining;

int cusim_defer_running(void)
{
    return draining;
}

void cusim_defer(void (*fn)(void *arg), void *arg)
{
    /* Submitted by a job that is running: its place in the order is now. */
    if (draining) {
        fn(arg);
        return;
    }
    defer_job *j = malloc(sizeof(*j));
    if (j == NULL) {
        cusim_defer_drain(); /* keep the order */
        fn(arg); /* no memory: do it now, correct if slow */
        return;
    }
    j->fn = fn;
    j->arg = arg;
    j->next = NULL;
    pthread_mutex_lock(&queue_mu);
    *queue_tail = j;
    queue_tail = &j->next;
    atomic_fetch_add(&pending, 1);
    pthread_mutex_unlock(&queue_mu);
}

void cusim_defer_drain(void)
{
    if (atomic_load_explicit(&pending, memory_order_acquire) == 0 || draining)
        return;
    draining = 1;
    pthread_mutex_lock(&run_mu);
    for (;;) {
        pthread_mutex_lock(&queue_mu);
        defer_job *j = queue_head;
        if (j != NULL) {
            queue_head = j->next;
            if (queue_head == NULL)
                queue_tail = &queue_head;
        }
        pthread_mutex_unlock(&queue_mu);
        if (j == NULL)
            break;
        j->fn(j->arg);
        free(j);
        atomic_fetch_sub_explicit(&pending, 1, memory_order_release);
    }
    pthread_mutex_unlock(&run_mu);
    draining = 0;
}
