/*
 * cuda_driver_module.c - modules and the JIT linker of the simulated driver.
 * Device code never runs on the sim: a module is the list of its kernels'
 * names, read from whatever image the program hands over:
 *
 *   a cubin             an ELF: its symbol table's functions
 *   a fatbin            nvcc -fatbin's container: its sm_90 ELF entry, else a
 *                       PTX entry for compute_90 or below (the real driver
 *                       JIT-compiles it), else CUDA_ERROR_NO_BINARY_FOR_GPU
 *   PTX text            its `.entry` names
 *
 *   cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary,
 *   cuModuleGetFunction, cuModuleUnload, cuFuncGetName
 *   cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete, cuLinkDestroy:
 *   the "link" gathers its inputs' kernels and completes into a small cubin
 *   (an ELF whose symbol table names them) that cuModuleLoadData takes
 *
 * The fatbin layout is not documented; read from nvcc 13's output (the same
 * as decoders of it describe): a 16-byte header (magic 0xBA55ED50, version,
 * header size, size of the entries), then entries, each a header (kind at +0:
 * 1 PTX, 2 ELF; its size at +4; the payload's size at +8; the arch at +0x1c;
 * flags at +0x28, 0x2000 LZ4- and 0x8000 zstd-compressed) and its payload.
 * Compressed entries (nvcc --compress-mode, -Xfatbin -compress-all) are not
 * decompressed: a fatbin with nothing else for the device is "not supported".
 */
#include "driver_internal.h"

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINK_MAGIC 0x4c494e4bu      /* "LINK" */
#define FATBIN_MAGIC 0xBA55ED50u    /* a fatbin's header */
#define FATBINC_MAGIC 0x466243B1u   /* the wrapper nvcc puts around one (fatbinary_section.h) */
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_COMPRESSED 0xA000u   /* LZ4 (0x2000) or zstd (0x8000) */
#define DEVICE_ARCH 90              /* the sim's H100: sm_90 */
#define UNKNOWN_SIZE SIZE_MAX       /* an image handed over without its size */

typedef struct drv_module {
    uint32_t magic;   /* MODULE_MAGIC while loaded */
    drv_func *funcs;  /* its kernels */
    size_t n, cap;
    struct drv_module *next;   /* every module and link the process made (kept) */
} drv_module;

/* Modules and links stay allocated for the process's life, on these lists:
 * a stale handle, or a function of an unloaded module, fails its magic check
 * instead of reading freed memory (and the memory stays reachable). */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static drv_module *kept_modules;

/* Adds the kernel name[0, len) unless m has it. 0, or -1 out of memory. */
static int module_add(drv_module *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->n; i++)
        if (strlen(m->funcs[i].name) == len && !memcmp(m->funcs[i].name, name, len))
            return 0;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        drv_func *f = realloc(m->funcs, cap * sizeof *f);
        if (f == NULL)
            return -1;
        m->funcs = f, m->cap = cap;
    }
    char *s = strndup(name, len);
    if (s == NULL)
        return -1;
    m->funcs[m->n++] = (drv_func){.magic = FUNC_MAGIC, .name = s, .registers = 32};
    return 0;
}

static void module_free(drv_module *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->funcs[i].name);
    free(m->funcs);
    free(m);
}

/* The kernels of a cubin of `size` bytes (UNKNOWN_SIZE: trusted): its symbol
 * table's functions. CUDA_ERROR_INVALID_IMAGE when it is no 64-bit ELF or its
 * tables lie outside it. Headers are copied out: an image inside a fatbin or
 * a program's buffer need not be aligned. */
