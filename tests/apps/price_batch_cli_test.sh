#!/usr/bin/env bash
# price-batch end to end on the CPU backend: exit codes, row order, output formats and messages.
set -u
bin=$1 data=$2 cases=$3
source "$(dirname "$0")/script_checks.sh"

"$bin" --help > "$tmp/help" ; check "--help" 0 $?
expect_text "help has examples" "$tmp/help" "Examples:"
"$bin" --version > "$tmp/version" ; check "--version" 0 $?
expect_text "version names the engine" "$tmp/version" "mcprice"

"$bin" "$data/sample_portfolio.csv" --market "$data/sample_market.json" --backend cpu --paths 2e4 \
  --out "$tmp/sample.csv" 2> "$tmp/sample.err"
check "sample portfolio (every row priced)" 0 $?
expect_text "sample rows in input order" "$tmp/sample.csv" "ABC-C100-1Y,ok,"
expect_text "the mixed-model spread prices" "$tmp/sample.csv" "GHI-ABC-SPREAD,ok,"
expect_text "barriers price" "$tmp/sample.csv" "ABC-UO-CALL,ok,"
expect_text "summary line" "$tmp/sample.err" "backend cpu"
[ "$(wc -l < "$tmp/sample.csv")" = 16 ]; check "one row per trade plus header" 0 $?

"$bin" "$data/sample_portfolio.csv" --backend cpu --paths 2e4 --threads 1 --quiet > "$tmp/t1.csv"
"$bin" "$data/sample_portfolio.csv" --backend cpu --paths 2e4 --threads 2 --quiet > "$tmp/t2.csv"
cmp -s "$tmp/sample.csv" "$tmp/t1.csv"; check "default market is the sample; reruns are identical" 0 $?
cmp -s "$tmp/t1.csv" "$tmp/t2.csv"; check "threads do not change the bytes" 0 $?

"$bin" "$cases/mixed_errors.csv" --market "$data/sample_market.json" --backend cpu --paths 1e4 --format json \
  --out "$tmp/mixed.json" 2>/dev/null
check "per-trade errors" 2 $?
expect_text "bad value names file:line:column" "$tmp/mixed.json" "mixed_errors.csv:3:29: strike 'abc' is not a finite number"
expect_text "missing asset" "$tmp/mixed.json" "underlying 'NOPE' is not in the market file"

"$bin" "$cases/unknown_column.csv" --backend cpu 2> "$tmp/unknown.err" > "$tmp/unknown.out"
check "unknown column" 1 $?
expect_text "unknown column position" "$tmp/unknown.err" "unknown_column.csv:1:28: unknown column 'strik'"
[ ! -s "$tmp/unknown.out" ]; check "nothing written on a file-level error" 0 $?

"$bin" "$data/sample_portfolio.csv" --market "$cases/bad_market.json" --backend cpu 2> "$tmp/market.err"
check "bad market" 1 $?
expect_text "market error position" "$tmp/market.err" "bad_market.json:2:"

"$bin" "$tmp/does-not-exist.csv" --backend cpu 2> "$tmp/missing.err"; check "missing file" 1 $?
"$bin" "$data/sample_portfolio.csv" --paths lots 2>/dev/null; check "bad --paths" 1 $?
"$bin" "$data/sample_portfolio.csv" --market "$data/sample_market.json" --backend cpu --paths 2e4 --greeks \
  --out "$tmp/greeks.csv" 2> "$tmp/greeks.err"
check "--greeks (every row priced)" 0 $?
expect_text "--greeks: the contract's columns" "$tmp/greeks.csv" "id,status,price,std_error,ci_low,ci_high,paths,delta,gamma,vega,theta,rho,message"
expect_text "--greeks: Heston trades have Greeks" "$tmp/greeks.csv" "GHI-C120-1Y,ok,"
grep -q "^GHI-C120-1Y,ok,[^,]*,[^,]*,[^,]*,[^,]*,[0-9]*,-\?[0-9]" "$tmp/greeks.csv"; check "--greeks: the Heston row's delta is filled" 0 $?
cut -d, -f1-7 "$tmp/greeks.csv" | tail -n +2 > "$tmp/greeks.prices"
cut -d, -f1-7 "$tmp/sample.csv" | tail -n +2 > "$tmp/plain.prices"
cmp -s "$tmp/greeks.prices" "$tmp/plain.prices"; check "--greeks leaves every price's bytes unchanged" 0 $?
"$bin" "$data/sample_portfolio.csv" --greeks --route two-phase --backend cpu 2>/dev/null
check "--greeks on the two-phase route is refused" 1 $?
"$bin" "$data/sample_portfolio.csv" --market "$data/sample_market.json" --precision double --backend cpu --paths 2e4 \
  --out "$tmp/double.csv" --manifest "$tmp/double.manifest.json" 2>/dev/null
