#!/usr/bin/env bash
# cuda_symbols.sh - what a toolkit library exports and what its headers
# declare, for the scripts that generate code from them (preload/
# gen_lib_hooks.sh: our hooks of cuBLAS, the other math libraries and
# libcuda; tests/sim/gen_stubs.sh and tests/sim/cublas/gen_blas.sh: the sim's
# exports).
#
#   cuda_symbols.sh exports LIB.so       the functions LIB exports, one a line, sorted
#   cuda_symbols.sh protos HEADER...     "NAME|PARAMS" of every function the headers
#                                        declare returning cublasStatus_t (CUBLASAPI or
#                                        CUBLASWINAPI), one a line, by name, the
#                                        parameters on one line as written
#   cuda_symbols.sh protos-of RET API HEADER...
#                                        the same for functions declared "RET API name(":
#                                        RET and API are extended regular expressions
#                                        (cufftResult CUFFTAPI, cusparseStatus_t CUSPARSEAPI, ...)
#   cuda_symbols.sh cprotos RET HEADER [CPPFLAG...]
#                                        "NAME|PARAMS" of every function HEADER declares
#                                        returning RET once fully preprocessed with
#                                        CPPFLAGS (cuda.h names its functions through
#                                        macros: cuMemAlloc is cuMemAlloc_v2), by name
set -euo pipefail
# parse_protos RET API: "NAME|PARAMS" of the "RET API name(" prototypes in a
# stream of C text (declarations ended by ';'), one a line, by name; API ""
# when nothing stands between RET and the name. The one parser behind
# protos, protos-of and cprotos.
parse_protos() {
  tr '\n' ' ' | tr ';{}' '\n\n\n' | awk -v ret="$1" -v api="$2" '{
    head_re = "(^|[^A-Za-z0-9_])(" ret ")[ \t]+" (api != "" ? "(" api ")[ \t]+" : "") "[A-Za-z0-9_]+[ \t]*\\("
    if (!match($0, head_re))
      next
    head = substr($0, RSTART, RLENGTH)
    rest = substr($0, RSTART + RLENGTH)
    name = head
    sub(/[ \t]*\($/, "", name)
    sub(/.*[^A-Za-z0-9_]/, "", name)
    sub(/\)[ \t]*$/, "", rest)
    gsub(/[ \t]+/, " ", rest)
    sub(/^ /, "", rest); sub(/ $/, "", rest)
    print name "|" rest
  }' | sort -t'|' -k1,1 -u
}
# protos_of RET API HEADER...: the headers' own text, comments and
# directives dropped (their macros are not expanded: RET and API as written).
protos_of() {
  local ret=$1 api=$2
  shift 2
  for h in "$@"; do
    gcc -fpreprocessed -E -P "$h" 2>/dev/null | grep -v '^ *#' || true
  done | parse_protos "$ret" "$api"
}
case "${1:-}" in
  exports)
    [ $# -eq 2 ] || { echo "usage: cuda_symbols.sh exports LIB.so" >&2; exit 2; }
    objdump -T "$2" | awk '$2 == "g" && $3 ~ /F/ && $4 == ".text" { print $NF }' | sort -u ;;
  protos)
    shift
    [ $# -ge 1 ] || { echo "usage: cuda_symbols.sh protos HEADER..." >&2; exit 2; }
    protos_of cublasStatus_t 'CUBLAS(WIN)?API' "$@" ;;
  protos-of)
    shift
    [ $# -ge 3 ] || { echo "usage: cuda_symbols.sh protos-of RET API HEADER..." >&2; exit 2; }
    protos_of "$@" ;;
  cprotos)
    [ $# -ge 3 ] || { echo "usage: cuda_symbols.sh cprotos RET HEADER [CPPFLAG...]" >&2; exit 2; }
    ret=$2 h=$3
    shift 3
    printf '#include "%s"\n' "$h" | gcc -E -P "$@" -x c - | parse_protos "$ret" '' ;;
  *) echo "usage: cuda_symbols.sh exports LIB.so | protos HEADER... | protos-of RET API HEADER... | cprotos RET HEADER [CPPFLAG...]" >&2; exit 2 ;;
esac
