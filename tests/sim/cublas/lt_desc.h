/*
 * lt_desc.h - what the simulated cuBLASLt keeps inside its semi-opaque
 * descriptors (cublasLtMatrixLayoutOpaque_t, cublasLtMatmulDescOpaque_t,
 * cublasLtMatmulPreferenceOpaque_t).
 *
 * The structs live in the caller-visible opaque storage itself, so the
 * header's inline cublasLt*Init() helpers (which call the *Init_internal
 * entry points on stack storage) work as with the real library.
 */
#ifndef SIMBLAS_LT_DESC_H
#define SIMBLAS_LT_DESC_H

#include <cublasLt.h>
#include <stdint.h>

#define LT_LAYOUT_MAGIC 0x4c61796fu /* "Layo" */
#define LT_DESC_MAGIC 0x4d6d4473u   /* "MmDs" */
#define LT_PREF_MAGIC 0x50726566u   /* "Pref" */

/* A matrix layout. Attribute types follow cublasLtMatrixLayoutAttribute_t. */
typedef struct lt_layout {
    uint32_t magic;        /* LT_LAYOUT_MAGIC once initialized */
    uint32_t type;         /* TYPE: cudaDataType */
    int32_t order;         /* ORDER: cublasLtOrder_t (only COL computes) */
    int32_t batch_count;   /* BATCH_COUNT, default 1 */
    uint64_t rows;         /* ROWS */
    uint64_t cols;         /* COLS */
    int64_t ld;            /* LD, elements */
    int64_t batch_stride;  /* STRIDED_BATCH_OFFSET, elements */
    int64_t plane_offset;  /* PLANE_OFFSET (stored, unused) */
    uint32_t batch_mode;   /* BATCH_MODE (stored; only strided computes) */
} lt_layout;

/* A matmul operation. Attribute types follow cublasLtMatmulDescAttributes_t. */
typedef struct lt_matmul_desc {
    uint32_t magic;               /* LT_DESC_MAGIC once initialized */
    int32_t compute_type;         /* COMPUTE_TYPE: cublasComputeType_t */
    int32_t scale_type;           /* SCALE_TYPE: cudaDataType of alpha/beta */
    int32_t pointer_mode;         /* POINTER_MODE: cublasLtPointerMode_t */
    int32_t transa, transb;       /* TRANSA, TRANSB: cublasOperation_t */
    int32_t transc;               /* TRANSC (only N) */
    int32_t fill_mode;            /* FILL_MODE (stored) */
    uint32_t epilogue;            /* EPILOGUE: cublasLtEpilogue_t */
    int32_t sm_count_target;      /* SM_COUNT_TARGET (stored) */
    int32_t aux_data_type;        /* EPILOGUE_AUX_DATA_TYPE, default -1 */
    int32_t bias_data_type;       /* BIAS_DATA_TYPE, default -1 = D's type */
    int8_t fast_accum;            /* FAST_ACCUM (stored) */
    const void *bias;             /* BIAS_POINTER */
    int64_t bias_batch_stride;    /* BIAS_BATCH_STRIDE, elements */
    void *aux;                    /* EPILOGUE_AUX_POINTER (stored) */
    int64_t aux_ld;               /* EPILOGUE_AUX_LD (stored) */
    int64_t aux_batch_stride;     /* EPILOGUE_AUX_BATCH_STRIDE (stored) */
    int64_t alpha_batch_stride;   /* ALPHA_VECTOR_BATCH_STRIDE (stored) */
    const void *scale_ptr[4];     /* A/B/C/D_SCALE_POINTER (stored, fp8 only) */
    void *amax_d;                 /* AMAX_D_POINTER (stored) */
} lt_matmul_desc;

/* Heuristic preferences. Types follow cublasLtMatmulPreferenceAttributes_t. */
typedef struct lt_pref {
    uint32_t magic;          /* LT_PREF_MAGIC once initialized */
    uint32_t search_mode;    /* SEARCH_MODE */
    uint64_t max_workspace;  /* MAX_WORKSPACE_BYTES, default 0 */
    uint32_t reduction_mask; /* REDUCTION_SCHEME_MASK */
    uint32_t align[4];       /* MIN_ALIGNMENT_A/B/C/D_BYTES, default 256 */
    float max_waves;         /* MAX_WAVES_COUNT */
    uint64_t impl_mask;      /* IMPL_MASK, default all */
} lt_pref;

_Static_assert(sizeof(lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
_Static_assert(sizeof(lt_matmul_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");
_Static_assert(sizeof(lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "pref fits");

/* The struct behind a handle, or NULL if it was never initialized. */
static inline const lt_layout *lt_layout_of(cublasLtMatrixLayout_t l)
{
    const lt_layout *p = (const lt_layout *)(const void *)l;
    return p != NULL && p->magic == LT_LAYOUT_MAGIC ? p : NULL;
}
static inline const lt_matmul_desc *lt_desc_of(cublasLtMatmulDesc_t d)
{
    const lt_matmul_desc *p = (const lt_matmul_desc *)(const void *)d;
    return p != NULL && p->magic == LT_DESC_MAGIC ? p : NULL;
}
static inline const lt_pref *lt_pref_of(cublasLtMatmulPreference_t d)
{
    const lt_pref *p = (const lt_pref *)(const void *)d;
    return p != NULL && p->magic == LT_PREF_MAGIC ? p : NULL;
}

#endif /* SIMBLAS_LT_DESC_H */
