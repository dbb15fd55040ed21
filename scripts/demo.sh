#!/usr/bin/env bash
# make demo: profile the reference workloads and show the result.
set -euo pipefail
echo "cuprof: demo not built yet"