check "--precision double: every row priced" 0 $?
grep -q "^GHI-ABC-SPREAD,ok," "$tmp/double.csv"; check "--precision double: the mixed-model spread is priced (the walk in double)" 0 $?
grep -q "^ABC-LOOKBACK,ok," "$tmp/double.csv"; check "--precision double: a lookback is priced" 0 $?
grep -q "^GHI-C120-1Y,ok," "$tmp/double.csv"; check "--precision double: a Heston vanilla is priced" 0 $?
grep -q "^ABC-DEF-BASKET,ok," "$tmp/double.csv"; check "--precision double: a GBM basket is priced" 0 $?
cmp -s <(cut -d, -f1-3 "$tmp/double.csv") <(cut -d, -f1-3 "$tmp/sample.csv"); check "--precision double: other prices than float" 1 $?
expect_text "--precision double: the manifest records it" "$tmp/double.manifest.json" '"precision": "double"'
"$bin" --rerun "$tmp/double.manifest.json" --threads 1 --quiet > "$tmp/double.rerun"
check "--precision double: a rerun on one thread reproduces every bit" 0 $?
expect_text "--precision double: the rerun compares every row" "$tmp/double.rerun" "15 trades compared, all bit-identical"
"$bin" --rerun "$tmp/double.manifest.json" --precision float --quiet > "$tmp/double.float.rerun"
check "--precision double: a rerun in float differs" 3 $?
expect_text "--precision double: the rerun names the precision" "$tmp/double.float.rerun" \
  "changed, may change results: setting precision double -> float"
"$bin" "$data/sample_portfolio.csv" --precision double --greeks --backend cpu --paths 2e4 --out "$tmp/double.greeks.csv" \
  2> "$tmp/double.greeks.err"
check "--precision double with --greeks on the CPU prices every row" 0 $?
grep -q "^ABC-LOOKBACK,ok,[^,]*,[^,]*,[^,]*,[^,]*,[0-9]*,-\?[0-9]" "$tmp/double.greeks.csv"
check "--precision double --greeks: a GBM lookback has Greeks" 0 $?
grep -q "^GHI-C120-1Y,ok,[^,]*,[^,]*,[^,]*,[^,]*,[0-9]*,-\?[0-9]" "$tmp/double.greeks.csv"
check "--precision double --greeks: a Heston vanilla has Greeks" 0 $?
grep -q "^GHI-ABC-SPREAD,ok,[^,]*,[^,]*,[^,]*,[^,]*,[0-9]*,[^,]*,[^,]*,[^,]*,-\?[0-9]" "$tmp/double.greeks.csv"
check "--precision double --greeks: the walked Heston spread has Greeks" 0 $?
grep -q "have no Greeks" "$tmp/double.greeks.err"; check "--precision double --greeks: every row has Greeks" 1 $?
"$bin" "$data/sample_portfolio.csv" --precision half --backend cpu 2>/dev/null; check "--precision half is not a precision" 1 $?

# SIGINT stops a run cleanly: exit 130, every row written, the unpriced ones cancelled.
"$bin" "$data/sample_portfolio.csv" --backend cpu --threads 1 --paths 2e8 --out "$tmp/stopped.csv" 2> "$tmp/stopped.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
check "SIGINT: exit 130" 130 $?
[ "$(wc -l < "$tmp/stopped.csv")" = 16 ]; check "SIGINT: one row per trade plus header" 0 $?
expect_text "SIGINT: unpriced trades are cancelled" "$tmp/stopped.csv" ",cancelled,"
expect_text "SIGINT: stderr says so" "$tmp/stopped.err" "stopped by signal 2"

