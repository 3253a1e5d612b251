#!/usr/bin/env bash
# The thread-safety check fails a copy of service/timer.cc whose Stop() sets
# stopping_ without its absl::MutexLock, naming the variable and the mutex.
#
#   bash tests/thread_safety_catches_test.sh BUILD_DIR
set -u
BUILD=$(realpath "${1:?usage: thread_safety_catches_test.sh BUILD_DIR}")
REPO=$(realpath "$(dirname "$0")/..")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"

line=$(grep -n "stopping_ = true;" "$REPO/service/timer.cc" | head -1 | cut -d: -f1)
sed "$((line - 1)){/absl::MutexLock lock(&mu_);/d}" "$REPO/service/timer.cc" >"$WORK/timer.cc"
check "the copy leaves out one lock" "$WORK/timer.cc" \
  [ "$(grep -c 'MutexLock' "$WORK/timer.cc")" -eq "$(( $(grep -c 'MutexLock' "$REPO/service/timer.cc") - 1 ))" ]
/usr/bin/python3 "$REPO/scripts/thread_safety.py" "$BUILD" "$REPO/service/timer.cc=$WORK/timer.cc" \
  >"$WORK/out" 2>&1
got=$?
check "the check fails it (exit 1)" "$WORK/out" [ "$got" -eq 1 ]
check "naming what is unguarded" "$WORK/out" grep -q "requires holding mutex 'mu_'" "$WORK/out"
/usr/bin/python3 "$REPO/scripts/thread_safety.py" "$BUILD" "$REPO/service/timer.cc" >"$WORK/ok" 2>&1
check "and passes the original" "$WORK/ok" [ $? -eq 0 ]
finish
