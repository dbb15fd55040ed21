/*
 * vocab.h - the event vocabulary in words, as the tables and the trace
 * print it (vocab.c; the CUDA headers give the enum values).
 */
#ifndef CUPROF_VOCAB_H
#define CUPROF_VOCAB_H

#include <stdint.h>

/* The event vocabulary in words (model/vocab.c; static strings, never NULL): */
const char *cuprof_dir_name(uint8_t dir);        /* enum cuprof_dir: "HtoD", .., "memset" */
const char *cuprof_class_name(uint8_t cls);      /* enum cuprof_ev_class: "launch", .. */
const char *cuprof_dtype_name(uint8_t dtype);    /* cudaDataType_t: "fp32", "bf16", .. */
const char *cuprof_compute_name(uint16_t ct);    /* cublasComputeType_t: "32F", .. */
const char *cuprof_epilogue_name(uint16_t epi);  /* cublasLtEpilogue_t: "DEFAULT", "BIAS", .. */
const char *cuprof_trans_name(uint8_t op);       /* 0 "N", 1 "T", 2 "C" */
const char *cuprof_nccl_dtype_name(uint8_t t);   /* ncclDataType_t: "f32", "bf16", .. */
unsigned cuprof_nccl_dtype_bytes(uint8_t t);     /* its size, 0 unknown */
const char *cuprof_nccl_op_name(uint8_t op);     /* ncclRedOp_t: "sum", "prod", .. */

#endif /* CUPROF_VOCAB_H */
