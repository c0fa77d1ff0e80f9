#!/usr/bin/env bash
# Time from SIGINT to exit of price-batch (issue 37: Ctrl-C stops within a second): the mixed
# book of mixed_book.py, signalled D seconds into the run, once for each D given; then the
# uninterrupted run. Prints one line a run: the delay, the seconds from the signal to the exit,
# the exit status and the rows written (header included) by status. STOP_TIME_UNINTERRUPTED=0
# leaves out the uninterrupted run.
# Usage: stop_time.sh PRICE_BATCH BOOK_CSV MARKET_JSON "PRICE_BATCH OPTIONS" D...
set -u
pb=$1 book=$2 market=$3 opts=$4
shift 4
out=$(mktemp -d)
for d in "$@"; do
  # shellcheck disable=SC2086
  "$pb" "$book" --market "$market" $opts --quiet --out "$out/rows.csv" &
  pid=$!
  sleep "$d"
  t0=$(date +%s.%N)
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  t1=$(date +%s.%N)
  statuses=$(tail -n +2 "$out/rows.csv" 2>/dev/null | awk -F, '{print $2}' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  printf 'signal at %ss: exit %s after %.3f s; rows: %s\n' "$d" "$rc" "$(awk "BEGIN { print $t1 - $t0 }")" "$statuses"
  rm -f "$out/rows.csv"
done
if [ "${STOP_TIME_UNINTERRUPTED:-1}" != 0 ]; then
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$pb" "$book" --market "$market" $opts --quiet --out "$out/rows.csv"
  rc=$?
  printf 'uninterrupted: exit %s in %.3f s\n' "$rc" "$(awk "BEGIN { print $(date +%s.%N) - $t0 }")"
fi
rm -rf "$out"
