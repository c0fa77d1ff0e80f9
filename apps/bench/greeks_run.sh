#!/usr/bin/env bash
# One device call for the European Greek kernel (docs/greeks.md; issue 36's "Greeks in the price's
# pass"): the builds' Greek bench alternated, ROUNDS times (in_pass_ratio_paired is the figure
# that run-to-run drift does not move), the sample book with --greeks by each build (every price
# must be byte-identical between builds), ncu on one job of the Greek kernel per build and over
# one whole bench run (the price and Greek kernels' times a launch over the same jobs:
# ncu_kernel_totals.py), then the last build's GPU suite and memcheck on its European Greek cases.
# Each build is an unpacked apps/bench/pack_shared.sh archive (bin/mcprice-greeks-bench,
# bin/price-batch, bin/mcprice_gpu_tests, lib/).
# Usage (repository root, on the GPU machine): bash apps/bench/greeks_run.sh DIR...
#   OUT (default /tmp): results; ROUNDS (default 3); REPS (default 21).
set -u
out=${OUT:-/tmp}
rounds=${ROUNDS:-3}
reps=${REPS:-21}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in $(seq 1 "$rounds"); do
  for d in "$@"; do
    echo -n "$r $(basename "$d") "
    LD_LIBRARY_PATH=$d/lib "$d/bin/mcprice-greeks-bench" 8192 262144 gpu "$reps" 0
  done
done | tee "$out/greeks_bench.txt"
for d in "$@"; do
  name=$(basename "$d")
  LD_LIBRARY_PATH=$d/lib "$d/bin/price-batch" data/sample_portfolio.csv --market data/sample_market.json --greeks \
    --paths 1000000 --backend gpu --quiet --out "$out/greeks_$name.csv"
  echo "price-batch $name rc $?"
  LD_LIBRARY_PATH=$d/lib timeout 90 ncu --section SpeedOfLight --section Occupancy --section InstructionStats \
    -k regex:european_greek --launch-skip 2 --launch-count 1 "$d/bin/mcprice-greeks-bench" 8192 262144 gpu 1 0 2>&1 |
    grep -E "Duration|Executed Instructions  |Registers Per|Achieved Occupancy" > "$out/greeks_ncu_$name.txt"
  # The price and Greek kernels summed over one bench run (the same jobs): their time ratio.
  LD_LIBRARY_PATH=$d/lib timeout 90 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread \
    -k regex:european --csv "$d/bin/mcprice-greeks-bench" 8192 262144 gpu 1 0 > "/tmp/greeks_totals_$name.csv" 2>&1
  python3 "$(dirname "$0")/ncu_kernel_totals.py" "/tmp/greeks_totals_$name.csv" >> "$out/greeks_ncu_$name.txt"
done
last=${!#}
export LD_LIBRARY_PATH=$last/lib
"$last/bin/mcprice_gpu_tests" > "$out/greeks_suite.txt" 2>&1
echo "suite rc $?"
tail -2 "$out/greeks_suite.txt"
compute-sanitizer --tool memcheck --leak-check full "$last/bin/mcprice_gpu_tests" \
  "GPU Greeks*,GPU: asking for Greeks*" > "$out/greeks_memcheck.txt" 2>&1
echo "memcheck rc $?"
tail -2 "$out/greeks_memcheck.txt"
