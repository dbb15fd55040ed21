/*
 * stacks_sym.c - at exit, the stacks' return addresses resolved to the
 * object they lie in and the function around them (see stacks.h).
 *
 * The objects are the ones mapped now (dl_iterate_phdr); each one's ELF
 * symbol table (.symtab, else .dynsym) is read from its file once, through
 * a read-only mapping, and only function symbols are kept. No DWARF here:
 * each object holding a frame is recorded with its load bias and GNU build
 * id (run->modules), and cuprof-report finds file:line from them
 * (formats/runfile/srcline.c), as perf report does from perf.data's build ids.
 * Python frames (CUPROF_PY_PC | id, pyframes.h) take their qualified name,
 * file and line from the Python frames' table; they sort after every native
 * return address (the tag is the top bit), so the run's frames list them
 * last.
 */
#include "collector/stacks.h"
#include "collector/pyframes.h"
#include "collector/libc.h"
#include "collector/config.h"
#include "collector/log.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sym {
    uint64_t lo, hi;                 /* [lo, hi) in the file's addresses; hi = lo when
                                        the size is unknown */
    const char *name;                /* in the file mapping */
} sym;

typedef struct module {
    char *path;
    uintptr_t base;                  /* load bias */
    uintptr_t lo, hi;                /* its mapped segments, lowest to highest */
    int loaded;                      /* symbols read (or tried) */
    int used;                        /* holds a frame: written as a run module */
    const char *copy;                /* its path as the frames' module (owned strings) */
    uint8_t build_id[64];            /* NT_GNU_BUILD_ID's bytes, from its mapped notes */
    uint32_t build_id_len;           /* 0: none found */
    void *map;
    size_t map_len;
    sym *syms;
    size_t nsyms;
} module;

typedef struct modules {
    module *v;
    size_t n, cap;
} modules;

/* What the run owns, freed by cuprof_stacks_run_free. */
typedef struct owned {
    cuprof_run_frame *frames;
    cuprof_run_stack *stacks;
    uint32_t *indexes;
    char *strings;                   /* module paths and symbol names, one block */
    cuprof_run_module *modules;      /* the objects holding frames */
    uint8_t *build_ids;              /* their build ids, one block */
} owned;

/* The GNU build id among the notes of a mapped object's PT_NOTE segments
 * (read in place: the loader mapped them), into m. */
static void read_build_id(module *m, const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE || ph->p_memsz < sizeof(ElfW(Nhdr)))
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) nh;
            memcpy(&nh, p, sizeof nh);
            size_t name = (nh.n_namesz + 3u) & ~3u, desc = (nh.n_descsz + 3u) & ~3u;
            const uint8_t *q = p + sizeof nh;
            if (name > (size_t)(end - q) || desc > (size_t)(end - q) - name)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(q, "GNU", 4) &&
                nh.n_descsz > 0 && nh.n_descsz <= sizeof m->build_id) {
                memcpy(m->build_id, q + name, nh.n_descsz);
                m->build_id_len = nh.n_descsz;
                return;
            }
            p = q + name + desc;
        }
    }
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    modules *ms = data;
    uintptr_t lo, hi;
    cuprof_object_range(info, &lo, &hi);
    if (hi == 0)
        return 0;
    if (ms->n == ms->cap) {
        size_t cap = ms->cap ? ms->cap * 2 : 64;
        module *v = realloc(ms->v, cap * sizeof *v);
        if (!v)
            return 1;
        ms->v = v;
        ms->cap = cap;
    }
    const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
    char exe[4096];
    if (!name) {   /* the program itself */
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[len > 0 ? len : 0] = '\0';
        name = exe;
    }
    module *m = &ms->v[ms->n];
    memset(m, 0, sizeof *m);
    m->path = strdup(name);
    if (!m->path)
        return 1;
    m->base = info->dlpi_addr;
    read_build_id(m, info);
    m->lo = lo;
    m->hi = hi;
    ms->n++;
    return 0;
}

static void modules_free(modules *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        if (ms->v[i].map)
            munmap(ms->v[i].map, ms->v[i].map_len);
        free(ms->v[i].syms);
        free(ms->v[i].path);
    }
    free(ms->v);
}

static int sym_cmp(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : (x->hi > y->hi) - (x->hi < y->hi);
}

