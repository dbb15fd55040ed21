/*
 * cublasLt_desc.c - the simulated cuBLASLt's descriptors: matrix layouts,
 * matmul descriptors and heuristic preferences, with their Create/Init/
 * Destroy and Set/GetAttribute entry points.
 *
 * Attributes are described by tables (attribute id -> field offset and
 * size), and Set/Get follow the header's contract exactly, because profilers
 * read m, n, k, types and the epilogue back through GetAttribute:
 *   Set: INVALID_VALUE if buf is NULL or sizeInBytes is not the attribute's size.
 *   Get: sizeInBytes == 0 asks for the size (*sizeWritten, which must not be
 *        NULL); otherwise buf must be non-NULL and sizeInBytes the attribute's
 *        size, and *sizeWritten (if given) gets the bytes written.
 */
#include "lt_desc.h"
#include "simblas.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* One settable attribute: where it lives in the struct and its size. */
typedef struct lt_attr {
    int attr;    /* the *Attribute(s)_t value */
    size_t off;  /* offsetof in the struct */
    size_t size; /* bytes, as the header documents the type */
} lt_attr;

#define A(id, st, field) {id, offsetof(st, field), sizeof(((st *)0)->field)}

static const lt_attr layout_attrs[] = {
    A(CUBLASLT_MATRIX_LAYOUT_TYPE, lt_layout, type),
    A(CUBLASLT_MATRIX_LAYOUT_ORDER, lt_layout, order),
    A(CUBLASLT_MATRIX_LAYOUT_ROWS, lt_layout, rows),
    A(CUBLASLT_MATRIX_LAYOUT_COLS, lt_layout, cols),
    A(CUBLASLT_MATRIX_LAYOUT_LD, lt_layout, ld),
    A(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, lt_layout, batch_count),
    A(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, lt_layout, batch_stride),
    A(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, lt_layout, plane_offset),
    A(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, lt_layout, batch_mode),
};

static const lt_attr desc_attrs[] = {
    A(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, lt_matmul_desc, compute_type),
    A(CUBLASLT_MATMUL_DESC_SCALE_TYPE, lt_matmul_desc, scale_type),
    A(CUBLASLT_MATMUL_DESC_POINTER_MODE, lt_matmul_desc, pointer_mode),
    A(CUBLASLT_MATMUL_DESC_TRANSA, lt_matmul_desc, transa),
    A(CUBLASLT_MATMUL_DESC_TRANSB, lt_matmul_desc, transb),
    A(CUBLASLT_MATMUL_DESC_TRANSC, lt_matmul_desc, transc),
    A(CUBLASLT_MATMUL_DESC_FILL_MODE, lt_matmul_desc, fill_mode),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE, lt_matmul_desc, epilogue),
    A(CUBLASLT_MATMUL_DESC_BIAS_POINTER, lt_matmul_desc, bias),
    A(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, lt_matmul_desc, bias_batch_stride),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, lt_matmul_desc, aux),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, lt_matmul_desc, aux_ld),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, lt_matmul_desc, aux_batch_stride),
    A(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, lt_matmul_desc, alpha_batch_stride),
    A(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, lt_matmul_desc, sm_count_target),
    A(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, lt_matmul_desc, scale_ptr[0]),
    A(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, lt_matmul_desc, scale_ptr[1]),
    A(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, lt_matmul_desc, scale_ptr[2]),
    A(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, lt_matmul_desc, scale_ptr[3]),
    A(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, lt_matmul_desc, amax_d),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, lt_matmul_desc, aux_data_type),
    A(CUBLASLT_MATMUL_DESC_FAST_ACCUM, lt_matmul_desc, fast_accum),
    A(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, lt_matmul_desc, bias_data_type),
};

static const lt_attr pref_attrs[] = {
    A(CUBLASLT_MATMUL_PREF_SEARCH_MODE, lt_pref, search_mode),
    A(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, lt_pref, max_workspace),
    A(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, lt_pref, reduction_mask),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, lt_pref, align[0]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, lt_pref, align[1]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, lt_pref, align[2]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, lt_pref, align[3]),
    A(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, lt_pref, max_waves),
    A(CUBLASLT_MATMUL_PREF_IMPL_MASK, lt_pref, impl_mask),
};
#undef A

#define NATTR(t) (sizeof(t) / sizeof((t)[0]))

static const lt_attr *attr_find(const lt_attr *tab, size_t n, int attr)
{
    for (size_t i = 0; i < n; i++)
        if (tab[i].attr == attr)
            return &tab[i];
    return NULL;
}

