#!/usr/bin/env bash
# tests/layering/check_layers.sh - the dependency rules of the folders'
# READMEs, checked on the sources and on the built objects:
#
#   preload -> collector -> run file -> model -> formats (+ tools/)
#
#   recording (preload, collector: libcuprof.so) on one side of the run
#   file, analysis (model, formats, tools: cuprof-report & co) on the other.
#
#   1. No undefined symbol of a model/ or formats/ object is defined in a
#      collector/ object (nm): the model and the writers never call back
#      into the recorder.
#   2. model/ objects hold no writable global state (nm: no data or bss
#      symbol, static or not).
#   3. preload/ includes no collector header but collector/collector.h.
#   4. model/ includes no collector header but collector/event.h (the event
#      ABI) and collector/runfile_types.h (the plain types the recorder
#      fills), and nothing from formats/ or preload/.
#   5. formats/ and tools/ include nothing from collector/ or preload/ but
#      the run file's ABI (collector/event.h, compact.h, gpu_compact.h,
#      runfile.h).
#   6. collector/ includes nothing from model/, formats/, tools/ or
#      preload/ (the types it shares with the reader and the model live in
#      collector/runfile.h and collector/runfile_types.h).
#   7. libcuprof.so defines no symbol a model/ or formats/ object defines:
#      the library records, cuprof-report analyses.
#   8. No undefined symbol of a collector/ object is defined in a preload/
#      object (nm): the collector never calls up into the hooks, not even
#      through a libc name they interpose (close, sigaction, posix_spawn:
#      collector/libc.h gives it libc's own).
#
#   check_layers.sh [TOP [BUILD]]   (default: the checkout and its build/)
# Prints one line per violation; exit 1 if there is any, 2 on bad use.
set -u
top=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${2:-$top/build}
bad=0
say() { echo "layering: $*"; bad=1; }

for d in collector model formats; do
  ls "$build/$d"/*.o >/dev/null 2>&1 || { echo "layering: no objects in $build/$d: run make first" >&2; exit 2; }
done

# Objects of the folder's current sources (a build folder may still hold
# objects of files since moved or removed).
objects() {
  local dir=$1 src=$2 o
  for o in "$build/$dir"/*.o; do
    [ -e "$o" ] || continue
    local base=${o##*/}
    [ -e "$top/$src/${base%.o}.c" ] && echo "$o"
  done
}

# 1. symbols
collector_defs=$(nm --defined-only $(objects collector collector) 2>/dev/null |
                 awk 'NF == 3 && $2 ~ /[TDBR]/ {print $3}' | sort -u)
for o in $(objects model model) $(objects formats formats) $(objects compare formats/compare) \
         $(objects runfile formats/runfile) $(objects tools tools); do
  for s in $(nm -u "$o" | awk '{print $2}' | sort -u); do
    if grep -qxF "$s" <<<"$collector_defs"; then
      say "${o#"$build"/} uses $s, defined in collector/"
    fi
  done
done

# 2. no global state in model/: no object in .data or .bss (constant tables
# with pointers live in .data.rel.ro, read-only once relocated)
for o in $(objects model model); do
  while read -r sym sec; do
    say "${o#"$build"/}: $sym is writable global state ($sec); model/ has none"
  done < <(objdump -t "$o" | awk '$3 == "O" && $4 ~ /^\.(data|bss)(\.|$)/ && $4 !~ /^\.data\.rel\.ro/ {print $NF, $4}')
done

# 3-5. includes ("path" form; every project include is written from the top)
includes() { grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$@" 2>/dev/null; }
while IFS= read -r line; do
  case $line in
    *'"collector/collector.h"'*) ;;
    *'"collector/'*|*'"../collector/'*) say "$line: preload/ includes only collector/collector.h" ;;
  esac
done < <(includes "$top"/preload/*.[ch])
while IFS= read -r line; do
  case $line in
    *'"collector/event.h"'*|*'"collector/runfile_types.h"'*) ;;
    *'"collector/'*|*'"../'*|*'"formats/'*|*'"preload/'*) say "$line: model/ includes no collector header but collector/event.h and runfile_types.h, nothing of formats/ or preload/" ;;
  esac
done < <(includes "$top"/model/*.[ch])
while IFS= read -r line; do
  case $line in
    *'"collector/event.h"'*|*'"collector/compact.h"'*|*'"collector/gpu_compact.h"'*|*'"collector/runfile.h"'*) ;;
    *'"collector/'*|*'"preload/'*|*'"../'*) say "$line: formats/ and tools/ read the model and the run file's ABI only" ;;
  esac
done < <(includes $(find "$top/formats" "$top/tools" -name '*.[ch]' 2>/dev/null))
while IFS= read -r line; do
  case $line in
    *'"formats/'*|*'"model/'*|*'"tools/'*|*'"preload/'*) say "$line: collector/ includes no formats/, model/, tools/ or preload/ header (shared types: collector/runfile.h, runfile_types.h)" ;;
  esac
done < <(includes "$top"/collector/*.[ch])

# 7. the library holds recording only
if [ -e "$build/libcuprof.so" ]; then
  analysis_defs=$(nm --defined-only $(objects model model) $(objects formats formats) 2>/dev/null |
                  awk 'NF == 3 && $2 ~ /[TtDdBbRr]/ && $3 ~ /^cuprof_/ {print $3}' | sort -u)
  for s in $(nm --defined-only "$build/libcuprof.so" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u); do
    if grep -qxF "$s" <<<"$analysis_defs"; then
      say "libcuprof.so defines $s, which model/ or formats/ defines: the library records only (cuprof-report analyses)"
    fi
  done
fi

# 8. the collector never calls up into preload/
if ls "$build/preload"/*.o >/dev/null 2>&1; then
  preload_defs=$(nm --defined-only $(objects preload preload) 2>/dev/null |
                 awk 'NF == 3 && $2 ~ /[TDBRW]/ {print $3}' | sort -u)
  for o in $(objects collector collector); do
    for s in $(nm -u "$o" | awk '{print $2}' | sort -u); do
      if grep -qxF "$s" <<<"$preload_defs"; then
        say "${o#"$build"/} uses $s, defined in preload/: the collector calls nothing of the hooks (libc's own: collector/libc.h)"
      fi
    done
  done
fi

[ $bad = 0 ] && echo "layering: ok (preload -> collector -> run file -> model -> formats, tools)"
exit $bad
