/*
 * cusparse_internal.h - what the simulated cuSPARSE's files share (cusparse.c:
 * handle, descriptors, SpMV, SpMM; cusparse_solve.c: SpGEMM, SpSV): the
 * handle's and descriptors' layouts and the element accessors.
 */
#ifndef CUSPARSE_INTERNAL_H
#define CUSPARSE_INTERNAL_H

#include "simlib.h"

#define DISABLE_CUSPARSE_DEPRECATED /* the header marks the legacy API; we only define the generic one */
#include <cusparse.h>
#include <stddef.h>
#include <stdint.h>

#define SP_EXPORT __attribute__((visibility("default")))
#define HANDLE_MAGIC 0x53505253u /* "SPRS" */

struct cusparseContext {
    uint32_t magic;
    cudaStream_t stream;
    cusparsePointerMode_t mode;
};

/* A sparse matrix: its arrays are the program's (device memory). */
struct cusparseSpMatDescr {
    cusparseFormat_t format;
    int64_t rows, cols, nnz;
    const void *offsets_or_rows; /* CSR: row offsets; CSC: column offsets; COO: row indices */
    const void *ind;             /* CSR: column indices; CSC: row indices; COO: column indices */
    const void *values;
    cusparseIndexType_t off_type, ind_type;
    cusparseIndexBase_t base;
    cudaDataType type;
    cusparseFillMode_t fill;     /* CUSPARSE_SPMAT_FILL_MODE (SpSV, SpSM): lower by default */
    cusparseDiagType_t diag;     /* CUSPARSE_SPMAT_DIAG_TYPE: non-unit by default */
};

struct cusparseDnVecDescr {
    int64_t size;
    void *values;
    cudaDataType type;
};

struct cusparseDnMatDescr {
    int64_t rows, cols, ld;
    void *values;
    cudaDataType type;
    cusparseOrder_t order;
};

static inline int64_t idx_at(const void *p, cusparseIndexType_t t, int64_t i)
{
    return t == CUSPARSE_INDEX_64I ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

static inline void idx_set(void *p, cusparseIndexType_t t, int64_t i, int64_t v)
{
    if (t == CUSPARSE_INDEX_64I)
        ((int64_t *)p)[i] = v;
    else
        ((int32_t *)p)[i] = (int32_t)v;
}

static inline double val_at(const void *p, int dbl, int64_t i)
{
    return dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}

static inline void val_set(void *p, int dbl, int64_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

static inline size_t elem_size(cudaDataType t)
{
    return t == CUDA_R_64F || t == CUDA_C_32F ? 8 : t == CUDA_C_64F ? 16 : t == CUDA_R_16F || t == CUDA_R_16BF ? 2 : 4;
}

static inline size_t index_size(cusparseIndexType_t t)
{
    return t == CUSPARSE_INDEX_64I ? 8 : 4;
}

static inline cusparseHandle_t handle_of(cusparseHandle_t h)
{
    return h != NULL && h->magic == HANDLE_MAGIC ? h : NULL;
}

/* The stored entries of a as (row, column) pairs, in storage order, in *rc
 * (the caller frees it): 0, or -1 when out of memory. */
int sp_entries(const struct cusparseSpMatDescr *a, int64_t **rc);

#endif
