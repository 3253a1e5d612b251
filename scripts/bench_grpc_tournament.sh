#!/usr/bin/env bash
# A tournament over gRPC against the arena bench's decisions, in one run:
#   scripts/bench_grpc_tournament.sh [ROUNDS] [CONCURRENCY]
#       (default 1000 rounds: 4,000 four-player village matches, 32 at once)
#
# 1. The arena bench's decision phase (build/hoard bench arena): 16 village
#    matches of 4 registered random bots inside the bench's own process,
#    answering at once, for 5 s: the decisions per second the server keeps
#    up with when its bots cost nothing.
# 2. The tournament: 4 `hoard bot` processes playing at random like the
#    bench's bots, launched by the runner, every seat played over loopback,
#    4 to a village match, a fresh database in a temporary directory. Its
#    decisions are every action of its stored matches (no seat is a
#    built-in bot), over the time the tournament ran (the rate the command
#    prints).
# Prints both and the ratio. (tournament/examples/village-over-grpc.txtpb
# puts two first-action bots among them; they draw every turn, so their
# hands, and the legal actions their requests list, grow all match long:
# its decisions cost more than the bench's.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-1000}
CONCURRENCY=${2:-32}
HOARD=build/hoard
[ -x "$HOARD" ] || { echo "bench_grpc_tournament: $HOARD is missing; run scripts/setup.sh" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "bench_grpc_tournament: needs sqlite3 (scripts/setup.sh installs it)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$HOARD" bench arena --seconds 5 --idle-matches 1 --timeout-matches 1 --timeout-seconds 0.1 \
  --thinking-matches 0 --single-stream no --load-matches none >"$WORK/arena" 2>&1 || {
  echo "bench_grpc_tournament: the arena bench failed:" >&2; cat "$WORK/arena" >&2; exit 1; }
ARENA=$(awk '/^arena decisions,/ {print $(NF-2)}' "$WORK/arena")

participants=()
for i in 1 2 3 4; do participants+=(--participant "bot-$i=command:$HOARD bot --quiet --seed $i"); done
"$HOARD" tournament --fresh --game village --players 4 "${participants[@]}" --rounds "$ROUNDS" \
  --db "$WORK/grpc.db" --quiet --concurrency "$CONCURRENCY" >"$WORK/out" 2>&1 || true
line=$(grep -E "FINISHED, [0-9]+ of [0-9]+ matches" "$WORK/out") || {
  echo "bench_grpc_tournament: the tournament did not finish:" >&2; cat "$WORK/out" >&2; exit 1; }
MATCHES=$(sed -E 's/.*FINISHED, ([0-9]+) of.*/\1/' <<<"$line")
SECONDS_RUN=$(sed -E 's/.*matches\/s over ([0-9.]+) s\).*/\1/' <<<"$line")
DECISIONS=$(sqlite3 "$WORK/grpc.db" "SELECT SUM(actions) FROM matches")

/usr/bin/python3 - "$ARENA" "$MATCHES" "$DECISIONS" "$SECONDS_RUN" <<'PY'
import sys
arena, matches, decisions, seconds = map(float, sys.argv[1:])
rate = decisions / seconds
print(f"arena bench:  {arena:,.0f} decisions/s (16 matches, 4 in-process bots)")
print(f"tournament:   {matches:,.0f} matches, {decisions:,.0f} decisions in {seconds:.1f} s: "
      f"{rate:,.0f} decisions/s over gRPC from 4 random hoard bot processes")
print(f"ratio: {rate / arena:.2f} (goal >= 0.8)")
PY
