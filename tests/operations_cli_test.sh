#!/usr/bin/env bash
# End-to-end tests of running Hoard as a service. A graceful stop: a server
# with running matches gets SIGTERM; it stops within a bound; matches that
# can finish in the grace period do; the others are aborted and stored as
# aborted (no record, no seed); finished matches stay stored; the database is
# intact; the event log (JSON lines, configured from the environment) names
# every match; and a server started again on the same database serves them
# all. Also: hoard health, an online backup, TLS (the hoard program and the
# Python and Node SDKs), one tournament runner spreading its matches over
# two servers (one of them killed -9 while it plays), and the client
# commands against a server of their own.
#
#   bash tests/operations_cli_test.sh build/hoard
set -u
HOARD=$(realpath "${1:?usage: operations_cli_test.sh PATH_TO_HOARD}")
REPO=$(realpath "$(dirname "$0")/..")
PY=/usr/bin/python3
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"
cd "$WORK"

sql() { "$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$WORK/hoard.db" "$1"; }

# start_server [DB]: runs hoard serve in the background (on $WORK/hoard.db
# unless DB is given); sets SERVER and PID.
start_server() {
  : >"$WORK/serve.out"
  HOARD_SERVE_LOG_FORMAT=json "$HOARD" serve --listen 127.0.0.1:0 --db "${1:-$WORK/hoard.db}" \
    --shutdown-grace-ms 2000 >"$WORK/serve.out" 2>"$WORK/serve.log" &
  PID=$!
  for _ in $(seq 1 100); do
    SERVER=$(sed -n 's/^hoard: serving on //p' "$WORK/serve.out")
    [ -n "$SERVER" ] && return 0
    sleep 0.05
  done
  echo "FAIL the server did not start"; cat "$WORK/serve.log"; exit 1
}

start_server
"$HOARD" health --server "$SERVER" >"$WORK/health" 2>&1
check "hoard health says the server is serving" "$WORK/health" grep -q "is serving" "$WORK/health"

# A bot that registers and never answers keeps its matches running. Its
# account is made with the admin token the server keeps in HOARD_STATE_DIR.
"$HOARD" bots add silent --key k --server "$SERVER" >"$WORK/add" 2>&1
check "an admin adds the bot's account" "$WORK/add" grep -q "^bot silent key k$" "$WORK/add"
HOARD_SERVER=$SERVER HOARD_BOT_NAME=silent HOARD_BOT_KEY=k HOARD_MAX_MATCHES=10 \
  "$PY" "$REPO/tests/bots/broken_bot.py" silent >/dev/null 2>&1 &
for _ in $(seq 1 100); do
  "$HOARD" match list --server "$SERVER" >/dev/null 2>&1 && break
  sleep 0.05
done
sleep 1  # the bot registers
create() { "$HOARD" match create --server "$SERVER" "$@" 2>&1 | sed -n 's/^match //p'; }
finished=()
for i in 1 2 3 4 5; do finished+=("$(create --seats builtin:random,builtin:random,builtin:random --seed $i)"); done
stuck=()
for i in 1 2 3; do
  stuck+=("$(create --seats bot:silent,builtin:random,builtin:random --decision-ms 600000 --bank-ms 0)")
done
# This one forfeits its silent seat after half a second, within the grace.
ending=$(create --seats bot:silent,builtin:random,builtin:random --decision-ms 500 --bank-ms 0 --max-strikes 1)
check "the matches were created (5 finished, 4 running)" "$WORK/serve.log" \
  [ "${finished[*]} ${stuck[*]} $ending" = "m1 m2 m3 m4 m5 m6 m7 m8 m9" ]

# An online backup while the server runs: a consistent, checked copy.
"$HOARD" backup --db "$WORK/hoard.db" --output "$WORK/backup.db" >"$WORK/backup.out" 2>&1
check "hoard backup copies the database while the server runs" "$WORK/backup.out" \
  grep -q "integrity check ok" "$WORK/backup.out"
check "the copy holds the 5 matches finished so far" "$WORK/backup.out" \
  [ "$("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM matches").fetchone()[0])' "$WORK/backup.db")" -eq 5 ]
