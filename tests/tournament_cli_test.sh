#!/usr/bin/env bash
# End-to-end tests of hoard tournament and hoard leaderboard with the real
# binary: the embedded default, kill -9 and resume, bots launched as
# commands that play over gRPC, bad specs, and leaderboards in every form.
#
#   bash tests/tournament_cli_test.sh build/hoard
set -u
HOARD=$(realpath "${1:?usage: tournament_cli_test.sh PATH_TO_HOARD}")
PY=/usr/bin/python3
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$WORK"

# sql QUERY: one value from hoard.db.
sql() { "$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' hoard.db "$1"; }

# The embedded default: the search bot, the heuristic, random and first, three
# to a village match, 120 duplicate matches, every one stored.
"$HOARD" tournament >"$WORK/default" 2>"$WORK/default.err"
check "the default tournament finishes" "$WORK/default.err" [ $? -eq 0 ]
check "it reports 120 of 120 matches stored" "$WORK/default" \
  grep -q "FINISHED, 120 of 120 matches stored in hoard.db" "$WORK/default"
check "its leaderboard has all three ratings and intervals" "$WORK/default" \
  grep -qE '^rank +bot +ML \[95% interval\] +Elo +OpenSkill' "$WORK/default"
check "every bot is on it with 90 matches" "$WORK/default" \
  [ "$(grep -cE '^[1-4] +[a-z0-9-]+ +[-+][0-9]+\?? \[[-+][0-9]+, [-+][0-9]+\] .* 90 ' "$WORK/default")" -eq 4 ]
# The README shows the main job's real output: the same leaderboard, line for
# line (the first line's timing aside).
sed -n '/^rank bot  .*forfeits time-outs$/,/^ML: separated/p' "$ROOT/README.md" | head -12 >"$WORK/readme-board"
sed -n '/^rank bot/,$p' "$WORK/default" >"$WORK/default-board"
check "the README's main job leaderboard is what the default tournament prints" "$WORK/readme-board" \
  diff "$WORK/readme-board" "$WORK/default-board"
check "the search bot and the heuristic rank above random and first" "$WORK/default" \
  [ "$(grep -E '^[1-4] ' "$WORK/default" | awk '{print $2}' | head -2 | sort | tr '\n' ' ')" = "heuristic mcts " ]
check "the progress display ends at 100%" "$WORK/default.err" \
  grep -q "120/120 matches .* 100%" "$WORK/default.err"

# Export: the results in the shape hoard ratings reads, and every record.
"$HOARD" export --tournament 1 --results "$WORK/results.csv" --records "$WORK/records.jsonl" \
  2>"$WORK/export.err"
check "export writes 120 results and 120 records" "$WORK/export.err" \
  grep -qx "hoard: exported 120 results and 120 records of tournament 1 from hoard.db" "$WORK/export.err"
check "the results are a header and a row per seat, three seats a match" "$WORK/results.csv" \
  [ "$(head -1 "$WORK/results.csv")" = "match_id,bot,place" -a "$(wc -l <"$WORK/results.csv")" -eq 361 -a \
    "$(tail -n +2 "$WORK/results.csv" | cut -d, -f1 | sort | uniq -c | awk '$1 != 3' | wc -l)" -eq 0 ]
"$HOARD" ratings --input "$WORK/results.csv" --system ml >"$WORK/exported-ratings" 2>&1
check "hoard ratings rates the exported results: the same four bots" "$WORK/exported-ratings" \
  [ "$(awk '$1 ~ /^[0-9]+$/ {print $2}' "$WORK/exported-ratings" | sort | tr '\n' ' ')" = \
    "$(grep -E '^[1-4] ' "$WORK/default" | awk '{print $2}' | sort | tr '\n' ' ')" ]
head -1 "$WORK/records.jsonl" >"$WORK/first-record.json"
"$HOARD" replay verify "$WORK/first-record.json" >"$WORK/verify-export" 2>&1
check "an exported record verifies" "$WORK/verify-export" grep -q ": matches" "$WORK/verify-export"
check "every record is one line of JSON" "$WORK/records.jsonl" \
  "$PY" -c 'import json,sys; n=sum(1 for l in open(sys.argv[1]) if json.loads(l)["game"]=="village"); assert n==120, n' "$WORK/records.jsonl"
# Stored compact, given out expanded: every step in words with its
# fingerprint, the deal, and every field (seat 0 too), as hoard play --record writes it.
check "an exported record is expanded, with every field" "$WORK/first-record.json" \
  "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); a=r["actions"]
assert r["format"]=="hoard.match_record.v2" and r["setup"] and "compact" not in r, r.keys()
assert all(set(s)=={"seat","code","text","state_after"} for s in a), a[0]
assert any(s["seat"]==0 for s in a) and r["seed_commitment"] and r["seed_salt"]' "$WORK/first-record.json"
expect_error "export needs a tournament or a game" 2 "export needs --tournament ID or --game ID" \
  -- "$HOARD" export

# A Swiss of 32 bots (heuristic, random and first in turn), 4 to a village
# table: log2(32) = 5 rounds of 8 matches, each paired from the standings.
SWISS=()
for i in $(seq -w 0 31); do
  case $((10#$i % 3)) in 0) kind=heuristic ;; 1) kind=random ;; 2) kind=first ;; esac
  SWISS+=(--participant "s$i=builtin:$kind")
done
"$HOARD" tournament --db swiss.db --game village --players 4 --format swiss "${SWISS[@]}" \
  >"$WORK/swiss" 2>"$WORK/swiss.err"
check "a Swiss of 32 bots plays its 5 rounds of 8 matches" "$WORK/swiss.err" \
  grep -q "FINISHED, 40 of 40 matches stored in swiss.db" "$WORK/swiss"
check "its progress names the round" "$WORK/swiss.err" grep -q "Swiss round 5 of 5" "$WORK/swiss.err"
check "its standings list all 32, points never rising down the list" "$WORK/swiss" \
  "$PY" -c '
import re, sys
rows = re.findall(r"^  \d+\. s\d+ +([0-9.]+) points  Buchholz", open(sys.argv[1]).read(), re.M)
points = [float(p) for p in rows]
assert len(points) == 32 and points == sorted(points, reverse=True), points' "$WORK/swiss"
check "no two bots met twice" "$WORK/swiss" [ "$("$PY" -c '
import sqlite3
print(sqlite3.connect("swiss.db").execute("""SELECT COUNT(*) FROM (SELECT a.bot_id, b.bot_id
  FROM bot_matches a JOIN bot_matches b ON a.sequence = b.sequence AND a.bot_id < b.bot_id
  GROUP BY a.bot_id, b.bot_id HAVING COUNT(*) > 1)""").fetchone()[0])')" = 0 ]
check "the heuristic bots lead it" "$WORK/swiss" \
  [ "$(grep -cE '^  [1-8]\. s(00|03|06|09|12|15|18|21|24|27|30) ' "$WORK/swiss")" -ge 7 ]
expect_error "export of a tournament that is not there" 2 "no tournament 42 in hoard.db" \
  -- "$HOARD" export --tournament 42
check "the database holds the 120 matches" "$WORK/default" [ "$(sql 'SELECT COUNT(*) FROM matches')" -eq 120 ]
"$HOARD" tournament >"$WORK/again" 2>"$WORK/again.err"
check "running it again plays nothing more" "$WORK/again.err" \
  grep -q "already finished" "$WORK/again.err"
check "and keeps 120 matches" "$WORK/again" [ "$(sql 'SELECT COUNT(*) FROM matches')" -eq 120 ]

# kill -9 in the middle, then the same command: every match once. A result
# is acknowledged once the progress counts it (it is counted only after its
# transaction commits): every one the progress showed before the kill is
# stored.
RESUME=("$HOARD" tournament --game village --players 4 --participant random-1=builtin:random
        --participant random-2=builtin:random --participant first-1=builtin:first
        --participant first-2=builtin:first --rounds 1500 --seed 9 --concurrency 2)
"${RESUME[@]}" >/dev/null 2>"$WORK/killed.err" &
runner=$!
for _ in $(seq 1 400); do
  grep -qE "^tournament 2: [1-9][0-9]*/6000 matches" "$WORK/killed.err" && break
  sleep 0.025
done
kill -9 "$runner"
wait "$runner" 2>/dev/null
shown=$(grep -oE "^tournament 2: [0-9]+/6000" "$WORK/killed.err" | tail -1 | sed 's/.*: //; s|/.*||')
before=$(sql "SELECT COUNT(*) FROM matches WHERE tournament_id = 2")
check "killed in the middle ($before of 6000 stored)" /dev/null [ "$before" -gt 0 -a "$before" -lt 6000 ]
check "every result the progress showed ($shown) is stored ($before)" "$WORK/killed.err" \
  [ "${shown:-0}" -gt 0 -a "$before" -ge "${shown:-0}" ]
"${RESUME[@]}" --quiet >"$WORK/resumed" 2>&1
check "the same command resumes and finishes" "$WORK/resumed" \
  grep -q "FINISHED, 6000 of 6000" "$WORK/resumed"
check "the stored count equals the schedule" /dev/null \
  [ "$(sql 'SELECT COUNT(*) FROM matches WHERE tournament_id = 2')" -eq 6000 ]
check "no slot is stored twice" /dev/null \
  [ "$(sql 'SELECT COUNT(DISTINCT schedule_index) FROM matches WHERE tournament_id = 2')" -eq 6000 ]
check "the database is intact" /dev/null [ "$(sql 'PRAGMA integrity_check')" = ok ]

# SPRT: it stops as soon as the evidence is enough, either way.
SPRT=("$HOARD" tournament --game village --players 2 --participant heur=builtin:heuristic
      --participant rand=builtin:random --sprt heur --elo0 0 --elo1 20 --rounds 1000 --db sprt.db)
"${SPRT[@]}" >"$WORK/sprt" 2>"$WORK/sprt.err"
check "SPRT: the heuristic is found stronger, and the tournament stops early (exit $?)" "$WORK/sprt" \
  grep -qE "^Tournament 1 .*: FINISHED, [0-9]{1,3} of 2000 matches stored" "$WORK/sprt"
check "with the log-likelihood ratio, its bounds and the verdict" "$WORK/sprt" \
  grep -qE "^SPRT heur \[elo0 0, elo1 20, alpha 0.05, beta 0.05\]: LLR [0-9.]+ in \(-2.94, 2.94\) after [0-9]+ blocks, .*: H1 accepted" "$WORK/sprt"
check "shown live under the progress" "$WORK/sprt.err" grep -q "^  SPRT heur .* LLR " "$WORK/sprt.err"
"${SPRT[@]}" >"$WORK/sprt2" 2>"$WORK/sprt2.err"
check "run again, it resumes to the same verdict from the stored blocks" "$WORK/sprt2" \
  [ "$(grep '^SPRT' "$WORK/sprt2")" = "$(grep '^SPRT' "$WORK/sprt")" ]
"$HOARD" tournament --game village --players 2 --participant a=builtin:random \
  --participant b=builtin:random --sprt a --elo0 0 --elo1 20 --rounds 5000 --db sprt.db --quiet \
  >"$WORK/sprt-h0" 2>&1
check "two equal bots: H0 accepted" "$WORK/sprt-h0" grep -q "^SPRT a .*: H0 accepted, a is not 20 Elo stronger" "$WORK/sprt-h0"
expect_error "SPRT needs as many participants as seats" 2 "sprt: needs as many participants as seats (2)" \
  -- "$HOARD" tournament --game village --players 2 --participant a=builtin:random \
     --participant b=builtin:random --participant c=builtin:first --sprt a --db sprt.db
expect_error "--elo1 without --sprt" 2 "--elo1 is for --sprt NAME" \
  -- "$HOARD" tournament --game village --participant a=builtin:random --participant b=builtin:first --elo1 5

# Bots launched as commands play over gRPC beside a built-in bot.
cat >"$WORK/mixed.txtpb" <<SPEC
name: "mixed" game: "village" players_per_match: 3 rounds: 3
participants { name: "cmd-a" command: "$HOARD bot --quiet" }
participants { name: "cmd-b" version: "2" command: "$HOARD bot --quiet --strategy first" }
participants { name: "house" builtin: "random" }
SPEC
timeout 120 "$HOARD" tournament --config "$WORK/mixed.txtpb" --db mixed.db >"$WORK/mixed" 2>&1
check "launched bots finish their tournament" "$WORK/mixed" grep -q "FINISHED, 9 of 9" "$WORK/mixed"
check "a version shows as name@version on the leaderboard" "$WORK/mixed" \
  grep -qE '^[1-3] +cmd-b@2 ' "$WORK/mixed"

# Supervision: a launched bot that exits after each match is started again,
# and every match is played through without a time-out.
timeout 120 "$HOARD" tournament --game village --players 3 --rounds 2 --concurrency 1 \
  --participant "once=command:$HOARD bot --quiet --matches 1" --participant house=builtin:random \
  --participant first=builtin:first --db restarts.db --bot-logs "$WORK/logs" >"$WORK/restarts" 2>&1
check "a bot that exits after each match is restarted and the tournament finishes" "$WORK/restarts" \
  grep -q "FINISHED, 6 of 6" "$WORK/restarts"
check "each restart is a warning line saying why and when" "$WORK/restarts" \
  [ "$(grep -c "^hoard: participant 'once' exited with status 0; restarting it in [0-9.]*m\?s (1 of at most 5 restarts in a row" "$WORK/restarts")" -ge 5 ]
check "the leaderboard shows it no forfeit and no time-out" "$WORK/restarts" \
  grep -qE '^[1-3] +once .* 6 +[0-9]+ +-?[0-9.]+ +[0-9.]+ +0 +0$' "$WORK/restarts"
check "no seat of it timed out or forfeited" /dev/null [ "$("$HOARD" leaderboard --game village \
  --db restarts.db --csv | "$PY" -c '
import csv, sys; print(sum(int(r["timeouts"]) + int(r["forfeits"]) for r in csv.DictReader(sys.stdin)))')" = 0 ]
# One that crashes at every decision fails the tournament within seconds.
# Its decisions get a second: on a busy machine a shorter one can pass
# before the bot has said its last words, and the SDK's note that it sent
# the default action would come last.
cat >"$WORK/crash_bot.py" <<BOT
import os, sys
sys.path.insert(0, "$ROOT/bots/python")
import hoard_bot
def decide(decision):
    print("crashing on purpose", flush=True)
    os._exit(3)
hoard_bot.run(decide)
BOT
cat >"$WORK/crashy.txtpb" <<SPEC
game: "village" players_per_match: 2 rounds: 50 concurrency: 1
participants { name: "crasher" command: "$PY $WORK/crash_bot.py" }
participants { name: "house" builtin: "random" }
time_control { decision_ms: 1000 bank_ms: 0 max_strikes: 1 }
SPEC
started=$(date +%s)
timeout 120 "$HOARD" tournament --config "$WORK/crashy.txtpb" --db crashy.db --bot-logs "$WORK/logs" \
  >"$WORK/crashy" 2>&1
code=$?
check "a bot that keeps crashing fails the tournament (exit $code) in $(( $(date +%s) - started )) s" \
  "$WORK/crashy" [ "$code" -eq 1 -a $(( $(date +%s) - started )) -lt 30 ]
check "saying how it exited, its last words, and that it kept exiting" "$WORK/crashy" \
  grep -q "^hoard: participant 'crasher' exited with status 3 (its last line: .*crashing on purpose.*): it exited 6 times in a row without playing a match through" "$WORK/crashy"
check "its leaderboard row counts a forfeit and a time-out in each of its matches" "$WORK/crashy" \
  grep -qE '^[12] +crasher .* ([0-9]+) +0 +[-0-9.]+ +2\.00 +\1 +\1$' "$WORK/crashy"
check "and no match is scheduled after it" /dev/null [ "$("$PY" -c '
import sqlite3; print(sqlite3.connect("crashy.db").execute("SELECT COUNT(*) FROM matches").fetchone()[0])')" -lt 100 ]

# A launched bot that never connects: a clear error after the start timeout.
cat >"$WORK/silent.txtpb" <<SPEC
game: "village" players_per_match: 2
participants { name: "mute" command: "sleep 60" }
participants { name: "house" builtin: "random" }
fault_policy { start_timeout_ms: 300 }
SPEC
timeout 60 "$HOARD" tournament --config "$WORK/silent.txtpb" --db silent.db >"$WORK/silent" 2>&1
code=$?
check "a bot that never connects fails the tournament (exit $code)" "$WORK/silent" [ "$code" -eq 1 ]
check "it says which bot did not connect, and for how long it waited" "$WORK/silent" \
  grep -q "participant 'mute' did not connect to 127.0.0.1:[0-9]* within 300 ms" "$WORK/silent"

# Bad specs: the field and the reason, exit 2.
expect_error "an unknown game" 2 "game: unknown game 'chess'" \
  -- "$HOARD" tournament --game chess --participant a=builtin:random --participant b=builtin:random
expect_error "too few participants" 2 "participants: 2 participants cannot fill 4-player matches" \
  -- "$HOARD" tournament --game village --players 4 --participant a=builtin:random --participant b=builtin:random
expect_error "an unknown built-in bot" 2 "participants\[1\].builtin: no built-in bot 'genius'" \
  -- "$HOARD" tournament --game village --participant a=builtin:random --participant b=builtin:genius
printf 'game: "village"\nplayers: 3\n' >"$WORK/bad.txtpb"
expect_error "a bad field names the file and line" 2 "bad.txtpb: not a tournament spec: line 2" \
  -- "$HOARD" tournament --config "$WORK/bad.txtpb"
expect_error "a missing spec file" 2 "cannot read $WORK/none.txtpb" \
  -- "$HOARD" tournament --config "$WORK/none.txtpb"
expect_error "a bad format lists the formats" 2 \
  "--format: 'sweden' is none of round-robin, duplicate, gauntlet, swiss" \
  -- "$HOARD" tournament --format sweden

# Leaderboards from the database.
"$HOARD" leaderboard --game village --tournament 1 --csv >"$WORK/csv" 2>&1
check "CSV: a header and four bots" "$WORK/csv" [ "$(wc -l <"$WORK/csv")" -eq 5 ]
check "CSV: columns of every system" "$WORK/csv" \
  grep -q "^rank,bot,rating,low,high,matches,wins,average_score,average_place,elo,ml" "$WORK/csv"
check "CSV: each row says whether its rating is provisional" "$WORK/csv" \
  "$PY" -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); assert rows and all(r["provisional"] in ("true","false") for r in rows), rows' "$WORK/csv"
"$HOARD" leaderboard --game village --system elo --json >"$WORK/json" 2>&1
check "JSON names the system and every match of the game" "$WORK/json" \
  "$PY" -c 'import json,sys; b=json.load(open(sys.argv[1])); assert b["system"]=="RATING_SYSTEM_ELO" and b["matches"]==6120, b["matches"]' "$WORK/json"
"$HOARD" leaderboard --game village --tournament 1 --head-to-head >"$WORK/h2h" 2>&1
check "the head-to-head table lists the six pairs" "$WORK/h2h" \
  [ "$(grep -cE '^[a-z0-9-]+ +[a-z0-9-]+ +[0-9]+ +[0-9]+ +[0-9]+ ' "$WORK/h2h")" -eq 6 ]
"$HOARD" leaderboard --game village --tournament 1 --ranks >"$WORK/ranks" 2>&1
check "--ranks: a place column per bot, a row per bot, each summing to about 100%" "$WORK/ranks" \
  "$PY" -c '
import re, sys
text = open(sys.argv[1]).read()
table = text[text.index("probability of rank"):].splitlines()
assert table[0].split()[3:] == ["1st", "2nd", "3rd", "4th"], table[0]
rows = [line.split() for line in table[1:5]]
value = lambda p: 0.0 if p == "<0.1%" else 100.0 if p == ">99.9%" else float(p.rstrip("%"))
assert all(len(r) == 5 and abs(sum(value(p) for p in r[1:]) - 100) <= 3 for r in rows), rows
assert "draws of the ML model" in table[5], table[5]' "$WORK/ranks"
"$HOARD" leaderboard --game village --tournament 1 --json >"$WORK/ranks.json" 2>&1
check "JSON: every row's chance of each place, and how many draws" "$WORK/ranks.json" \
  "$PY" -c 'import json,sys; b=json.load(open(sys.argv[1])); assert b["rank_samples"]==10000 and all(len(r["rank_probabilities"])==4 and abs(sum(r["rank_probabilities"])-1)<1e-9 for r in b["rows"]), b' "$WORK/ranks.json"
expect_error "--ranks is a table" 2 "--ranks prints as a table" \
  -- "$HOARD" leaderboard --game village --ranks --csv
expect_error "an unknown rating system" 2 "unknown rating system 'glicko'" \
  -- "$HOARD" leaderboard --game village --system glicko
expect_error "an unknown tournament" 2 "no tournament 99" \
  -- "$HOARD" leaderboard --tournament 99
expect_error "a missing database" 1 "no database nowhere.db" \
  -- "$HOARD" leaderboard --game village --db nowhere.db
expect_error "a leaderboard of nothing" 2 "give --game (or --tournament)" \
  -- "$HOARD" leaderboard

# Tournaments a server runs: create, list, get, watch and cancel.
"$HOARD" serve --listen 127.0.0.1:0 --db "$WORK/served.db" >"$WORK/serve.log" 2>&1 &
for _ in $(seq 100); do grep -q "serving on" "$WORK/serve.log" && break; sleep 0.1; done
export HOARD_SERVER=$(sed -n 's/^hoard: serving on //p' "$WORK/serve.log")
"$HOARD" tournament list >"$WORK/list0" 2>&1
check "tournament list on a new server says there are none" "$WORK/list0" \
  grep -qx "no tournaments" "$WORK/list0"
"$HOARD" tournament create --game village --players 3 --participant a=builtin:random \
  --participant b=builtin:heuristic --participant c=builtin:first --rounds 10 >"$WORK/create" 2>&1
check "tournament create prints the new tournament's id" "$WORK/create" grep -qx "tournament 1" "$WORK/create"
"$HOARD" tournament watch 1 >"$WORK/watch" 2>"$WORK/watch.err"
check "tournament watch follows it to the end and exits 0" "$WORK/watch.err" [ $? -eq 0 ]
check "and prints its leaderboard, all 30 matches" "$WORK/watch" \
  [ "$(grep -cE '^[1-3] +[abc] +[-+][0-9]+ .* 30 ' "$WORK/watch")" -eq 3 ]
check "with progress on stderr ending at 100%" "$WORK/watch.err" grep -q "30/30 matches .* 100%" "$WORK/watch.err"
"$HOARD" tournament list >"$WORK/list" 2>&1
check "tournament list shows it finished" "$WORK/list" grep -qE "^ +1  FINISHED +village +30/30 matches" "$WORK/list"
"$HOARD" tournament get 1 >"$WORK/get" 2>&1
check "tournament get shows its standings" "$WORK/get" \
  [ "$(grep -cE '^  [1-3]\. [abc] ' "$WORK/get")" -eq 3 ]
"$HOARD" tournament get 1 --json >"$WORK/get.json" 2>&1
check "tournament get --json is the Tournament message" "$WORK/get.json" \
  "$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["status"]=="TOURNAMENT_STATUS_FINISHED" and t["progress"]["finished"]==30' "$WORK/get.json"
# One that waits (a minute) for a bot that never connects, cancelled: its
# watcher says so and exits 1. (Waiting costs the server nothing, so the
# cancel is answered at once however busy the machine is.)
"$HOARD" bots add absent >/dev/null 2>&1
"$HOARD" tournament create --game village --players 2 --participant absent=registered \
  --participant house=builtin:random --start-timeout-ms 60000 >/dev/null 2>&1
"$HOARD" tournament watch 2 --quiet >"$WORK/watch2" 2>"$WORK/watch2.err" &
WATCHER=$!
sleep 1
"$HOARD" tournament cancel 2 >"$WORK/cancel" 2>&1
check "tournament cancel stops it" "$WORK/cancel" grep -q "^tournament 2: " "$WORK/cancel"
timeout 60 tail --pid=$WATCHER -f /dev/null
kill $WATCHER 2>/dev/null  # a watcher still waiting after a minute has failed
wait $WATCHER
check "its watcher ends, exit 1, saying it was cancelled" "$WORK/watch2.err" \
  [ $? -eq 1 -a "$(cat "$WORK/watch2.err")" = "hoard: tournament 2 was cancelled" ]
expect_error "tournament get: an unknown id" 1 "no tournament 9" -- "$HOARD" tournament get 9
expect_error "tournament get: no id" 2 "tournament get needs the tournament's id" \
  -- "$HOARD" tournament get
expect_error "tournament: a misspelt command" 2 "did you mean 'watch'" -- "$HOARD" tournament wach 1
expect_error "tournament create: a bad spec says what is wrong" 2 "no-such-game" \
  -- "$HOARD" tournament create --game no-such-game --participant a=builtin:random
# A Swiss the server runs: 20 bots, 3 to a table (2 byes a round), 5 rounds.
"$HOARD" tournament create --game village --players 3 --format swiss "${SWISS[@]:0:40}" \
  --watch --quiet >"$WORK/swiss-served" 2>&1
check "a served Swiss ends with its standings, byes and all" "$WORK/swiss-served" \
  [ "$(grep -c "Swiss standings after 5 of 5 rounds" "$WORK/swiss-served")" -eq 1 -a \
    "$(grep -cE '^  [0-9]+\. s[0-9]+ .* 4 matches .* 1 bye ' "$WORK/swiss-served")" -eq 10 ]
unset HOARD_SERVER

finish
