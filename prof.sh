#!/usr/bin/env bash
# prof.sh - run an unmodified CUDA program under cuprof.
#
#   prof.sh [options] [--] PROGRAM [ARGS...]
#   prof.sh compare ...            (cuprof-compare, issue 5)
#
# Sets the CUPROF_* environment (documented in collector/config.h) and execs
# build/cuprof-run, which runs PROGRAM with build/libcuprof.so on LD_PRELOAD
# as its child, forwards the signals sent to this pid, and ends as PROGRAM
# did (its exit status, or the signal that killed it): the caller sees what
# it would see without cuprof. Each process that made CUDA calls prints on
# stderr where its files went ("cuprof: wrote DIR/NAME.{...}"); a process
# that never called CUDA writes no files and prints nothing; one killed
# before it could write them gets them from its run file, built by
# cuprof-run once PROGRAM is gone.
#
# Exit status: PROGRAM's own; or, before anything runs, 2 for a usage error,
# an unusable output directory or a library that is not built, 126 when
# PROGRAM is not executable, 127 when it is not found.
set -u

top=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib="$top/build/libcuprof.so"
version=$(sed -n 's/^#define CUPROF_VERSION "\(.*\)"$/\1/p' "$top/collector/config.h" 2>/dev/null)

usage() {
  cat <<EOF_USAGE
Usage: prof.sh [options] [--] PROGRAM [ARGS...]
       prof.sh report [-o DIR] [-n NAME] [--format F] [--compress C] [--gzip]
                      [--export sqlite] [--capture-range R] NAME.cuprof
       prof.sh snapshot [-o DIR] [report options] PID|RUNFILE
       prof.sh compare [--json] [--html FILE] A.summary.json B.summary.json
       prof.sh export sqlite NAME.trace.json [OUT.sqlite]
       prof.sh trigger PID [--duration T | --calls N | --steps N] | --job DIR --steps N
       prof.sh merge [-n NAME] [-o OUTDIR] [--html] [--window K | --run] [--all-ranks] DIR
       prof.sh stats [--report api|kernels|copies|blas|ranges] [--group-by-stack N]
                     [--sort COLUMN] [--limit N] [--filter REGEX] [--csv|--json] NAME.summary.json

Runs PROGRAM with the cuprof library preloaded. When each process that used
CUDA exits, it writes to DIR:
  NAME.trace.json     Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing)
  NAME.summary.txt    profiler table (torch.profiler key_averages layout)
  NAME.summary.json   the same numbers for programs (formats/SCHEMA.md)
  NAME.cuprof         the run file they were built from, written while the
                      program ran (formats/RUNFILE.md): "prof.sh report
                      NAME.cuprof" builds the outputs again, with other
                      options (--format perfetto, another --capture-range...)
                      and without running the program; "prof.sh snapshot
                      PID" writes NAME.snapN.* of a process still running
                      (it hands over what it has within 0.1 s and runs on);
                      "prof.sh trigger PID [--duration 10s | --calls N |
                      --steps N [--step-range NAME]]" opens a window in a
                      process started with --standby (its user only);
                      "prof.sh trigger --job DIR --steps N" does it in
                      every rank of a job writing into DIR, at the same
                      step on each (NAME.rankR.wK.*);
                      "prof.sh trigger PID --dump" writes the last seconds
                      of one started with --flight-recorder
Under a launcher (mpirun, torchrun, srun: "mpirun -np 4 prof.sh -o DIR -- PROGRAM")
each rank writes NAME.rankR.*; "prof.sh merge DIR" puts the ranks on one time
axis: NAME.merged.trace.json (a process per rank) and NAME.merged.summary.txt
and .json (per-rank rows, the spread of every call and kernel across ranks,
the straggler the others wait for, uneven GPU work). With --standby ranks,
"prof.sh trigger --job DIR --steps N" records the same steps on every rank
(NAME.rankR.wK.*) and merge takes those windows. Past 8 ranks the merged trace
holds the straggler, the fastest and the median rank (--all-ranks: all).
"prof.sh export sqlite" turns a trace.json into an SQLite database with
Nsight Systems' table names (CUPTI_ACTIVITY_KIND_KERNEL, ..._RUNTIME,
..._MEMCPY, ..._MEMSET, StringIds, NVTX_EVENTS): nsys SQL queries run on it.

