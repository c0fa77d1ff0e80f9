#!/usr/bin/env bash
# price-batch under mpirun on the CPU backend (docs/scale-out.md): 1, 2 and 3 ranks write the
# same bytes as one process; a failing rank stops the job, named with its host; manifests of a
# split run rerun in one process, and the other way round.
set -u
bin=$1 data=$2 mpirun=$3
source "$(dirname "$0")/script_checks.sh"
# As root (CI), over more ranks than cores; shared memory without ptrace-based single copy,
# which containers often forbid. A hung job fails the test after 300 s instead of hanging it.
ranks() {  # ranks N ARGS...
  local n=$1; shift
  timeout 300 "$mpirun" --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none \
    -x MCPRICE_FAIL_RANK -np "$n" "$bin" "$@"
}
export MCPRICE_FAIL_RANK=none
book="$data/sample_portfolio.csv"
market="$data/sample_market.json"
common=(--market "$market" --backend cpu --paths 2e4 --quiet)

"$bin" "$book" "${common[@]}" --out "$tmp/one.csv"; check "one process" 0 $?
"$bin" "$book" "${common[@]}" --greeks --out "$tmp/one.json"; check "one process, JSON with Greeks" 0 $?
for n in 1 2 3; do
  ranks "$n" "$book" "${common[@]}" --out "$tmp/r$n.csv" --manifest "$tmp/r$n.manifest.json"
  check "$n ranks: the status of one process" 0 $?
  cmp -s "$tmp/one.csv" "$tmp/r$n.csv"; check "$n ranks: the same bytes as one process" 0 $?
done
ranks 3 "$book" "${common[@]}" --greeks --out "$tmp/r3.json"; check "3 ranks, JSON with Greeks" 0 $?
# The JSON's run section says where and how long it ran; every other line must match.
results_only() { grep -v -E '"(wall_seconds|device)":' "$1"; }
cmp -s <(results_only "$tmp/one.json") <(results_only "$tmp/r3.json")
check "3 ranks: prices and Greeks, the same bytes as one process" 0 $?
expect_text "the manifest counts the ranks" "$tmp/r3.manifest.json" '"ranks": 3'

grep -v '^#' "$book" | head -3 > "$tmp/two_trades.csv"
"$bin" "$tmp/two_trades.csv" "${common[@]}" --out "$tmp/two_one.csv"; check "a two-trade book" 0 $?
ranks 3 "$tmp/two_trades.csv" "${common[@]}" --out "$tmp/two_r3.csv"; check "more ranks than trades" 0 $?
cmp -s "$tmp/two_one.csv" "$tmp/two_r3.csv"; check "a rank with no trades changes nothing" 0 $?

"$bin" --rerun "$tmp/r3.manifest.json" --quiet > "$tmp/rerun1.txt"
check "a 3-rank run reruns bit for bit in one process" 0 $?
ranks 2 --rerun "$tmp/r1.manifest.json" --quiet > "$tmp/rerun2.txt"
check "a 1-rank run reruns bit for bit on 2 ranks" 0 $?
expect_text "the rerun says so once" "$tmp/rerun2.txt" "identical"

MCPRICE_FAIL_RANK=1 ranks 3 "$book" "${common[@]}" --out "$tmp/failed.csv" 2> "$tmp/failed.err"
check "a failing rank stops the job (no hang)" 1 $?
expect_text "the failure names the rank and its host" "$tmp/failed.err" "rank 1 (host $(hostname)) failed:"
[ ! -e "$tmp/failed.csv" ]; check "nothing written when a rank failed" 0 $?
ranks 2 /nonexistent.csv "${common[@]}" 2> "$tmp/missing.err"; check "a missing portfolio on every rank" 1 $?
[ "$(grep -c 'cannot open the portfolio file' "$tmp/missing.err")" = 1 ]; check "an error every rank shares is said once" 0 $?
ranks 2 --load-test --backend cpu 2> "$tmp/load.err"; check "the load test is one process" 1 $?
expect_text "the load test says why" "$tmp/load.err" "--load-test runs in one process"

finish
