#!/usr/bin/env bash
echo "cuprof: prof.sh is not built yet" >&2
exit 2