Options:
  -o, --output DIR   output directory (default ./prof-out; created if missing)
  -n, --name NAME    file base name (default: PROGRAM's basename and the pid,
                     e.g. app.12345; app.rank2 for rank 2 of an mpirun,
                     torchrun or srun job). With -n, PROGRAM's own files are NAME.*
                     (NAME.rankR.*)
                     and any other process it starts writes NAME.PID.*
                     (files are never replaced: NAME.1.* when NAME.* exist)
  -q, --quiet        no cuprof messages on stderr (CUPROF_QUIET=1)
  --stacks[=auto|fp|unwind]
                     host call stack of every launch, copy, memset, sync,
                     allocation and cuBLAS call; adds NAME.gpu.folded and
                     NAME.cpu.folded (flamegraph.pl, speedscope) and
                     NAME.speedscope.json, and "Top launch sites" to the
                     table. auto (default): frame pointers where the code
                     keeps them, libunwind where not; fp: frame pointers
                     only (fastest); unwind: libunwind always
  --stacks-counts    with --stacks, also NAME.calls.folded (calls per stack)
  --gpu all|kernels|off
                     what CUPTI records: all (the default: kernels, copies,
                     memsets, syncs and the runtime/driver calls that tie
                     each to its call); kernels (kernel, copy and memset
                     records only, matched to the calls by kernel name,
                     bytes and order: the least overhead, no CUPTI-only
                     calls or sync waits, graph replays unattributed); off
                     (no CUPTI: the CPU side only)
  --format auto|json|perfetto|both|none
                     the trace as NAME.trace.json (Chrome JSON), as
                     NAME.perfetto-trace (Perfetto's protobuf for
                     ui.perfetto.dev: compressed, about 2 bytes an event,
                     opens where JSON is too big), both, or none (the
                     summaries only); auto (the default): JSON up to 1
                     million events, Perfetto beyond
  --compress auto|zstd|zlib|none
                     how NAME.perfetto-trace is compressed: zstd (auto, the
                     default; Perfetto v58 or newer, as ui.perfetto.dev),
                     zlib (every Perfetto reads it; slower), none
  --gzip             NAME.trace.json.gz instead of NAME.trace.json
  --no-report-html   no NAME.report.html (CUPROF_REPORT_HTML=0). By default each run
                     also writes it: one self-contained page (no network) with the
                     verdict, findings, a timeline overview, steps, device memory,
                     the kernels, the API table and (--stacks) a flame graph
                     (prof.sh report --html: the same from a run file)
  --no-run-file      remove NAME.cuprof once the outputs are built from it
                     (CUPROF_RUN_FILE=0; it takes a few bytes a call)
  --export sqlite    also NAME.sqlite at exit, tables shaped like Nsight
                     Systems' export (as prof.sh export sqlite; writes the
                     JSON trace it is made from whatever the run's size)

