#!/usr/bin/env bash
# scripts/launch.sh - a torchrun-style launcher, for jobs of several ranks
# with no MPI (torchrun itself needs PyTorch, which is not installable here):
# starts N copies of a command with RANK, WORLD_SIZE, LOCAL_RANK,
# LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set as torchrun sets them
# (one host), waits for every one, and exits with the first non-zero status
# among them (0 when all succeeded). Each rank's stdout and stderr are its
# own (not prefixed).
#
#   scripts/launch.sh --nproc N [--master-port P] [--] COMMAND [ARGS...]
#
# e.g.  scripts/launch.sh --nproc 4 -- ./prof.sh -o prof-out -- bench/ddp_step --slow 2
set -u
n=1 port=${MASTER_PORT:-29500}
while [ $# -gt 0 ]; do
  case "$1" in
    --nproc) n=$2; shift 2 ;;
    --nproc=*) n=${1#--nproc=}; shift ;;
    --master-port) port=$2; shift 2 ;;
    --master-port=*) port=${1#--master-port=}; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if ! [[ $n =~ ^[1-9][0-9]{0,3}$ ]] || [ $# -eq 0 ]; then
  echo "cuprof: launch.sh: usage: scripts/launch.sh --nproc N [--master-port P] [--] COMMAND [ARGS...]" >&2
  exit 2
fi
pids=()
for ((r = 0; r < n; r++)); do
  RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r LOCAL_WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$@" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  wait "$p"; s=$?
  [ $status -ne 0 ] || status=$s
done
exit $status
