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
#   cuda_symbols.sh cprotos RET HEADER [CPPFLAG...]
#                                        "NAME|PARAMS" of every function HEADER declares
#                                        returning RET once fully preprocessed with
#                                        CPPFLAGS (cuda.h names its functions through
#                                        macros: cuMemAlloc is cuMemAlloc_v2), by name
set -euo pipefail
# "NAME|PARAMS" of the RET prototypes in a stream of C text (declarations
# ended by ';'), one a line; MACRO: an optional word between RET and NAME.
protos_of() {
  tr '\n' ' ' | tr ';{}' '\n\n\n' | awk -v ret="$1" -v macro="$2" '{
    re = ret "[ \t]+" (macro != "" ? "(" macro ")[ \t]+" : "") "[A-Za-z0-9_]+[ \t]*\\("
    if (!match($0, re))
      next
    head = substr($0, RSTART, RLENGTH)
    rest = substr($0, RSTART + RLENGTH)
    name = head
    sub("^" ret "[ \t]+" (macro != "" ? "(" macro ")[ \t]+" : ""), "", name)
    sub(/[ \t]*\($/, "", name)
    sub(/\)[ \t]*$/, "", rest)
    gsub(/[ \t]+/, " ", rest)
    sub(/^ /, "", rest); sub(/ $/, "", rest)
    print name "|" rest
  }' | sort -t'|' -k1,1 -u
}
case "${1:-}" in
  exports)
    [ $# -eq 2 ] || { echo "usage: cuda_symbols.sh exports LIB.so" >&2; exit 2; }
    objdump -T "$2" | awk '$2 == "g" && $3 ~ /F/ && $4 == ".text" { print $NF }' | sort -u ;;
  protos)
    shift
    [ $# -ge 1 ] || { echo "usage: cuda_symbols.sh protos HEADER..." >&2; exit 2; }
    for h in "$@"; do
      gcc -fpreprocessed -E -P "$h" 2>/dev/null | grep -v '^ *#' || true
    done | protos_of cublasStatus_t 'CUBLAS(WIN)?API' ;;
  cprotos)
    [ $# -ge 3 ] || { echo "usage: cuda_symbols.sh cprotos RET HEADER [CPPFLAG...]" >&2; exit 2; }
    ret=$2 h=$3
    shift 3
    printf '#include "%s"\n' "$h" | gcc -E -P "$@" -x c - | protos_of "$ret" '' ;;
  *) echo "usage: cuda_symbols.sh exports LIB.so | protos HEADER... | cprotos RET HEADER [CPPFLAG...]" >&2; exit 2 ;;
esac
