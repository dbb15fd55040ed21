/*
 * cusparse.c - libcusparse.so.12 of the simulated device: cuSPARSE's handle
 * and its generic API's common path (cusparse.h): sparse matrices in CSR,
 * CSC and COO, dense vectors and matrices (column- or row-major), and the
 * two products programs use most, SpMV (y = alpha op(A) x + beta y) and SpMM
 * (C = alpha op(A) op(B) + beta C), each with its bufferSize and preprocess
 * step. A product queues one kernel on the handle's stream (a traced
 * cudaLaunchKernel of the library's static runtime, simlib.h) and computes
 * the result on the CPU in stream order, in double, for 32- and 64-bit real
 * values and indices with base 0 or 1; alpha and beta are read at the call
 * in host pointer mode and in stream order in device mode. Other value
 * types are timed only. The kernels' names follow cuSPARSE's
 * (an H200's, for the cases the corpus runs: product()). SpGEMM and SpSV:
 * cusparse_solve.c.
 */
#include "cusparse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the products, on the CPU ------------------------------------------- */

typedef struct sp_job {
    struct cusparseSpMatDescr a;
    int trans_a, trans_b;
    int spmm;
    struct cusparseDnVecDescr x, y;       /* SpMV */
    struct cusparseDnMatDescr b, c;       /* SpMM */
    double alpha, beta;                   /* host pointer mode */
    const void *alpha_p, *beta_p;         /* device pointer mode: read in the job */
    int dbl;
} sp_job;




/* The stored entries of a as (row, column) pairs, in storage order: 0, or
 * -1 when out of memory. */
int sp_entries(const struct cusparseSpMatDescr *a, int64_t **rc)
{
    int64_t base = a->base == CUSPARSE_INDEX_BASE_ONE, n = 0;
    *rc = malloc(sizeof **rc * 2 * (size_t)(a->nnz ? a->nnz : 1));
    if (*rc == NULL)
        return -1;
    if (a->format == CUSPARSE_FORMAT_COO) {
        for (int64_t k = 0; k < a->nnz; k++) {
            (*rc)[2 * k] = idx_at(a->offsets_or_rows, a->ind_type, k) - base;
            (*rc)[2 * k + 1] = idx_at(a->ind, a->ind_type, k) - base;
        }
        return 0;
    }
    int csc = a->format == CUSPARSE_FORMAT_CSC;
    for (int64_t o = 0, outer = csc ? a->cols : a->rows; o < outer; o++) {
        int64_t k0 = idx_at(a->offsets_or_rows, a->off_type, o) - base;
        int64_t k1 = idx_at(a->offsets_or_rows, a->off_type, o + 1) - base;
        if (k0 < 0 || k1 > a->nnz)   /* offsets a kernel would fault on: skipped */
            continue;
        for (int64_t k = k0; k < k1 && n < a->nnz; k++, n++) {
            int64_t in = idx_at(a->ind, a->ind_type, k) - base;
            (*rc)[2 * n] = csc ? in : o;
            (*rc)[2 * n + 1] = csc ? o : in;
        }
    }
    return 0;
}

static int64_t dn_at(const struct cusparseDnMatDescr *m, int64_t i, int64_t j)
{
    return m->order == CUSPARSE_ORDER_ROW ? i * m->ld + j : i + j * m->ld;
}

