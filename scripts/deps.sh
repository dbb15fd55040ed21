#!/usr/bin/env bash
# Makes sure what the build and the tests need is present.
#
# Required (the build fails without them): Debian's check, libjansson-dev,
# libsqlite3-dev and sqlite3 (prof.sh export and its test),
# libunwind-dev and pkg-config, zlib1g-dev and libzstd-dev (the headers of the
# compression the library loads at exit with dlopen; the tests' Perfetto
# reader links them), libdw-dev (elfutils: file:line of native frames, linked
# by the tools that read run files, never by libcuprof.so). As root it installs what is missing with
# apt-get; otherwise it prints the exact command to run and fails.
#
# For the multi-rank tests: Debian's openmpi-bin and libopenmpi-dev (mpirun,
# mpicc). Installed when possible, like the viewers' below.
#
# For the viewer tests (tests/viewers/: our files opened in real viewers in
# headless Chromium, or node): Debian's chromium, and speedscope + playwright-core +
# @paulirish/trace_engine (Chrome DevTools' trace engine) from
# npm at the versions tests/viewers/package-lock.json pins. Installed when
# possible; when not, one line says so and those tests are skipped with a
# note saying why, the rest of the build goes on.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
as_root() { [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; }

# apt_install PKG...: 0 when installed (an `apt-get update` first if the
# package lists are stale).
apt_install() {
  apt-get install -y -q "$@" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$@" >/dev/null 2>&1; }
}

need=()
for p in check libjansson-dev libunwind-dev libsqlite3-dev sqlite3 pkg-config zlib1g-dev libzstd-dev libdw-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if ! as_root; then
    echo "cuprof: missing packages: ${need[*]}; run: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "cuprof: installing missing packages: ${need[*]}" >&2
  if ! apt_install "${need[@]}"; then
    echo "cuprof: could not install ${need[*]}; run: apt-get update && apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi

# Multi-rank tests (tests/e2e/test_e2e_ranks.c): Open MPI's mpirun and
# mpicc, from Debian. Best effort: without them those tests say SKIPPED.
if ! have_pkg openmpi-bin || ! have_pkg libopenmpi-dev; then
  if as_root && { echo "cuprof: installing openmpi-bin libopenmpi-dev (multi-rank tests)" >&2;
                  apt_install openmpi-bin libopenmpi-dev; }; then
    :
  else
    echo "cuprof: Open MPI not installed: the mpirun tests will be skipped" \
         "(apt-get install openmpi-bin libopenmpi-dev)" >&2
  fi
fi

# Viewer tests: best effort.
if ! have_pkg chromium; then
  if as_root && { echo "cuprof: installing chromium (viewer tests)" >&2; apt_install chromium; }; then
    :
  else
    echo "cuprof: chromium not installed: the viewer tests will be skipped (apt-get install chromium)" >&2
  fi
fi
# npm_ci DIR WHAT: the packages of DIR/package-lock.json, unless they are in
# already (node_modules/.cuprof-lock: the lock file they were installed
# from); WHAT says what goes without them.
npm_ci() {
  if ! cmp -s "$1/package-lock.json" "$1/node_modules/.cuprof-lock"; then
    if command -v npm >/dev/null &&
       npm ci --prefix "$1" --no-audit --no-fund --loglevel=error >/dev/null 2>&1; then
      cp "$1/package-lock.json" "$1/node_modules/.cuprof-lock"
    else
      echo "cuprof: could not install the npm packages of ${1#"$top"/}: $2" \
           "(run: npm ci --prefix ${1#"$top"/})" >&2
    fi
  fi
}
npm_ci "$top/tests/viewers" "the viewer tests will be skipped"
# NAME.report.html's chart library (formats/html/package-lock.json pins uPlot),
# built into the pages
npm_ci "$top/formats/html" "the HTML pages will have no charts"
exit 0
