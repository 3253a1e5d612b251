#!/usr/bin/env bash
# End-to-end test of the real programs over gRPC on loopback: hoard serve,
# hoard match, hoard bot and the minimal example bot play a match, and its
# record verifies.
#
#   bash tests/arena_cli_test.sh build/hoard build/bots/minimal_bot
set -u
HOARD=${1:?usage: arena_cli_test.sh HOARD MINIMAL_BOT}
MINIMAL=${2:?usage: arena_cli_test.sh HOARD MINIMAL_BOT}
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
source "$(dirname "$0")/cli_checks.sh"

# start_server LOG [FLAGS...]: hoard serve on a free port of loopback, its
# output in LOG; sets SERVER_PID, and ADDR once it serves (else empty).
start_server() {
  local log=$1
  shift
  "$HOARD" serve --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 100); do
    grep -q "serving on" "$log" && break
    sleep 0.1
  done
  ADDR=$(sed -n 's/^hoard: serving on //p' "$log")
}

trap 'kill $SERVER_PID 2>/dev/null; rm -rf "$WORK"' EXIT
start_server "$WORK/serve.log" --db "$WORK/hoard.db"
if [ -n "$ADDR" ]; then pass "serve reports its address ($ADDR)"; else fail "serve starts" "$WORK/serve.log"; exit 1; fi

