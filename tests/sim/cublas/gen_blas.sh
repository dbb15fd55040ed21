#!/usr/bin/env bash
# gen_blas.sh - the cuBLAS routines the simulated library times but does not
# compute, generated from the toolkit's own prototypes (tests/sim/README.md,
# "cuBLAS routines").
#
#   gen_blas.sh REAL.so HEADER -- OBJS... > blas_timed.c
#
#   REAL.so  the toolkit's libcublas.so.13: what it exports is what may be
#            generated
#   HEADER   cublas_api.h: the prototypes, copied as they are
#   OBJS     the sim's hand-written objects: what they define is not generated
#
# A routine is generated when the real library exports it, the sim's objects
# do not define it, cublas_api.h declares it for C taking a cublasHandle_t
# first, and its name is a BLAS routine the table below knows (level 1, 2 or
# 3, by its operation once the type letters and the Ex / Batched / _v2 / _64
# decorations are taken off). Its body checks the sizes (m, n, k, batchCount
# or batchSize, where it has them) and runs one kernel through simblas_call,
# named "<operation>_kernel<element type>", sized by those parameters; its
# outputs are left as they were, but for the batched LU/QR/least-squares
# routines' info (0: success). Everything else stays a stub (gen_stubs.sh).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: gen_blas.sh REAL.so HEADER -- OBJS..." >&2; exit 2; }
real=$1 header=$2
shift 2
[ "$1" = -- ] && shift
[ -r "$real" ] || { echo "gen_blas.sh: $real: not readable" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sym="$(dirname "$0")/../../../scripts/cuda_symbols.sh"
bash "$sym" exports "$real" > "$tmp/real"
nm --defined-only -g "$@" | awk '$2 == "T" { print $3 }' | sort -u > "$tmp/sim"
comm -23 "$tmp/real" "$tmp/sim" > "$tmp/candidates"

# One prototype per line: "NAME|PARAMS".
bash "$sym" protos "$header" > "$tmp/protos"

awk -F'|' '
FILENAME == ARGV[1] { want[$1] = 1; next }
BEGIN {
  split("axpy copy dot dotu dotc scal swap nrm2 asum rot rotm amax amin", l1, " ")
  split("gemv gbmv ger geru gerc symv hemv sbmv hbmv spmv hpmv syr syr2 her her2 spr spr2 hpr hpr2 trmv tbmv tpmv trsv tbsv tpsv geam dgmm", l2, " ")
  split("gemm symm hemm syrk herk syr2k her2k syrkx herkx trmm trsm matinv getrf getri getrs geqrf gels", l3, " ")
  # the batched LAPACK-like routines report through info: success (0) is
  # written there, per matrix where it is a device array, once where the
  # routine takes it on the host (their results are not computed)
  split("getrf getri matinv", infoarr, " "); for (i in infoarr) info_per_batch[infoarr[i]] = 1
  split("getrs geqrf gels", infoone, " "); for (i in infoone) info_once[infoone[i]] = 1
  for (i in l1) level[l1[i]] = 1
  for (i in l2) level[l2[i]] = 2
  for (i in l3) level[l3[i]] = 3
  # type prefix -> element type, bytes, arithmetic bits
  split("HSH:__half:2:16 HSS:__half:2:32 TST:__nv_bfloat16:2:32 TSS:__nv_bfloat16:2:32 Cs:float2:8:32 Zd:double2:16:64 Sc:float2:8:32 Dz:double2:16:64 S:float:4:32 D:double:8:64 C:float2:8:32 Z:double2:16:64 H:__half:2:16", tl, " ")
  for (i = 1; i in tl; i++) { split(tl[i], f, ":"); prefix[i] = f[1]; ctype[f[1]] = f[2]; ebytes[f[1]] = f[3]; pbits[f[1]] = f[4] }
  nprefix = i - 1
}
{
  name = $1; params = $2
  if (!(name in want) || params !~ /^cublasHandle_t handle[ ,]/ || params ~ /__half|__nv_bfloat16/)
    next
  op = name
  sub(/^cublas/, "", op)
  sub(/_64$/, "", op); sub(/_v2$/, "", op)
  t = ""
  if (op ~ /^I[sdcz]a(max|min)/) { t = toupper(substr(op, 2, 1)); op = substr(op, 3) }
  else if (op ~ /^Ia(max|min)/) op = substr(op, 2)
  else for (i = 1; i <= nprefix; i++) {
    p = prefix[i]
    rest = substr(op, length(p) + 1)
    if (substr(op, 1, length(p)) == p && rest ~ /^[a-z]/) { t = p; op = rest; break }
  }
  base = op
  sub(/(StridedBatched|Batched)$/, "", base)
  sub(/Ex$/, "", base); sub(/3m$/, "", base)
  base = tolower(substr(base, 1, 1)) substr(base, 2)
  if (op ~ /GroupedBatched/ || !(base in level))
    next
  lv = level[base]
  elem = t != "" ? ctype[t] : ""
  kname = base "_kernel" (elem != "" ? "<" elem ">" : "")
  eb = t != "" ? ebytes[t] : 4
  pb = t != "" ? pbits[t] : 32
  # parameter names
  np = split(params, ps, ",")
  m = n = k = b = "-1"
  voids = ""
  for (i = 1; i <= np; i++) {
    pn = ps[i]
    sub(/\[\][ ]*$/, "", pn); sub(/[ ]+$/, "", pn)
    match(pn, /[A-Za-z_][A-Za-z0-9_]*$/)
    pn = substr(pn, RSTART, RLENGTH)
    if (pn == "m") m = "m"
    else if (pn == "n") n = "n"
    else if (pn == "k") k = "k"
    else if (pn == "nrhs") k = "nrhs"
    else if (pn == "batchCount" || pn == "batchSize") b = pn
  }
  count++
  printf "EXPORT cublasStatus_t %s(%s)\n{\n", name, params
  printf "    static const simblas_routine r = {\"%s\", %d, %d, %d};\n", kname, lv, eb, pb
  check = ""
  if (lv > 1) {
    if (m != "-1") check = check " || m < 0"
    if (n != "-1") check = check " || n < 0"
    if (k != "-1") check = check " || " k " < 0"
  }
  if (b != "-1") check = check " || " b " < 0"
  if (check != "") {
    sub(/^ \|\| /, "", check)
    printf "    if (%s)\n        return simblas_handle_ok(handle) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;\n", check
  }
  if (lv == 1)
    printf "    if (n < 0)\n        n = 0;\n"
  if (base in info_per_batch)
    printf "    if (info && simblas_handle_ok(handle))\n        memset(info, 0, (size_t)%s * sizeof *info);\n", b
  if (base in info_once) {
    printf "    if (info && simblas_handle_ok(handle))\n        *info = 0;\n"
    if (params ~ /devInfoArray/)
      printf "    if (devInfoArray && simblas_handle_ok(handle))\n        memset(devInfoArray, 0, (size_t)%s * sizeof *devInfoArray);\n", b
  }
  printf "    return simblas_call(handle, &r, %s, %s, %s, %s, NULL, NULL);\n}\n\n", m, n, k, b
}
END { printf "/* %d routines, timed only */\n", count }
' "$tmp/candidates" "$tmp/protos" > "$tmp/body"

cat <<HDR
/* Generated by tests/sim/cublas/gen_blas.sh from $(basename "$real") and
 * $(basename "$header"): the cuBLAS routines the sim runs as timed kernels
 * without computing their results. Do not edit. */
#include "cublas_handle.h"

#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#pragma GCC diagnostic ignored "-Wunused-parameter"

HDR
cat "$tmp/body"