static void sp_run(void *arg)
{
    sp_job *j = arg;
    int dbl = j->dbl;
    double alpha = j->alpha_p ? val_at(j->alpha_p, dbl, 0) : j->alpha;
    double beta = j->beta_p ? val_at(j->beta_p, dbl, 0) : j->beta;
    int64_t m = j->spmm ? j->c.rows : j->y.size, n = j->spmm ? j->c.cols : 1, *rc = NULL;
    double *acc = calloc((size_t)(m > 0 && n > 0 ? m * n : 1), sizeof *acc);
    if (acc == NULL || sp_entries(&j->a, &rc) != 0)
        goto out;
    for (int64_t k = 0; k < j->a.nnz; k++) {
        if (rc[2 * k] < 0 || rc[2 * k] >= j->a.rows || rc[2 * k + 1] < 0 || rc[2 * k + 1] >= j->a.cols)
            continue;   /* an index out of the matrix: a real kernel would fault */
        int64_t out = j->trans_a ? rc[2 * k + 1] : rc[2 * k], in = j->trans_a ? rc[2 * k] : rc[2 * k + 1];
        double v = val_at(j->a.values, dbl, k);
        if (!j->spmm) {
            acc[out] += v * val_at(j->x.values, dbl, in);
            continue;
        }
        for (int64_t col = 0; col < n; col++) {
            int64_t bi = j->trans_b ? dn_at(&j->b, col, in) : dn_at(&j->b, in, col);
            acc[out + col * m] += v * val_at(j->b.values, dbl, bi);
        }
    }
    for (int64_t col = 0; col < n; col++)
        for (int64_t i = 0; i < m; i++) {
            void *dst = j->spmm ? j->c.values : j->y.values;
            int64_t at = j->spmm ? dn_at(&j->c, i, col) : i;
            val_set(dst, dbl, at, alpha * acc[i + col * m] + (beta == 0 ? 0 : beta * val_at(dst, dbl, at)));
        }
out:
    free(acc);
    free(rc);
    free(j);
}

/* ---- the handle --------------------------------------------------------- */