static CUresult elf_funcs(const unsigned char *b, size_t size, drv_module *m)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64)
        return CUDA_ERROR_INVALID_IMAGE;
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shoff > size || eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr))
        return CUDA_ERROR_INVALID_IMAGE;
    for (int i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, ss;
        memcpy(&sh, b + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh.e_shnum)
            continue;
        memcpy(&ss, b + eh.e_shoff + sh.sh_link * sizeof ss, sizeof ss);
        if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset || ss.sh_offset > size ||
            ss.sh_size > size - ss.sh_offset)
            return CUDA_ERROR_INVALID_IMAGE;
        const char *str = (const char *)(b + ss.sh_offset);
        for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + k * sizeof sym, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || !sym.st_name ||
                sym.st_name >= ss.sh_size)
                continue;
            const char *name = str + sym.st_name;
            if (module_add(m, name, strnlen(name, ss.sh_size - sym.st_name)) != 0)
                return CUDA_ERROR_OUT_OF_MEMORY;
        }
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_IMAGE;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The kernels of PTX text of at most `size` bytes (it may end earlier at a
 * NUL): the names after `.entry`. */
static CUresult ptx_funcs(const char *t, size_t size, drv_module *m)
{
    static const char kw[] = ".entry";
    size_t n = strnlen(t, size), kl = sizeof kw - 1;
    for (size_t i = 0; i + kl < n; i++) {
        if (memcmp(t + i, kw, kl) != 0 || (t[i + kl] != ' ' && t[i + kl] != '\t'))
            continue;
        size_t s = i + kl;
        while (s < n && (t[s] == ' ' || t[s] == '\t'))
            s++;
        size_t e = s;
        while (e < n && ident_char(t[e]))
            e++;
        if (e > s && module_add(m, t + s, e - s) != 0)
            return CUDA_ERROR_OUT_OF_MEMORY;
        i = e;
    }
    return CUDA_SUCCESS;
}

