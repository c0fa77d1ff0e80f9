#!/usr/bin/env bash
# Packs the ordinary (shared-library) build for a device call, smaller than `make device-bundle`'s
# static binaries, which each embed every kernel: the libraries once, the binaries named, the
# MPI, Boost and CUDA runtime libraries they link, all stripped, the fatbins' PTX zeroed (the
# device runs the sm_90 SASS), as one xz archive, with the slow-call tool where it was built
# (libmcprice-slow-calls.so, libmcprice-gpu-busy.so and their CUPTI, for CUDA_INJECTION64_PATH). On the GPU machine:
#   mkdir -p /tmp/c && tar xJf .devcarry/NAME.txz -C /tmp/c && export LD_LIBRARY_PATH=/tmp/c/lib
# Usage: apps/bench/pack_shared.sh NAME BINARY... (paths under build/, e.g. apps/price-batch)
#
# With --libraries, changed libraries alone (the engine's packs to about 1.5 MB), to be carried
# beside an earlier archive so that one call runs both builds, alternated:
#   apps/bench/pack_shared.sh --libraries NAME LIBRARY...   (e.g. engine/libmcprice_engine.so)
#   mkdir -p /tmp/new && tar xJf .devcarry/NAME.txz -C /tmp/new
#   LD_LIBRARY_PATH=/tmp/new:/tmp/c/lib BINARY ...   # the new libraries first, the rest as before
set -eu
libraries_only=false
if [ "$1" = --libraries ]; then
  libraries_only=true
  shift
fi
name=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
stage=$(mktemp -d)
mkdir -p "$stage/lib" "$stage/bin"
if $libraries_only; then
  for l in "$@"; do cp -L "$build/$l" "$stage/lib/"; done
else
  cp -L "$build"/engine/libmcprice_engine.so "$build"/kernels/libmcprice_kernels.so \
    "$build"/memory/libmcprice_memory.so "$stage/lib/"
  for b in "$@"; do cp "$build/$b" "$stage/bin/"; done
  # The slow-call tool (CUDA_INJECTION64_PATH) and its CUPTI, where the build has them.
  if [ -f "$build/apps/libmcprice-slow-calls.so" ]; then
    cp "$build/apps/libmcprice-slow-calls.so" "$stage/lib/"
    if [ -f "$build/apps/libmcprice-gpu-busy.so" ]; then cp "$build/apps/libmcprice-gpu-busy.so" "$stage/lib/"; fi
    cupti=$(ldd "$build/apps/libmcprice-slow-calls.so" | awk '/libcupti/ {print $3}')
    if [ -n "$cupti" ]; then cp -L "$cupti" "$stage/lib/"; fi
  fi
  # The libraries a binary links beyond the C and C++ runtimes (which the device has).
  for l in $(ldd "$build/apps/price-batch" | awk '$3 ~ /^\// {print $3}' |
    grep -v 'libc\.so\|libm\.so\|libstdc++\|libgcc_s\|libdl\.so\|libpthread\|librt\.so\|libz\.so\|libcrypto\|libmcprice'); do
    cp -L "$l" "$stage/lib/"
  done
fi
targets=("$stage"/lib/*)
$libraries_only || targets+=("$stage"/bin/*)
strip --strip-unneeded "${targets[@]}" || true
python3 "$root/apps/bench/zero_ptx.py" "${targets[@]}"
mkdir -p "$root/.devcarry"
if $libraries_only; then
  tar cf - -C "$stage/lib" . | xz -9 -T0 >"$root/.devcarry/$name.txz"
else
  tar cf - -C "$stage" lib bin | xz -9 -T0 >"$root/.devcarry/$name.txz"
fi
rm -rf "$stage"
ls -la "$root/.devcarry/$name.txz"