static cublasStatus_t attr_set(void *obj, const lt_attr *tab, size_t n, int attr, const void *buf,
                               size_t size)
{
    const lt_attr *a = attr_find(tab, n, attr);
    if (a == NULL || buf == NULL || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)obj + a->off, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t attr_get(const void *obj, const lt_attr *tab, size_t n, int attr, void *buf,
                               size_t size, size_t *written)
{
    const lt_attr *a = attr_find(tab, n, attr);
    if (a == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0) {
        if (written == NULL)
            return CUBLAS_STATUS_INVALID_VALUE;
        *written = a->size; /* the size needed */
        return CUBLAS_STATUS_SUCCESS;
    }
    if (buf == NULL || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)obj + a->off, size);
    if (written != NULL)
        *written = size;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- matrix layouts ------------------------------------------------------- */

EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout,
                                                        size_t size, cudaDataType type,
                                                        uint64_t rows, uint64_t cols, int64_t ld)
{
    lt_layout *l = (lt_layout *)(void *)matLayout;
    if (l == NULL || size < sizeof *l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    memset(matLayout, 0, size);
    l->magic = LT_LAYOUT_MAGIC;
    l->type = (uint32_t)type;
    l->order = CUBLASLT_ORDER_COL;
    l->batch_count = 1;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                 cudaDataType type, uint64_t rows, uint64_t cols,
                                                 int64_t ld)
{
    cublasLtMatrixLayout_t l;
    if (matLayout == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((l = malloc(sizeof *l)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(l, sizeof *l, type, rows, cols, ld);
    *matLayout = l;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    if (matLayout != NULL)
        memset(matLayout, 0, sizeof *matLayout);
    free(matLayout);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                       cublasLtMatrixLayoutAttribute_t attr,
                                                       const void *buf, size_t sizeInBytes)
{
    if (lt_layout_of(matLayout) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_set(matLayout, layout_attrs, NATTR(layout_attrs), attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                       cublasLtMatrixLayoutAttribute_t attr,
                                                       void *buf, size_t sizeInBytes,
                                                       size_t *sizeWritten)
{
    if (lt_layout_of(matLayout) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_get(matLayout, layout_attrs, NATTR(layout_attrs), attr, buf, sizeInBytes,
                    sizeWritten);
}

/* ---- matmul descriptors --------------------------------------------------- */

EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc,
                                                      size_t size,
                                                      cublasComputeType_t computeType,
                                                      cudaDataType_t scaleType)
{
    lt_matmul_desc *d = (lt_matmul_desc *)(void *)matmulDesc;
    if (d == NULL || size < sizeof *d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    memset(matmulDesc, 0, size);
    d->magic = LT_DESC_MAGIC;
    d->compute_type = computeType;
    d->scale_type = scaleType;
    d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    d->transa = d->transb = d->transc = CUBLAS_OP_N;
    d->fill_mode = CUBLAS_FILL_MODE_FULL;
    d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    d->aux_data_type = -1;
    d->bias_data_type = -1;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                               cublasComputeType_t computeType,
                                               cudaDataType_t scaleType)
{
    cublasLtMatmulDesc_t d;
    if (matmulDesc == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((d = malloc(sizeof *d)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(d, sizeof *d, computeType, scaleType);
    *matmulDesc = d;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    if (matmulDesc != NULL)
        memset(matmulDesc, 0, sizeof *matmulDesc);
    free(matmulDesc);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                     cublasLtMatmulDescAttributes_t attr,
                                                     const void *buf, size_t sizeInBytes)
{
    if (lt_desc_of(matmulDesc) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_set(matmulDesc, desc_attrs, NATTR(desc_attrs), attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                     cublasLtMatmulDescAttributes_t attr,
                                                     void *buf, size_t sizeInBytes,
                                                     size_t *sizeWritten)
{
    if (lt_desc_of(matmulDesc) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_get(matmulDesc, desc_attrs, NATTR(desc_attrs), attr, buf, sizeInBytes,
                    sizeWritten);
}

/* ---- heuristic preferences ------------------------------------------------ */

EXPORT cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref,
                                                            size_t size)
{
    lt_pref *p = (lt_pref *)(void *)pref;
    if (p == NULL || size < sizeof *p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    memset(pref, 0, size);
    p->magic = LT_PREF_MAGIC;
    p->search_mode = CUBLASLT_SEARCH_BEST_FIT;
    p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    for (int i = 0; i < 4; i++)
        p->align[i] = 256;
    p->impl_mask = UINT64_MAX;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    cublasLtMatmulPreference_t p;
    if (pref == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((p = malloc(sizeof *p)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof *p);
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    if (pref != NULL)
        memset(pref, 0, sizeof *pref);
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                           cublasLtMatmulPreferenceAttributes_t attr,
                                                           const void *buf, size_t sizeInBytes)
{
    if (lt_pref_of(pref) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_set(pref, pref_attrs, NATTR(pref_attrs), attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                           cublasLtMatmulPreferenceAttributes_t attr,
                                                           void *buf, size_t sizeInBytes,
                                                           size_t *sizeWritten)
{
    if (lt_pref_of(pref) == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_get(pref, pref_attrs, NATTR(pref_attrs), attr, buf, sizeInBytes, sizeWritten);
}
