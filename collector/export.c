/*
 * export.c - `--export sqlite` at exit: once the files are written, runs
 * cuprof-export (the tool beside libcuprof.so, which links libsqlite3; the
 * library never does) on the run's JSON trace and waits for it, so that
 * NAME.sqlite is there when the program is gone, as with `nsys profile
 * --export sqlite`.
 *
 * The tool runs without our LD_PRELOAD and injection variables (it is not
 * profiled), with its output on our stderr. Not after a crash or before an
 * exec (the process is not ending normally there). errno is kept. A program
 * with a SIGCHLD handler sees one more child end while it exits; one that
 * reaps every child (waitpid(-1)) may take the tool's status first, which
 * only costs us the tool's exit status.
 */
#include "collector/export.h"
#include "collector/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The environment minus what would profile the tool. */
static char **tool_env(void)
{
    static const char *const drop[] = {"LD_PRELOAD=", "CUDA_INJECTION64_PATH=",
                                       "NVTX_INJECTION64_PATH="};
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++) {
        int keep = 1;
        for (size_t d = 0; d < sizeof drop / sizeof drop[0]; d++)
            keep &= strncmp(*e, drop[d], strlen(drop[d])) != 0;
        if (keep)
            env[k++] = *e;
    }
    return env;
}

void cuprof_export_sqlite(const char *dir, const char *name, const char *written)
{
    int saved = errno;
    const char *suffix = strstr(written, "trace.json.gz") ? "trace.json.gz"
                         : strstr(written, "trace.json") ? "trace.json" : NULL;
    Dl_info info;
    char tool[PATH_MAX], trace[PATH_MAX];
    if (!suffix) {
        cuprof_log("--export sqlite: no JSON trace was written, so no NAME.sqlite");
        errno = saved;
        return;
    }
    if (!dladdr((void *)cuprof_export_sqlite, &info) || !info.dli_fname) {
        cuprof_log("--export sqlite: cannot find cuprof-export; run prof.sh export sqlite "
                   "%s/%s.%s", dir, name, suffix);
        errno = saved;
        return;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    int dn = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(tool, sizeof tool, "%.*s/cuprof-export", dn, slash ? info.dli_fname : ".");
    snprintf(trace, sizeof trace, "%s/%s.%s", dir, name, suffix);
    char **env = tool_env();
    char *argv[] = {tool, "sqlite", trace, NULL};
    pid_t pid;
    int rc = access(tool, X_OK) == 0 && env ? posix_spawn(&pid, tool, NULL, NULL, argv, env) : -1;
    free(env);
    if (rc != 0) {
        cuprof_log("--export sqlite: cannot run %s; run prof.sh export sqlite %s", tool, trace);
        errno = saved;
        return;
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (w == pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        cuprof_log("--export sqlite: cuprof-export failed on %s (see above)", trace);
    errno = saved;
}