SP_EXPORT cusparseStatus_t cusparseCreate(cusparseHandle_t *handle)
{
    if (handle == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    cusim_init();
    cusparseHandle_t h = calloc(1, sizeof *h);
    if (h == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    h->magic = HANDLE_MAGIC;
    *handle = h;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseDestroy(cusparseHandle_t handle)
{
    cusparseHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    h->magic = 0;
    free(h);
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- the legacy API's matrix descriptor (cusparse.h: the samples that
 * still use it, conjugateGradient among them, create one first) ---------- */

#define MATDESCR_MAGIC 0x4d415444u /* "MATD" */

struct cusparseMatDescr {
    uint32_t magic;
    cusparseMatrixType_t type;
    cusparseFillMode_t fill;
    cusparseDiagType_t diag;
    cusparseIndexBase_t base;
};

static cusparseMatDescr_t descr_of(cusparseMatDescr_t d)
{
    return d != NULL && d->magic == MATDESCR_MAGIC ? d : NULL;
}

SP_EXPORT cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *descrA)
{
    if (descrA == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseMatDescr_t d = calloc(1, sizeof *d);
    if (d == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    /* the documented defaults: general, lower, non-unit, base 0 */
    *d = (struct cusparseMatDescr){.magic = MATDESCR_MAGIC, .type = CUSPARSE_MATRIX_TYPE_GENERAL,
                                   .fill = CUSPARSE_FILL_MODE_LOWER, .diag = CUSPARSE_DIAG_TYPE_NON_UNIT,
                                   .base = CUSPARSE_INDEX_BASE_ZERO};
    *descrA = d;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t descrA)
{
    cusparseMatDescr_t d = descr_of(descrA);
    if (d == NULL)
        return descrA == NULL ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
    d->magic = 0;
    free(d);
    return CUSPARSE_STATUS_SUCCESS;
}

/* cusparseSetMat<Field> and cusparseGetMat<Field> of one field: a value past
 * its enum's last (max) is refused; a bad descriptor reads as the default. */
#define MATDESCR_FIELD(Field, type_t, field, max, dflt)                       \
    SP_EXPORT cusparseStatus_t cusparseSetMat##Field(cusparseMatDescr_t descrA, type_t v) \
    {                                                                          \
        cusparseMatDescr_t d = descr_of(descrA);                               \
        if (d == NULL || (unsigned)v > (unsigned)(max))                        \
            return CUSPARSE_STATUS_INVALID_VALUE;                              \
        d->field = v;                                                          \
        return CUSPARSE_STATUS_SUCCESS;                                        \
    }                                                                          \
    SP_EXPORT type_t cusparseGetMat##Field(const cusparseMatDescr_t descrA)   \
    {                                                                          \
        cusparseMatDescr_t d = descr_of(descrA);                               \
        return d ? d->field : (dflt);                                          \
    }
MATDESCR_FIELD(Type, cusparseMatrixType_t, type, CUSPARSE_MATRIX_TYPE_TRIANGULAR, CUSPARSE_MATRIX_TYPE_GENERAL)
MATDESCR_FIELD(FillMode, cusparseFillMode_t, fill, CUSPARSE_FILL_MODE_UPPER, CUSPARSE_FILL_MODE_LOWER)
MATDESCR_FIELD(DiagType, cusparseDiagType_t, diag, CUSPARSE_DIAG_TYPE_UNIT, CUSPARSE_DIAG_TYPE_NON_UNIT)
MATDESCR_FIELD(IndexBase, cusparseIndexBase_t, base, CUSPARSE_INDEX_BASE_ONE, CUSPARSE_INDEX_BASE_ZERO)

SP_EXPORT cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int *version)
{
    if (handle_of(handle) == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (version == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *version = CUSPARSE_VERSION;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseGetProperty(libraryPropertyType type, int *value)
{
    int ok = simlib_property(type, CUSPARSE_VER_MAJOR, CUSPARSE_VER_MINOR, CUSPARSE_VER_PATCH, value) == 0;
    return ok ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

static const char *const status_names[][2] = {
    {"CUSPARSE_STATUS_SUCCESS", "success"},
    {"CUSPARSE_STATUS_NOT_INITIALIZED", "initialization error"},
    {"CUSPARSE_STATUS_ALLOC_FAILED", "out of memory"},
    {"CUSPARSE_STATUS_INVALID_VALUE", "invalid value"},
    {"CUSPARSE_STATUS_ARCH_MISMATCH", "architecture mismatch"},
    {"CUSPARSE_STATUS_MAPPING_ERROR", "mapping error"},
    {"CUSPARSE_STATUS_EXECUTION_FAILED", "execution failed"},
    {"CUSPARSE_STATUS_INTERNAL_ERROR", "internal error"},
    {"CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "matrix type not supported"},
    {"CUSPARSE_STATUS_ZERO_PIVOT", "zero pivot"},
    {"CUSPARSE_STATUS_NOT_SUPPORTED", "operation not supported"},
    {"CUSPARSE_STATUS_INSUFFICIENT_RESOURCES", "insufficient resources"},
};

SP_EXPORT const char *cusparseGetErrorName(cusparseStatus_t status)
{
    unsigned s = (unsigned)status;
    return s < sizeof status_names / sizeof *status_names ? status_names[s][0] : "UNKNOWN_ERROR";
}

SP_EXPORT const char *cusparseGetErrorString(cusparseStatus_t status)
{
    unsigned s = (unsigned)status;
    return s < sizeof status_names / sizeof *status_names ? status_names[s][1] : "unknown error";
}

SP_EXPORT cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId)
{
    cusparseHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    h->stream = streamId;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t *streamId)
{
    cusparseHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (streamId == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *streamId = h->stream;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t *mode)
{
    cusparseHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *mode = h->mode;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode)
{
    cusparseHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (mode != CUSPARSE_POINTER_MODE_HOST && mode != CUSPARSE_POINTER_MODE_DEVICE)
        return CUSPARSE_STATUS_INVALID_VALUE;
    h->mode = mode;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- descriptors -------------------------------------------------------- */

static cusparseStatus_t sp_new(struct cusparseSpMatDescr **out, cusparseFormat_t f, int64_t rows, int64_t cols,
                               int64_t nnz, const void *a, const void *b, const void *v, cusparseIndexType_t ta,
                               cusparseIndexType_t tb, cusparseIndexBase_t base, cudaDataType type)
{
    if (out == NULL || rows < 0 || cols < 0 || nnz < 0 || (nnz > 0 && (b == NULL || v == NULL || a == NULL)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    if ((ta != CUSPARSE_INDEX_32I && ta != CUSPARSE_INDEX_64I) || (tb != CUSPARSE_INDEX_32I && tb != CUSPARSE_INDEX_64I))
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpMatDescr *m = malloc(sizeof *m);
    if (m == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *m = (struct cusparseSpMatDescr){f, rows, cols, nnz, a, b, v, ta, tb, base, type, CUSPARSE_FILL_MODE_LOWER,
                                     CUSPARSE_DIAG_TYPE_NON_UNIT};
    *out = m;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                             int64_t nnz, void *csrRowOffsets, void *csrColInd, void *csrValues,
                                             cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                             cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    if (csrRowOffsets == NULL && rows > 0)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return sp_new(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                  csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

SP_EXPORT cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *csrRowOffsets, const void *csrColInd,
                                                  const void *csrValues, cusparseIndexType_t csrRowOffsetsType,
                                                  cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase,
                                                  cudaDataType valueType)
{
    return cusparseCreateCsr((cusparseSpMatDescr_t *)spMatDescr, rows, cols, nnz, (void *)csrRowOffsets,
                             (void *)csrColInd, (void *)csrValues, csrRowOffsetsType, csrColIndType, idxBase,
                             valueType);
}

SP_EXPORT cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                             int64_t nnz, void *cscColOffsets, void *cscRowInd, void *cscValues,
                                             cusparseIndexType_t cscColOffsetsType, cusparseIndexType_t cscRowIndType,
                                             cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    if (cscColOffsets == NULL && cols > 0)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return sp_new(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                  cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

SP_EXPORT cusparseStatus_t cusparseCreateConstCsc(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *cscColOffsets, const void *cscRowInd,
                                                  const void *cscValues, cusparseIndexType_t cscColOffsetsType,
                                                  cusparseIndexType_t cscRowIndType, cusparseIndexBase_t idxBase,
                                                  cudaDataType valueType)
{
    return cusparseCreateCsc((cusparseSpMatDescr_t *)spMatDescr, rows, cols, nnz, (void *)cscColOffsets,
                             (void *)cscRowInd, (void *)cscValues, cscColOffsetsType, cscRowIndType, idxBase,
                             valueType);
}

SP_EXPORT cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                             int64_t nnz, void *cooRowInd, void *cooColInd, void *cooValues,
                                             cusparseIndexType_t cooIdxType, cusparseIndexBase_t idxBase,
                                             cudaDataType valueType)
{
    return sp_new(spMatDescr, CUSPARSE_FORMAT_COO, rows, cols, nnz, cooRowInd, cooColInd, cooValues, cooIdxType,
                  cooIdxType, idxBase, valueType);
}

SP_EXPORT cusparseStatus_t cusparseCreateConstCoo(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *cooRowInd, const void *cooColInd,
                                                  const void *cooValues, cusparseIndexType_t cooIdxType,
                                                  cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    return cusparseCreateCoo((cusparseSpMatDescr_t *)spMatDescr, rows, cols, nnz, (void *)cooRowInd,
                             (void *)cooColInd, (void *)cooValues, cooIdxType, idxBase, valueType);
}

SP_EXPORT cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr)
{
    free((void *)spMatDescr);
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                                int64_t *nnz)
{
    if (spMatDescr == NULL || rows == NULL || cols == NULL || nnz == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *rows = spMatDescr->rows;
    *cols = spMatDescr->cols;
    *nnz = spMatDescr->nnz;
    return CUSPARSE_STATUS_SUCCESS;
}

/* Fill mode and diagonal type (what SpSV and SpSM read): the size must be
 * the attribute's, as cuSPARSE checks it. */
SP_EXPORT cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t spMatDescr,
                                                     cusparseSpMatAttribute_t attribute, void *data, size_t dataSize)
{
    if (spMatDescr == NULL || data == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t)) {
        cusparseFillMode_t v = *(const cusparseFillMode_t *)data;
        if (v != CUSPARSE_FILL_MODE_LOWER && v != CUSPARSE_FILL_MODE_UPPER)
            return CUSPARSE_STATUS_INVALID_VALUE;
        spMatDescr->fill = v;
        return CUSPARSE_STATUS_SUCCESS;
    }
    if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t)) {
        cusparseDiagType_t v = *(const cusparseDiagType_t *)data;
        if (v != CUSPARSE_DIAG_TYPE_NON_UNIT && v != CUSPARSE_DIAG_TYPE_UNIT)
            return CUSPARSE_STATUS_INVALID_VALUE;
        spMatDescr->diag = v;
        return CUSPARSE_STATUS_SUCCESS;
    }
    return CUSPARSE_STATUS_INVALID_VALUE;
}

SP_EXPORT cusparseStatus_t cusparseSpMatGetAttribute(cusparseConstSpMatDescr_t spMatDescr,
                                                     cusparseSpMatAttribute_t attribute, void *data, size_t dataSize)
{
    if (spMatDescr == NULL || data == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (attribute == CUSPARSE_SPMAT_FILL_MODE && dataSize == sizeof(cusparseFillMode_t))
        *(cusparseFillMode_t *)data = spMatDescr->fill;
    else if (attribute == CUSPARSE_SPMAT_DIAG_TYPE && dataSize == sizeof(cusparseDiagType_t))
        *(cusparseDiagType_t *)data = spMatDescr->diag;
    else
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

/* New arrays for a CSR matrix (SpGEMM's C, once its size is known). */
SP_EXPORT cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void *csrRowOffsets,
                                                  void *csrColInd, void *csrValues)
{
    if (spMatDescr == NULL || spMatDescr->format != CUSPARSE_FORMAT_CSR || csrRowOffsets == NULL ||
        (spMatDescr->nnz > 0 && (csrColInd == NULL || csrValues == NULL)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    spMatDescr->offsets_or_rows = csrRowOffsets;
    spMatDescr->ind = csrColInd;
    spMatDescr->values = csrValues;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *dnVecDescr, int64_t size, void *values,
                                               cudaDataType valueType)
{
    if (dnVecDescr == NULL || size < 0 || (size > 0 && values == NULL))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseDnVecDescr *v = malloc(sizeof *v);
    if (v == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *v = (struct cusparseDnVecDescr){size, values, valueType};
    *dnVecDescr = v;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseCreateConstDnVec(cusparseConstDnVecDescr_t *dnVecDescr, int64_t size,
                                                    const void *values, cudaDataType valueType)
{
    return cusparseCreateDnVec((cusparseDnVecDescr_t *)dnVecDescr, size, (void *)values, valueType);
}

SP_EXPORT cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr)
{
    free((void *)dnVecDescr);
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t dnVecDescr, void **values)
{
    if (dnVecDescr == NULL || values == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = dnVecDescr->values;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr, void *values)
{
    if (dnVecDescr == NULL || values == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    dnVecDescr->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols,
                                               int64_t ld, void *values, cudaDataType valueType,
                                               cusparseOrder_t order)
{
    if (dnMatDescr == NULL || rows < 0 || cols < 0 || (order != CUSPARSE_ORDER_COL && order != CUSPARSE_ORDER_ROW) ||
        ld < (order == CUSPARSE_ORDER_COL ? rows : cols) || (rows * cols > 0 && values == NULL))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseDnMatDescr *m = malloc(sizeof *m);
    if (m == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *m = (struct cusparseDnMatDescr){rows, cols, ld, values, valueType, order};
    *dnMatDescr = m;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *dnMatDescr, int64_t rows,
                                                    int64_t cols, int64_t ld, const void *values,
                                                    cudaDataType valueType, cusparseOrder_t order)
{
    return cusparseCreateDnMat((cusparseDnMatDescr_t *)dnMatDescr, rows, cols, ld, (void *)values, valueType, order);
}

SP_EXPORT cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr)
{
    free((void *)dnMatDescr);
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t dnMatDescr, void **values)
{
    if (dnMatDescr == NULL || values == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = dnMatDescr->values;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- SpMV, SpMM --------------------------------------------------------- */

static int real_type(cudaDataType t)
{
    return t == CUDA_R_32F || t == CUDA_R_64F;
}


/* The buffer a product asks for: a row partition for CSR, none otherwise. */
static size_t buffer_bytes(const struct cusparseSpMatDescr *a)
{
    return a->format == CUSPARSE_FORMAT_COO ? 0 : (size_t)(a->rows + 1) * 8;
}

static cusparseStatus_t check_spmv(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                   cusparseConstSpMatDescr_t a, cusparseConstDnVecDescr_t x, const void *beta,
                                   cusparseDnVecDescr_t y)
{
    if (handle_of(h) == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (a == NULL || x == NULL || y == NULL || alpha == NULL || beta == NULL || op > 2)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int64_t in = op == CUSPARSE_OPERATION_NON_TRANSPOSE ? a->cols : a->rows;
    int64_t out = op == CUSPARSE_OPERATION_NON_TRANSPOSE ? a->rows : a->cols;
    if (x->size != in || y->size != out)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   const void *alpha, cusparseConstSpMatDescr_t matA,
                                                   cusparseConstDnVecDescr_t vecX, const void *beta,
                                                   cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                                   cusparseSpMVAlg_t alg, size_t *bufferSize)
{
    (void)computeType, (void)alg;
    cusparseStatus_t st = check_spmv(handle, opA, alpha, matA, vecX, beta, vecY);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (bufferSize == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = buffer_bytes(matA);
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   const void *alpha, cusparseConstSpMatDescr_t matA,
                                                   cusparseConstDnVecDescr_t vecX, const void *beta,
                                                   cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                                   cusparseSpMVAlg_t alg, void *externalBuffer)
{
    (void)computeType, (void)alg, (void)externalBuffer;
    return check_spmv(handle, opA, alpha, matA, vecX, beta, vecY);
}


static size_t dn_bytes(const struct cusparseDnMatDescr *m, size_t es)
{
    return (size_t)m->ld * (size_t)(m->order == CUSPARSE_ORDER_COL ? m->cols : m->rows) * es;
}

/* 1 when every array a product reads or writes lies in device memory of
 * its size (simlib_fits). */
static int buffers_fit(const sp_job *j)
{
    const struct cusparseSpMatDescr *a = &j->a;
    size_t es = j->dbl ? 8 : 4, nnz = (size_t)a->nnz;
    size_t outer = a->format == CUSPARSE_FORMAT_COO ? nnz
                   : (size_t)(a->format == CUSPARSE_FORMAT_CSC ? a->cols : a->rows) + 1;
    int ok = simlib_fits(a->offsets_or_rows, outer * index_size(a->format == CUSPARSE_FORMAT_COO ? a->ind_type
                                                                                                : a->off_type)) &&
             simlib_fits(a->ind, nnz * index_size(a->ind_type)) && simlib_fits(a->values, nnz * es);
    if (j->spmm)
        return ok && simlib_fits(j->b.values, dn_bytes(&j->b, es)) && simlib_fits(j->c.values, dn_bytes(&j->c, es));
    return ok && simlib_fits(j->x.values, (size_t)j->x.size * es) && simlib_fits(j->y.values, (size_t)j->y.size * es);
}

/* Queues the product's kernel and its computation. */
static cusparseStatus_t product(cusparseHandle_t h, sp_job *j, const void *alpha, const void *beta,
                                cudaDataType compute, double cols_b, void *buffer)
{
    const struct cusparseSpMatDescr *a = &j->a;
    if (buffer_bytes(a) > 0 && buffer == NULL) {
        free(j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    int computed = real_type(compute) && a->type == compute && (j->spmm ? j->b.type == compute && j->c.type == compute
                                                                        : j->x.type == compute && j->y.type == compute);
    j->dbl = compute == CUDA_R_64F;
    if (h->mode == CUSPARSE_POINTER_MODE_HOST && computed) {
        j->alpha = val_at(alpha, j->dbl, 0);
        j->beta = val_at(beta, j->dbl, 0);
    } else {
        j->alpha_p = alpha;
        j->beta_p = beta;
    }
    double es = (double)elem_size(compute), nnz = (double)a->nnz;
    double rows = (double)(j->spmm ? j->c.rows : j->y.size);
    /* The kernels an H200 ran (mangled: tests/fixtures/h200-580.159.04/
     * sparse_spmv), the precision put in: a CSR product partitions the rows
     * first (and an SpMM scales C by beta), then multiplies; a transposed
     * COO SpMV is one kernel. The other cases by a readable name. */
    char pc = compute == CUDA_R_64F ? 'd' : 'f', name[200];
    int real_names = (compute == CUDA_R_64F || compute == CUDA_R_32F) &&
                     (a->format == CUSPARSE_FORMAT_CSR || (a->format == CUSPARSE_FORMAT_COO && j->trans_a && !j->spmm));
    if (real_names && a->format == CUSPARSE_FORMAT_CSR) {
        simlib_kernel pre = {.name = "_ZN8cusparse55_GLOBAL__N__8e55e5a3_16_csr_partition_cu_2a023e05_1848020csr_"
                                     "partition_kernelIiiEEvPKT_T0_S2_S2_S5_PS5_S5_",
                             .threads = 256, .block = 256, .cls = CUSIM_KERNEL_ELEMENTWISE, .bytes = (double)a->rows * 4};
        if (simlib_launch(h->stream, &pre, 1, NULL, NULL) != 0) {
            free(j);
            return CUSPARSE_STATUS_EXECUTION_FAILED;
        }
        snprintf(name, sizeof name, "_ZN8cusparse29matrix_scalar_multiply_kernelINS_19MatrixWiseMulPolicyELb1El%c%c"
                 "EEvT1_S2_S2_lNS_11KernelCoeffIT2_EEPT3_", pc, pc);
        simlib_kernel scale = {.name = name, .threads = rows * cols_b, .block = 256, .cls = CUSIM_KERNEL_ELEMENTWISE,
                               .bytes = 2 * rows * cols_b * es};
        if (j->spmm && simlib_launch(h->stream, &scale, 1, NULL, NULL) != 0) {
            free(j);
            return CUSPARSE_STATUS_EXECUTION_FAILED;
        }
    }
    if (!real_names)
        snprintf(name, sizeof name, "cusparse::%s<%s>",
                 a->format == CUSPARSE_FORMAT_COO ? (j->spmm ? "coomm_kernel" : "coomv_kernel")
                                                  : (j->spmm ? "csrmm_alg2_kernel" : "csrmv_v3_kernel"),
                 compute == CUDA_R_64F ? "double" : compute == CUDA_R_32F ? "float" : "other");
    else if (a->format == CUSPARSE_FORMAT_COO)
        snprintf(name, sizeof name, "_ZN8cusparse22coomv_transpose_kernelIi%c%c%c%cEEvNS_12KernelCoeffsIT3_EEliPKT_"
                 "S6_PKT0_PKT1_PT2_", pc, pc, pc, pc);
    else if (j->spmm)
        snprintf(name, sizeof name, "_ZN8cusparse17csrmm_alg1_kernelILb0ELb1ELb1Eii%c%c%c%cEEvNS_12KernelCoeffsIT7_"
                 "EET2_S4_iilPKT3_S5_iPKS4_PKT4_PKT5_S4_lPT6_S4_lS9_i", pc, pc, pc, pc);
    else
        snprintf(name, sizeof name, "_ZN8cusparse15csrmv_v3_kernelISt17integral_constantIbLb0EEii%c%c%c%cvEEvNS_12Ke"
                 "rnelCoeffsIT5_EEPKT1_PKT0_S8_PKT2_S9_iiPKT3_PT4_PS6_PS4_", pc, pc, pc, pc);
    /* the matrix once, the dense input once, the output read and written */
    double dense_in = j->spmm ? (double)j->b.rows * (double)j->b.cols : (double)j->x.size;
    simlib_kernel k = {.name = name, .threads = nnz * cols_b / 4 + rows, .block = 128, .cls = CUSIM_KERNEL_GEMM,
                       .flops = 2.0 * nnz * cols_b,
                       .bytes = nnz * (es + 4) + (double)a->rows * 4 + (dense_in + 2 * rows * cols_b) * es,
                       .prec_bits = j->dbl ? 64 : 32};
    if (!computed || !simlib_compute(nnz * cols_b + rows * cols_b) || !buffers_fit(j)) {
        free(j);
        j = NULL;
    }
    if (simlib_launch(h->stream, &k, 1, j ? sp_run : NULL, j) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                        cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                        const void *beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                        cusparseSpMVAlg_t alg, void *externalBuffer)
{
    (void)alg;
    cusparseStatus_t st = check_spmv(handle, opA, alpha, matA, vecX, beta, vecY);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    sp_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    j->a = *matA;
    j->trans_a = opA != CUSPARSE_OPERATION_NON_TRANSPOSE;
    j->x = *vecX;
    j->y = *vecY;
    return product(handle, j, alpha, beta, computeType, 1, externalBuffer);
}

static cusparseStatus_t check_spmm(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                   const void *alpha, cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                                   const void *beta, cusparseDnMatDescr_t c)
{
    if (handle_of(h) == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (a == NULL || b == NULL || c == NULL || alpha == NULL || beta == NULL || opA > 2 || opB > 2)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int64_t ar = opA == CUSPARSE_OPERATION_NON_TRANSPOSE ? a->rows : a->cols;
    int64_t ac = opA == CUSPARSE_OPERATION_NON_TRANSPOSE ? a->cols : a->rows;
    int64_t br = opB == CUSPARSE_OPERATION_NON_TRANSPOSE ? b->rows : b->cols;
    int64_t bc = opB == CUSPARSE_OPERATION_NON_TRANSPOSE ? b->cols : b->rows;
    if (ac != br || c->rows != ar || c->cols != bc)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   cusparseOperation_t opB, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                                   const void *beta, cusparseDnMatDescr_t matC,
                                                   cudaDataType computeType, cusparseSpMMAlg_t alg,
                                                   size_t *bufferSize)
{
    (void)computeType, (void)alg;
    cusparseStatus_t st = check_spmm(handle, opA, opB, alpha, matA, matB, beta, matC);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (bufferSize == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = buffer_bytes(matA);
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   cusparseOperation_t opB, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                                   const void *beta, cusparseDnMatDescr_t matC,
                                                   cudaDataType computeType, cusparseSpMMAlg_t alg,
                                                   void *externalBuffer)
{
    (void)computeType, (void)alg, (void)externalBuffer;
    return check_spmm(handle, opA, opB, alpha, matA, matB, beta, matC);
}

SP_EXPORT cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                        const void *alpha, cusparseConstSpMatDescr_t matA,
                                        cusparseConstDnMatDescr_t matB, const void *beta, cusparseDnMatDescr_t matC,
                                        cudaDataType computeType, cusparseSpMMAlg_t alg, void *externalBuffer)
{
    (void)alg;
    cusparseStatus_t st = check_spmm(handle, opA, opB, alpha, matA, matB, beta, matC);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    sp_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    j->spmm = 1;
    j->a = *matA;
    j->trans_a = opA != CUSPARSE_OPERATION_NON_TRANSPOSE;
    j->trans_b = opB != CUSPARSE_OPERATION_NON_TRANSPOSE;
    j->b = *matB;
    j->c = *matC;
    return product(handle, j, alpha, beta, computeType, (double)matC->cols, externalBuffer);
}
