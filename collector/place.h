/*
 * place.h - where the process runs: the rank its launcher gave it (mpirun,
 * torchrun, srun), the host, the boot id and the clocks read together, for
 * the outputs (model/run.h, cuprof_place) and prof.sh merge.
 */
#ifndef CUPROF_COLLECTOR_PLACE_H
#define CUPROF_COLLECTOR_PLACE_H

#include "collector/runfile_types.h"

/* Reads the rank variables through get (getenv, or a test's table) into p's
 * launcher, rank, world_size, local_rank and local_size; the first launcher
 * whose rank variable is set to a number wins, in this order: Open MPI
 * (OMPI_COMM_WORLD_*), PMIx (PMIX_RANK), PMI (PMI_RANK/PMI_SIZE, MPICH's
 * MPI_LOCALRANKID/MPI_LOCALNRANKS), torchrun (RANK with WORLD_SIZE,
 * LOCAL_RANK, LOCAL_WORLD_SIZE), Slurm (SLURM_PROCID, SLURM_NTASKS,
 * SLURM_LOCALID). Returns 1 when a rank was found, 0 when not (launcher NULL,
 * every number -1). */
int cuprof_place_parse(cuprof_place *p, const char *(*get)(const char *name));

/* At collector start and in a fork child: the rank, host, boot id, visible
 * devices and the start clocks. */
void cuprof_place_start(void);
/* The place as read at start, with the end clocks read now. */
void cuprof_place_snapshot(cuprof_place *out);

#endif /* CUPROF_COLLECTOR_PLACE_H */
