/*
 * stacks.h - host call stacks (CUPROF_STACKS, prof.sh --stacks): taken at
 * the outermost hooked call, deduplicated into ids (cuprof_event.stack),
 * resolved to module + function names once, at exit (stacks_sym.c).
 *
 * How a stack is taken (stacks.c):
 *  - "fp": the frame-pointer chain, every step checked against the thread's
 *    stack bounds (never a read outside them). Code built without frame
 *    pointers hides its callers' frames.
 *  - "unwind": libunwind's unw_backtrace (DWARF CFI, with its per-thread
 *    cache). libunwind is dlopen'ed RTLD_LOCAL: none of its symbols enter
 *    the program's global scope (its _Unwind_* would otherwise take C++
 *    exceptions away from libgcc_s).
 *  - "auto": the frame-pointer walk, trusted one return address at a time:
 *    the first time a return address is met, libunwind's stack is taken too
 *    and compared, and the address is marked good (its function keeps a
 *    frame pointer there: the chain's next frame is libunwind's), bad (it
 *    does not: every stack through it is taken by libunwind) or last (the
 *    stack ends within 3 frames after it, the same every time, e.g.
 *    __libc_start_call_main: those frames are kept with the mark).
 * The frames of the profiler itself are cut off: a stack starts at the
 * caller of the hooked function. In a thread running Python, its Python
 * frames take the place of the interpreter's evaluation frames
 * (pyframes.h; CUPROF_STACKS_PYTHON=0: native frames only): the native walk
 * then goes up to CUPROF_STACK_NATIVE_MAX frames deep (3.10 spends a few
 * native frames per Python call), and the stack kept is at most
 * CUPROF_STACK_MAX_FRAMES.
 */
#ifndef CUPROF_COLLECTOR_STACKS_H
#define CUPROF_COLLECTOR_STACKS_H

#include "collector/runfile_types.h"

#include <link.h>
#include <stdint.h>

/* The addresses an object's PT_LOAD segments cover, [*lo, *hi) (a
 * dl_iterate_phdr entry); *hi 0 when it has none. */
static inline void cuprof_object_range(const struct dl_phdr_info *info, uintptr_t *lo,
                                       uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < *lo)
            *lo = a;
        if (a + ph->p_memsz > *hi)
            *hi = a + ph->p_memsz;
    }
}

#define CUPROF_STACK_MAX_FRAMES 128
#define CUPROF_STACK_NATIVE_MAX 256

/* enum cuprof_stacks_mode (config.h) in force; 0 = no stacks. Read by
 * cuprof_begin on every call (relaxed). */
extern int cuprof_stacks_mode;

/* From collector init: sets the mode up (tables, libunwind) and, with
 * python (CUPROF_STACKS_PYTHON, default 1), the Python frames. A mode whose
 * parts are missing degrades with one log line ("unwind" without libunwind:
 * "fp"). */
void cuprof_stacks_init(int mode, int python);

/* The calling thread's stack now, as an id (1..); 0 when it could not be
 * taken or the table is full (counted: cuprof_stacks_lost). Hot path:
 * no locks unless the stack or one of its return addresses is new. */
uint32_t cuprof_stack_capture(void);

/* Counters for the summary and the bench. */
typedef struct cuprof_stacks_stats {
    uint32_t stacks;              /* distinct stacks (ids 1..stacks) */
    uint64_t lost;                /* captures that got no id (table full) */
    uint64_t by_fp;               /* captures by the checked frame-pointer walk */
    uint64_t by_unwind;           /* captures by libunwind */
    uint64_t frames;              /* return addresses kept, all stacks */
    uint32_t addresses;           /* return addresses with a mark ("auto") */
} cuprof_stacks_stats;
void cuprof_stacks_stats_get(cuprof_stacks_stats *out);

/* Return addresses of stack id, innermost (the hooked call's caller)
 * first; NULL for an unknown id. */
const uintptr_t *cuprof_stack_pcs(uint32_t id, uint32_t *n);

/* Every stack resolved, as the STACKS block carries them (and the reader's
 * cuprof_run then holds them). */
typedef struct cuprof_stacks_resolved {
    uint64_t stacks_lost;            /* calls whose stack was not kept (table full) */
    uint32_t nstacks;                /* ids 1..nstacks */
    const cuprof_run_stack *stacks;  /* [id]; [0] unused */
    uint32_t nframes;                /* distinct return addresses */
    const cuprof_run_frame *frames;
    uint32_t nmodules;               /* objects the native frames lie in */
    const cuprof_run_module *modules;
} cuprof_stacks_resolved;

/* stacks_sym.c, at exit: every stack's frames resolved (module, function):
 * fills run's stacks_lost, nstacks/stacks and nframes/frames.
 * Returns what it allocated, for cuprof_stacks_run_free; NULL when there
 * are no stacks or memory ran out (the run then has none). */
void *cuprof_stacks_run_fill(cuprof_stacks_resolved *run);
void cuprof_stacks_run_free(void *owned);

/* stacks_sym.c: calls fn for each function symbol of the ELF file at path
 * (its .symtab, else .dynsym): name, value (file address) and size. -1 when
 * the file or its table cannot be read. */
int cuprof_elf_functions(const char *path,
                         void (*fn)(const char *name, uint64_t value, uint64_t size, void *ctx),
                         void *ctx);

/* stacks_sym.c: the value (file address) of the data object name in the
 * ELF file at path (its .symtab, else .dynsym); -1 when it is not there. */
int cuprof_elf_object(const char *path, const char *name, uint64_t *value);

/* Fork handlers: the table's lock is never inherited held. */
void cuprof_stacks_fork_prepare(void);
void cuprof_stacks_fork_done(int child);

#endif /* CUPROF_COLLECTOR_STACKS_H */
