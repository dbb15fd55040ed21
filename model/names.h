/*
 * names.h - every kernel name of a run, as the outputs show it: demangled
 * once (c++filt style) and interned, so a name shared by a million launches
 * is demangled and stored once.
 *
 * Two sources of kernel names meet here: the run's kernel-name table (ids
 * in launch events, from __cudaRegisterFunction) and the device records
 * (gpu->kernels[i].name, CUPTI's mangled names). The model has no
 * demangler of its own (it would be global state and a library load): the
 * caller passes one, or NULL to keep names as they are.
 */
#ifndef CUPROF_NAMES_H
#define CUPROF_NAMES_H

#include "model/gpu.h"
#include "model/run.h"

#include <stddef.h>
#include <stdint.h>

/* Demangles name: a malloc'd string, or NULL when name is not a mangled
 * C++ name (or cannot be demangled). */
typedef char *(*cuprof_demangle_fn)(const char *name);

/* One interned name: the raw (mangled) form and its display form. */
typedef struct cuprof_name_entry {
    const char *raw;              /* as recorded (owned by the run) */
    const char *display;          /* demangled, or raw when not mangled */
    char *owned;                  /* display when it was demangled here */
} cuprof_name_entry;

typedef struct cuprof_names {
    uint32_t nkernels;            /* the run's kernel-name ids: 1..nkernels */
    const char **kernel;          /* [id] display name; [0] = "(unknown kernel)" */
    size_t ngpu_kernels;          /* = gpu->n_kernels: the records' names are here */
    size_t nentries, cap;         /* the intern table (open addressing on raw) */
    cuprof_name_entry *entries;
    size_t nptr, pcap;            /* the records' name pointers -> display (open
                                   * addressing on the pointer; no array a record:
                                   * issue 40) */
    const char **pkey, **pval;
} cuprof_names;

/* Fills nm from run (its kernel-name table: only ids some event uses are
 * demangled, the others keep their raw name) and gpu (may be NULL). Returns
 * 0, or -1 on out of memory (nm is then empty but safe to destroy). */
int cuprof_names_build(cuprof_names *nm, const cuprof_run *run, const cuprof_gpu_run *gpu,
                       cuprof_demangle_fn demangle);
void cuprof_names_destroy(cuprof_names *nm);

/* Display name of a kernel-name id; "(unknown kernel)" for 0 or out of
 * range. */
const char *cuprof_names_kernel(const cuprof_names *nm, uint32_t id);

/* Display name of a device record's kernel name (gpu->kernels[i].name as
 * cuprof_names_build saw it); raw itself when it was not seen. Never NULL
 * for a raw that is not. */
const char *cuprof_names_gpu(const cuprof_names *nm, const char *raw);

#endif /* CUPROF_NAMES_H */
