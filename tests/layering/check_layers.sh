#!/usr/bin/env bash
# tests/layering/check_layers.sh - the dependency rules of the folders'
# READMEs, checked on the sources and on the built objects:
#
#   preload -> collector -> model -> formats   (data flows one way)
#
#   1. No undefined symbol of a model/ or formats/ object is defined in a
#      collector/ object (nm): the model and the writers never call back
#      into the recorder.
#   2. model/ objects hold no writable global state (nm: no data or bss
#      symbol, static or not).
#   3. preload/ includes no collector header but collector/collector.h.
#   4. model/ includes no collector header but collector/event.h (the event
#      ABI), and nothing from formats/ or preload/.
#   5. formats/ includes nothing from collector/ or preload/.
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
for o in $(objects model model) $(objects formats formats) $(objects compare formats/compare); do
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
    *'"collector/event.h"'*) ;;
    *'"collector/'*|*'"../'*|*'"formats/'*|*'"preload/'*) say "$line: model/ includes no collector header but collector/event.h, nothing of formats/ or preload/" ;;
  esac
done < <(includes "$top"/model/*.[ch])
while IFS= read -r line; do
  case $line in
    *'"collector/'*|*'"preload/'*|*'"../'*) say "$line: formats/ reads the model only" ;;
  esac
done < <(includes $(find "$top/formats" -name '*.[ch]'))

[ $bad = 0 ] && echo "layering: ok (preload -> collector -> model -> formats)"
exit $bad
