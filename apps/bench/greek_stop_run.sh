#!/usr/bin/env bash
# Issue 37's measurement on the GPU machine: the mixed book with Greeks at 10^7 paths, stopped
# D seconds in, through mcprice-stop-bench (flag to return, with the spans open at the flag kept
# in OUT_DIR/stopbench.log) and through price-batch (SIGINT to exit). No uninterrupted run
# (about 100 s on an H100). Usage: greek_stop_run.sh BIN_DIR OUT_DIR [ROUNDS]
set -u
bin=$1 out=$2 rounds=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
market=$here/../../data/sample_market.json
book=$(mktemp --suffix .csv)
python3 "$here/mixed_book.py" "$here/../../data/sample_portfolio.csv" 1500 "$book"
for r in $(seq "$rounds"); do
  for d in 1 1.5 2 3; do
    "$bin/mcprice-stop-bench" "$book" "$market" 1e7 "$d" greeks gpu >"$out/sb.txt" 2>&1
    head -1 "$out/sb.txt"
    { echo "### round $r flag $d"; cat "$out/sb.txt"; } >>"$out/stopbench.log"
  done
done
rm -f "$out/sb.txt"
for r in $(seq "$rounds"); do
  STOP_TIME_UNINTERRUPTED=0 bash "$here/stop_time.sh" "$bin/price-batch" "$book" "$market" \
    "--paths 10000000 --greeks --backend gpu" 1.5 2 3
done
rm -f "$book"
