/*
 * spawn.c - at exit, once the run file is complete: cuprof-report (the tool
 * beside libcuprof.so, which holds the model and the writers; the library
 * does not) builds every output from it in its own process, and the exit
 * waits for it, so the files are there when the program is gone.
 *
 * The tool runs without our LD_PRELOAD and injection variables (it is not
 * profiled), with its output on our stderr. errno is kept. A program
 * with a SIGCHLD handler sees one more child end while it exits; one that
 * reaps every child (waitpid(-1)) may take the tool's status first, which
 * only costs us the tool's exit status.
 */
#include "collector/spawn.h"
#include "collector/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
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

int cuprof_spawn_report(const char *runfile)
{
    int saved = errno;
    Dl_info info;
    char tool[PATH_MAX];
    const char *over = getenv("CUPROF_REPORT");
    if (over && *over) {
        snprintf(tool, sizeof tool, "%s", over);
    } else if (!dladdr((void *)cuprof_spawn_report, &info) || !info.dli_fname) {
        cuprof_log("cannot find cuprof-report beside libcuprof.so; the run is kept in %s: "
                   "run prof.sh report %s", runfile, runfile);
        errno = saved;
        return -1;
    } else {
        const char *slash = strrchr(info.dli_fname, '/');
        int dn = slash ? (int)(slash - info.dli_fname) : 1;
        snprintf(tool, sizeof tool, "%.*s/cuprof-report", dn, slash ? info.dli_fname : ".");
    }
    char **env = tool_env();
    char *argv[] = {tool, "--at-exit", (char *)runfile, NULL};
    pid_t pid;
    /* libc's own: the library's posix_spawn hook would put our preload
     * back into the tool's environment */
    typedef __typeof__(&posix_spawn) spawn_fn;
    spawn_fn spawn = (spawn_fn)(uintptr_t)dlsym(RTLD_NEXT, "posix_spawn");
    if (!spawn)
        spawn = posix_spawn;
    int rc = access(tool, X_OK) == 0 && env ? spawn(&pid, tool, NULL, NULL, argv, env) : -1;
    free(env);
    if (rc != 0) {
        cuprof_log("cannot run %s (%s); the run is kept in %s: run prof.sh report %s", tool,
                   strerror(rc > 0 ? rc : errno), runfile, runfile);
        errno = saved;
        return -1;
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    errno = saved;
    if (w != pid)
        return 0;   /* the program reaped it (waitpid(-1)): its status is lost, not its files */
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    cuprof_log("cuprof-report ended by signal %d; the run is kept in %s: run prof.sh report %s",
               WIFSIGNALED(st) ? WTERMSIG(st) : 0, runfile, runfile);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