/* The symbol table of the ELF image f (len bytes): .symtab when it has one
 * (static functions too), else .dynsym. 0 when there is none. */
typedef struct symtab {
    const Elf64_Sym *s;
    size_t n;
    const char *strs;
    size_t strs_len;
} symtab;

static int find_symtab(const unsigned char *f, size_t len, symtab *out)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
    const Elf64_Shdr *tab = NULL;
    for (int pass = 0; pass < 2 && !tab; pass++)
        for (unsigned i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) && sh[i].sh_size > 0) {
                tab = &sh[i];
                break;
            }
    if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_entsize != sizeof(Elf64_Sym) ||
        tab->sh_offset + tab->sh_size > len)
        return 0;
    const Elf64_Shdr *strsh = &sh[tab->sh_link];
    if (strsh->sh_offset + strsh->sh_size > len || strsh->sh_size == 0)
        return 0;
    out->strs = (const char *)(f + strsh->sh_offset);
    out->strs_len = strsh->sh_size;
    out->s = (const Elf64_Sym *)(f + tab->sh_offset);
    out->n = tab->sh_size / sizeof(Elf64_Sym);
    return 1;
}

/* Symbol i's name when it is a defined function, else NULL. */
static const char *function_name(const symtab *t, size_t i)
{
    const Elf64_Sym *s = &t->s[i];
    int type = ELF64_ST_TYPE(s->st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
        s->st_value == 0 || s->st_name >= t->strs_len)
        return NULL;
    const char *name = t->strs + s->st_name;
    return memchr(name, '\0', t->strs_len - s->st_name) ? name : NULL;
}

/* The file at path mapped read-only; NULL when it cannot be. */
static void *map_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    cuprof_libc_close(fd);
    if (map == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return map;
}

int cuprof_elf_functions(const char *path,
                         void (*fn)(const char *name, uint64_t value, uint64_t size, void *ctx),
                         void *ctx)
{
    size_t len = 0;
    void *map = map_file(path, &len);
    if (!map)
        return -1;
    symtab t;
    int found = find_symtab(map, len, &t);
    for (size_t i = 0; found && i < t.n; i++) {
        const char *name = function_name(&t, i);
        if (name)
            fn(name, t.s[i].st_value, t.s[i].st_size, ctx);
    }
    munmap(map, len);
    return found ? 0 : -1;
}

int cuprof_elf_object(const char *path, const char *name, uint64_t *value)
{
    size_t len = 0;
    void *map = map_file(path, &len);
    if (!map)
        return -1;
    symtab t;
    int found = 0;
    if (find_symtab(map, len, &t))
        for (size_t i = 0; i < t.n && !found; i++) {
            const Elf64_Sym *sy = &t.s[i];
            if (ELF64_ST_TYPE(sy->st_info) == STT_OBJECT && sy->st_shndx != SHN_UNDEF &&
                sy->st_value && sy->st_name < t.strs_len &&
                !strncmp(t.strs + sy->st_name, name, t.strs_len - sy->st_name)) {
                *value = sy->st_value;
                found = 1;
            }
        }
    munmap(map, len);
    return found ? 0 : -1;
}

/* Reads m's function symbols (once; a file that cannot be read has none). */
static void load_symbols(module *m)
{
    m->loaded = 1;
    if (m->path[0] != '/')
        return;   /* the vDSO and the like: no file */
    void *map = map_file(m->path, &m->map_len);
    if (!map)
        return;
    m->map = map;
    symtab t;
    if (!find_symtab(map, m->map_len, &t))
        return;
    size_t k = 0;
    m->syms = malloc((t.n ? t.n : 1) * sizeof *m->syms);
    if (!m->syms)
        return;
    for (size_t i = 0; i < t.n; i++) {
        const char *name = function_name(&t, i);
        if (!name)
            continue;
        m->syms[k].lo = t.s[i].st_value;
        m->syms[k].hi = t.s[i].st_value + t.s[i].st_size;
        m->syms[k].name = name;
        k++;
    }
    qsort(m->syms, k, sizeof *m->syms, sym_cmp);
    m->nsyms = k;
}