/* Whether text looks like PTX: after blanks, a comment or a directive. */
static int is_ptx(const char *t, size_t size)
{
    size_t i = 0;
    while (i < size && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i + 1 < size && ((t[i] == '/' && t[i + 1] == '/') || t[i] == '.');
}

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The kernels of the fatbin at b (size: UNKNOWN_SIZE, then its header's):
 * its sm_90 cubin, else its PTX for compute_90 or below. */
static CUresult fatbin_funcs(const unsigned char *b, size_t size, drv_module *m)
{
    if (size < 16 || rd32(b) != FATBIN_MAGIC)
        return CUDA_ERROR_INVALID_IMAGE;
    size_t hs = (uint16_t)(b[6] | b[7] << 8);
    uint64_t total = rd64(b + 8);
    if (hs < 16 || hs > size || total > size - hs)
        return CUDA_ERROR_INVALID_IMAGE;
    const unsigned char *ptx = NULL, *elf = NULL;
    size_t ptx_size = 0, elf_size = 0;
    int compressed = 0;
    for (uint64_t off = hs; off + 0x30 <= hs + total;) {
        const unsigned char *e = b + off;
        uint32_t ehs = rd32(e + 4), arch = rd32(e + 0x1c);
        uint64_t psz = rd64(e + 8), flags = rd64(e + 0x28);
        unsigned kind = (unsigned)(e[0] | e[1] << 8);
        if (ehs < 0x30 || ehs > hs + total - off || psz > hs + total - off - ehs)
            return CUDA_ERROR_INVALID_IMAGE;
        int usable = kind == FATBIN_KIND_ELF ? arch == DEVICE_ARCH : kind == FATBIN_KIND_PTX && arch <= DEVICE_ARCH;
        if (usable && (flags & FATBIN_COMPRESSED))
            compressed = 1;
        else if (usable && kind == FATBIN_KIND_ELF && elf == NULL)
            elf = e + ehs, elf_size = psz;
        else if (usable && kind == FATBIN_KIND_PTX && ptx == NULL)
            ptx = e + ehs, ptx_size = psz;
        off += ehs + psz;
    }
    if (elf != NULL)
        return elf_funcs(elf, elf_size, m);
    if (ptx != NULL)
        return ptx_funcs((const char *)ptx, ptx_size, m);
    if (compressed) {
        fprintf(stderr, "cusim: a fatbin whose entries for sm_90 are compressed is not simulated "
                        "(build it with --compress-mode=none)\n");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* The kernels of any image a module can be loaded from: a cubin, a fatbin
 * (or nvcc's wrapper around one), PTX text. */
static CUresult image_funcs(const void *image, size_t size, drv_module *m)
{
    const unsigned char *b = image;
    if (size >= 16 && rd32(b) == FATBINC_MAGIC) {   /* { magic, version, data, ... } */
        const void *data;
        memcpy(&data, b + 8, sizeof data);
        if (data == NULL)
            return CUDA_ERROR_INVALID_IMAGE;
        b = data, size = UNKNOWN_SIZE;
    }
    if (size >= SELFMAG && memcmp(b, ELFMAG, SELFMAG) == 0)
        return elf_funcs(b, size, m);
    if (size >= 4 && rd32(b) == FATBIN_MAGIC)
        return fatbin_funcs(b, size, m);
    if (is_ptx((const char *)b, size))
        return ptx_funcs((const char *)b, size, m);
    return CUDA_ERROR_INVALID_IMAGE;
}

/* What the JIT options ask to be told, answered as a compilation that took
 * no time and said nothing; err: a message for the error log, or NULL. The
 * logs' sizes are not written back (the real driver writes the bytes used). */
static void jit_answer(unsigned n, const CUjit_option *opts, void **vals, const char *err)
{
    if (opts == NULL || vals == NULL)
        return;
    size_t info_size = 0, err_size = 0;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
            info_size = (size_t)(uintptr_t)vals[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            err_size = (size_t)(uintptr_t)vals[i];
    }
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == CU_JIT_WALL_TIME && vals[i] != NULL)
            *(float *)vals[i] = 0.0f;
        else if (opts[i] == CU_JIT_INFO_LOG_BUFFER && vals[i] != NULL && info_size)
            ((char *)vals[i])[0] = '\0';
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER && vals[i] != NULL && err_size)
            snprintf(vals[i], err_size, "%s", err ? err : "");
    }
}

/* Loads a module from image (size bytes or UNKNOWN_SIZE) into *module. */
static CUresult module_load(CUmodule *module, const void *image, size_t size)
{
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    drv_module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = image_funcs(image, size, m);
    if (r != CUDA_SUCCESS) {
        module_free(m);
        return r;
    }
    m->magic = MODULE_MAGIC;
    pthread_mutex_lock(&kept_lock);
    m->next = kept_modules, kept_modules = m;
    pthread_mutex_unlock(&kept_lock);
    *module = (CUmodule)m;
    return CUDA_SUCCESS;
}

/* The whole file at path, NUL-terminated, in *out (the caller frees it). */
static CUresult read_file(const char *path, unsigned char **out, size_t *size)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    unsigned char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 4096) {
            unsigned char *nb = realloc(b, cap = cap ? 2 * cap : 65536);
            if (nb == NULL) {
                free(b);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    b[n] = '\0';
    *out = b, *size = n;
    return CUDA_SUCCESS;
}

DRV_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    DRV_CALL(cuModuleLoadData, "cuModuleLoadData", NULL);
    DRV_RETURN(module_load(module, image, UNKNOWN_SIZE));
}

DRV_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                       CUjit_option *options, void **optionValues)
{
    DRV_CALL(cuModuleLoadDataEx, "cuModuleLoadDataEx", NULL);
    if (numOptions && (options == NULL || optionValues == NULL))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    CUresult r = module_load(module, image, UNKNOWN_SIZE);
    jit_answer(numOptions, options, optionValues, r == CUDA_SUCCESS ? NULL : drv_error_string(r));
    DRV_RETURN(r);
}

DRV_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    DRV_CALL(cuModuleLoadFatBinary, "cuModuleLoadFatBinary", NULL);
    DRV_RETURN(module_load(module, fatCubin, UNKNOWN_SIZE));
}

DRV_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    DRV_CALL(cuModuleLoad, "cuModuleLoad", NULL);
    if (module == NULL || fname == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    unsigned char *b;
    size_t n;
    CUresult r = read_file(fname, &b, &n);
    if (r == CUDA_SUCCESS) {
        r = module_load(module, b, n);
        free(b);
    }
    DRV_RETURN(r);
}