Capture window (record part of the run; as nsys spells them):
  --capture-range cudaProfilerApi
                     record between cudaProfilerStart and cudaProfilerStop
  --capture-range nvtx:NAME[@DOMAIN]
                     record inside the NVTX range NAME (push/pop or
                     start/end; default domain, DOMAIN, or any with @*;
                     NAME also matches PyTorch's numbered NAME#N)
  --capture-range-end stop|repeat:N|none
                     after the first window (stop, the default), after N
                     windows, or never (the range's end does not close it)
  --skip-first N     the first N occurrences open no window (warm-up)
  --steps N          record N occurrences (= --capture-range-end repeat:N)
  --delay SECONDS    open the window SECONDS after start (not with
                     --capture-range)
  --duration SECONDS close it SECONDS after it opened
  --standby          record nothing until "prof.sh trigger PID" opens a window
                     (then its outputs are written when it closes: NAME.wK.*)
  --flight-recorder SECONDS
                     keep only the last SECONDS of calls and GPU records,
                     in a ring in memory (nothing is written while the
                     program runs); write them when it ends (but by
                     SIGKILL), when a CUDA call fails with out-of-memory
                     or a sticky error (NAME.wK.*), or on "prof.sh trigger
                     PID --dump"
  --flight-memory SIZE
                     the ring's bound (default 64M): memory stays within it
  --step-range NAME[@DOMAIN]
                     the NVTX range whose occurrences are steps (per-step
                     statistics); default: the capture range, else a
                     repeating top-level range named like a step
  -h, --help         this help
      --version      print the version
  --                 end of options (for a PROGRAM that starts with '-')

Signals (PROGRAM runs as the child of build/cuprof-run, the supervisor, which
then ends as PROGRAM did; CUPROF_SUPERVISE=0 execs PROGRAM instead):
  - SIGINT, SIGTERM, SIGHUP or SIGQUIT, sent to PROGRAM, to prof.sh's pid (the
    supervisor passes it on) or to the whole process group (kill -INT -PGID,
    timeout, a scheduler's cancel), reaches PROGRAM once: the supervisor's copy
    of a group signal is dropped. PROGRAM's own handler, if any, decides.
  - Without a handler of its own: the first one writes the outputs, complete,
    then ends PROGRAM by that signal. A second one while they are written is
    absorbed (one line says so); a third ends PROGRAM at once, and its outputs
    are then built from its run file, marked TRUNCATED.
  - Ctrl-C and Ctrl-\ from the terminal reach PROGRAM directly (not passed on).
  - Other signals sent to prof.sh's pid are passed on as they are; a signal
    ignored when prof.sh started (nohup, a script's background job) stays
    ignored in PROGRAM.
  - SIGKILL (the OOM killer), or a signal no handler sees, writes nothing in
    PROGRAM: the supervisor builds its outputs from its run file once it is
    gone, marked TRUNCATED. SIGKILL to prof.sh's pid ends PROGRAM too and leaves
    the run file for "prof.sh report".
  build/cuprof-run --help says the same.

PROGRAM is looked up on PATH like a shell does. The exit status is PROGRAM's.
More settings (memory limit, debug output) are CUPROF_* environment
variables, listed in collector/config.h.
EOF_USAGE
}

# One "cuprof:" line on stderr, then exit with $2 (default 2).
die() {
  echo "cuprof: $1" >&2
  exit "${2:-2}"
}

# Subcommands first: "prof.sh compare A B".
case "${1-}" in
  report)
    shift
    if [ -x "$top/build/cuprof-report" ]; then
      exec "$top/build/cuprof-report" "$@"
    fi
    die "report is not built yet (run make in $top)"
    ;;
  snapshot)
    shift
    if [ -x "$top/build/cuprof-report" ]; then
      exec "$top/build/cuprof-report" --snapshot "$@"
    fi
    die "snapshot is not built yet (run make in $top)"
    ;;
  trigger)
    shift
    if [ -x "$top/build/cuprof-report" ]; then
      exec "$top/build/cuprof-report" --trigger "$@"
    fi
    die "trigger is not built yet (run make in $top)"
    ;;
  compare)
    shift
    if [ -x "$top/build/cuprof-compare" ]; then
      exec "$top/build/cuprof-compare" "$@"
    fi
    die "compare is not built yet (run make in $top)"
    ;;
  stats)
    shift
    if [ -x "$top/build/cuprof-stats" ]; then
      exec "$top/build/cuprof-stats" "$@"
    fi
    die "stats is not built yet (run make in $top)"
    ;;
  merge)
    shift
    if [ -x "$top/build/cuprof-merge" ]; then
      exec "$top/build/cuprof-merge" "$@"
    fi
    die "merge is not built yet (run make in $top)"
    ;;
  export)
    shift
    if [ -x "$top/build/cuprof-export" ]; then
      exec "$top/build/cuprof-export" "$@"
    fi
    die "export is not built yet (run make in $top)"
    ;;
