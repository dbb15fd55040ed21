/*
 * srcline.c - file:line and inlines of native frames through libdw (see
 * srcline.h).
 */
#include "formats/runfile/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INLINES 16   /* inline depth kept per address (deeper ones are cut) */

/* One level of an address's inline chain. */
typedef struct level {
    const char *func;   /* inlined function (linkage name when it has one); NULL: the
                           real function (the frame's own symbol) */
    const char *file;
    uint32_t line;
} level;

struct cuprof_srclines {
    cuprof_run_frame *frames;   /* the run's frames, then the inlined ones */
    cuprof_run_stack *stacks;   /* [nstacks + 1] */
    uint32_t *indexes;          /* every stack's frames */
    char **strs;                /* strings copied out of libdw */
    size_t nstrs, cap;
};

static const char *keep(cuprof_srclines *s, const char *p)
{
    if (!p)
        return NULL;
    for (size_t i = s->nstrs; i > 0 && s->nstrs - i < 8; i--)   /* runs of the same file */
        if (!strcmp(s->strs[i - 1], p))
            return s->strs[i - 1];
    if (s->nstrs == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        char **v = realloc(s->strs, cap * sizeof *v);
        if (!v)
            return NULL;
        s->strs = v;
        s->cap = cap;
    }
    char *c = strdup(p);
    if (c)
        s->strs[s->nstrs++] = c;
    return c;
}

/* The object's Dwfl module, reported once at its load bias (NULL: no
 * debug information we may use). */
static Dwfl_Module *report(Dwfl *dwfl, const cuprof_run_module *m)
{
    if (!m->path[0] || m->path[0] != '/')
        return NULL;
    Dwfl_Module *mod = dwfl_report_elf(dwfl, m->path, m->path, -1, m->base, false);
    if (!mod)
        return NULL;
    if (m->build_id_len) {   /* the file must be the build that ran */
        const unsigned char *bits;
        GElf_Addr vaddr;
        int len = dwfl_module_build_id(mod, &bits, &vaddr);
        if (len != (int)m->build_id_len || memcmp(bits, m->build_id, (size_t)len) != 0)
            return NULL;
    }
    return mod;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        n = dwarf_formstring(&a);
    if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
        n = dwarf_formstring(&a);
    return n;
}

/* The inline chain at address a of mod: v[0] the innermost level; returns
 * the count (0: no line known). *outer: the function around it all as
 * DWARF names it (for a frame the symbol tables do not name), or NULL. */
static int chain(Dwfl_Module *mod, Dwarf_Addr a, level *v, const char **outer)
{
    *outer = NULL;
    Dwfl_Line *ln = dwfl_module_getsrc(mod, a);
    int line = 0;
    const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
    if (!file || line <= 0)
        return 0;
    int n = 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, a, &bias);
    Dwarf_Die *scopes = NULL;
    int ns = cu ? dwarf_getscopes(cu, a - bias, &scopes) : 0;
    if (ns > 0) {   /* then outward through the DIE tree from the innermost scope, as
                       eu-addr2line -i does: an inline's caller may not list the
                       address among its own ranges (nvcc's kernel wrappers) */
        Dwarf_Die inner = scopes[0];
        free(scopes);
        scopes = NULL;
        ns = dwarf_getscopes_die(&inner, &scopes);
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (cu && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    for (int i = 0; i < ns && n < MAX_INLINES - 1; i++) {
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
            *outer = die_name(&scopes[i]);
            break;
        }
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        v[n].func = die_name(&scopes[i]);
        v[n].file = file;
        v[n].line = (uint32_t)line;
        if (v[n].func)   /* an inline with no name: no frame, its call line still counts */
            n++;
        /* the next level out is at the line that called this inline */
        Dwarf_Attribute at;
        Dwarf_Word fi = 0, cl = 0;
        if (!dwarf_attr(&scopes[i], DW_AT_call_line, &at) || dwarf_formudata(&at, &cl) != 0 ||
            !dwarf_attr(&scopes[i], DW_AT_call_file, &at) || dwarf_formudata(&at, &fi) != 0 ||
            !files || fi >= nfiles) {
            file = NULL;
            break;
        }
        file = dwarf_filesrc(files, fi, NULL, NULL);
        line = (int)cl;
    }
    free(scopes);
    v[n].func = NULL;
    v[n].file = file;
    v[n].line = file ? (uint32_t)line : 0;
    return n + 1;
}

static const cuprof_run_module *module_of(const cuprof_run *run, const char *path)
{
    for (uint32_t i = 0; i < run->nmodules; i++)
        if (!strcmp(run->modules[i].path, path))
            return &run->modules[i];
    return NULL;
}

/* Grows s->frames to hold k more (n in use, *cap allotted). */
static int frames_room(cuprof_srclines *s, size_t n, size_t *cap, size_t k)
{
    if (n + k <= *cap)
        return 0;
    size_t c = (n + k) * 2;
    cuprof_run_frame *f = realloc(s->frames, c * sizeof *f);
    if (!f)
        return -1;
    s->frames = f;
    *cap = c;
    return 0;
}

