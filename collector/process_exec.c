/*
 * process_exec.c - what an exec'd or spawned image needs to be profiled
 * again: the environment the process started with (see process.h).
 *
 * Saved once, from a constructor (before main can unsetenv anything): our
 * library's path if LD_PRELOAD named it, CUDA_INJECTION64_PATH, and every
 * CUPROF_* variable. An exec whose environment lacks one gets it back
 * (uftrace does the same for its own variables); a variable the program set
 * to another value is left as the program set it.
 */
#include "collector/internal.h"
#include "collector/log.h"
#include "collector/process.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define MAX_SAVED 32

static struct {
    char *vars[MAX_SAVED];   /* "NAME=value" entries put back when missing */
    size_t n;
    char *self;              /* our library's path when LD_PRELOAD named it */
} saved_env;

/* This process's pid: set at load and in every forked child (atfork). A
 * vfork child (or a raw clone) shares our memory under another pid. */
static _Atomic long proc_pid;

static void pid_after_fork(void)
{
    atomic_store(&proc_pid, (long)getpid());
}

/* 1 when the ':' or ' ' separated list has entry (LD_PRELOAD syntax). */
static int list_has(const char *list, const char *entry)
{
    size_t n = strlen(entry);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ": ");
        if (k == n && strncmp(p, entry, n) == 0)
            return 1;
        p += k;
        if (*p)
            p++;
    }
    return 0;
}

/* Our library's path as the dynamic linker loaded it. */
static const char *self_path(void)
{
    Dl_info info;
    if (!dladdr((void *)self_path, &info) || !info.dli_fname || info.dli_fname[0] != '/')
        return NULL;
    return info.dli_fname;
}

__attribute__((constructor)) static void save_environment(void)
{
    atomic_store(&proc_pid, (long)getpid());
    pthread_atfork(NULL, NULL, pid_after_fork);
    const char *self = self_path();
    const char *pre = getenv("LD_PRELOAD");
    if (self && pre && list_has(pre, self)) {
        saved_env.self = strdup(self);
        /* NVTX finds its tool through this variable (preload/nvtx.c). A
         * program that set its own keeps it, and we say so once. */
        const char *nvtx = getenv("NVTX_INJECTION64_PATH");
        if (!nvtx || !nvtx[0]) {
            int e = errno;
            setenv("NVTX_INJECTION64_PATH", self, 1);
            errno = e;
        } else if (strcmp(nvtx, self) != 0) {
            cuprof_log("NVTX_INJECTION64_PATH is already set (%s): NVTX ranges go to that "
                       "tool and are not in this profile; unset it to see them here", nvtx);
        }
        /* NCCL (2.23 and later) loads its profiler plugin from this one
         * (preload/nccl_plugin.c); the program's own is kept, said once. */
        const char *npp = getenv("NCCL_PROFILER_PLUGIN");
        if (!npp || !npp[0]) {
            int e = errno;
            setenv("NCCL_PROFILER_PLUGIN", self, 1);
            errno = e;
        } else if (strcmp(npp, self) != 0) {
            cuprof_log("NCCL_PROFILER_PLUGIN is already set (%s): NCCL's choice of algorithm and "
                       "protocol per collective goes to that plugin and is not in this profile; "
                       "unset it to see it here", npp);
        }
    }
    for (char **e = environ; e && *e && saved_env.n < MAX_SAVED; e++)
        if (strncmp(*e, "CUPROF_", 7) == 0 || strncmp(*e, "CUDA_INJECTION64_PATH=", 22) == 0 ||
            strncmp(*e, "NVTX_INJECTION64_PATH=", 22) == 0 || strncmp(*e, "NCCL_PROFILER_PLUGIN=", 21) == 0)
            if ((saved_env.vars[saved_env.n] = strdup(*e)) != NULL)
                saved_env.n++;
}

/* Index of NAME= in env (name_len bytes of entry, up to '='), or -1. */
static long env_find(char *const env[], const char *entry)
{
    size_t n = strcspn(entry, "=");
    for (long i = 0; env && env[i]; i++)
        if (strncmp(env[i], entry, n) == 0 && env[i][n] == '=')
            return i;
    return -1;
}

char **cuprof_process_exec_env(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    long pre = env_find(envp, "LD_PRELOAD=");
    int fix_preload = saved_env.self && (pre < 0 || !list_has(envp[pre] + 11, saved_env.self));
    size_t missing = 0;
    for (size_t i = 0; i < saved_env.n; i++)
        missing += env_find(envp, saved_env.vars[i]) < 0;
    if (!fix_preload && missing == 0)
        return (char **)envp;
    char **out = malloc((n + missing + 2) * sizeof *out);
    if (!out)
        return (char **)envp;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        out[k++] = envp[i];
    for (size_t i = 0; i < saved_env.n; i++)
        if (env_find(envp, saved_env.vars[i]) < 0)
            out[k++] = saved_env.vars[i];
    if (fix_preload) {
        /* ours last, as prof.sh puts it; the program's own entries kept */
        const char *old = pre >= 0 ? envp[pre] + 11 : "";
        size_t len = 11 + strlen(old) + 1 + strlen(saved_env.self) + 1;
        char *v = malloc(len);
        if (!v) {
            free(out);
            return (char **)envp;
        }
        strcpy(v, "LD_PRELOAD=");
        if (*old) {
            strcat(v, old);
            strcat(v, ":");
        }
        strcat(v, saved_env.self);
        if (pre >= 0)
            out[pre] = v;
        else
            out[k++] = v;
    }
    out[k] = NULL;
    return out;
}

void cuprof_process_env_free(char **env, char *const envp[])
{
    if (!env || env == (char **)envp)
        return;
    for (size_t i = 0; env[i]; i++) {
        int theirs = 0;
        for (size_t j = 0; envp && envp[j] && !theirs; j++)
            theirs = env[i] == envp[j];
        for (size_t j = 0; j < saved_env.n && !theirs; j++)
            theirs = env[i] == saved_env.vars[j];
        if (!theirs)
            free(env[i]);   /* the LD_PRELOAD entry we built */
    }
    free(env);
}

int cuprof_process_is_vfork_child(void)
{
    /* getpid() is a system call (glibc >= 2.25 caches nothing): exact. */
    long pid = atomic_load(&proc_pid);
    return pid != 0 && (long)getpid() != pid;
}
