#!/usr/bin/env bash
# Makes sure the Debian packages the build needs are present.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.
set -u
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in check libjansson-dev libunwind-dev pkg-config; do
  have_pkg "$p" || need+=("$p")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "cuprof: installing missing packages: ${need[*]}" >&2
  if ! { apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
         { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${need[@]}" >/dev/null; }; }; then
    echo "cuprof: could not install ${need[*]}; run: apt-get update && apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  exit 0
fi
echo "cuprof: missing packages: ${need[*]}; run: sudo apt-get install -y ${need[*]}" >&2
exit 1
