#!/usr/bin/env bash
# One device call for issues 31 and 38's small-job ceiling: is it the engine's or the callers'?
# The load test's callers are a closed loop (each waits for its call), so the ceiling is found
# with 8 and then 32 callers, graphs off and on; the table's "callers" column says how much of
# the run they spent inside calls. Then two fixed-rate runs under libmcprice-gpu-busy.so say how
# busy the GPU really was (any kernel or copy running; the SMs the running grids could occupy),
# with the process's CPU time beside them. Then issue 36's table with its peers in the same call.
# Here: BUILD=... apps/bench/pack_shared.sh busy apps/price-batch apps/mcprice-bench \
#         apps/mcprice-greeks-bench apps/mcprice-stac-bench
#       the MonteCarloMultiGPU sample built from a fetched cuda-samples into build-peers/mcmg/,
#       roofline.cu into build-peers/roofline (both ignored, carried)
# There: OUT=$OUT bash apps/bench/ceiling_run.sh   (about 110 s on an H100; its figures are in
#        docs/benchmarks.md, fifty-fifth session)
set -u
mkdir -p /tmp/c && tar xJf .devcarry/busy.txz -C /tmp/c
export LD_LIBRARY_PATH=/tmp/c/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PB=/tmp/c/bin/price-batch
S="--load-test --allocators bucketed --load-mix small:1:2:16384 --streams 8 --market data/sample_market.json"
for run in "8 off 0" "8 on 0" "32 off 0" "32 on 0" "32 on 20"; do
  set -- $run
  echo "== callers $1 graphs $2 batch window $3 us"
  timeout 60 $PB $S --load-find-max --load-jobs 3000 --load-rate 32000 --load-threads $1 --graphs $2 \
    --batch-window-us $3 2>&1 | grep -A4 "^ceiling:\|^steps\|^batching" | grep -v "^--"
done >"$OUT/ceiling.txt" 2>&1
cat "$OUT/ceiling.txt"
TIMEFORMAT="time: wall %R s, user %U s, sys %S s"
for run in "on 8 100000" "on 32 100000"; do
  set -- $run
  echo "== busy: graphs $1 callers $2 rate $3"
  time (CUDA_INJECTION64_PATH=/tmp/c/lib/libmcprice-gpu-busy.so MCPRICE_GPU_BUSY_MS=500 timeout 40 \
    $PB $S --load-rate $3 --load-jobs $(($3 * 3)) --load-threads $2 --graphs $1 2>&1 | grep -v "^ *$" | tail -16)
done >"$OUT/busy.txt" 2>&1
cut -c1-200 "$OUT/busy.txt"
{
  for r in 1 2; do
    echo "== round $r"
    timeout 60 build-peers/mcmg/MonteCarloMultiGPU --method=streamed 2>&1 | grep -i "options per sec\|time (ms"
    timeout 60 /tmp/c/bin/mcprice-bench 2>&1 | tail -8
  done
  timeout 30 build-peers/roofline 2>&1 | tail -6
  timeout 60 /tmp/c/bin/mcprice-greeks-bench 8192 262144 gpu 9 0 2>&1 | cut -c1-300
  for r in 1 2; do MCPRICE_STAC_CONTEXT_FIRST=1 timeout 30 /tmp/c/bin/mcprice-stac-bench 5 gpu small 2>&1 | tail -3; done
  timeout 60 /tmp/c/bin/mcprice-stac-bench 2 gpu large 2>&1 | tail -3
} >"$OUT/issue36.txt" 2>&1
cut -c1-250 "$OUT/issue36.txt"