DRV_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    DRV_CALL(cuModuleGetFunction, "cuModuleGetFunction", NULL);
    drv_module *m = (drv_module *)hmod;
    if (hfunc == NULL || name == NULL || m == NULL || m->magic != MODULE_MAGIC)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->funcs[i].name, name)) {
            *hfunc = (CUfunction)&m->funcs[i];
            DRV_RETURN(CUDA_SUCCESS);
        }
    DRV_RETURN(CUDA_ERROR_NOT_FOUND);
}

DRV_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    DRV_CALL(cuModuleUnload, "cuModuleUnload", NULL);
    drv_module *m = (drv_module *)hmod;
    if (m == NULL || m->magic != MODULE_MAGIC)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    cusim_device_drain();
    m->magic = 0;   /* kept, the functions too: a stale handle fails its check */
    for (size_t i = 0; i < m->n; i++)
        m->funcs[i].magic = 0;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    DRV_CALL(cuFuncGetName, "cuFuncGetName", NULL);
    drv_func *f = (drv_func *)hfunc;
    if (name == NULL || f == NULL || f->magic != FUNC_MAGIC)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *name = f->name;
    DRV_RETURN(CUDA_SUCCESS);
}

/* A pending link: the kernels of what was added, and its output. */
typedef struct drv_link {
    uint32_t magic;       /* LINK_MAGIC until destroyed */
    drv_module kernels;   /* gathered from the inputs (magic unused) */
    unsigned nopt;        /* the create call's options, answered at each step */
    CUjit_option *opts;   /* copied */
    void **vals;          /* the program's, valid for the link's life (as CUDA requires) */
    unsigned char *out;   /* cuLinkComplete's cubin, owned */
    struct drv_link *next;   /* kept, as modules are */
} drv_link;

static drv_link *kept_links;

static drv_link *link_get(CUlinkState state)
{
    drv_link *l = (drv_link *)state;
    return l != NULL && l->magic == LINK_MAGIC ? l : NULL;
}

