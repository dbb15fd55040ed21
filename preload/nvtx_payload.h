/*
 * nvtx_payload.h - NVTX's payload extension (nvtx_payload.c) and the
 * recording calls of preload/nvtx.c it shares.
 */
#ifndef CUPROF_NVTX_PAYLOAD_H
#define CUPROF_NVTX_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* The string id of an extended payload's text (an array of count
 * nvtxPayloadData_t decoded by the schemas registered in domain), or 0 when
 * nothing of it could be decoded. */
uint32_t cuprof_nvtx_payload_text(uint32_t domain, const void *data, size_t count);
/* The same for an nvtxEventAttributes_t: 0 unless its payload is extended. */
uint32_t cuprof_nvtx_attr_payload(uint32_t domain, const void *attr);

/* preload/nvtx.c: a push, pop or mark of domain with name and payload
 * (string ids, 0: none), as NVTX returns them. */
int cuprof_nvtx_push(uint32_t domain, uint32_t name, uint32_t payload);
int cuprof_nvtx_pop(uint32_t domain);
void cuprof_nvtx_mark(uint32_t domain, uint32_t name, uint32_t payload);

#endif
