#!/usr/bin/env bash
# One device call for the pool under memory pressure (issue 31, docs/memory.md): the load test's
# pressure runs (--pool-limit 80%,90%,95% of each run's own unlimited peak), builds alternated in
# the same call so that their figures compare, then the Python GPU tests over the first build.
# Each build is an unpacked apps/bench/pack_shared.sh archive (bin/, lib/) holding price-batch:
#   apps/bench/pack_shared.sh NAME apps/price-batch       # here, then carry .devcarry/NAME.txz
#   mkdir -p /tmp/a && tar xJf .devcarry/NAME.txz -C /tmp/a
# Usage (repository root, on the GPU machine): bash apps/bench/pressure_run.sh DIR...
#   OUT (default /tmp): where the reports go; ROUNDS (default 2): pressure runs per build;
#   JOBS (default 5000): jobs per run; PY: a carried build/python (the module is built for this
#   machine's Python), to run python/tests over the first build's libraries.
set -u
out=${OUT:-/tmp}
rounds=${ROUNDS:-2}
jobs=${JOBS:-5000}
M=data/sample_market.json
S="--load-test --load-jobs $jobs --load-threads 4 --streams 8 --route two-phase --load-rate 5000
   --allocators bucketed --market $M"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in $(seq 1 "$rounds"); do
  for d in "$@"; do
    name=$(basename "$d")
    echo "== round $r, $name: pressure 80%,90%,95%"
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$d/lib timeout 240 "$d/bin/price-batch" $S --pool-limit 80%,90%,95% \
      --load-json "$out/pressure_${name}_$r.json" > "$out/pressure_${name}_$r.txt" 2>&1
    echo "exit $?"
    tail -30 "$out/pressure_${name}_$r.txt"
  done
done
for d in "$@"; do
  name=$(basename "$d")
  echo "== $name: unlimited"
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH=$d/lib timeout 120 "$d/bin/price-batch" $S > "$out/unlimited_$name.txt" 2>&1
  echo "exit $?"
  tail -20 "$out/unlimited_$name.txt"
done
first=${1:-}
if [ -n "${PY:-}" ] && [ -n "$first" ]; then
  echo "== python tests over $(basename "$first")"
  PYTHONPATH=$PY LD_LIBRARY_PATH=$first/lib MCPRICE_SOURCE_DIR=$PWD \
    timeout 180 python3 -m pytest -q -p no:cacheprovider python/tests 2>&1 | tail -8
fi
