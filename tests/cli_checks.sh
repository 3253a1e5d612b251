# The checks the end-to-end tests of the hoard program share. Source it after
# setting WORK to a scratch directory; end the test with `finish`.

passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2"; }

# expect_error NAME EXIT_CODE PATTERN -- COMMAND...
# The command must exit with EXIT_CODE and print exactly one line on stderr,
# matching PATTERN.
expect_error() {
  local name=$1 code=$2 pattern=$3
  shift 4
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    fail "$name: exit $got, expected $code" "$WORK/err"
  elif [ "$(wc -l <"$WORK/err")" -ne 1 ]; then
    fail "$name: expected one line on stderr" "$WORK/err"
  elif ! grep -q -- "$pattern" "$WORK/err"; then
    fail "$name: stderr does not say '$pattern'" "$WORK/err"
  else
    pass "$name"
  fi
}

# check NAME FILE CONDITION...: CONDITION (a command) must succeed; on
# failure FILE is shown.
check() {
  local name=$1 file=$2
  shift 2
  if "$@"; then pass "$name"; else fail "$name" "$file"; fi
}

# Prints the counts; succeeds only if every check passed.
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