esac

# An option with a value from a fixed list: choice NAME "WORDS" "EXPECTED"
# ARGS... reads --NAME V or --NAME=V from ARGS (the parser's "$@"), dies
# naming EXPECTED unless V is one of WORDS, and leaves V in $val and the
# number of arguments it took in $took.
val= took=
choice() {
  local opt=$1 words=$2 expected=$3
  shift 3
  if [ "$1" = "--$opt" ]; then
    [ $# -ge 2 ] || die "option --$opt needs a value: $expected"
    val=$2 took=2
  else
    val=${1#--"$opt"=} took=1
  fi
  local w
  for w in $words; do
    [ "$val" = "$w" ] && return 0
  done
  die "--$opt $val: expected $expected"
}

# The capture options, checked here (the library falls back to the whole
# run on a bad value; prof.sh refuses it before anything runs).
cap_range= cap_end= cap_skip= cap_delay= cap_duration= step_range=
set_capture() {
  local opt=$1 v=$2
  case "$opt" in
    capture-range)
      case "$v" in
        cudaProfilerApi) ;;
        nvtx:?*@) die "--capture-range $v: empty domain after '@' (NAME@DOMAIN, or NAME@* for any)" ;;
        nvtx:@*) die "--capture-range $v: empty range name (nvtx:NAME[@DOMAIN])" ;;
        nvtx:?*) ;;
        *) die "--capture-range $v: expected cudaProfilerApi or nvtx:NAME[@DOMAIN]" ;;
      esac
      cap_range=$v ;;
    capture-range-end)
      [[ $v == stop || $v == none || $v =~ ^repeat:[1-9][0-9]{0,8}$ ]] ||
        die "--capture-range-end $v: expected stop, repeat:N or none"
      cap_end=$v ;;
    steps)
      [[ $v =~ ^[1-9][0-9]{0,8}$ ]] || die "--steps $v: expected a count of 1 or more"
      cap_end=repeat:$v ;;
    skip-first)
      [[ $v =~ ^[0-9]{1,9}$ ]] || die "--skip-first $v: expected a count"
      cap_skip=$v ;;
    delay|duration)
      [[ $v =~ ^[0-9]{1,9}(\.[0-9]{1,9})?$ ]] || die "--$opt $v: expected seconds, like 2 or 0.5"
      [[ $opt == duration && $v =~ ^0*(\.0*)?$ ]] && die "--duration $v: must be more than 0"
      if [ "$opt" = delay ]; then cap_delay=$v; else cap_duration=$v; fi ;;
    step-range)
      [[ -n $v && $v != @* && $v != *@ ]] || die "--step-range $v: expected NAME or NAME@DOMAIN"
      step_range=$v ;;
    flight-recorder)
      [[ $v =~ ^[0-9]{1,9}(\.[0-9]{1,9})?s?$ && ! $v =~ ^0*(\.0*)?s?$ ]] ||
        die "--flight-recorder $v: expected seconds to keep, like 30 or 30s or 0.5"
      flight=${v%s} ;;
    flight-memory)
      [[ $v =~ ^[1-9][0-9]{0,9}[KkMmGg]?$ ]] || die "--flight-memory $v: expected a size like 64M or 1G"
      flight_mem=$v ;;
  esac
}

