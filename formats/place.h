/*
 * place.h - where the run ran, in the outputs: rank, host, devices and the
 * clocks read together (model/run.h, cuprof_place), shared by the summary
 * and trace writers, and read back by prof.sh merge.
 */
#ifndef CUPROF_FORMATS_PLACE_H
#define CUPROF_FORMATS_PLACE_H

#include "formats/outbuf.h"
#include "model/run.h"

/* {"launcher":..,"rank":..,"world_size":..,"local_rank":..,"local_size":..,
 *  "host":..,"boot_id":..,"cuda_visible_devices":..,"devices":[..],
 *  "clocks":{...}}: summary.json's "distributed", the trace's
 *  otherData.distributed. Unknown numbers are -1, unknown strings null. */
void cuprof_put_place(cuprof_out *o, const cuprof_run *run);
/* Kineto's top-level trace key, only when a launcher gave a rank:
 * ,"distributedInfo":{"rank":R,"world_size":W,...} (HTA reads rank and
 * world_size from it). */
void cuprof_put_distributed_info(cuprof_out *o, const cuprof_run *run);
/* "rank 2 of 4" (world size unknown: "rank 2"); "" without a rank. */
const char *cuprof_place_rank_label(char *buf, size_t n, const cuprof_run *run);

#endif /* CUPROF_FORMATS_PLACE_H */
