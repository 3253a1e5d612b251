#!/usr/bin/env bash
# The sanitizer run: builds the engine, every game, the bots, the bot client,
# the match host, the stores (SQLite and PostgreSQL) and their writer, the
# arena and the tournament runner with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/, and runs their tests (the
# conformance suite on HOARD_CONFORMANCE_MATCHES matches per player count,
# 100 unless set). Any finding fails the run. Part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

TESTS=(
  engine/engine_test
  engine/games/dragons_gold_test engine/games/frost_dragon_test
  engine/games/hedonia_test engine/games/village_test
  tests/coin_pile_test tests/golden_test tests/deal_test
  tests/conformance_suite_test tests/conformance_test
  bots/bots_test bots/mcts_test
  db/store_test db/store_writer_test service/arena_store_test bots/bot_client_test
  service/match_test tests/arena_e2e_test
  tests/tournament_e2e_test tests/tournament_runner_test
)

source scripts/ccache.sh
if [ ! -f build-asan/build.ninja ]; then
  echo "sanitize: configuring build-asan/"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOARD_SANITIZE=ON \
    "${CCACHE_FLAGS[@]}" >/dev/null
fi
echo "sanitize: building ${#TESTS[@]} test programs with ASan and UBSan"
targets=()
for test in "${TESTS[@]}"; do targets+=("$(basename "$test")"); done
cmake --build build-asan --target "${targets[@]}"

export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export HOARD_CONFORMANCE_MATCHES=${HOARD_CONFORMANCE_MATCHES:-100}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Runs a command with a home of its own, build-asan/test-homes/NAME, as CTest
# runs every test (cmake/test_homes.cmake): nothing of the user's home or
# state directory reaches it.
isolated() {
  local home="$PWD/build-asan/test-homes/$1"
  shift
  mkdir -p "$home/.config" "$home/.cache" "$home/.local/state/hoard"
  HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache" \
    XDG_STATE_HOME="$home/.local/state" HOARD_STATE_DIR="$home/.local/state/hoard" "$@"
}

failed=0
for test in "${TESTS[@]}"; do
  name=$(basename "$test")
  if isolated "$name" "build-asan/$test" >"$logs/$name.log" 2>&1; then
    echo "sanitize: ok   $name ($(grep -E '^\[  PASSED  \]' "$logs/$name.log" | sed 's/.*\] //'))"
  else
    echo "sanitize: FAIL $name"
    grep -E 'ERROR: AddressSanitizer|runtime error|ERROR: LeakSanitizer|FAILED|Failure' \
      -A12 "$logs/$name.log" | head -60
    failed=$((failed + 1))
  fi
done
echo "sanitize: ${#TESTS[@]} programs, $failed with findings or failures"
[ "$failed" -eq 0 ]
