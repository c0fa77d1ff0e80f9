#!/usr/bin/env bash
# One device call: GPU tests, sanitizer, our benchmark and the peers, all in the same run so
# the figures can be compared. Usage (from the repo root, on the GPU machine):
#   bash apps/bench/device_run.sh BUILD_DIR PEERS_DIR
# PEERS_DIR holds roofline (built from shared/peers/roofline.cu) and torch_peers.py.
set -u
build=${1:-build-device}
peers=${2:-$build/peers}
out=${OUT:-/tmp/mcprice-device}
mkdir -p "$out"
log() { echo "== $*"; }

log "device"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
log "gpu tests"; "$build/tests/mcprice_gpu_tests" 2>&1 | tail -30 | tee "$out/gpu_tests.txt"
log "host tests on the device image"; "$build/tests/mcprice_host_tests" 2>&1 | tail -3
log "compute-sanitizer memcheck (rng probes, determinism subset)"
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" \
  "GPU curand4 equals the host mirror bit for bit over many subsequences and offsets" 2>&1 | tail -4
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" \
  "GPU: a trade priced alone has the same bits as in a book" 2>&1 | tail -4
compute-sanitizer --tool racecheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" \
  "GPU: a trade priced alone has the same bits as in a book" 2>&1 | tail -4
log "mcprice-bench (MonteCarloMultiGPU European workload)"
for i in 1 2; do "$build/apps/mcprice-bench" | tee -a "$out/bench.jsonl"; done
log "roofline (Philox normals limit)"; "$peers/roofline" | tee "$out/roofline.txt"
log "price-batch on the sample, GPU"
"$build/apps/price-batch" data/sample_portfolio.csv --market data/sample_market.json --paths 1e6 --backend gpu
log "torch peers"; PYTHONUNBUFFERED=1 timeout 300 python3 "$peers/torch_peers.py" 2>&1 | tee "$out/torch_peers.jsonl"
