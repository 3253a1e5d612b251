#!/usr/bin/env bash
# The format check fails a copy of service/timer.cc squeezed onto long lines
# and spaced badly, naming it, and passes the original.
#
#   bash tests/format_catches_test.sh
set -u
REPO=$(realpath "$(dirname "$0")/..")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"

sed 's/^  /    /; s/ = / =  /' "$REPO/service/timer.cc" >"$WORK/timer.cc"
bash "$REPO/scripts/format_check.sh" "$WORK/timer.cc" >"$WORK/out" 2>&1
got=$?
check "the check fails the badly spaced copy (exit 1)" "$WORK/out" [ "$got" -eq 1 ]
check "naming the file and showing the change" "$WORK/out" \
  bash -c "grep -q '^FAIL $WORK/timer.cc' '$WORK/out' && grep -q '^     [-+]' '$WORK/out'"
bash "$REPO/scripts/format_check.sh" "$REPO/service/timer.cc" >"$WORK/ok" 2>&1
check "and passes the original" "$WORK/ok" [ $? -eq 0 ]
finish
