#!/usr/bin/env bash
# Packs changed libraries of the shared-library build alone, to be carried beside an earlier
# pack_shared.sh archive so that one device call runs both builds, alternated: on the GPU machine
#   mkdir -p /tmp/new && tar xJf .devcarry/NAME.txz -C /tmp/new
#   LD_LIBRARY_PATH=/tmp/new:/tmp/c/lib BINARY ...   # the new libraries first, the rest as before
# The engine library packs to about 1.5 MB; the kernels library is as large as a whole archive.
# Usage: apps/bench/pack_library.sh NAME LIBRARY... (paths under build/, e.g. engine/libmcprice_engine.so)
set -eu
name=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
stage=$(mktemp -d)
for l in "$@"; do cp -L "$build/$l" "$stage/"; done
strip --strip-unneeded "$stage"/*
python3 "$root/apps/bench/zero_ptx.py" "$stage"/*
mkdir -p "$root/.devcarry"
tar cf - -C "$stage" . | xz -9 -T0 >"$root/.devcarry/$name.txz"
rm -rf "$stage"
ls -la "$root/.devcarry/$name.txz"