expect_error "hoard backup never overwrites a file" 1 "backup.db exists" \
  -- "$HOARD" backup --db "$WORK/hoard.db" --output "$WORK/backup.db"

start=$(date +%s%N)
kill -TERM "$PID"
for _ in $(seq 1 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
if kill -0 "$PID" 2>/dev/null; then
  fail "the server stops within 15 s of SIGTERM (2 s grace)" "$WORK/serve.log"
  kill -9 "$PID"
else
  pass "the server stops within 15 s of SIGTERM (2 s grace; took ${elapsed_ms} ms)"
fi
wait "$PID"
check "it exits with status 0" "$WORK/serve.log" [ $? -eq 0 ]
check "and says it stopped" "$WORK/serve.out" grep -q "^hoard: stopped" "$WORK/serve.out"

# The event log: JSON lines, naming each match.
check "every log line is a JSON object with a time and an event" "$WORK/serve.log" \
  "$PY" -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line); assert e["ts"].endswith("Z") and e["event"], line' "$WORK/serve.log"
check "the log reports the stop: 4 running, 1 finished in the grace, 3 aborted" "$WORK/serve.log" \
  bash -c "grep -q '\"event\":\"server_stopping\",\"signal\":\"SIGTERM\",\"running_matches\":\"4\"' '$WORK/serve.log' &&
           grep -q '\"event\":\"server_stopped\",\"finished_in_grace\":\"1\",\"aborted\":\"3\"' '$WORK/serve.log'"
for id in "${stuck[@]}"; do
  check "the log names aborted match $id" "$WORK/serve.log" \
    grep -q "\"event\":\"match_aborted\",\"match\":\"$id\"" "$WORK/serve.log"
done
check "the log names the match that finished in the grace" "$WORK/serve.log" \
  grep -q "\"event\":\"match_finished\",\"match\":\"$ending\".*forfeit" "$WORK/serve.log"

# The database: every finished match with its record, the aborted ones
# marked, without record or seed, and nothing corrupt.
check "SQLite holds the 6 finished matches" "$WORK/serve.log" \
  [ "$(sql "SELECT COUNT(*) FROM matches WHERE status = 2")" -eq 6 ]  # MATCH_STATUS_FINISHED
check "and the 3 unfinished ones, marked aborted" "$WORK/serve.log" \
  [ "$(sql "SELECT COUNT(*) FROM matches WHERE status = 3")" -eq 3 ]  # MATCH_STATUS_ABORTED
check "records are kept for the finished matches only" "$WORK/serve.log" \
  [ "$(sql "SELECT COUNT(record) FROM matches")" -eq 6 ]
check "no aborted match gives away its seed" "$WORK/serve.log" \
  [ "$(sql "SELECT COUNT(*) FROM matches WHERE status = 3 AND seed != 0")" -eq 0 ]
check "PRAGMA integrity_check says ok" "$WORK/serve.log" [ "$(sql 'PRAGMA integrity_check')" = ok ]

# Started again on the same database, the server serves them all.
start_server
"$HOARD" match get "${stuck[0]}" --server "$SERVER" >"$WORK/get" 2>&1
check "after a restart an aborted match reads as aborted" "$WORK/get" \
  grep -q "MATCH_STATUS_ABORTED" "$WORK/get"
"$HOARD" match get "${finished[0]}" --server "$SERVER" --record >"$WORK/record" 2>&1
check "and a finished one still has its record" "$WORK/record" grep -q '"format": "hoard.match_record.v2"' "$WORK/record"
next=$(create --seats builtin:random,builtin:random)
# Ids come in blocks the database reserves (1000 at a time): after a restart
# a new match gets one no server was given, even if the last one crashed.
check "a new match after a restart takes an id from a new block (m1001, not m10)" \
  "$WORK/serve.log" [ "$next" = m1001 ]
kill -TERM "$PID"; wait "$PID"

# TLS: a server with a certificate; clients that trust it (HOARD_TLS_CA) get
# through — the hoard program and bots in Python and Node — plaintext ones
# do not.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$WORK/key.pem" -out "$WORK/cert.pem" >/dev/null 2>&1
: >"$WORK/tls.out"
"$HOARD" serve --listen 127.0.0.1:0 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
  >"$WORK/tls.out" 2>"$WORK/tls.log" &
