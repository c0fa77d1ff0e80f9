#!/usr/bin/env bash
# Issue 33's figures on the device (docs/benchmarks.md): the normal rates beside the peer's
# (shared/peers/roofline.cu, built here with nvcc and carried) and the variance reductions
# (price-batch), or the times to a standard error (mcprice-qmc-bench). Each binary embeds every
# kernel, so the two parts go in two calls, each carrying what it runs.
# Usage, from the repository root on the GPU machine:
#   bash apps/bench/qmc_run.sh rates BIN_DIR     (price-batch, mcprice-sobol-rate, roofline)
#   bash apps/bench/qmc_run.sh time BIN_DIR      (mcprice-qmc-bench)
set -eu
part=$1
bin=$2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ "$part" = rates ]; then
  echo "== normals a second (the peer, then ours)"
  "$bin/roofline" | head -1
  "$bin/mcprice-sobol-rate" 15 64
  "$bin/mcprice-sobol-rate" 20 64
  echo "== variance reduction"
  python3 apps/bench/qmc_run.py variance "$bin/price-batch"
else
  python3 apps/bench/qmc_run.py time "$bin/mcprice-qmc-bench" "${OUT:-/tmp}"
fi