out_dir=./prof-out
name=
quiet=
stacks=
stacks_counts=
trace_format=
trace_compress=
gpu_mode=
trace_gzip= run_file= standby= flight= flight_mem= report_html=
export_kind=
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output)
      [ $# -ge 2 ] || die "option $1 needs a directory (see prof.sh --help)"
      out_dir=$2; shift 2 ;;
    --output=*) out_dir=${1#--output=}; shift ;;
    -o?*) out_dir=${1#-o}; shift ;;
    -n|--name)
      [ $# -ge 2 ] || die "option $1 needs a name (see prof.sh --help)"
      name=$2; shift 2 ;;
    --name=*) name=${1#--name=}; shift ;;
    -n?*) name=${1#-n}; shift ;;
    -q|--quiet) quiet=1; shift ;;
    --stacks) stacks=auto; shift ;;
    --stacks=*)
      stacks=${1#--stacks=}
      case "$stacks" in
        auto|fp|unwind) ;;
        *) die "--stacks=$stacks: expected auto, fp or unwind" ;;
      esac
      shift ;;
    --stacks-counts) stacks_counts=1; shift ;;
    --format|--format=*)
      choice format "auto json perfetto both none" "auto, json, perfetto, both or none" "$@"
      trace_format=$val; shift $took ;;
    --compress|--compress=*)
      choice compress "auto zstd zlib none" "auto, zstd, zlib or none" "$@"
      trace_compress=$val; shift $took ;;
    --gpu|--gpu=*)
      choice gpu "all kernels off" "all, kernels or off" "$@"
      case "$val" in all) gpu_mode=1 ;; off) gpu_mode=0 ;; *) gpu_mode=$val ;; esac
      shift $took ;;
    --gzip) trace_gzip=1; shift ;;
    --report-html) report_html=1; shift ;;
    --no-report-html) report_html=0; shift ;;
    --no-run-file) run_file=0; shift ;;
    --standby) standby=1; shift ;;
    --flight-recorder|--flight-memory)
      [ $# -ge 2 ] || die "option $1 needs a value (see prof.sh --help)"
      set_capture "${1#--}" "$2"; shift 2 ;;
    --flight-recorder=*|--flight-memory=*)
      opt=${1%%=*}; set_capture "${opt#--}" "${1#*=}"; shift ;;
    --export|--export=*)
      choice export "sqlite none" "sqlite (or none)" "$@"
      export_kind=$val; shift $took ;;
    --capture-range|--capture-range-end|--skip-first|--steps|--delay|--duration|--step-range)
      [ $# -ge 2 ] || die "option $1 needs a value (see prof.sh --help)"
      set_capture "${1#--}" "$2"; shift 2 ;;
    --capture-range=*|--capture-range-end=*|--skip-first=*|--steps=*|--delay=*|--duration=*|--step-range=*)
      opt=${1%%=*}; set_capture "${opt#--}" "${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    --version) echo "cuprof ${version:-unknown}"; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option '$1' (see prof.sh --help)" ;;
    *) break ;;
  esac
done

if [ -n "$cap_range" ] && [ -n "$cap_delay$cap_duration" ]; then
  die "--delay/--duration and --capture-range cannot be combined: choose a time window or a range"
fi
if [ -n "$standby" ] && [ -n "$cap_range$cap_delay$cap_duration" ]; then
  die "--standby records the windows prof.sh trigger opens: not with --capture-range, --delay or --duration"
fi
if [ -n "$flight" ] && [ -n "$cap_range$cap_delay$cap_duration$standby" ]; then
  die "--flight-recorder keeps the last seconds of the whole run: not with --capture-range, --delay, --duration or --standby"
fi
if [ -n "$flight_mem" ] && [ -z "$flight" ]; then
  die "--flight-memory is the bound of --flight-recorder's ring: give --flight-recorder SECONDS too"
fi
if [ -n "$stacks_counts" ] && [ -z "$stacks" ]; then
  die "--stacks-counts needs --stacks"
fi
if [ -z "$cap_range" ] && [ -n "$cap_end$cap_skip" ]; then
  die "--capture-range-end, --steps and --skip-first need --capture-range (e.g. --capture-range nvtx:step)"
fi

