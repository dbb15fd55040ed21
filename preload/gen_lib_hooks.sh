#!/usr/bin/env bash
# gen_lib_hooks.sh - a hook for every entry point of a CUDA library that the
# hand-written hooks do not cover, generated from the toolkit's own
# prototypes, as the sim's stubs are: cuBLAS and cuBLASLt (issue 33: only the
# GEMMs were rows), cuFFT, cuRAND, cuSPARSE and cuSOLVER (issue 41: none of
# their calls was a row), and libcuda, the driver API as programs link it
# (-lcuda: JAX/XLA, the driver samples; issue 41).
#
#   gen_lib_hooks.sh TAG HOOKS_H RET API MISSING LIB.so=ENUM[,LIB.so=ENUM...] HEADER... > TAG_gen.h
#
# TAG: BLAS, FFT, RAND, SPARSE, SOLVER or DRIVER (the rules below and the
# macros' names); HOOKS_H: the hand-written list (a name it lists as
# X(name, ...) is left to it); RET and API: how the headers declare the
# library's functions ("cufftResult" "CUFFTAPI": scripts/cuda_symbols.sh
# protos-of; DRIVER: API "", see below); MISSING: what a hook returns when
# the real function cannot be found; then each library with its enum
# preload_lib constant, and the headers.
#
# A function is generated when one of the libraries exports it, a header
# declares it returning RET, and HOOKS_H does not list it. C++-only
# prototypes (__half, __nv_bfloat16) and variadic ones are left out.
#
# DRIVER (LIB: the toolkit's stubs/libcuda.so, whose exports are the real
# driver's; HEADERS: cuda.h first, then cudaProfiler.h): the prototypes come
# from the headers fully preprocessed, as a program sees them (cuda.h names
# most functions through macros: cuMemAlloc is cuMemAlloc_v2; cuda_symbols.sh
# cprotos), cuda.h then again with CUDA_API_PER_THREAD_DEFAULT_STREAM (the
# _ptds/_ptsz forms), then with __CUDA_API_VERSION_INTERNAL (the legacy forms
# older binaries bind to: cuMemAlloc with a 32-bit size, cuCtxCreate without
# _v2...), the first declaration of a name winning. The legacy forms' own
# types (CUdeviceptr_v1, CUDA_MEMCPY2D_v1 ...) exist only under that macro:
# they are written as the types they are (unsigned int; a pointer to a legacy
# struct as void *: the hooks keep no argument, so only the ABI matters), and
# their names, macros for the newest form in a normal compile, are #undef'd
# at the top of the output.
#
# Output: PRELOAD_<TAG>_GEN_HOOKS(X) (appended to PRELOAD_HOOKS: name,
# library, class, return type, parameters); PRELOAD_<TAG>_GEN_BODIES(Y)
# (return type, name, parameters, arguments, MISSING, what the hook keeps
# before the call, what it keeps once the call succeeded: hooks_lib_gen.c,
# hooks_driver_gen.c); PRELOAD_<TAG>_GEN_COUNT. The class: set-up and queries
# are plain calls that push nothing (a CUPTI push costs about 1 us with the
# real CUPTI, and PyTorch sets cuBLAS's stream and workspace before every
# op); the rest may copy or launch through the library's own static runtime,
# which no hook sees, and push their event id (CUPROF_EV_LIB for cuBLAS,
# CUPROF_EV_MATH_LIB for the others). Every generated driver hook is a plain
# call (CUPROF_EV_CALL): its GPU work (a CUPTI driver record of the same name
# around it in time) is joined to it by the model, as a top-level runtime
# call's is. The math libraries' calls are CUPROF_EV_MATH events whose
# arguments are picked by their parameters' names and types (the PM_* macros
# of hooks_lib_gen.c; collector/event.h says what each field holds); cuBLAS's
# and the driver's keep none.
set -euo pipefail
[ $# -ge 7 ] || { echo "usage: gen_lib_hooks.sh TAG HOOKS_H RET API MISSING LIB.so=ENUM[,...] HEADER..." >&2; exit 2; }
tag=$1 hooks=$2 ret=$3 api=$4 missing=$5 libs=$6
shift 6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sym="$(dirname "$0")/../scripts/cuda_symbols.sh"
: > "$tmp/lib"
IFS=, read -ra specs <<< "$libs"
for s in "${specs[@]}"; do
  bash "$sym" exports "${s%%=*}" | sed "s/\$/|${s#*=}/" >> "$tmp/lib"
done
# names preload/hooks.h lists (hooks, helpers)
grep -o 'X([A-Za-z_][A-Za-z0-9_]*' "$hooks" | sed 's/^X(//' | sort -u > "$tmp/taken"
if [ "$tag" = DRIVER ]; then
  # cuda.h (three ways) and the other headers as a program sees them
  inc=$(dirname "$1")
  bash "$sym" cprotos "$ret" "$1" -I"$inc" > "$tmp/p1"
  bash "$sym" cprotos "$ret" "$1" -I"$inc" -DCUDA_API_PER_THREAD_DEFAULT_STREAM > "$tmp/p2"
  : > "$tmp/p3"
  for h in "${@:2}"; do
    bash "$sym" cprotos "$ret" "$h" -I"$inc" >> "$tmp/p3"
  done
  bash "$sym" cprotos "$ret" "$1" -I"$inc" -D__CUDA_API_VERSION_INTERNAL > "$tmp/p4"
  cut -d'|' -f1 "$tmp/p1" "$tmp/p2" "$tmp/p3" | sort -u > "$tmp/normal"
  # the legacy prototypes, their own types written as what they are
  awk -F'|' 'NR == FNR { normal[$1] = 1; next } !($1 in normal)' "$tmp/normal" "$tmp/p4" |
    sed -E 's/\bCUdeviceptr_v1\b/unsigned int/g; s/\b[A-Za-z0-9_]+_v1\b *\*/void */g' > "$tmp/legacy"
  cat "$tmp/p1" "$tmp/p2" "$tmp/p3" "$tmp/legacy" | awk -F'|' '!seen[$1]++' | sort -t'|' -k1,1 > "$tmp/protos"
  echo "/* The legacy names cuda.h maps to their newest form (#define cuMemAlloc"
  echo " * cuMemAlloc_v2): hooked under their own names. */"
  cut -d'|' -f1 "$tmp/legacy" | sed 's/^/#undef /'
else
  bash "$sym" protos-of "$ret" "$api" "$@" > "$tmp/protos"
fi

awk -F'|' -v tag="$tag" -v math="$([[ $tag =~ ^(FFT|RAND|SPARSE|SOLVER)$ ]] && echo 1 || echo 0)" -v ret="$ret" -v missing="$missing" -v hdrs="$*" '
FILENAME == ARGV[1] { taken[$1] = 1; next }
FILENAME == ARGV[2] { if (!($1 in lib)) lib[$1] = $2; next }
# plain (no push): set-up and queries, by library
function plain(name) {
  if (tag == "BLAS")
    return name ~ /(Create|Destroy|Init|_internal|Desc|Layout|Preference|Heuristic|Algo|Logger|Version|Property|Status|Stream|MathMode|PointerMode|AtomicsMode|Workspace|SmCount|Emulation|Migrate)/ && \
           name !~ /(Set|Get)(Matrix|Vector)/
  # (a plan: the copies a real cuFFT makes in it are CUPTI-only calls nested
  # in its row by time; pushing would let the kernels-only matching give it
  # the transforms that follow)
  if (tag == "FFT")
    return name ~ /(Create|Destroy|Get|Set|Estimate|Version|Property|Query|Callback|Plan)/
  if (tag == "RAND")
    return name ~ /(CreateGenerator|Destroy|Set[A-Z]|Get[A-Z])/
  return name ~ /(Create|Destroy|Get[A-Z]|Set[A-Z]|[bB]ufferSize|Version|Property|Logger|Error|Stream)/
}
# what a math call keeps of one parameter (type t, name a): PM_* macros
# before the call (pre) or once it succeeded (post: out parameters, arrays)
function keep(t, a,    ptr) {
  ptr = t ~ /\*[ ]*$/
  if (tag == "FFT") {
    if (t ~ /cufftHandle/ && !ptr) { pre = pre " PM_HANDLE(" a ")"; return }
    if (t ~ /cufftHandle/ && ptr && a != "handle") { post = post " PM_HANDLE_OUT(" a ")"; return }
    if (a == "nx" && !ptr) { pre = pre " PM_M(" a ")"; return }
    if (a == "ny" && !ptr) { pre = pre " PM_N(" a ")"; return }
    if (a == "nz" && !ptr) { pre = pre " PM_K(" a ")"; return }
    if (a == "n" && ptr) { post = post " PM_DIMS(rank, " a ")"; return }
    if (a == "batch" && !ptr) { pre = pre " PM_BATCH(" a ")"; return }
    if (t ~ /^(const )?cufftType$/) { pre = pre " PM_KIND(" a ")"; return }
    if (a == "executiontype" && !ptr) { pre = pre " PM_DTYPE(" a ")"; return }
    if (a == "direction") { pre = pre " PM_DIRECTION(" a ")"; return }
    return
  }
  if (tag == "RAND") {
    if (t ~ /curandGenerator_t/ && ptr) { post = post " PM_HANDLE_OUT(" a ")"; return }
    if (t ~ /curandGenerator_t/) { pre = pre " PM_HANDLE(" a ")"; return }
    if (t ~ /curandRngType_t/) { pre = pre " PM_KIND(" a ")"; return }
    if ((a == "num" || a == "n") && !ptr) { pre = pre " PM_K(" a ")"; return }
    return
  }
  if (tag == "SPARSE") {
    if (t ~ /(Sp|Dn)(Mat|Vec)Descr_t/ && ptr) { post = post " PM_HANDLE_OUT(" a ")"; return }
    if (t ~ /SpMatDescr_t/ && !handle_set) { pre = pre " PM_HANDLE(" a ")"; handle_set = 1; return }
    if (a == "matB" || a == "vecX") { pre = pre " PM_HANDLE2(" a ")"; return }
    if ((a == "rows" || a == "m" || a == "size" || a == "mb") && !ptr) { pre = pre " PM_M(" a ")"; return }
    if ((a == "cols" || a == "n" || a == "nb") && !ptr) { pre = pre " PM_N(" a ")"; return }
    if ((a == "nnz" || a == "nnzb" || a == "nnzA") && !ptr) { pre = pre " PM_K(" a ")"; return }
    if ((a == "batchCount" || a == "batchSize") && !ptr) { pre = pre " PM_BATCH(" a ")"; return }
    if (t ~ /cudaDataType/ && !ptr && (a == "valueType" || a == "computeType")) { pre = pre " PM_DTYPE(" a ")"; return }
    if (t ~ /Alg_t$/ && !ptr) { pre = pre " PM_ALGO(" a ")"; return }
    return
  }
  if (tag == "SOLVER") {
    if (ptr) return
    if (a == "m" || a == "M") { pre = pre " PM_M(" a ")"; return }
    if (a == "n" || a == "N") { pre = pre " PM_N(" a ")"; return }
    if (a == "nrhs" || a == "nnz" || a == "nnzA") { pre = pre " PM_K(" a ")"; return }
    if (a == "batchSize" || a == "batchCount") { pre = pre " PM_BATCH(" a ")"; return }
    if (t ~ /cudaDataType/ && (a == "dataTypeA" || a == "computeType") && pre !~ /PM_DTYPE/) { pre = pre " PM_DTYPE(" a ")"; return }
    return
  }
}
# what a math call keeps by its name: a cuSPARSE descriptor format, a
# cuRAND generate call distribution
function by_name(name) {
  if (tag == "SPARSE") {
    if (name ~ /^cusparseCreate(Const)?Csr$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_CSR)"
    else if (name ~ /^cusparseCreate(Const)?Csc$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_CSC)"
    else if (name ~ /^cusparseCreate(Const)?Coo$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_COO)"
    else if (name ~ /^cusparseCreate(Const)?BlockedEll$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_BLOCKED_ELL)"
    else if (name ~ /^cusparseCreate(Const)?Bsr$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_BSR)"
    else if (name ~ /^cusparseCreate(Const)?SlicedEll$/) pre = pre " PM_KIND(CUSPARSE_FORMAT_SLICED_ELLPACK)"
    else if (name ~ /^cusparseCreate(Const)?Dn(Mat|Vec)$/) pre = pre " PM_KIND(CUPROF_MATH_DENSE)"
  }
  if (tag == "RAND" && name ~ /^curandGenerate/) {
    if (name ~ /LogNormal/) pre = pre " PM_KIND(CUPROF_DIST_LOGNORMAL)"
    else if (name ~ /Normal/) pre = pre " PM_KIND(CUPROF_DIST_NORMAL)"
    else if (name ~ /Uniform/) pre = pre " PM_KIND(CUPROF_DIST_UNIFORM)"
    else if (name ~ /Poisson/) pre = pre " PM_KIND(CUPROF_DIST_POISSON)"
    else if (name !~ /Seeds/) pre = pre " PM_KIND(CUPROF_DIST_BITS)"
    if (name ~ /(Uniform|Normal)Double/) pre = pre " PM_DTYPE(CUDA_R_64F)"
    else if (name ~ /(Uniform|Normal)$/) pre = pre " PM_DTYPE(CUDA_R_32F)"
    else if (name ~ /LongLong/) pre = pre " PM_DTYPE(CUDA_R_64U)"
    else if (name !~ /Seeds/) pre = pre " PM_DTYPE(CUDA_R_32U)"
  }
}
{
  name = $1; params = $2
  if (!(name in lib) || (name in taken) || params ~ /\.\.\./ || params ~ /__half|__nv_bfloat16/)
    next
  pre = ""; post = ""; handle_set = 0
  # the arguments: the last identifier of each parameter ("void" alone: none)
  args = ""
  if (params != "void" && params != "") {
    n = split(params, p, ",")
    for (i = 1; i <= n; i++) {
      a = p[i]
      sub(/\[[^]]*\][ ]*$/, "", a)          # "const float* const Aarray[]"
      sub(/[ ]+$/, "", a)
      if (!match(a, /[A-Za-z_][A-Za-z0-9_]*$/)) { bad = 1; break }
      an = substr(a, RSTART, RLENGTH)
      at = substr(a, 1, RSTART - 1)
      sub(/^[ ]+/, "", at); sub(/[ ]+$/, "", at)
      args = args (i > 1 ? ", " : "") an
      if (math)
        keep(at, an)
    }
    if (bad) { bad = 0; next }
  } else {
    params = "void"
  }
  if (math)
    by_name(name)
  # a cuFFT call that gives a plan its sizes (cufftMakePlan*, cufftGetSize*)
  # makes what the model joins an exec to, as an out parameter does
  if (tag == "FFT" && post !~ /PM_HANDLE_OUT/ && pre ~ /PM_HANDLE/ && (pre ~ /PM_(M|KIND)/ || post ~ /PM_DIMS/))
    post = post " PM_MADE"
  if (tag == "DRIVER")
    cls = "CUPROF_EV_CALL"
  else if (tag == "BLAS")
    cls = plain(name) ? "CUPROF_EV_CALL" : "CUPROF_EV_LIB"
  else
    cls = plain(name) ? "CUPROF_EV_MATH" : "CUPROF_EV_MATH_LIB"
  names[++k] = name; libs[k] = lib[name]; ps[k] = params; as[k] = args; cl[k] = cls
  pres[k] = pre == "" ? "PM_NONE" : substr(pre, 2); posts[k] = post == "" ? "PM_NONE" : substr(post, 2)
}
END {
  print "/* Generated by preload/gen_lib_hooks.sh from " hdrs " and the"
  print " * libraries that export them: every entry point the hand-written hooks"
  print " * do not cover. Do not edit. */"
  print "#define PRELOAD_" tag "_GEN_HOOKS(X) \\"
  for (i = 1; i <= k; i++)
    printf "    X(%s, %s, %s, %s, (%s)) \\\n", names[i], libs[i], cl[i], ret, ps[i]
  print ""
  print "#define PRELOAD_" tag "_GEN_BODIES(Y) \\"
  for (i = 1; i <= k; i++)
    printf "    Y(%s, %s, (%s), (%s), %s, %s, %s) \\\n", ret, names[i], ps[i], as[i], missing, pres[i], posts[i]
  print ""
  print "#define PRELOAD_" tag "_GEN_COUNT " k
}' "$tmp/taken" "$tmp/lib" "$tmp/protos"
