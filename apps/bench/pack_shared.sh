#!/usr/bin/env bash
# Packs the ordinary (shared-library) build for a device call, smaller than `make device-bundle`'s
# static binaries, which each embed every kernel: the libraries once, the binaries named, the
# MPI, Boost and CUDA runtime libraries they link, all stripped, the fatbins' PTX zeroed (the
# device runs the sm_90 SASS), as one xz archive, with the slow-call tool where it was built
# (libmcprice-slow-calls.so and its CUPTI, for CUDA_INJECTION64_PATH). On the GPU machine:
#   mkdir -p /tmp/c && tar xJf .devcarry/NAME.txz -C /tmp/c && export LD_LIBRARY_PATH=/tmp/c/lib
# Usage: apps/bench/pack_shared.sh NAME BINARY... (paths under build/, e.g. apps/price-batch)
set -eu
name=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
stage=$(mktemp -d)
mkdir -p "$stage/lib" "$stage/bin"
cp -L "$build"/engine/libmcprice_engine.so "$build"/kernels/libmcprice_kernels.so "$build"/memory/libmcprice_memory.so "$stage/lib/"
for b in "$@"; do cp "$build/$b" "$stage/bin/"; done
# The slow-call tool (CUDA_INJECTION64_PATH) and its CUPTI, where the build has them.
if [ -f "$build/apps/libmcprice-slow-calls.so" ]; then
  cp "$build/apps/libmcprice-slow-calls.so" "$stage/lib/"
  cupti=$(ldd "$build/apps/libmcprice-slow-calls.so" | awk '/libcupti/ {print $3}')
  if [ -n "$cupti" ]; then cp -L "$cupti" "$stage/lib/"; fi
fi
# The libraries a binary links beyond the C and C++ runtimes (which the device has).
for l in $(ldd "$build/apps/price-batch" | awk '$3 ~ /^\// {print $3}' |
  grep -v 'libc\.so\|libm\.so\|libstdc++\|libgcc_s\|libdl\.so\|libpthread\|librt\.so\|libz\.so\|libcrypto\|libmcprice'); do
  cp -L "$l" "$stage/lib/"
done
strip --strip-unneeded "$stage"/lib/* "$stage"/bin/* || true
python3 "$root/apps/bench/zero_ptx.py" "$stage"/lib/* "$stage"/bin/*
mkdir -p "$root/.devcarry"
tar cf - -C "$stage" lib bin | xz -9 -T0 >"$root/.devcarry/$name.txz"
rm -rf "$stage"
ls -la "$root/.devcarry/$name.txz"
