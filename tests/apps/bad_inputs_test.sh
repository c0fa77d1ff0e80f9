#!/usr/bin/env bash
# The bad-input corpus (tests/apps/bad_inputs/expected.tsv): each case is a portfolio (priced
# against the sample market) or a market (with the sample portfolio), with its expected exit
# status and a text its results or error must contain. No case may crash or hang (a timeout
# fails it), and exit 2 must still write one row per trade.
set -u
bin=$1 data=$2 corpus=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
while IFS=$'\t' read -r file kind want text; do
  case "$file" in ''|'#'*) continue ;; esac
  if [ "$kind" = portfolio ]; then args=("$corpus/$file" --market "$data/sample_market.json")
  else args=("$data/sample_portfolio.csv" --market "$corpus/$file"); fi
  timeout 60 "$bin" "${args[@]}" --backend cpu --paths 2000 --quiet > "$tmp/out" 2> "$tmp/err"
  got=$?
  why=""
  [ "$got" = "$want" ] || why="exit $got, expected $want"
  if [ -z "$why" ] && [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/out" "$tmp/err"; then why="'$text' not in the output"; fi
  if [ -z "$why" ] && [ "$want" = 1 ] && [ -s "$tmp/out" ]; then why="results written despite a file-level error"; fi
  if [ -z "$why" ] && [ "$want" = 1 ] && ! grep -q "price-batch: error: .*$file" "$tmp/err"; then why="the error does not name the file"; fi
  if [ -z "$why" ] && [ "$want" = 2 ]; then
    rows=$(($(wc -l < "$tmp/out") - 1))
    trades=$(grep -v '^#' "${args[0]}" | grep -c .)
    trades=$((trades - 1))
    [ "$rows" = "$trades" ] || why="$rows rows for $trades trades"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $file: $why"; sed 's/^/    /' "$tmp/err" | head -3; failures=$((failures + 1))
  else
    echo "ok   $file"; passes=$((passes + 1))
  fi
done < "$corpus/expected.tsv"
echo "$passes passed, $failures failed"
[ "$failures" = 0 ] && [ "$passes" -ge 60 ]
