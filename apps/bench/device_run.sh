#!/usr/bin/env bash
# One device call: GPU tests, sanitizer, our benchmark and the peers, all in the same run so
# the figures can be compared. Usage (from the repo root, on the GPU machine):
#   tar xzf .devcarry/bundle.tgz -C /tmp                     (make device-bundle, carried)
#   bash apps/bench/device_run.sh /tmp/bundle /tmp/bundle/peers
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
log "compute-sanitizer: memcheck and racecheck on the RNG, memory and determinism tests"
for tool in memcheck racecheck; do
  for t in "GPU curand4 equals the host mirror bit for bit over many subsequences and offsets" \
           "GPU: a trade priced alone has the same bits as in a book" \
           "cross-stream reuse never hands out a block another stream's kernel still touches" \
           "a lease's cap is enforced on the device pool" \
           "a trim gives pool memory back to the device" \
           "market buffers pass the GPUDirect RDMA checks; pool memory fails them" \
           "a job cap too small for one chunk fails the trade clearly; the engine reports memory"; do
    echo "-- $tool: $t"
    compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/mcprice_gpu_tests" "$t" 2>&1 | tail -2
  done
done 2>&1 | tee "$out/sanitizer.txt"
echo "-- memcheck: path products" | tee -a "$out/sanitizer.txt"
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" \
  "GPU path products: closed forms, CPU agreement and reproducible bits" 2>&1 | tail -2 | tee -a "$out/sanitizer.txt"
for t in "GPU Heston (QE): semi-analytic prices, CPU agreement and reproducible bits" \
         "GPU path products take the two-phase route with the fused route's bits" \
         "GPU best-of and worst-of: Stulz's closed form, CPU agreement and reproducible bits"; do
  echo "-- memcheck: $t" | tee -a "$out/sanitizer.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" "$t" 2>&1 | tail -2 | tee -a "$out/sanitizer.txt"
done
echo "-- memcheck: the two-phase route" | tee -a "$out/sanitizer.txt"
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/mcprice_gpu_tests" \
  "the two-phase route gives the fused route's bits" 2>&1 | tail -2 | tee -a "$out/sanitizer.txt"
log "mcprice-bench (MonteCarloMultiGPU European workload)"
for i in 1 2; do "$build/apps/mcprice-bench" | tee -a "$out/bench.jsonl"; done
log "throughput: many small trades on 1-8 streams, concurrent callers, a 100,000-trade book"
"$build/apps/mcprice-throughput" all | tee "$out/throughput.jsonl"
log "allocation experiment (2000 mixed jobs)"; "$build/apps/mcprice-alloc-bench" | tee "$out/alloc_bench.txt"
log "roofline (Philox normals limit)"; "$peers/roofline" | tee "$out/roofline.txt"
log "price-batch on the sample, GPU"
"$build/apps/price-batch" data/sample_portfolio.csv --market data/sample_market.json --paths 1e6 --backend gpu --memory-report
log "torch peers"; PYTHONUNBUFFERED=1 timeout 300 python3 "$peers/torch_peers.py" 2>&1 | tee "$out/torch_peers.jsonl"