"$HOARD" match create --server "$ADDR" --seats open,open,builtin:random --seed 5 >"$WORK/create" 2>&1
MATCH=$(sed -n 's/^match //p' "$WORK/create")
TOKEN0=$(sed -n 's/^seat 0 token //p' "$WORK/create")
TOKEN1=$(sed -n 's/^seat 1 token //p' "$WORK/create")
if [ -n "$MATCH" ] && [ ${#TOKEN0} -eq 32 ] && [ ${#TOKEN1} -eq 32 ]; then
  pass "match create returns a match and 128-bit seat tokens"
else
  fail "match create returns a match and seat tokens" "$WORK/create"
fi

# A spectator follows the match from before its seats join until it ends.
"$HOARD" match watch "$MATCH" --server "$ADDR" >"$WORK/watch" 2>&1 &
WATCH_PID=$!
"$HOARD" match watch "$MATCH" --server "$ADDR" --json >"$WORK/watch.json" 2>&1 &
WATCH_JSON_PID=$!
sleep 0.5
"$HOARD" bot --server "$ADDR" --match "$MATCH" --token "$TOKEN0" --matches 1 >"$WORK/bot" 2>&1 &
BOT_PID=$!
timeout 60 "$MINIMAL" "$ADDR" "$MATCH" "$TOKEN1" >"$WORK/minimal" 2>&1
MINIMAL_EXIT=$?
wait $BOT_PID
BOT_EXIT=$?
if [ $BOT_EXIT -eq 0 ] && grep -q "1 match(es) played" "$WORK/bot"; then
  pass "hoard bot plays the match to its end"
else
  fail "hoard bot plays the match to its end" "$WORK/bot"
fi
if [ $MINIMAL_EXIT -eq 0 ] && grep -q "match over" "$WORK/minimal"; then
  pass "the minimal bot plays the match to its end"
else
  fail "the minimal bot plays the match to its end" "$WORK/minimal"
fi

if "$HOARD" match get "$MATCH" --server "$ADDR" >"$WORK/get" 2>&1 &&
    grep -q "MATCH_STATUS_FINISHED" "$WORK/get" && grep -q "rank 1" "$WORK/get"; then
  pass "match get shows the finished match with ranks"
else
  fail "match get shows the finished match with ranks" "$WORK/get"
fi
if "$HOARD" match get "$MATCH" --server "$ADDR" --record >"$WORK/record.json" 2>"$WORK/err" &&
    "$HOARD" replay verify "$WORK/record.json" >"$WORK/verify" 2>&1; then
  pass "the served match's record verifies"
else
  fail "the served match's record verifies" "$WORK/verify"
fi

# The watch ended with the match, having printed every action once, in order.
timeout 10 tail --pid=$WATCH_PID -f /dev/null
timeout 10 tail --pid=$WATCH_JSON_PID -f /dev/null
ACTIONS=$(sed -n 's/.*MATCH_STATUS_FINISHED  \([0-9]*\) actions/\1/p' "$WORK/get" | head -1)
check "match watch prints every action of the match in order, then its end" "$WORK/watch" \
  [ "$(grep -cE '^ +[0-9]+\. seat [0-2]: ' "$WORK/watch")" = "$ACTIONS" -a \
    "$(grep -E '^ +[0-9]+\. seat' "$WORK/watch" | awk '{print $1+0}' | sort -n | uniq | wc -l)" = "$ACTIONS" ]
check "match watch ends with the final table" "$WORK/watch" \
  grep -q "^match over" "$WORK/watch"
check "match watch --json prints one event a line, each with the spectator's view" \
  "$WORK/watch.json" /usr/bin/python3 -c '
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
assert "snapshot" in events[0] and "finished" in events[-1], events[-1]
assert all("village" in e["view"] for e in events)
assert len([e for e in events if "action_taken" in e]) == int(sys.argv[2])
' "$WORK/watch.json" "$ACTIONS"
expect_error "match watch: an unknown match" 1 "no match 'nope'" \
  -- "$HOARD" match watch nope --server "$ADDR"

# watch_over NAME: watching the finished $MATCH prints its final table at
# once, as match get shows it, and ends cleanly.
watch_over() {
  "$HOARD" match get "$MATCH" --server "$ADDR" >"$WORK/get-over" 2>&1
  "$HOARD" match watch "$MATCH" --server "$ADDR" >"$WORK/watch-over" 2>&1
  local code=$?
  { echo "exit $code"; cat "$WORK/watch-over"; echo "match get:"; cat "$WORK/get-over"; } \
    >"$WORK/watch-shown"
  check "$1" "$WORK/watch-shown" [ $code -eq 0 -a "$(head -1 "$WORK/watch-over")" = "match over" -a \
    "$(tail -n +2 "$WORK/watch-over")" = "$(cat "$WORK/get-over")" -a \
    "$(grep -c 'rank 1 ' "$WORK/get-over")" -ge 1 ]
}
watch_over "match watch of a finished match: its final table at once (the match get one), exit 0"

# Bad input: one line, a non-zero exit, and the server keeps serving.
"$HOARD" bot --server "$ADDR" --match "$MATCH" --token 00000000000000000000000000000000 \
  --quiet >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "unknown seat token" "$WORK/err"; then
  pass "a wrong token is refused in one line"
else
  fail "a wrong token is refused in one line" "$WORK/err"
fi
"$HOARD" match create --server "$ADDR" --game chess --seats open,open >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && grep -q "unknown game 'chess'" "$WORK/err" && grep -q "code 5" "$WORK/err"; then
  pass "an unknown game is NOT_FOUND"
else
  fail "an unknown game is NOT_FOUND" "$WORK/err"
fi
"$HOARD" serve --listen 999.1.1.1:1 >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && grep -q "cannot listen on 999.1.1.1:1" "$WORK/err"; then
  pass "serve on a bad address says so"
else
  fail "serve on a bad address says so" "$WORK/err"
fi
"$HOARD" match list --server "$ADDR" >"$WORK/list" 2>&1
if grep -q "^$MATCH " "$WORK/list"; then pass "the server still serves (match list)"; else fail "match list" "$WORK/list"; fi

kill -TERM $SERVER_PID
for _ in $(seq 50); do kill -0 $SERVER_PID 2>/dev/null || break; sleep 0.1; done
if ! kill -0 $SERVER_PID 2>/dev/null && grep -q "hoard: stopped" "$WORK/serve.log"; then
  pass "serve stops on SIGTERM"
else
  fail "serve stops on SIGTERM" "$WORK/serve.log"
fi

# The database keeps the finished match for the next server; a file that is
# no database is named.
start_server "$WORK/serve2.log" --db "$WORK/hoard.db" --shutdown-grace-ms 100
if "$HOARD" match get "$MATCH" --server "$ADDR" --record >"$WORK/record2.json" 2>"$WORK/err" &&
    cmp -s "$WORK/record.json" "$WORK/record2.json"; then
  pass "a restarted server gives the stored match's record"
else
  fail "a restarted server gives the stored match's record" "$WORK/err"
fi
watch_over "so does match watch of it, after a restart"

# match list: the newest first, at most --limit, filtered by status and game.
OLDEST=$MATCH
VILLAGE=()
for seed in 1 2 3; do
  "$HOARD" match create --server "$ADDR" --seats builtin:random,builtin:random --seed $seed \
    >"$WORK/create-list" 2>&1
  VILLAGE+=("$(sed -n 's/^match //p' "$WORK/create-list")")
done
FROST=$("$HOARD" match create --server "$ADDR" --game frost_dragon \
  --seats builtin:random,builtin:random | sed -n 's/^match //p')
WAITING=$("$HOARD" match create --server "$ADDR" --seats open,builtin:random \
  --decision-ms 60000 | sed -n 's/^match //p')
for id in "${VILLAGE[@]}" "$FROST"; do
  for _ in $(seq 100); do
    "$HOARD" match get "$id" --server "$ADDR" | grep -q MATCH_STATUS_FINISHED && break
    sleep 0.1
  done
done
# ids LIST_OUTPUT: the matches it lists, in its order, on one line.
ids() { grep -o '^m[0-9]*  ' "$1" | tr -d ' ' | tr '\n' ' ' | sed 's/ $//'; }
"$HOARD" match list --server "$ADDR" --limit 2 >"$WORK/list-limit" 2>&1
check "match list --limit 2: the 2 newest, newest first, and how to see the 4 older" \
  "$WORK/list-limit" [ "$(ids "$WORK/list-limit")" = "$WAITING $FROST" -a \
    "$(tail -1 "$WORK/list-limit")" = "... and 4 older matches: --limit 6 shows them all (0: no limit)" ]
"$HOARD" match list --server "$ADDR" >"$WORK/list-all" 2>&1
check "match list: every one of the 6, newest first, when under the default limit" \
  "$WORK/list-all" [ "$(ids "$WORK/list-all")" = \
    "$WAITING $FROST ${VILLAGE[2]} ${VILLAGE[1]} ${VILLAGE[0]} $OLDEST" -a \
    "$(grep -c 'older match' "$WORK/list-all")" = 0 ]
"$HOARD" match list --server "$ADDR" --status running >"$WORK/list-running" 2>&1
check "match list --status running: only the running match" "$WORK/list-running" \
  [ "$(ids "$WORK/list-running")" = "$WAITING" ]
"$HOARD" match list --server "$ADDR" --status finished --game village --limit 3 \
  >"$WORK/list-village" 2>&1
check "match list --status finished --game village --limit 3: the finished village ones" \
  "$WORK/list-village" [ "$(ids "$WORK/list-village")" = \
    "${VILLAGE[2]} ${VILLAGE[1]} ${VILLAGE[0]}" -a \
    "$(tail -1 "$WORK/list-village")" = "... and 1 older match: --limit 4 shows them all (0: no limit)" ]
"$HOARD" match list --server "$ADDR" --game frost_dragon >"$WORK/list-frost" 2>&1
check "match list --game frost_dragon: only its match" "$WORK/list-frost" \
  [ "$(ids "$WORK/list-frost")" = "$FROST" ]
expect_error "match list --status: one of the statuses" 2 \
  "^hoard: --status: 'done' is none of running, finished, aborted$" \
  -- "$HOARD" match list --server "$ADDR" --status done
expect_error "match list --limit: a number" 2 "^hoard: --limit needs a number from 0 to 1000000$" \
  -- "$HOARD" match list --server "$ADDR" --limit lots
kill -TERM $SERVER_PID

# A token a server of the past left in the state directory (admin-token) is
# sent only by commands that need the admin role: reads reach a server that
# never knew it, and an admin command's error names the token the server
# refused. A token given with --token-file or HOARD_TOKEN is sent as given.
STALE="$WORK/stale-state"
mkdir -p "$STALE"
echo 0123456789abcdef0123456789abcdef >"$STALE/admin-token"
STALE_PRINT=$(printf %s 0123456789abcdef0123456789abcdef | sha256sum | cut -c1-8)
echo "arena-cli-admin" >"$WORK/admin-tokens"
start_server "$WORK/serve3.log" --admin-token-file "$WORK/admin-tokens"
"$HOARD" match create --server "$ADDR" --token-file "$WORK/admin-tokens" \
  --seats builtin:random,builtin:random >"$WORK/create3" 2>&1
MATCH=$(sed -n 's/^match //p' "$WORK/create3")
check "a server with a token file of its own makes a match (--token-file)" "$WORK/create3" \
  [ -n "$MATCH" ]
stale() { HOARD_STATE_DIR="$STALE" "$HOARD" "$@"; }
stale match list --server "$ADDR" >"$WORK/list3" 2>&1
check "match list with a stale remembered admin token: a read sends none, and succeeds" \
  "$WORK/list3" grep -q "^$MATCH " "$WORK/list3"
stale match watch "$MATCH" --server "$ADDR" >"$WORK/watch3" 2>&1
check "so does match watch, to the match's end" "$WORK/watch3" grep -q "rank 1" "$WORK/watch3"
stale match get "$MATCH" --server "$ADDR" >"$WORK/get3" 2>&1
check "and match get" "$WORK/get3" grep -q "MATCH_STATUS_FINISHED" "$WORK/get3"
stale bots list --server "$ADDR" >"$WORK/bots3" 2>&1
check "and bots list" "$WORK/bots3" [ $? -eq 0 ]
expect_error "match create sends the remembered token, and its error names the file and fingerprint" 1 \
  "^hoard: $ADDR: the server does not accept the admin token from $STALE/admin-token (fingerprint $STALE_PRINT): the token is not one this server accepts (code 16)$" \
  -- stale match create --server "$ADDR" --seats builtin:random,builtin:random
expect_error "so does bots add" 1 "the admin token from $STALE/admin-token (fingerprint $STALE_PRINT)" \
  -- stale bots add someone --server "$ADDR"
expect_error "a read sends HOARD_TOKEN as given, and its error names HOARD_TOKEN" 1 \
  "^hoard: $ADDR: the server does not accept the token from HOARD_TOKEN (fingerprint $STALE_PRINT): " \
  -- env HOARD_TOKEN=0123456789abcdef0123456789abcdef "$HOARD" match list --server "$ADDR"
expect_error "and --token-file, naming the file" 1 \
  "the token from --token-file $STALE/admin-token (fingerprint $STALE_PRINT)" \
  -- "$HOARD" match get "$MATCH" --server "$ADDR" --token-file "$STALE/admin-token"
kill -TERM $SERVER_PID

# A read of a --private server on this machine sends no remembered token
# either; its refusal names the file of one to send.
PRIVATE="$WORK/private-state"
start_server "$WORK/serve4.log" --private --state-dir "$PRIVATE"
expect_error "a read of a local --private server names the token file to give" 1 \
  "reads need a token .*; a server of this machine keeps a token in $PRIVATE/read-token: give --token-file $PRIVATE/read-token to send it (code 16)$" \
  -- env HOARD_STATE_DIR="$PRIVATE" "$HOARD" match list --server "$ADDR"
HOARD_STATE_DIR="$PRIVATE" "$HOARD" match list --server "$ADDR" \
  --token-file "$PRIVATE/read-token" >"$WORK/list4" 2>&1
check "given that file, the read succeeds" "$WORK/list4" [ $? -eq 0 ]
kill -TERM $SERVER_PID

echo "not a database at all, only text that is long enough" >"$WORK/text.db"
"$HOARD" serve --listen 127.0.0.1:0 --db "$WORK/text.db" >"$WORK/out" 2>"$WORK/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "is not a Hoard database" "$WORK/err"; then
  pass "serve refuses a file that is no database, in one line"
else
  fail "serve refuses a file that is no database, in one line" "$WORK/err"
fi

finish