# Run manifests and reruns.
cp "$data/sample_portfolio.csv" "$tmp/book.csv"
"$bin" "$tmp/book.csv" --market "$data/sample_market.json" --backend cpu --paths 2e4 --out "$tmp/run.csv" \
  --manifest "$tmp/run.json" --quiet
check "a run with --manifest" 0 $?
expect_text "manifest records the portfolio digest" "$tmp/run.json" "\"sha256\": \"$(sha256sum "$tmp/book.csv" | cut -d' ' -f1)\""
expect_text "manifest records the results digest" "$tmp/run.json" "\"sha256\": \"$(sha256sum "$tmp/run.csv" | cut -d' ' -f1)\""
"$bin" --rerun "$tmp/run.json" --threads 1 --quiet > "$tmp/rerun.txt"; check "rerun with other threads" 0 $?
expect_text "rerun is bit-identical" "$tmp/rerun.txt" "15 trades compared, all bit-identical"
expect_text "rerun names the execution setting" "$tmp/rerun.txt" "changed, never changes results: setting threads 0 -> 1"
"$bin" --rerun "$tmp/run.json" --seed 7 --quiet > "$tmp/reseed.txt"; check "rerun with another seed differs" 3 $?
expect_text "rerun names the seed" "$tmp/reseed.txt" "changed, may change results: setting seed 42 -> 7"
# Validating an upgrade against a certified baseline: within standard errors and a latency slack.
# A shared CI machine's timings swing by more than 10%: a wide slack keeps this case about the numbers.
"$bin" --validate-against "$tmp/run.json" --seed 7 --latency-slack 300% --validate-json "$tmp/validate.json" \
  --quiet > "$tmp/validate.txt"
check "--validate-against with another seed passes" 0 $?
expect_text "validation says it passed" "$tmp/validate.txt" "latency slack 300%): pass"
expect_text "validation names the seed" "$tmp/validate.txt" "changed, may change results: setting seed 42 -> 7"
expect_text "validation JSON carries the verdict" "$tmp/validate.json" '"verdict": "pass"'
python3 - "$tmp/run.json" "$tmp/fast.json" "$tmp/biased.json" <<'PY'
import json, struct, sys
m = json.load(open(sys.argv[1]))
fast = json.loads(json.dumps(m))
for k in fast["timing"]:
    fast["timing"][k] = 0.0
json.dump(fast, open(sys.argv[2], "w"))
row = next(t for t in m["trades"] if t["id"] == "ABC-C100-1Y")
price = struct.unpack(">d", bytes.fromhex(row["price"]))[0]
row["price"] = struct.pack(">d", price * 1.5).hex()
json.dump(m, open(sys.argv[3], "w"))
PY
"$bin" --validate-against "$tmp/fast.json" --quiet > "$tmp/slower.txt"
check "a run slower than its baseline fails on latency only" 5 $?
expect_text "the slower wall time is named" "$tmp/slower.txt" "regressed"
"$bin" --validate-against "$tmp/biased.json" --quiet > "$tmp/biased.txt"
check "a baseline 50% off on one trade fails on numbers" 3 $?
expect_text "the trade beyond the tolerance is named" "$tmp/biased.txt" "outside: ABC-C100-1Y price"
"$bin" --validate-against "$tmp/run.json" --tolerance 0 2>/dev/null; check "--tolerance 0 is refused" 1 $?
"$bin" --validate-against "$tmp/run.json" --latency-slack fast 2>/dev/null; check "a bad --latency-slack is refused" 1 $?
"$bin" "$tmp/book.csv" --tolerance 3 2>/dev/null; check "--tolerance without --validate-against is refused" 1 $?
"$bin" --validate-against "$tmp/run.json" --rerun "$tmp/run.json" 2>/dev/null; check "--validate-against with --rerun is refused" 1 $?
# Budgets from allocation profiles (the GPU records them; the CPU backend has no GPU scratch).
"$bin" "$tmp/book.csv" --backend cpu --paths 2e3 --memory-profile "$tmp/cpu.profile.json" --quiet \
  > /dev/null 2> "$tmp/cpu.profile.err"
