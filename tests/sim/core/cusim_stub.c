/*
 * cusim_stub.c - the calls of not-simulated entry points (cusim_stub.h).
 */
#include "cusim_stub.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
static cusim_stub_site *called;   /* each site once */
static unsigned long total;

static void stub_report(void)
{
    pthread_mutex_lock(&stub_lock);
    unsigned long n = total, sites = 0;
    for (cusim_stub_site *s = called; s; s = s->next)
        sites++;
    pthread_mutex_unlock(&stub_lock);
    fprintf(stderr, "cusim: %lu call%s to %lu entry point%s that %s not simulated\n", n,
            n == 1 ? "" : "s", sites, sites == 1 ? "" : "s", sites == 1 ? "is" : "are");
}

void cusim_stub_hit(cusim_stub_site *site)
{
    pthread_mutex_lock(&stub_lock);
    int first = !site->said, first_ever = total == 0;
    if (first) {
        site->said = 1;
        site->next = called;
        called = site;
    }
    total++;
    pthread_mutex_unlock(&stub_lock);
    if (first)
        fprintf(stderr, "cusim: %s is not simulated (it returns \"not supported\")\n", site->name);
    if (first_ever)
        atexit(stub_report);
}