/* The function around file address a in m, or NULL. */
static const sym *find_sym(module *m, uint64_t a)
{
    if (!m->loaded)
        load_symbols(m);
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) {   /* last symbol starting at or before a */
        size_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Among symbols starting at the same place or before: the nearest one
     * whose extent holds a (aliases and nested sizes), else one of size 0. */
    for (size_t i = lo; i > 0 && lo - i < 8; i--) {
        const sym *c = &m->syms[i - 1];
        if (a < c->hi || c->hi == c->lo)
            return c;
    }
    return NULL;
}

static module *find_module(modules *ms, uintptr_t pc)
{
    for (size_t i = 0; i < ms->n; i++)
        if (pc >= ms->v[i].lo && pc < ms->v[i].hi)
            return &ms->v[i];
    return NULL;
}

static int pc_cmp(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* Index of pc in the sorted array (it is there). */
static uint32_t pc_index(const uintptr_t *v, size_t n, uintptr_t pc)
{
    size_t lo = 0, hi = n;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* The objects that hold frames as run->modules (their paths are the
 * frames' copies in o->strings: the same text). */
static int modules_keep(owned *o, const modules *ms, cuprof_stacks_resolved *run)
{
    size_t n = 0, idb = 0;
    for (size_t i = 0; i < ms->n; i++)
        if (ms->v[i].used) {
            n++;
            idb += ms->v[i].build_id_len;
        }
    o->modules = calloc(n ? n : 1, sizeof *o->modules);
    o->build_ids = malloc(idb ? idb : 1);
    if (!o->modules || !o->build_ids)
        return -1;
    uint32_t k = 0;
    idb = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const module *m = &ms->v[i];
        if (!m->used)
            continue;
        cuprof_run_module *rm = &o->modules[k++];
        rm->base = m->base;
        rm->path = m->copy ? m->copy : "";
        if (m->build_id_len) {
            memcpy(o->build_ids + idb, m->build_id, m->build_id_len);
            rm->build_id = o->build_ids + idb;
            rm->build_id_len = m->build_id_len;
            idb += m->build_id_len;
        }
    }
    run->nmodules = k;
    run->modules = o->modules;
    return 0;
}

void *cuprof_stacks_run_fill(cuprof_stacks_resolved *run)
{
    cuprof_stacks_stats st;
    cuprof_stacks_stats_get(&st);
    run->stacks_lost = st.lost;
    cuprof_debug(CUPROF_DBG_COLLECTOR,
                 "stacks: %u distinct, %llu taken by frame pointers, %llu by libunwind, "
                 "%u return addresses marked, %llu lost",
                 st.stacks, (unsigned long long)st.by_fp, (unsigned long long)st.by_unwind,
                 st.addresses, (unsigned long long)st.lost);
    if (cuprof_py_ready) {
        cuprof_py_stats ps;
        cuprof_py_stats_get(&ps);
        cuprof_debug(CUPROF_DBG_COLLECTOR,
                     "stacks: Python: %u distinct frames (%u code positions), %llu chains "
                     "dropped, %llu captures not matched to evaluation frames",
                     ps.frames, ps.codes, (unsigned long long)ps.dropped,
                     (unsigned long long)ps.unmatched);
    }
    if (st.stacks == 0)
        return NULL;
    owned *o = calloc(1, sizeof *o);
    uintptr_t *pcs = malloc((st.frames ? st.frames : 1) * sizeof *pcs);
    modules ms = {0};
    if (!o || !pcs)
        goto fail;
    /* distinct return addresses, sorted */
    size_t np = 0;
    for (uint32_t id = 1; id <= st.stacks; id++) {
        uint32_t n = 0;
        const uintptr_t *p = cuprof_stack_pcs(id, &n);
        for (uint32_t i = 0; p && i < n && np < st.frames; i++)
            pcs[np++] = p[i];
    }
    qsort(pcs, np, sizeof *pcs, pc_cmp);
    size_t nd = 0;
    for (size_t i = 0; i < np; i++)
        if (nd == 0 || pcs[i] != pcs[nd - 1])
            pcs[nd++] = pcs[i];

    o->frames = calloc(nd ? nd : 1, sizeof *o->frames);
    o->stacks = calloc((size_t)st.stacks + 1, sizeof *o->stacks);
    o->indexes = malloc((np ? np : 1) * sizeof *o->indexes);
    if (!o->frames || !o->stacks || !o->indexes)
        goto fail;
    dl_iterate_phdr(add_module, &ms);

    /* Names into one block: first their lengths, then the copies. */
    const char **mod_of = calloc(nd ? nd : 1, sizeof *mod_of);
    const char **sym_of = calloc(nd ? nd : 1, sizeof *sym_of);
    if (!mod_of || !sym_of) {
        free(mod_of);
        free(sym_of);
        goto fail;
    }
    size_t bytes = 1;
    for (size_t i = 0; i < nd; i++) {
        cuprof_run_frame *fr = &o->frames[i];
        fr->pc = pcs[i];
        if (pcs[i] & CUPROF_PY_PC)
            continue;   /* a Python frame: below */
        module *m = find_module(&ms, pcs[i]);
        if (!m)
            continue;
        mod_of[i] = m->path;
        m->used = 1;
        bytes += strlen(m->path) + 1;
        /* pc - 1: the call instruction, which a tail call may end a function with */
        const sym *s = find_sym(m, pcs[i] - 1 - m->base);
        if (s) {
            sym_of[i] = s->name;
            bytes += strlen(s->name) + 1;
            fr->offset = pcs[i] - m->base - s->lo;
        }
        else
            fr->offset = pcs[i] - m->base;
    }
    o->strings = malloc(bytes);
    if (!o->strings) {
        free(mod_of);
        free(sym_of);
        goto fail;
    }
    char *w = o->strings;
    *w++ = '\0';
    const char *last_mod = NULL, *last_copy = o->strings;
    for (size_t i = 0; i < nd; i++) {
        cuprof_run_frame *fr = &o->frames[i];
        fr->module = o->strings;   /* "" */
        if (pcs[i] & CUPROF_PY_PC) {
            /* qualified name, co_filename and line; module: the file's base
             * name. The strings are the Python frames' table's (kept to the
             * end of the process). */
            const char *q = NULL, *file = NULL;
            uint32_t line = 0;
            fr->python = 1;
            if (cuprof_py_frame((uint32_t)(pcs[i] & ~CUPROF_PY_PC), &q, &file, &line)) {
                const char *b = strrchr(file, '/');
                fr->symbol = q;
                fr->file = file;
                fr->line = line;
                fr->module = b ? b + 1 : file;
            }
            else
                fr->symbol = "?";
            continue;
        }
        if (mod_of[i]) {
            if (mod_of[i] != last_mod) {   /* sorted pcs: a module's come together */
                for (size_t j = 0; j < ms.n; j++)
                    if (ms.v[j].path == mod_of[i])
                        ms.v[j].copy = w;
                size_t len = strlen(mod_of[i]) + 1;
                memcpy(w, mod_of[i], len);
                last_copy = w;
                w += len;
                last_mod = mod_of[i];
            }
            fr->module = last_copy;
        }
        if (sym_of[i]) {
            size_t len = strlen(sym_of[i]) + 1;
            memcpy(w, sym_of[i], len);
            fr->symbol = w;
            w += len;
        }
    }
    free(mod_of);
    free(sym_of);
    if (modules_keep(o, &ms, run) < 0)
        goto fail;

    /* the stacks as frame indexes */
    size_t at = 0;
    for (uint32_t id = 1; id <= st.stacks; id++) {
        uint32_t n = 0;
        const uintptr_t *p = cuprof_stack_pcs(id, &n);
        if (!p || at + n > np)
            continue;
        o->stacks[id].n = n;
        o->stacks[id].frames = &o->indexes[at];
        for (uint32_t i = 0; i < n; i++)
            o->indexes[at++] = pc_index(pcs, nd, p[i]);
    }
    modules_free(&ms);
    free(pcs);
    run->nstacks = st.stacks;
    run->stacks = o->stacks;
    run->nframes = (uint32_t)nd;
    run->frames = o->frames;
    return o;

fail:
    modules_free(&ms);
    free(pcs);
    cuprof_stacks_run_free(o);
    return NULL;
}

void cuprof_stacks_run_free(void *owned_)
{
    owned *o = owned_;
    if (!o)
        return;
    free(o->frames);
    free(o->stacks);
    free(o->indexes);
    free(o->strings);
    free(o->modules);
    free(o->build_ids);
    free(o);
}
