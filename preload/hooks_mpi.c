/*
 * hooks_mpi.c - the MPI collectives: the points where the ranks of a job
 * meet. Each is recorded as a call (category "mpi") so that a rank's table
 * shows the time it waited in them and prof.sh merge can line the ranks up:
 * the i-th call of a collective on every rank is the same meeting, and the
 * rank that reaches it last is the one the others wait for.
 *
 * Only the C bindings a program calls by name; a call through PMPI_*, the
 * Fortran bindings or a non-blocking collective is not seen. The handles
 * are passed through untouched (preload_mpi_handle, hooks.h), so the hooks
 * work with Open MPI and MPICH alike without mpi.h.
 */
#include "preload/hooks.h"

#define MPI_HOOK(name, params, args) PRELOAD_PLAIN_HOOK(int, name, params, args, PRELOAD_MPI_MISSING)

MPI_HOOK(MPI_Barrier, (preload_mpi_handle comm), (comm))
MPI_HOOK(MPI_Bcast, (void *buffer, int count, preload_mpi_handle datatype, int root, preload_mpi_handle comm),
         (buffer, count, datatype, root, comm))
MPI_HOOK(MPI_Reduce,
         (const void *sendbuf, void *recvbuf, int count, preload_mpi_handle datatype, preload_mpi_handle op,
          int root, preload_mpi_handle comm),
         (sendbuf, recvbuf, count, datatype, op, root, comm))
MPI_HOOK(MPI_Allreduce,
         (const void *sendbuf, void *recvbuf, int count, preload_mpi_handle datatype, preload_mpi_handle op,
          preload_mpi_handle comm),
         (sendbuf, recvbuf, count, datatype, op, comm))
MPI_HOOK(MPI_Allgather, PRELOAD_SIG_MPI_GATHERALL, (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
MPI_HOOK(MPI_Alltoall, PRELOAD_SIG_MPI_GATHERALL, (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
MPI_HOOK(MPI_Gather, PRELOAD_SIG_MPI_ROOTED,
         (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
MPI_HOOK(MPI_Scatter, PRELOAD_SIG_MPI_ROOTED,
         (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
