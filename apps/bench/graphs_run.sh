#!/usr/bin/env bash
# One device call for CUDA graphs (issue 38, docs/graphs.md): the whole GPU suite (the graph
# cases among it), compute-sanitizer memcheck and racecheck on the graph cases, then graphs off
# against on in the same call: a 2-trade request's latency on an idle engine, and the load
# test's ceiling on the small-job mix (8 submitters, 8 streams).
# Usage (repository root, on the GPU machine): bash apps/bench/graphs_run.sh BIN_DIR [OUT_DIR]
set -u
B=$1
out=${2:-/tmp}
M=data/sample_market.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "${SANITIZE:-0}" != 1 ]; then
  echo "== gpu suite"
  "$B/mcprice_gpu_tests" -d yes > "$out/suite.txt" 2>&1
  grep -E "GPU graphs|test cases|FAILED|failed" "$out/suite.txt" | head -30
fi
# SANITIZE=1: the sanitizers instead of the measurements (they take minutes).
if [ "${SANITIZE:-0}" = 1 ]; then
for tool in memcheck racecheck; do
  echo "== $tool, graph cases but the stop"
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$B/mcprice_gpu_tests" \
    "GPU graphs: small*","GPU graphs: the cache*","GPU graphs: a trim*" 2>&1 | tail -3
done
exit 0
fi
S="--load-test --allocators bucketed --load-mix small:1:2:16384 --load-threads 8 --streams 8 --market $M"
for g in off on; do
  echo "== idle latency, graphs $g"
  # shellcheck disable=SC2086
  timeout 60 "$B/price-batch" $S --load-jobs 2000 --load-rate 200 --load-pattern steady --graphs $g \
    --load-json "$out/idle_$g.json" > "$out/idle_$g.txt" 2>&1
  grep -iE "jobs/s|p50|p99|graph" "$out/idle_$g.txt" | head -8
done
for g in off on; do
  echo "== ceiling, graphs $g"
  # shellcheck disable=SC2086
  timeout 120 "$B/price-batch" $S --load-find-max --load-jobs 4000 --graphs $g \
    --load-json "$out/ceil_$g.json" > "$out/ceil_$g.txt" 2>&1
  tail -12 "$out/ceil_$g.txt"
done
