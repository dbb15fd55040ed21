/*
 * test_preload_run.c - helpers of the hook tests (declared in
 * test_preload.h): run a test program with or without the hooks, read the
 * fake collector's dump and what the program printed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#define TEST_PRELOAD_HELPERS
#include "tests/unit/test_preload.h"

dump *dump_load(const char *path)
{
    dump *d = calloc(1, sizeof *d);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no dump at %s: the fake collector never ran", path);
    char line[1024], a[512], b[512];
    unsigned id;
    int sid;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "api %u %511s %511s", &id, a, b) == 3 && id < MAX_NAMES) {
            d->api[id] = strdup(a);
            d->cat[id] = strdup(b);
            d->n_api = (int)id + 1;
        } else if (sscanf(line, "kernel %u %511s", &id, a) == 2 && id < MAX_NAMES) {
            d->kernel[id] = strdup(a);
        } else if (sscanf(line, "stat %511s %d", a, &sid) == 2) {
            id = (unsigned)sid;
            if (!strcmp(a, "capture_start_at")) d->capture_start_at = sid;
            if (!strcmp(a, "capture_stop_at")) d->capture_stop_at = sid;
            if (!strcmp(a, "begin_before_register")) d->begin_before_register = (int)id;
            if (!strcmp(a, "guard_enters")) d->guard_enters = (int)id;
            if (!strcmp(a, "guard_leaves")) d->guard_leaves = (int)id;
            if (!strcmp(a, "guarded_begins")) d->guarded_begins = (int)id;
        } else if (!strncmp(line, "ev ", 3) && d->n_ev < MAX_EV) {
            cuprof_event *e = &d->ev[d->n_ev++];
            unsigned api, cls, depth;
            int result;
            unsigned long long raw[5];
            int got = sscanf(line, "ev %u %u %u %d %llx %llx %llx %llx %llx", &api, &cls, &depth,
                             &result, &raw[0], &raw[1], &raw[2], &raw[3], &raw[4]);
            ck_assert_int_eq(got, 9);
            e->api = (uint16_t)api;
            e->cls = (uint8_t)cls;
            e->depth = (uint8_t)depth;
            e->result = result;
            uint64_t w[5];   /* the arguments, then the stack id word */
            for (int i = 0; i < 5; i++)
                w[i] = raw[i];
            memcpy(&e->a, w, sizeof w);
        }
    }
    fclose(f);
    return d;
}

void calls_parse(const char *out, calls *c)
{
    memset(c, 0, sizeof *c);
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        int n;
        if (c->n < MAX_CALLS && sscanf(p, "%d %95s r=%d errno=%d", &n, c->name[c->n], &c->r[c->n],
                                       &c->err[c->n]) == 4)
            c->n++;
    }
}

/* Value printed after "key=" on a line of out (hex pointers or ints). */
unsigned long long printed(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    ck_assert_msg(p != NULL, "program did not print %s", key);
    return strtoull(p + strlen(key), NULL, 0);
}

int have_sim(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sim/libcudart.so.13", e2e_build());
    return access(path, R_OK) == 0;
}

const char *real_libdir(void)
{
    const char *home = getenv("CUDA_HOME");
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/lib64", home && *home ? home : "/usr/local/cuda");
    return dir;
}

/*
 * Runs build/tests/preload/<prog> [arg] with libdir first on the library
 * path, with the hooks and the fake collector preloaded when preload != 0.
 * Returns the result; *d gets the dump (only when preloaded).
 */
e2e_result run_prog(const char *prog, const char *arg, const char *libdir, int preload,
                           dump **d)
{
    char *tmp = e2e_tmpdir();
    static char env_lib[4200], env_pre[8400], env_out[4200], path[4096];
    snprintf(path, sizeof path, "%s/tests/preload/%s", e2e_build(), prog);
    snprintf(env_lib, sizeof env_lib, "LD_LIBRARY_PATH=%s", libdir);
    snprintf(env_pre, sizeof env_pre, "LD_PRELOAD=%s/tests/preload/libcuprof_hooks.so %s/tests/preload/libfakecollector.so",
             e2e_build(), e2e_build());
    snprintf(env_out, sizeof env_out, "%s=%s/dump.txt", TEST_PRELOAD_OUT_ENV, tmp);
    const char *env[] = {env_lib, preload ? env_pre : NULL, env_out, NULL};
    if (!preload)
        env[1] = env_out, env[2] = NULL;
    const char *argv[] = {path, arg, NULL};
    e2e_result r = e2e_run(argv, env, NULL, 60);
    if (preload) {
        char dpath[4300];
        snprintf(dpath, sizeof dpath, "%s/dump.txt", tmp);
        *d = dump_load(dpath);
    }
    e2e_rmtree(tmp);
    free(tmp);
    return r;
}

int api_id(const dump *d, const char *name)
{
    for (int i = 0; i < d->n_api; i++)
        if (d->api[i] && !strcmp(d->api[i], name))
            return i;
    ck_abort_msg("api %s not registered", name);
    return -1;
}

const char *ev_name(const dump *d, const cuprof_event *e)
{
    return e->api < d->n_api && d->api[e->api] ? d->api[e->api] : "?";
}

const char *kernel_name(const dump *d, uint32_t id)
{
    return id > 0 && id < MAX_NAMES && d->kernel[id] ? d->kernel[id] : "(unknown)";
}

/* i-th recorded event of the given class (-1: any), or NULL. */
const cuprof_event *nth(const dump *d, int cls, int i)
{
    for (int k = 0; k < d->n_ev; k++)
        if (cls < 0 || d->ev[k].cls == cls)
            if (i-- == 0)
                return &d->ev[k];
    return NULL;
}

void dump_free(dump *d)
{
    for (int i = 0; i < MAX_NAMES; i++) {
        free(d->api[i]);
        free(d->cat[i]);
        free(d->kernel[i]);
    }
    free(d);
}