static int rebuild_stacks(cuprof_srclines *s, cuprof_run *run, const uint32_t *first,
                          const uint32_t *count)
{
    size_t total = 0;
    for (uint32_t id = 1; id <= run->nstacks; id++)
        for (uint32_t k = 0; k < run->stacks[id].n; k++)
            total += 1 + count[run->stacks[id].frames[k]];
    s->stacks = calloc((size_t)run->nstacks + 1, sizeof *s->stacks);
    s->indexes = malloc((total ? total : 1) * sizeof *s->indexes);
    if (!s->stacks || !s->indexes)
        return -1;
    size_t at = 0;
    for (uint32_t id = 1; id <= run->nstacks; id++) {
        const cuprof_run_stack *o = &run->stacks[id];
        s->stacks[id].frames = &s->indexes[at];
        for (uint32_t k = 0; k < o->n; k++) {
            uint32_t f = o->frames[k];
            for (uint32_t j = 0; j < count[f]; j++)   /* its inlines, innermost first */
                s->indexes[at++] = first[f] + j;
            s->indexes[at++] = f;
        }
        s->stacks[id].n = (uint32_t)(&s->indexes[at] - s->stacks[id].frames);
    }
    return 0;
}

/* Frame i (s->frames[i], native, in mod): its line, and its inlines as
 * frames s->frames[*n ...] (first[i], count[i]). 1 resolved, 0 no line
 * known, -1 out of memory. */
static int resolve_frame(cuprof_srclines *s, uint32_t i, Dwfl_Module *mod, size_t *n,
                         size_t *cap, uint32_t *first, uint32_t *count)
{
    level v[MAX_INLINES];
    const char *outer = NULL;
    int k = chain(mod, s->frames[i].pc - 1, v, &outer);   /* pc - 1: the call itself */
    if (k == 0)
        return 0;
    if (frames_room(s, *n, cap, (size_t)k - 1) < 0)
        return -1;
    cuprof_run_frame *f = &s->frames[i];   /* after the room: frames may have moved */
    first[i] = (uint32_t)*n;
    count[i] = (uint32_t)k - 1;
    for (int j = 0; j < k - 1; j++) {
        cuprof_run_frame *x = &s->frames[(*n)++];
        *x = *f;
        x->symbol = keep(s, v[j].func);
        x->offset = 0;
        x->file = keep(s, v[j].file);
        x->line = v[j].line;
    }
    if (!f->symbol && outer)
        f->symbol = keep(s, outer);
    f->file = keep(s, v[k - 1].file);
    f->line = f->file ? v[k - 1].line : 0;
    return 1;
}

cuprof_srclines *cuprof_srclines_resolve(cuprof_run *run)
{
    if (!run->nframes || !run->nmodules || !run->stacks)
        return NULL;
    static char *debuginfo_path = NULL;   /* libdw's default: ":.debug:/usr/lib/debug" */
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    /* libdw's standard lookup asks debuginfod servers over the network when
     * DEBUGINFOD_URLS is set (Debian sets it in /etc/profile.d): the exit path
     * must not wait on a download, so only the files on this machine count. */
    unsetenv("DEBUGINFOD_URLS");
    cuprof_srclines *s = calloc(1, sizeof *s);
    Dwfl *dwfl = dwfl_begin(&cb);
    Dwfl_Module **mods = calloc(run->nmodules, sizeof *mods);
    uint32_t *first = calloc(run->nframes, sizeof *first);   /* its first inline frame */
    uint32_t *count = calloc(run->nframes, sizeof *count);   /* its inline frames */
    size_t n = run->nframes, cap = n + 64;
    if (!s || !dwfl || !mods || !first || !count)
        goto fail;
    s->frames = malloc(cap * sizeof *s->frames);
    if (!s->frames)
        goto fail;
    memcpy(s->frames, run->frames, n * sizeof *s->frames);
    dwfl_report_begin(dwfl);
    for (uint32_t i = 0; i < run->nmodules; i++)
        mods[i] = report(dwfl, &run->modules[i]);
    dwfl_report_end(dwfl, NULL, NULL);
    int any = 0;
    const char *last_path = NULL;
    const cuprof_run_module *last = NULL;
    for (uint32_t i = 0; i < run->nframes; i++) {
        const cuprof_run_frame *f = &run->frames[i];
        if (f->python || !f->module || !f->module[0] || f->pc == 0)
            continue;
        if (f->module != last_path) {   /* frames come sorted by pc: a module's together */
            last_path = f->module;
            last = module_of(run, f->module);
        }
        const cuprof_run_module *m = last;
        Dwfl_Module *mod = m ? mods[m - run->modules] : NULL;
        int rc = mod ? resolve_frame(s, i, mod, &n, &cap, first, count) : 0;
        if (rc < 0)
            goto fail;
        any |= rc;
    }
    if (!any || rebuild_stacks(s, run, first, count) < 0)
        goto fail;
    dwfl_end(dwfl);
    free(mods);
    free(first);
    free(count);
    run->frames = s->frames;
    run->nframes = (uint32_t)n;
    run->stacks = s->stacks;
    return s;
fail:
    if (dwfl)
        dwfl_end(dwfl);
    free(mods);
    free(first);
    free(count);
    cuprof_srclines_free(s);
    return NULL;
}

void cuprof_srclines_free(cuprof_srclines *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s->frames);
    free(s->stacks);
    free(s->indexes);
    free(s);
}