TLS_PID=$!
for _ in $(seq 1 100); do
  TLS_SERVER=$(sed -n 's/^hoard: serving on //p' "$WORK/tls.out"); [ -n "$TLS_SERVER" ] && break
  sleep 0.05
done
HOARD_TLS_CA="$WORK/cert.pem" "$HOARD" health --server "$TLS_SERVER" >"$WORK/tls.health" 2>&1
check "over TLS, hoard health trusts the server's certificate" "$WORK/tls.health" \
  grep -q "is serving" "$WORK/tls.health"
"$HOARD" health --server "$TLS_SERVER" --timeout-ms 1000 >"$WORK/plain.health" 2>&1
check "a plaintext client does not get through" "$WORK/plain.health" [ $? -eq 1 ]
for bot in py-tls node-tls; do
  HOARD_TLS_CA="$WORK/cert.pem" "$HOARD" bots add "$bot" --key k --server "$TLS_SERVER" >/dev/null
done
HOARD_TLS_CA="$WORK/cert.pem" HOARD_SERVER=$TLS_SERVER HOARD_BOT_KEY=k HOARD_BOT_NAME=py-tls \
  "$PY" "$REPO/bots/python/examples/random_bot.py" --quiet --matches 1 &
HOARD_TLS_CA="$WORK/cert.pem" HOARD_SERVER="localhost:${TLS_SERVER##*:}" HOARD_BOT_KEY=k HOARD_BOT_NAME=node-tls \
  node "$REPO/bots/node/examples/random-bot.js" --quiet --matches 1 &
for _ in $(seq 1 100); do
  HOARD_TLS_CA="$WORK/cert.pem" "$HOARD" match create --server "$TLS_SERVER" \
    --seats bot:py-tls,bot:node-tls,builtin:random >"$WORK/tls.match" 2>&1 && break
  sleep 0.1
done
for _ in $(seq 1 100); do
  HOARD_TLS_CA="$WORK/cert.pem" "$HOARD" match list --server "$TLS_SERVER" >"$WORK/tls.list" 2>&1
  grep -q "MATCH_STATUS_FINISHED" "$WORK/tls.list" && break
  sleep 0.1
done
check "Python and Node bots play a match over TLS" "$WORK/tls.list" \
  bash -c "grep -q 'MATCH_STATUS_FINISHED' '$WORK/tls.list' && grep -q 'bot:py-tls' '$WORK/tls.list' &&
           grep -q 'bot:node-tls' '$WORK/tls.list' && ! grep -q 'illegal [1-9]' '$WORK/tls.list'"
expect_error "TLS needs both files" 2 "TLS needs both --tls-cert and --tls-key" \
  -- "$HOARD" serve --listen 127.0.0.1:0 --tls-cert "$WORK/cert.pem"
kill -TERM "$TLS_PID"; wait "$TLS_PID"

# Several servers behind one runner: the matches spread over both, and the
# launched bots play on each.
start_server; SERVER_A=$SERVER; PID_A=$PID
cp "$WORK/serve.log" "$WORK/serve-a.log"
start_server; SERVER_B=$SERVER; PID_B=$PID
"$HOARD" tournament --server "$SERVER_A" --server "$SERVER_B" --db "$WORK/spread.db" \
  --bot-logs "$WORK/logs" --game village --players 3 --rounds 4 --concurrency 4 \
  --participant "a=command:$HOARD bot --quiet" --participant "b=command:$HOARD bot --quiet --strategy first" \
  --participant c=builtin:random --quiet >"$WORK/spread.out" 2>&1
check "a tournament over two servers finishes" "$WORK/spread.out" \
  grep -q "FINISHED, 12 of 12 matches stored" "$WORK/spread.out"
on_a=$("$HOARD" match list --server "$SERVER_A" | grep -c "^m.*MATCH_STATUS_FINISHED")
on_b=$("$HOARD" match list --server "$SERVER_B" | grep -c "^m.*MATCH_STATUS_FINISHED")
echo "server A: $on_a matches, server B: $on_b" >"$WORK/spread.counts"
check "both servers played some of its matches" "$WORK/spread.counts" \
  bash -c "[ $on_a -ge 4 ] && [ $on_b -ge 4 ]"
