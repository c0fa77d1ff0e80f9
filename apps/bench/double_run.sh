#!/usr/bin/env bash
# One device call for --precision double: the whole GPU suite (the double cases among it),
# compute-sanitizer memcheck on the double cases, what double paths cost against float
# (mcprice-throughput precision, twice), and price-batch's sample book in double.
# Usage (from the repo root, on the GPU machine, .devcarry carried):
#   make device-bundle BUNDLE_BINARIES="tests/mcprice_gpu_tests apps/mcprice-throughput apps/price-batch"
#   bash apps/bench/double_run.sh            (unpacks .devcarry/bundle.tgz into /tmp/bundle)
set -u
B=/tmp/bundle
rm -rf "$B" && tar xzf .devcarry/bundle.tgz -C /tmp || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gpu tests"; "$B/tests/mcprice_gpu_tests" 2>&1 | tail -3
echo "== gpu tests, double cases, verbose"; "$B/tests/mcprice_gpu_tests" "*double*" -s 2>&1 | grep -E "mc .* reference|passed|failed" | sort -u | head -40
echo "== memcheck, double cases"
for c in "GPU double paths: Heston QE*" "GPU double paths: best-of*" "GPU double paths: every path product*"; do
  timeout 200 compute-sanitizer --tool memcheck "$B/tests/mcprice_gpu_tests" "$c" 2>&1 | tail -2
done
echo "== float Heston European unchanged (models)"; "$B/apps/mcprice-throughput" models | grep heston
for r in 1 2; do echo "== precision, run $r"; "$B/apps/mcprice-throughput" precision; done
echo "== sample book in double"
"$B/apps/price-batch" data/sample_portfolio.csv --market data/sample_market.json --precision double --backend gpu \
  --out /tmp/double_sample.csv; echo "exit $?"; cat /tmp/double_sample.csv
