#!/usr/bin/env bash
# scripts/gpu_check.sh - check cuprof's real path on a machine with an NVIDIA
# GPU and driver (no simulator): the driver loads InitializeInjection, the
# real CUPTI delivers records, kernels are tied to the calls that caused them.
#
#   scripts/gpu_check.sh OUTDIR [STATIC_BIN]
#
# Needs what `make` built here (build/, bench/matmul_add, bench/launch_overhead,
# bench/driver_launch and driver_kernel.cubin,
# build/tests/robust_prog), nvcc (for scripts/mt_launch.cu)
# and python3 (for the trace checks; the GPU machines have it, the project's
# own tools read our files with jansson). STATIC_BIN: matmul_add built with
# nvcc's default static cudart, to check the injection-only path.
# Writes OUTDIR/{env,demo,overhead,static,endings,mt,checks}.txt and the profiles, and
# prints a short report. Not part of `make test`: CI has no GPU.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/gpu_check.sh OUTDIR [STATIC_BIN]}
static_bin=${2:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$top"

{
  date -u
  uname -a
  nvidia-smi 2>&1 | head -n 20
  nvidia-smi -L 2>&1
  "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>&1 | tail -n 2
  ls -l /usr/local/cuda/lib64/libcupti* /usr/local/cuda/extras/CUPTI/lib64/libcupti* 2>&1
  ldconfig -p | grep -E 'libcuda\.so|libcupti|libcudart' 2>&1
  nproc
} >"$out/env.txt" 2>&1

# 1. make demo's script on the GPU (three modes, sizes 64 and 4096).
echo "== demo" >&2
DEMO_DEVICE=gpu DEMO_OUT="$out/demo" bash scripts/demo.sh >"$out/demo.txt" 2>&1
echo "demo rc=$?" >>"$out/demo.txt"

# 2. One run with the collector's debug output (CUPTI start, clocks, records).
echo "== debug run" >&2
CUPROF_DEBUG=all ./prof.sh -o "$out/debug" -n eager64 bench/matmul_add --mode eager --size 64 \
  --iters 5 >"$out/debug.stdout" 2>"$out/debug.stderr"
echo "rc=$?" >>"$out/debug.stdout"

# 3. Launch overhead on real launches: without cuprof, with it (CUPTI off),
#    with it (CUPTI on, each --gpu mode), and a bare CUPTI client with the
#    same activity kinds as each mode (tests/e2e/cupti_client.c: records
#    only, no hooks); 5 interleaved repeats.
echo "== overhead" >&2
: >"$out/overhead.txt"
ovh=$(mktemp -d)   # 400k events a run: kept out of OUTDIR
client=build/tests/libcupti_client.so
for r in 1 2 3 4 5; do
  for cfg in none cuprof_nogpu cuprof cuprof_kernels bare_all bare_kernels; do
    case $cfg in
      none) res=$(bench/launch_overhead --n 200000 --path both 2>&1) ;;
      cuprof_nogpu) res=$(CUPROF_GPU=0 ./prof.sh -q -o "$ovh" -n "nogpu$r" \
                            bench/launch_overhead --n 200000 --path both 2>&1) ;;
      cuprof) res=$(./prof.sh -q -o "$ovh" -n "gpu$r" \
                      bench/launch_overhead --n 200000 --path both 2>&1) ;;
      cuprof_kernels) res=$(./prof.sh --gpu kernels -q -o "$ovh" -n "gpuk$r" \
                              bench/launch_overhead --n 200000 --path both 2>&1) ;;
      bare_all) res=$(CUDA_INJECTION64_PATH=$PWD/$client CUPTI_CLIENT_OUT="$ovh/bare$r.txt" \
                        CUPTI_CLIENT_DRIVER=1 bench/launch_overhead --n 200000 --path both 2>&1) ;;
      bare_kernels) res=$(CUDA_INJECTION64_PATH=$PWD/$client CUPTI_CLIENT_OUT="$ovh/barek$r.txt" \
                            CUPTI_CLIENT_KINDS=kernels bench/launch_overhead --n 200000 --path both 2>&1) ;;
    esac
    printf '%s\n' "$res" | sed -n "s/^\(triple\|api\) .*host_ns_per_launch=\([0-9.]*\).*/$r $cfg \1 \2/p" \
      >>"$out/overhead.txt"
  done
done

