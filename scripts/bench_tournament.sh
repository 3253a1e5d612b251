#!/usr/bin/env bash
# The in-process tournament against the engine's own speed, in one run:
#   scripts/bench_tournament.sh [ROUNDS]      (default 2500: 10,000 matches)
#
# 1. The floor: random 4-player village matches on one core, from the engine
#    benchmark (build/engine/random_match_benchmark), times the cores.
# 2. The tournament: two random and two first-action bots, 4 to a village
#    match, every match stored in SQLite with its seats and record (a fresh
#    database in a temporary directory), then the final ratings.
# Prints both rates and the ratios: the tournament's match phase (the rate
# the command prints) and the whole command, ratings included.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2500}
HOARD=build/hoard
BENCH=build/engine/random_match_benchmark
for binary in "$HOARD" "$BENCH"; do
  [ -x "$binary" ] || { echo "bench_tournament: $binary is missing; run scripts/setup.sh" >&2; exit 2; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CORES=$(nproc)

"$BENCH" --benchmark_filter='BM_RandomMatch/village/4$' --benchmark_min_time=2 \
  --benchmark_format=json >"$WORK/engine.json" 2>/dev/null
ENGINE=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["benchmarks"][0]["matches/s"])' "$WORK/engine.json")

start=$(date +%s.%N)
"$HOARD" tournament --fresh --game village --players 4 \
  --participant random-1=builtin:random --participant random-2=builtin:random \
  --participant first-1=builtin:first --participant first-2=builtin:first \
  --rounds "$ROUNDS" --db "$WORK/bench.db" --quiet >"$WORK/out" 2>&1
end=$(date +%s.%N)
line=$(grep -E "FINISHED, [0-9]+ of [0-9]+ matches" "$WORK/out") || {
  echo "bench_tournament: the tournament did not finish:" >&2; cat "$WORK/out" >&2; exit 1; }
MATCHES=$(sed -E 's/.*FINISHED, ([0-9]+) of.*/\1/' <<<"$line")
RATE=$(sed -E 's/.*this run: ([0-9.]+) matches\/s.*/\1/' <<<"$line")

/usr/bin/python3 - "$ENGINE" "$CORES" "$MATCHES" "$RATE" "$start" "$end" <<'PY'
import sys
engine, cores, matches, rate, start, end = map(float, sys.argv[1:])
floor = engine * cores
whole = matches / (end - start)
print(f"engine floor: {engine:,.0f} village 4-player random matches/s on one core x {cores:.0f} cores = {floor:,.0f}/s")
print(f"tournament:   {matches:,.0f} matches, {rate:,.0f} matches/s while playing ({rate / floor:.1%} of the floor)")
print(f"whole command (start, matches, final ratings): {end - start:.2f} s, {whole:,.0f} matches/s ({whole / floor:.1%} of the floor)")
PY