[ $# -ge 1 ] || die "no program given; usage: prof.sh [options] [--] PROGRAM [ARGS...]"
prog=$1
shift

# PROGRAM: a path when it contains '/', else looked up on PATH.
if [[ $prog == */* ]]; then
  path=$prog
  [ -e "$path" ] || die "$prog: no such file" 127
  [ -d "$path" ] && die "$prog: is a directory" 126
  [ -x "$path" ] || die "$prog: not executable (chmod +x?)" 126
else
  [ -n "$prog" ] || die "empty program name" 127
  path=$(type -P -- "$prog" 2>/dev/null) || path=
  [ -n "$path" ] || die "$prog: command not found on PATH" 127
fi

[ -n "$out_dir" ] || die "empty output directory (-o)"
if [ -n "$name" ]; then
  case "$name" in
    */*) die "-n NAME must be a file name without '/': $name" ;;
    .|..) die "-n NAME must be a file name: $name" ;;
  esac
  [ ${#name} -le 200 ] || die "-n NAME is too long (200 bytes at most)"
fi

[ -f "$lib" ] || die "the profiler library is not built ($lib missing): run make in $top"

# Reject malformed CUPROF_* values the caller exported, before anything runs
# (the same rules as collector/config.c, which falls back to the default
# with a warning: the library never stops a program).
if [ -n "${CUPROF_MEM_LIMIT:-}" ] &&
   { ! [[ $CUPROF_MEM_LIMIT =~ ^[0-9]+([kKmMgG][iI]?[bB]?)?$ ]] || [[ $CUPROF_MEM_LIMIT =~ ^0+[^1-9]*$ ]]; }; then
  die "CUPROF_MEM_LIMIT=$CUPROF_MEM_LIMIT is not a size like 512M or 2G"
fi
if [ -n "${CUPROF_GPU:-}" ]; then
  case "${CUPROF_GPU,,}" in
    1|yes|true|on|all|0|no|false|off|kernels) ;;
    *) die "CUPROF_GPU=$CUPROF_GPU is not 0, 1, all or kernels" ;;
  esac
fi
for var in CUPROF_QUIET CUPROF_ENABLE CUPROF_PREFAULT CUPROF_STACKS_COUNTS; do
  [ -n "${!var+set}" ] || continue
  v=${!var,,}
  case "$v" in
    1|yes|true|on|0|no|false|off|'') ;;
    *) die "$var=${!var} is not 0 or 1" ;;
  esac
done
if [ -n "${CUPROF_STACKS:-}" ]; then
  case "${CUPROF_STACKS,,}" in
    0|1|yes|no|true|false|on|off|auto|fp|unwind) ;;
    *) die "CUPROF_STACKS=$CUPROF_STACKS is not 0, 1, auto, fp or unwind" ;;
  esac
fi
if [ -n "${CUPROF_FORMAT:-}" ]; then
  case "${CUPROF_FORMAT,,}" in
    auto|json|perfetto|both|none) ;;
    *) die "CUPROF_FORMAT=$CUPROF_FORMAT is not auto, json, perfetto, both or none" ;;
  esac
fi
if [ -n "${CUPROF_COMPRESS:-}" ]; then
  case "${CUPROF_COMPRESS,,}" in
    auto|zstd|zlib|none) ;;
    *) die "CUPROF_COMPRESS=$CUPROF_COMPRESS is not auto, zstd, zlib or none" ;;
  esac
fi
if [ -n "${CUPROF_EXPORT:-}" ]; then
  case "${CUPROF_EXPORT,,}" in
    sqlite|none) ;;
    *) die "CUPROF_EXPORT=$CUPROF_EXPORT is not sqlite or none" ;;
  esac
fi
if [ -n "${CUPROF_GZIP:-}" ]; then
  case "${CUPROF_GZIP,,}" in
    0|1|yes|no|true|false|on|off) ;;
    *) die "CUPROF_GZIP=$CUPROF_GZIP is not 0 or 1" ;;
  esac
fi
if [ -n "${CUPROF_CLOCK:-}" ]; then
  case "${CUPROF_CLOCK,,}" in
    auto|tsc|monotonic) ;;
    *) die "CUPROF_CLOCK=$CUPROF_CLOCK is not auto, tsc or monotonic" ;;
  esac
fi
if [ -n "${CUPROF_DEBUG:-}" ]; then
  IFS=, read -r -a areas <<<"$CUPROF_DEBUG"
  for a in "${areas[@]}"; do
    case "$a" in
      collector|formats|all|1|'') ;;
      *) die "CUPROF_DEBUG=$CUPROF_DEBUG: unknown area '$a' (collector, formats, all)" ;;
    esac
  done