cp "$ovh/gpu1.summary.txt" "$out/overhead.gpu1.summary.txt" 2>/dev/null
cp "$ovh/gpuk1.summary.txt" "$out/overhead.gpuk1.summary.txt" 2>/dev/null
rm -rf "$ovh"

# 4. Static cudart: only CUPTI injection sees the calls.
if [ -n "$static_bin" ]; then
  echo "== static" >&2
  ./prof.sh -o "$out/static" -n fused "$static_bin" --mode fused --size 256 --iters 5 \
    >"$out/static.txt" 2>&1
  echo "rc=$?" >>"$out/static.txt"
  ./prof.sh -o "$out/static" -n eager "$static_bin" --mode eager --size 256 --iters 5 \
    >>"$out/static.txt" 2>&1
  echo "rc=$?" >>"$out/static.txt"
fi

# 5. Every way a process ends, plain and under cuprof: the same exit status
#    and stdout, and files written (robust_prog, as tests/e2e/test_e2e_robust.c
#    does on the sim); then 8 threads launching on their own streams.
echo "== endings" >&2
: >"$out/endings.txt"
for end in return exit exit-thread _exit quick_exit SIGINT SIGTERM SIGHUP abort segv "fork 2" \
           "exec /bin/true" handler-exit ignore; do
  d=$(mktemp -d)
  timeout 60 build/tests/robust_prog threads 2 calls 50 $end >"$d/plain.out" 2>/dev/null; ps=$?
  timeout 60 ./prof.sh -q -o "$d" -n r build/tests/robust_prog threads 2 calls 50 $end \
    >"$d/prof.out" 2>/dev/null; qs=$?
  nf=$(ls "$d"/*.trace.json 2>/dev/null | wc -l)
  cmp -s "$d/plain.out" "$d/prof.out" && same=same || same=DIFF
  echo "end='$end' plain=$ps prof=$qs stdout=$same traces=$nf" >>"$out/endings.txt"
  rm -rf "$d"
done 2>/dev/null
if "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -cudart=shared -O2 -o /tmp/mt_launch scripts/mt_launch.cu \
     >"$out/mt.txt" 2>&1; then
  timeout 120 ./prof.sh -o "$out/mt" -n mt /tmp/mt_launch 8 2000 >>"$out/mt.txt" 2>&1
  echo "rc=$?" >>"$out/mt.txt"
fi

if "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -cudart=shared -O2 -o /tmp/sync_kill scripts/sync_kill.cu \
     >"$out/sync_kill.txt" 2>&1; then
  for how in plain cuprof; do
    t0=$(date +%s%N)
    if [ $how = plain ]; then timeout 60 /tmp/sync_kill >/dev/null 2>&1; else
      timeout 60 ./prof.sh -o "$out/sk" -n sk /tmp/sync_kill >/dev/null 2>>"$out/sync_kill.txt"; fi
    rc=$?
    echo "sync_kill $how: status $rc after $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$out/sync_kill.txt"
  done
fi

# 5b. Issue 16's workloads on the real stack: the matmul_add step captured as
#     a CUDA graph and replayed (origins of the replayed kernels), and a
#     cubin's kernel launched with cuLaunchKernelEx from
#     cudaGetDriverEntryPointByVersion, through the entry-point hook and with
#     it off (CUPTI alone); the launch census of each.
echo "== graphs and driver launches" >&2
./prof.sh -o "$out/issue16" -n graph bench/matmul_add --graph --size 64 --iters 20 --warmup 2 \
  >"$out/issue16.txt" 2>&1
./prof.sh -o "$out/issue16" -n driver bench/driver_launch --launches 20 >>"$out/issue16.txt" 2>&1
CUPROF_DRIVER_HOOKS=0 ./prof.sh -o "$out/issue16" -n driver_cupti bench/driver_launch --launches 20 \
  >>"$out/issue16.txt" 2>&1
for n in graph driver driver_cupti; do
  { echo "--- $n"; grep -E 'coverage:|GPU records' "$out/issue16/$n.summary.txt";
    sed -n '/^CUDA graphs/,/^$/p' "$out/issue16/$n.summary.txt"; } >>"$out/issue16.txt" 2>&1
done

# 6. Invariants of every trace written above.
echo "== checks" >&2
python3 - "$out" >"$out/checks.txt" 2>&1 <<'EOF_PY'
import json, sys, glob, collections, os
root = sys.argv[1]
GPU_PID = 1 << 30
bad = 0
for path in sorted(glob.glob(root + "/**/*.trace.json", recursive=True)):
    rel = os.path.relpath(path, root)
    try:
        t = json.load(open(path))
    except Exception as e:
        print(f"FAIL {rel}: not JSON: {e}"); bad += 1; continue
    ev = t["traceEvents"]; od = t.get("otherData", {})
    cats = collections.Counter(e.get("cat") for e in ev if e.get("ph") == "X")
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("pid", 0) >= GPU_PID]
    kern = [e for e in gpu if e.get("cat") == "kernel"]
    starts = {e["id"]: e for e in ev if e.get("ph") == "s"}
    ends = {e["id"]: e for e in ev if e.get("ph") == "f"}
    unmatched = len(set(starts) ^ set(ends))
    backwards = [i for i in starts if i in ends and ends[i]["ts"] < starts[i]["ts"]]
    cpu = [e for e in ev if e.get("ph") == "X" and e.get("pid", 0) < GPU_PID]
    cpu_span = (min(e["ts"] for e in cpu), max(e["ts"] + e["dur"] for e in cpu)) if cpu else (0, 0)
    outside = [e for e in gpu if e["ts"] < cpu_span[0] or e["ts"] > cpu_span[1] + 1e6]
    neg = [e for e in ev if e.get("ph") == "X" and e.get("dur", 0) < 0]
    flow_ids = set(ends)
    no_arrow = [e for e in kern if e["args"].get("correlation") not in flow_ids]
    no_ext = [e for e in kern if not e["args"].get("external id")]
    gt = od.get("gpu_timeline", {})
    print(f"{rel}: events={len(ev)} cpu_X={len(cpu)} gpu_X={len(gpu)} kernels={len(kern)} "
          f"flows={len(starts)} unmatched={unmatched} backwards={len(backwards)} "
          f"gpu_outside_cpu_span={len(outside)} negative_dur={len(neg)} "
          f"kernels_without_arrow={len(no_arrow)} kernels_without_ext={len(no_ext)} "
          f"gpu_timeline={gt} dropped={od.get('dropped')}")
    print("   cats:", dict(cats))
    by_stream = collections.defaultdict(set)
    for e in kern:
        if e["args"].get("correlation") in starts:
            by_stream[e["args"]["stream"]].add(starts[e["args"]["correlation"]]["tid"])
    print("   streams fed by several threads:", sum(1 for v in by_stream.values() if len(v) > 1))
    names = collections.Counter(e["name"] for e in kern)
    for n, c in names.most_common(6):
        print(f"   kernel x{c}: {n[:150]}")
    cpu_names = collections.Counter(e["name"] for e in cpu)
    print("   cpu calls:", ", ".join(f"{n} x{c}" for n, c in cpu_names.most_common(14)))
    if backwards or neg or unmatched or (no_arrow and gt.get("captured")):
        print("   FAIL: arrows or durations inconsistent"); bad += 1
    if backwards[:1]:
        i = backwards[0]; print("   e.g.", starts[i], ends[i])
print("checks:", "FAIL" if bad else "ok", f"({bad} bad)")
EOF_PY

# Report (the last lines are what a caller sees first).
echo "== env";  grep -E 'Driver Version|^GPU |release' "$out/env.txt"
echo "== demo (head/tail)"; head -n 40 "$out/demo.txt"; echo ...; tail -n 12 "$out/demo.txt"
echo "== debug stderr (head)"; head -n 40 "$out/debug.stderr"
echo "== static"; grep -E 'rc=|cuprof|check:' "$out/static.txt" 2>/dev/null
echo "== overhead (host ns per launch, 5 repeats)"
awk '{ k = $2 " " $3; v[k] = v[k] " " $4 } END { for (k in v) print k ":" v[k] }' "$out/overhead.txt" | sort
echo "== endings (exit status and stdout, plain vs cuprof)"; cat "$out/endings.txt"
echo "== threads"; grep -E 'mt_launch:|rc=' "$out/mt.txt"
echo "== signal while the GPU is busy"; grep -E '^sync_kill|partial' "$out/sync_kill.txt"
echo "== graphs and driver launches"; cat "$out/issue16.txt"
echo "== checks"; grep -E 'FAIL|checks:|without' "$out/checks.txt" | cut -c1-400 | head -n 30