DRV_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                 CUlinkState *stateOut)
{
    DRV_CALL(cuLinkCreate_v2, "cuLinkCreate_v2", NULL);
    if (stateOut == NULL || (numOptions && (options == NULL || optionValues == NULL)))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    drv_link *l = calloc(1, sizeof *l);
    if (l == NULL || (numOptions && (l->opts = malloc(numOptions * sizeof *options)) == NULL)) {
        free(l);
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    if (numOptions)
        memcpy(l->opts, options, numOptions * sizeof *options);
    l->nopt = numOptions, l->vals = optionValues;
    l->magic = LINK_MAGIC;
    pthread_mutex_lock(&kept_lock);
    l->next = kept_links, kept_links = l;
    pthread_mutex_unlock(&kept_lock);
    jit_answer(l->nopt, l->opts, l->vals, NULL);
    *stateOut = (CUlinkState)l;
    DRV_RETURN(CUDA_SUCCESS);
}

/* Adds the kernels of an input of `type` to l. */
static CUresult link_add(drv_link *l, CUjitInputType type, const void *data, size_t size)
{
    CUresult r;
    switch (type) {
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:   /* a relocatable device object is an ELF too */
        r = elf_funcs(data, size, &l->kernels);
        break;
    case CU_JIT_INPUT_FATBINARY:
        r = fatbin_funcs(data, size, &l->kernels);
        break;
    case CU_JIT_INPUT_PTX:
        r = ptx_funcs(data, size, &l->kernels);
        break;
    default:   /* libraries (archives) and NVVM IR: not read by the sim */
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    }
    jit_answer(l->nopt, l->opts, l->vals, r == CUDA_SUCCESS ? NULL : drv_error_string(r));
    return r;
}

DRV_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    DRV_CALL(cuLinkAddData_v2, "cuLinkAddData_v2", NULL);
    (void)name, (void)numOptions, (void)options, (void)optionValues;
    drv_link *l = link_get(state);
    if (l == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (data == NULL || size == 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(link_add(l, type, data, size));
}

DRV_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                  unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    DRV_CALL(cuLinkAddFile_v2, "cuLinkAddFile_v2", NULL);
    (void)numOptions, (void)options, (void)optionValues;
    drv_link *l = link_get(state);
    if (l == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (path == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    unsigned char *b;
    size_t n;
    CUresult r = read_file(path, &b, &n);
    if (r == CUDA_SUCCESS) {
        r = link_add(l, type, b, n);
        free(b);
    }
    DRV_RETURN(r);
}

/* A cubin whose symbol table names the kernels of k: sections null,
 * .shstrtab, .strtab, .symtab. *size gets its size; NULL out of memory. */
static unsigned char *cubin_make(const drv_module *k, size_t *size)
{
    static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab";
    size_t strsz = 1;
    for (size_t i = 0; i < k->n; i++)
        strsz += strlen(k->funcs[i].name) + 1;
    size_t shstr_off = sizeof(Elf64_Ehdr), str_off = shstr_off + sizeof shstr;
    size_t sym_off = (str_off + strsz + 7) & ~(size_t)7, symsz = (k->n + 1) * sizeof(Elf64_Sym);
    size_t sh_off = sym_off + symsz, total = sh_off + 4 * sizeof(Elf64_Shdr);
    unsigned char *b = calloc(1, total);
    if (b == NULL)
        return NULL;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64, eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT, eh->e_ident[EI_OSABI] = 0x41;   /* as nvcc's cubins */
    eh->e_type = ET_EXEC, eh->e_machine = EM_CUDA, eh->e_version = EV_CURRENT;
    eh->e_shoff = sh_off, eh->e_ehsize = sizeof *eh, eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shnum = 4, eh->e_shstrndx = 1;
    memcpy(b + shstr_off, shstr, sizeof shstr);
    Elf64_Sym *sym = (Elf64_Sym *)(b + sym_off);
    size_t at = 1;
    for (size_t i = 0; i < k->n; i++) {
        size_t len = strlen(k->funcs[i].name);
        memcpy(b + str_off + at, k->funcs[i].name, len + 1);
        sym[i + 1] = (Elf64_Sym){.st_name = (Elf64_Word)at, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                                 .st_shndx = SHN_ABS};
        at += len + 1;
    }
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + sh_off);
    sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = shstr_off, .sh_size = sizeof shstr,
                         .sh_addralign = 1};
    sh[2] = (Elf64_Shdr){.sh_name = 11, .sh_type = SHT_STRTAB, .sh_offset = str_off, .sh_size = strsz,
                         .sh_addralign = 1};
    sh[3] = (Elf64_Shdr){.sh_name = 19, .sh_type = SHT_SYMTAB, .sh_offset = sym_off, .sh_size = symsz,
                         .sh_link = 2, .sh_info = 1, .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym)};
    *size = total;
    return b;
}

DRV_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    DRV_CALL(cuLinkComplete, "cuLinkComplete", NULL);
    drv_link *l = link_get(state);
    if (l == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    if (cubinOut == NULL || sizeOut == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    size_t n;
    unsigned char *out = cubin_make(&l->kernels, &n);
    if (out == NULL)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    free(l->out);   /* a second completion replaces the first */
    l->out = out;
    jit_answer(l->nopt, l->opts, l->vals, NULL);
    *cubinOut = out, *sizeOut = n;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
    DRV_CALL(cuLinkDestroy, "cuLinkDestroy", NULL);
    drv_link *l = link_get(state);
    if (l == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    l->magic = 0;   /* the struct is kept: a stale handle fails its check */
    for (size_t i = 0; i < l->kernels.n; i++)
        free(l->kernels.funcs[i].name);
    free(l->kernels.funcs);
    free(l->opts);
    free(l->out);
    l->kernels = (drv_module){0}, l->opts = NULL, l->out = NULL;
    DRV_RETURN(CUDA_SUCCESS);
}