check "--memory-profile on the CPU backend prices" 0 $?
expect_text "--memory-profile on the CPU says nothing was recorded" "$tmp/cpu.profile.err" "nothing recorded"
"$bin" --suggest-budget "$tmp/run.json" 2> "$tmp/notprofile.err"; check "--suggest-budget on a manifest is refused" 1 $?
expect_text "--suggest-budget names what it read" "$tmp/notprofile.err" "not an mcprice allocation profile"
"$bin" --suggest-budget "$tmp/run.json" "$tmp/book.csv" 2>/dev/null; check "--suggest-budget with a portfolio is refused" 1 $?
echo "# edited" >> "$tmp/book.csv"
"$bin" --rerun "$tmp/run.json" --quiet > "$tmp/tampered.txt"; check "rerun refuses changed inputs" 4 $?
"$bin" --validate-against "$tmp/run.json" --quiet > "$tmp/tampered-validate.txt"
check "validation refuses changed inputs" 4 $?
expect_text "rerun names the changed input" "$tmp/tampered.txt" "input changed: $tmp/book.csv: sha256"
"$bin" --rerun "$tmp/run.json" --allow-input-change --quiet > "$tmp/allowed.txt"; check "--allow-input-change reruns" 0 $?
"$bin" --rerun "$tmp/run.json" "$tmp/book.csv" 2>/dev/null; check "--rerun with a portfolio" 1 $?
echo '{"not": "a manifest"}' > "$tmp/bad.json"
"$bin" --rerun "$tmp/bad.json" 2> "$tmp/bad.err"; check "a bad manifest" 1 $?
expect_text "a bad manifest says so" "$tmp/bad.err" "not an mcprice run manifest"

# The load test (CPU: one strategy; the allocators apply on the GPU).
"$bin" --load-test --backend cpu --load-jobs 60 --load-mix "s:0.9:1:1024,m:0.1:3:4096" --load-rate 20000 \
  --data-dir-unused 2>/dev/null; check "a load-test option typo is refused" 1 $?
"$bin" --load-test --backend cpu --market "$data/sample_market.json" --load-jobs 60 --load-mix "s:0.9:1:1024,m:0.1:3:4096" \
  --load-rate 20000 --load-pattern ramp --load-json "$tmp/load.json" --quiet > "$tmp/load.txt"; check "--load-test" 0 $?
expect_text "load table names the strategy and the bits" "$tmp/load.txt" "identical"
"$bin" --load-test --backend cpu --market "$data/sample_market.json" --load-jobs 20 --load-mix "s:1:1:1024" \
  --memory-profile "$tmp/load.profile.json" --quiet > /dev/null 2> "$tmp/load.profile.err"
check "--load-test --memory-profile on the CPU" 0 $?
expect_text "--load-test records only the GPU's bucketed pool" "$tmp/load.profile.err" "nothing recorded"
expect_text "load JSON has the stream" "$tmp/load.json" '"pattern": "ramp"'
expect_text "load JSON has latencies" "$tmp/load.json" '"p99"'
"$bin" "$data/sample_portfolio.csv" --load-jobs 10 2> "$tmp/loadopt.err"; check "load options without --load-test" 1 $?
expect_text "load options say what they need" "$tmp/loadopt.err" "--load-jobs goes with --load-test"
"$bin" --load-test --backend cpu --market "$data/sample_market.json" --load-jobs 30 --load-mix "s:1:1:1024" \
  --load-rate 20000 --load-html "$tmp/load.html" --quiet > /dev/null; check "--load-html" 0 $?
expect_text "the HTML report plots memory" "$tmp/load.html" "<h2>Memory over time</h2>"
expect_text "the HTML report plots latency" "$tmp/load.html" "<polyline"
"$bin" "$data/sample_portfolio.csv" --pool-limit 90% 2> "$tmp/share.err"; check "a percentage limit without --load-test" 1 $?
expect_text "a percentage limit says what it needs" "$tmp/share.err" "--pool-limit as a percentage goes with --load-test"
"$bin" --load-test --backend cpu --pool-limit 80%,120% 2> "$tmp/share.err"; check "a share over 100%" 1 $?
expect_text "a bad share is named" "$tmp/share.err" "'120%' is not a percentage in (0, 100]"
"$bin" --load-test --backend cpu --load-pattern spiky 2> "$tmp/pattern.err"; check "a bad load pattern" 1 $?
expect_text "a bad load pattern is named" "$tmp/pattern.err" "arrival pattern 'spiky'"

finish
