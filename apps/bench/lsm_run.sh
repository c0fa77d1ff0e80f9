#!/usr/bin/env bash
# One device call for early exercise (docs/early_exercise.md): an American and Bermudan book
# (Longstaff and Schwartz's puts, r = 6%; puts and calls where r < q, whose exercise the European
# floor decides) priced by each build, builds alternated, ROUNDS times: wall time per run and the
# results files, then each build's Greek run; the first columns of every results file.
# Each build is an unpacked apps/bench/pack_shared.sh archive (bin/price-batch, lib/).
# Usage (repository root, on the GPU machine): bash apps/bench/lsm_run.sh DIR...
#   OUT (default /tmp): results; ROUNDS (default 3); PATHS (default 4e6).
set -u
out=${OUT:-/tmp}
rounds=${ROUNDS:-3}
paths=${PATHS:-4e6}
book=$out/lsm_book.csv
market=$out/lsm_market.json
cat > "$market" <<'JSON'
{"rate": 0.06, "assets": {"S": {"spot": 40, "vol": 0.2}, "V": {"spot": 40, "vol": 0.4},
 "Q": {"spot": 100, "vol": 0.2, "dividend_yield": 0.08}}}
JSON
{
  echo "id,product,type,underlying,strike,maturity,exercise,exercise_dates"
  for s in 36 40 44; do
    echo "ls-$s-1,vanilla,put,S,40,1,american,50"
    echo "ls-$s-2,vanilla,put,S,40,2,american,100"
    echo "lsv-$s-1,vanilla,put,V,40,1,american,50"
  done
  for k in 90 100 110 125; do
    echo "rq-put-$k,vanilla,put,Q,$k,0.5,american,50"
    echo "rq-call-$k,vanilla,call,Q,$k,1,american,50"
    echo "rq-berm-$k,vanilla,put,Q,$k,1,bermudan,12"
  done
} > "$book"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in $(seq 1 "$rounds"); do
  for d in "$@"; do
    name=$(basename "$d")
    start=$(date +%s%N)
    LD_LIBRARY_PATH=$d/lib "$d/bin/price-batch" "$book" --market "$market" --paths "$paths" --backend gpu \
      --out "$out/lsm_${name}.csv" > /dev/null 2> "$out/lsm_${name}.err"
    rc=$?
    end=$(date +%s%N)
    echo "round $r $name: exit $rc, $(( (end - start) / 1000000 )) ms"
  done
done
for r in 1 2; do
  for d in "$@"; do
    name=$(basename "$d")
    start=$(date +%s%N)
    LD_LIBRARY_PATH=$d/lib "$d/bin/price-batch" "$book" --market "$market" --paths 1e6 --greeks --backend gpu \
      --out "$out/lsm_greeks_${name}.csv" > /dev/null 2>&1
    rc=$?
    end=$(date +%s%N)
    echo "greeks round $r $name: exit $rc, $(( (end - start) / 1000000 )) ms"
  done
done
for f in "$out"/lsm_*.csv; do echo "== $f"; cut -d, -f1-4 "$f" | head -30; done
