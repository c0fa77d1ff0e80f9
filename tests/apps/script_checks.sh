# The command-line tests' shared checks (sourced): a scratch folder removed on exit, pass and
# fail counts, and the runner's closing line.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; failures=$((failures + 1)); else echo "ok   $1"; passes=$((passes + 1)); fi
}
expect_text() {  # expect_text NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "ok   $1"; passes=$((passes + 1)); else echo "FAIL $1: '$3' not in $2:"; cat "$2"; failures=$((failures + 1)); fi
}
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" = 0 ]
}