fi

mkdir -p -- "$out_dir" 2>/dev/null || die "cannot create output directory '$out_dir' (choose another with -o DIR)"
[ -d "$out_dir" ] || die "output path '$out_dir' is not a directory (choose another with -o DIR)"
probe=$(mktemp "$out_dir/.cuprof-probe.XXXXXX" 2>/dev/null) ||
  die "output directory '$out_dir' is not writable (choose another with -o DIR)"
rm -f -- "$probe"
out_abs=$(cd -- "$out_dir" && pwd) || die "cannot enter output directory '$out_dir'"

export CUPROF_OUT_DIR="$out_abs"
export CUPROF_ROOT_PID=$$   # PROGRAM exec'd here (CUPROF_SUPERVISE=0) keeps this pid; cuprof-run sets its child's
if [ -n "$name" ]; then export CUPROF_NAME="$name"; else unset CUPROF_NAME; fi
[ -n "$quiet" ] && export CUPROF_QUIET=1
# The capture window: what the options asked (CUPROF_* variables the
# caller exported stay as they are otherwise, like the others).
export_if_set() { if [ -n "$2" ]; then export "$1=$2"; fi; }
export_if_set CUPROF_CAPTURE_RANGE "$cap_range"
export_if_set CUPROF_CAPTURE_RANGE_END "$cap_end"
export_if_set CUPROF_SKIP_FIRST "$cap_skip"
export_if_set CUPROF_DELAY "$cap_delay"
export_if_set CUPROF_DURATION "$cap_duration"
export_if_set CUPROF_STEP_RANGE "$step_range"
export_if_set CUPROF_STACKS "$stacks"
export_if_set CUPROF_STACKS_COUNTS "$stacks_counts"
export_if_set CUPROF_FORMAT "$trace_format"
export_if_set CUPROF_COMPRESS "$trace_compress"
export_if_set CUPROF_GZIP "$trace_gzip"
export_if_set CUPROF_GPU "$gpu_mode"
export_if_set CUPROF_EXPORT "$export_kind"
export_if_set CUPROF_RUN_FILE "$run_file"
export_if_set CUPROF_STANDBY "$standby"
export_if_set CUPROF_REPORT_HTML "$report_html"
export_if_set CUPROF_FLIGHT_RECORDER "$flight"
export_if_set CUPROF_FLIGHT_MEMORY "$flight_mem"
preload="${LD_PRELOAD:+$LD_PRELOAD:}$lib"
# The CUDA driver loads this library's InitializeInjection while it starts:
# CUPTI then starts in time for its timestamp callback, and also in programs
# linked with static cudart, which no LD_PRELOAD hook sees. $lib is absolute.
injection="$lib"
# NVTX (header-only, in the program and its libraries) loads its tool from
# this variable on the first NVTX call: ranges and marks come to us. A value
# the user set is kept (the library says so once).
nvtx="${NVTX_INJECTION64_PATH:-$lib}"

# build/cuprof-run runs PROGRAM as its child (argv[0] as the user typed it,
# our variables in its environment only), forwards the signals sent to this
# pid, and, once PROGRAM is gone, builds the outputs of every process of the
# run that was killed before it could (SIGKILL, the OOM killer, a signal no
# handler sees) from the run file it left; then it ends as PROGRAM did.
# CUPROF_SUPERVISE=0: exec PROGRAM itself (it keeps this pid; a killed
# process then leaves its run file for prof.sh report).
runner="$top/build/cuprof-run"
if [ -x "$runner" ] && [ "${CUPROF_SUPERVISE:-1}" != 0 ]; then
  exec "$runner" --argv0 "$prog" --env "LD_PRELOAD=$preload" \
       --env "CUDA_INJECTION64_PATH=$injection" --env "NVTX_INJECTION64_PATH=$nvtx" \
       -- "$path" "$@"
fi
export LD_PRELOAD="$preload" CUDA_INJECTION64_PATH="$injection" NVTX_INJECTION64_PATH="$nvtx"
exec -a "$prog" "$path" "$@"