check "each launched bot ran once per server" "$WORK/spread.out" \
  bash -c "[ -f '$WORK/logs/a.log' ] && [ -f '$WORK/logs/a-2.log' ] && [ -f '$WORK/logs/b-2.log' ]"
# One of them killed while it plays: the runner plays its matches again on
# the other, and the tournament finishes whole.
finished_on_b() { "$HOARD" match list --server "$SERVER_B" 2>/dev/null | grep -c "MATCH_STATUS_FINISHED"; }
before=$(finished_on_b)
"$HOARD" tournament --server "$SERVER_A" --server "$SERVER_B" --db "$WORK/spread-kill.db" \
  --game village --players 2 --rounds 10 --concurrency 4 --participant m=builtin:mcts-20ms \
  --participant r=builtin:random --quiet >"$WORK/spread-kill.out" 2>&1 &
RUNNER=$!
for _ in $(seq 1 400); do
  [ "$(finished_on_b)" -ge $((before + 2)) ] && break
  sleep 0.05
done
kill -9 "$PID_B"; wait "$PID_B" 2>/dev/null
wait "$RUNNER"
echo "exit $?" >>"$WORK/spread-kill.out"
check "a server killed -9 mid-tournament: the other plays its matches, all 20 stored" \
  "$WORK/spread-kill.out" bash -c "grep -q 'FINISHED, 20 of 20 matches stored' '$WORK/spread-kill.out' &&
                                   grep -q '^exit 0$' '$WORK/spread-kill.out'"
kill -TERM "$PID_A"; wait "$PID_A"

# The client commands: the health of each service, HOARD_SERVER in place of
# --server, and match list --game.
start_server "$WORK/clients.db"
for service in hoard.v1.Arena hoard.v1.Tournaments; do
  "$HOARD" health --server "$SERVER" --service "$service" >"$WORK/health.$service" 2>&1
  check "hoard health --service $service: serving, exit 0" "$WORK/health.$service" \
    bash -c "[ $? -eq 0 ] && grep -q '^$service on $SERVER is serving$' '$WORK/health.$service'"
done
expect_error "hoard health names a service the server does not have" 1 \
  "has no service 'hoard.v1.Nope'" -- "$HOARD" health --server "$SERVER" --service hoard.v1.Nope
HOARD_SERVER=$SERVER "$HOARD" match create --game village --seats builtin:random,builtin:random \
  --seed 1 >"$WORK/created" 2>&1
HOARD_SERVER=$SERVER "$HOARD" match create --game dragons_gold \
  --seats builtin:random,builtin:random,builtin:random --seed 1 >>"$WORK/created" 2>&1
check "match create reads HOARD_SERVER" "$WORK/created" \
  [ "$(grep -c '^match m' "$WORK/created")" -eq 2 ]
for _ in $(seq 1 100); do
  HOARD_SERVER=$SERVER "$HOARD" match list >"$WORK/all" 2>&1
  [ "$(grep -c 'MATCH_STATUS_FINISHED' "$WORK/all")" -eq 2 ] && break
  sleep 0.1
done
check "match list reads HOARD_SERVER" "$WORK/all" \
  bash -c "grep -q '^m[0-9]*  village  MATCH_STATUS_FINISHED' '$WORK/all' &&
           grep -q '^m[0-9]*  dragons_gold  MATCH_STATUS_FINISHED' '$WORK/all'"
HOARD_SERVER=$SERVER "$HOARD" match list --game dragons_gold >"$WORK/dragons" 2>&1
check "match list --game lists that game's matches only" "$WORK/dragons" \
  bash -c "[ \$(grep -c '^m' '$WORK/dragons') -eq 1 ] && grep -q '^m[0-9]*  dragons_gold  ' '$WORK/dragons'"
mkdir "$WORK/elsewhere"
(cd "$WORK/elsewhere" && HOARD_SERVER=$SERVER "$HOARD" leaderboard --remote --game village \
  >"$WORK/board" 2>&1)
check "leaderboard --remote asks the server of HOARD_SERVER (no database here)" "$WORK/board" \
  bash -c "[ $? -eq 0 ] && grep -q 'ranked by ML' '$WORK/board'"
kill -TERM "$PID"; wait "$PID"

finish
