/*
 * place.c - where the process runs (place.h).
 *
 * The rank comes from the launcher's environment, read once at start: a
 * process that is rank R of a job writes NAME.rankR.* (lifecycle.c) and says
 * so in every output. The host name and the boot id say which processes share
 * CLOCK_MONOTONIC (the same boot of the same kernel); CLOCK_REALTIME read
 * next to CLOCK_MONOTONIC at start and end lets prof.sh merge put processes
 * of several hosts on one axis.
 */
#include "collector/place.h"
#include "collector/libc.h"
#include "collector/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One launcher's variables; NULL: it sets none for that number. */
static const struct launcher {
    const char *name, *rank, *size, *local_rank, *local_size;
    int need_size;   /* the rank counts only when the size is set too */
} launchers[] = {
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", 0},
    {"PMIx", "PMIX_RANK", NULL, NULL, NULL, 0},
    {"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", 0},
    /* RANK alone is too common a name to mean a job's rank */
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", 1},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL, 0},
};

/* A non-negative decimal number, or -1. */
static int32_t number(const char *(*get)(const char *), const char *name)
{
    const char *v = name ? get(name) : NULL;
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x > INT32_MAX)
        return -1;
    return (int32_t)x;
}

int cuprof_place_parse(cuprof_place *p, const char *(*get)(const char *name))
{
    p->launcher = NULL;
    p->rank = p->world_size = p->local_rank = p->local_size = -1;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const struct launcher *l = &launchers[i];
        int32_t rank = number(get, l->rank), size = number(get, l->size);
        if (rank < 0 || (l->need_size && size < 0) || (size >= 0 && rank >= size))
            continue;
        p->launcher = l->name;
        p->rank = rank;
        p->world_size = size;
        p->local_rank = number(get, l->local_rank);
        p->local_size = number(get, l->local_size);
        return 1;
    }
    return 0;
}

static struct {
    cuprof_place p;
    char host[256];
    char boot_id[64];
    char visible[256];
} here;

static const char *env(const char *name)
{
    return getenv(name);
}

/* CLOCK_MONOTONIC and CLOCK_REALTIME at (nearly) the same moment: the
 * realtime read between two monotonic ones, paired with their middle. */
static void clock_pair(uint64_t *mono, uint64_t *real)
{
    struct timespec ts;
    uint64_t m0 = cuprof_clock_now();
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t m1 = cuprof_clock_now();
    *mono = m0 + (m1 - m0) / 2;
    *real = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* /proc/sys/kernel/random/boot_id without its newline; "" when unreadable. */
static void read_boot_id(char *dst, size_t n)
{
    dst[0] = '\0';
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t k = read(fd, dst, n - 1);
    cuprof_libc_close(fd);
    if (k <= 0) {
        dst[0] = '\0';
        return;
    }
    dst[k] = '\0';
    dst[strcspn(dst, "\r\n")] = '\0';
}

void cuprof_place_start(void)
{
    int saved = errno;
    cuprof_place_parse(&here.p, env);
    if (gethostname(here.host, sizeof here.host) != 0)
        here.host[0] = '\0';
    here.host[sizeof here.host - 1] = '\0';
    here.p.host = here.host;
    read_boot_id(here.boot_id, sizeof here.boot_id);
    here.p.boot_id = here.boot_id;
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (v) {
        size_t n = strlen(v) < sizeof here.visible - 1 ? strlen(v) : sizeof here.visible - 1;
        memcpy(here.visible, v, n);
        here.visible[n] = '\0';
    }
    here.p.visible_devices = v ? here.visible : NULL;
    clock_pair(&here.p.mono_start, &here.p.real_start);
    here.p.mono_end = here.p.real_end = 0;
    errno = saved;
}

void cuprof_place_snapshot(cuprof_place *out)
{
    *out = here.p;
    if (!out->host)
        out->host = "", out->boot_id = "";
    clock_pair(&out->mono_end, &out->real_end);
}
