/*
 * libc.h - libc's own functions for the collector, below the program's
 * view of them (issue 40.5).
 *
 * preload/hooks_libc.c interposes close, sigaction, posix_spawn and others
 * for the program: inside libcuprof.so a plain call to one of them binds to
 * that hook, so the collector would call up into preload/ (and the hook
 * back into the collector: cuprof_fd_begin around a close). The collector's
 * descriptors and signal dispositions are its own: it takes libc's
 * functions from here, never through preload/ (tests/layering checks that
 * no collector object uses a symbol a preload object defines).
 */
#ifndef CUPROF_COLLECTOR_LIBC_H
#define CUPROF_COLLECTOR_LIBC_H

#include <dlfcn.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* close(2) itself, errno as close sets it. */
static inline int cuprof_libc_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

/* dlsym itself, libc's: preload/hooks_dlsym.c interposes dlsym for the
 * program (a CUDA library's handle gives the hook); the collector's lookups
 * are its own. Called through a pointer from the collector's code, so an
 * RTLD_NEXT lookup is still relative to libcuprof.so. */
static inline void *cuprof_libc_dlsym(void *h, const char *name)
{
    static void *(*real)(void *, const char *);
    void *(*f)(void *, const char *) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
        for (size_t i = 0; f == NULL && i < sizeof versions / sizeof versions[0]; i++)
            *(void **)&f = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
        if (f == NULL)
            return NULL;
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    return f(h, name);
}

/* libc's own definition of name (the next one after libcuprof.so, or libc's
 * when nothing follows us), NULL when there is none. */
static inline void *cuprof_libc_sym(const char *name)
{
    void *p = cuprof_libc_dlsym(RTLD_NEXT, name);
    if (p == NULL) {
        void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            p = cuprof_libc_dlsym(h, name);
            dlclose(h);
        }
    }
    return p;
}

#endif /* CUPROF_COLLECTOR_LIBC_H */
