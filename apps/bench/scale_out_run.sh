#!/usr/bin/env bash
# One device call for scale-out (docs/scale-out.md): the GPU tests, then each workload on one
# GPU and on every GPU (--devices all), with a digest of the results' bits to show they match.
# Usage on the GPU machine, from the repo root:
#   tar xzf .devcarry/bundle.tgz -C /tmp; bash apps/bench/scale_out_run.sh /tmp/bundle
set -u
build=${1:-build-device}
out=${OUT:-/tmp/mcprice-scale}
mkdir -p "$out"
log() { echo "== $*"; }
gpus=$(nvidia-smi -L | wc -l)
log "device: $gpus GPU(s)"; nvidia-smi --query-gpu=index,name,clocks.sm --format=csv,noheader
log "mpirun: $(command -v mpirun || echo none)"
log "gpu tests"; "$build/tests/mcprice_gpu_tests" 2>&1 | tail -3
log "8192 x 262,144 Europeans: one GPU, then all"
"$build/apps/mcprice-bench" 8192 262144 gpu | tee "$out/european_one.json"
MCPRICE_BENCH_DEVICES=all "$build/apps/mcprice-bench" 8192 262144 gpu | tee "$out/european_all.json"
log "4 x the European book (32768 x 262,144): one GPU, then all"
"$build/apps/mcprice-bench" 32768 262144 gpu | tee "$out/european4_one.json"
MCPRICE_BENCH_DEVICES=all "$build/apps/mcprice-bench" 32768 262144 gpu | tee "$out/european4_all.json"
log "100,000-trade mixed book, 16,384 paths, 64 steps: one GPU, then all"
python3 apps/bench/mixed_book.py data/sample_portfolio.csv 100000 "$out/mixed.csv"
for d in one all; do
  args=(--device 0); [ $d = all ] && args=(--devices all)
  for rep in 1 2; do
    /usr/bin/time -f "$d rep $rep: %e s wall, %M KiB peak" "$build/apps/price-batch" "$out/mixed.csv" \
      --market data/sample_market.json --backend gpu --paths 16384 --steps 64 "${args[@]}" --out "$out/mixed_$d.csv"
  done
done
cmp "$out/mixed_one.csv" "$out/mixed_all.csv" && echo "mixed book: bit-identical on one GPU and on all"
if command -v mpirun > /dev/null && "$build/apps/price-batch" --version | grep -q "with MPI"; then
  mpi="mpirun --allow-run-as-root --oversubscribe -x MCPRICE_FAIL_RANK"
  log "the mixed book under mpirun: one rank per GPU, then $gpus ranks sharing GPU 0"
  for rep in 1 2; do
    /usr/bin/time -f "mpirun -np $gpus rep $rep: %e s wall" $mpi -np "$gpus" "$build/apps/price-batch" "$out/mixed.csv" \
      --market data/sample_market.json --backend gpu --paths 16384 --steps 64 --out "$out/mixed_ranks.csv" \
      --manifest "$out/ranks.json"
  done
  cmp "$out/mixed_one.csv" "$out/mixed_ranks.csv" && echo "mixed book: bit-identical under mpirun -np $gpus"
  $mpi -np 2 "$build/apps/price-batch" "$out/mixed.csv" --market data/sample_market.json --backend gpu --paths 16384 \
    --steps 64 --device 0 --quiet --out "$out/mixed_shared.csv"
  cmp "$out/mixed_one.csv" "$out/mixed_shared.csv" && echo "mixed book: bit-identical with 2 ranks sharing GPU 0"
  "$build/apps/price-batch" --rerun "$out/ranks.json" --quiet | head -1
  MCPRICE_FAIL_RANK=1 timeout 120 $mpi -np 2 "$build/apps/price-batch" "$out/mixed.csv" --market data/sample_market.json \
    --backend gpu --paths 16384 --quiet --out "$out/failed.csv" 2>&1 | grep "price-batch:"
fi
log "STAC-A2-style small workload (one trade): one GPU, then all"
"$build/apps/mcprice-stac-bench" 3 gpu small
MCPRICE_BENCH_DEVICES=all "$build/apps/mcprice-stac-bench" 3 gpu small
