#!/usr/bin/env bash
# bench/report_html.sh - what NAME.report.html costs, at scale (issue 32):
#
#   bench/report_html.sh [N]        (N calls, default 10000000; prints a
#                                    markdown section on stdout)
#
# 1. Records N cudaLaunchKernel calls on one thread (build/bench/calls on
#    the simulated device, the sim's CUPTI on: N kernels too) into a run file,
#    with no outputs at exit (CUPROF_FORMAT=none).
# 2. Builds the outputs from it with cuprof-report, without and with --html
#    (the summaries only: --format none), interleaved, BENCH_HTML_REPEATS (3)
#    times: the page's share of the time the outputs take, the figure that
#    decides whether the page can be on by default (under 5%).
# 3. Opens the page in headless Chromium (tests/viewers/report.mjs, the same
#    Playwright the tests use) BENCH_HTML_REPEATS times: the time from asking
#    for the page to every chart drawn (the target: under 3 s) and its size
#    (under 5 MB).
# Medians; min and max beside them. Needs build/ (make) and, for 3,
# Chromium and tests/viewers' npm packages (scripts/deps.sh): without them
# the load time says why it is missing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000000}
R=${BENCH_HTML_REPEATS:-3}
B="$top/build"
for f in "$B/bench/calls" "$B/libcuprof.so" "$B/cuprof-report"; do
  [ -e "$f" ] || { echo "bench: $f is missing; run make first" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/cuprof-html-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

stats() {   # median min max of the numbers on stdin
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "- - -"; exit}
    printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR]}'
}
now() { date +%s.%N; }

LD_LIBRARY_PATH="$B/sim" CUSIM_LAUNCH_CPU_NS=0 CUPROF_FORMAT=none CUPROF_QUIET=1 \
  "$top/prof.sh" -q -o "$tmp/run" -n big -- "$B/bench/calls" --api launch --n "$N" >/dev/null 2>"$tmp/err" ||
  { echo "bench: the $N-call run failed:" >&2; cat "$tmp/err" >&2; exit 1; }
run="$tmp/run/big.cuprof"
[ -f "$run" ] || { echo "bench: no run file $run" >&2; exit 1; }
runmb=$(awk -v b="$(stat -c %s "$run")" 'BEGIN{printf "%.0f", b / 1048576}')

plain="" html="" share=""
for i in $(seq "$R"); do
  rm -rf "$tmp/o"; mkdir -p "$tmp/o"
  t0=$(now); "$B/cuprof-report" -o "$tmp/o" -n a --format none "$run" 2>/dev/null; t1=$(now)
  "$B/cuprof-report" -o "$tmp/o" -n b --format none --html "$run" 2>/dev/null; t2=$(now)
  a=$(awk -v x="$t0" -v y="$t1" 'BEGIN{printf "%.3f", y - x}')
  b=$(awk -v x="$t1" -v y="$t2" 'BEGIN{printf "%.3f", y - x}')
  plain+="$a"$'\n'; html+="$b"$'\n'
  share+=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", 100 * (b - a) / a}')$'\n'
done
page="$tmp/o/b.report.html"
[ -f "$page" ] || { echo "bench: cuprof-report --html wrote no page" >&2; exit 1; }
bytes=$(stat -c %s "$page")
kb=$(awk -v b="$bytes" 'BEGIN{printf "%.0f", b / 1024}')

load="" why=""
for i in $(seq "$R"); do
  out=$(node "$top/tests/viewers/report.mjs" "$page" "$tmp/shot.png" 2>&1)
  ms=$(printf '%s' "$out" | sed -n 's/.*"load_ms":\([0-9]*\).*/\1/p')
  if [ -z "$ms" ]; then why=$(printf '%s' "$out" | head -c 200); break; fi
  drawn=$(printf '%s' "$out" | sed -n 's/.*"drawn":\([0-9]*\).*/\1/p')
  load+="$ms"$'\n'
done

read -r pm pn px <<<"$(printf '%s' "$plain" | grep -v '^$' | stats)"
read -r hm hn hx <<<"$(printf '%s' "$html" | grep -v '^$' | stats)"
read -r sm sn sx <<<"$(printf '%s' "$share" | grep -v '^$' | stats)"
echo "## The HTML report at scale (bench/report_html.sh: $N calls, $N kernels; medians of $R)"
echo
echo "The run file of $N cudaLaunchKernel calls on one thread, the sim's CUPTI on ($runmb MB), made"
echo "into the summaries by cuprof-report without and with \`--html\` (\`--format none\`), interleaved;"
echo "then the page opened in headless Chromium (tests/viewers/report.mjs) until every chart is drawn."
echo
echo "| measure | median | min | max | target |"
echo "|---------|--------|-----|-----|--------|"
echo "| cuprof-report, summaries only (s) | $pm | $pn | $px | |"
echo "| cuprof-report, summaries and the page (s) | $hm | $hn | $hx | |"
echo "| the page's share of that time (%) | $sm | $sn | $sx | < 5% to be on by default |"
echo "| the page's size (KB) | $kb | | | < 5120 |"
if [ -n "$load" ]; then
  read -r lm ln lx <<<"$(printf '%s' "$load" | grep -v '^$' | stats)"
  echo "| Chromium: asked to every chart drawn ($drawn charts) (ms) | $lm | $ln | $lx | < 3000 |"
else
  echo "| Chromium: load time | not measured: $why | | | < 3000 |"
fi
