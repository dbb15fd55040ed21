#!/usr/bin/env bash
# cuda_symbols.sh - what a toolkit library exports and what its headers
# declare, for the scripts that generate code from them (preload/
# gen_blas_hooks.sh: our cuBLAS hooks; tests/sim/gen_stubs.sh and
# tests/sim/cublas/gen_blas.sh: the sim's exports).
#
#   cuda_symbols.sh exports LIB.so       the functions LIB exports, one a line, sorted
#   cuda_symbols.sh protos HEADER...     "NAME|PARAMS" of every function the headers
#                                        declare returning cublasStatus_t (CUBLASAPI or
#                                        CUBLASWINAPI), one a line, by name, the
#                                        parameters on one line as written
set -euo pipefail
case "${1:-}" in
  exports)
    [ $# -eq 2 ] || { echo "usage: cuda_symbols.sh exports LIB.so" >&2; exit 2; }
    objdump -T "$2" | awk '$2 == "g" && $3 ~ /F/ && $4 == ".text" { print $NF }' | sort -u ;;
  protos)
    shift
    [ $# -ge 1 ] || { echo "usage: cuda_symbols.sh protos HEADER..." >&2; exit 2; }
    for h in "$@"; do
      gcc -fpreprocessed -E -P "$h" 2>/dev/null | grep -v '^ *#' || true
    done | tr '\n' ' ' | tr ';{}' '\n\n\n' | awk '{
      if (!match($0, /cublasStatus_t[ \t]+CUBLAS(WIN)?API[ \t]+[A-Za-z0-9_]+[ \t]*\(/))
        next
      head = substr($0, RSTART, RLENGTH)
      rest = substr($0, RSTART + RLENGTH)
      name = head
      sub(/^cublasStatus_t[ \t]+CUBLAS(WIN)?API[ \t]+/, "", name)
      sub(/[ \t]*\($/, "", name)
      sub(/\)[ \t]*$/, "", rest)
      gsub(/[ \t]+/, " ", rest)
      sub(/^ /, "", rest); sub(/ $/, "", rest)
      print name "|" rest
    }' | sort -t'|' -k1,1 -u ;;
  *) echo "usage: cuda_symbols.sh exports LIB.so | protos HEADER..." >&2; exit 2 ;;
esac
