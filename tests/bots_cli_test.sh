#!/usr/bin/env bash
# End-to-end tests of bots in other languages and of hoard check-bot, with the
# real binary: the example Python, Node and C++ bots pass the checker; broken
# bots fail it with the reason (illegal, silent, slow, dying, one match at a
# time), and so do bots whose illegal, slow and failing decisions their SDK
# covers with the default action (which the SDK logs); and a round-robin of
# Python, Node and C++ bots (launched and built in) plays village to the end
# into SQLite and prints its leaderboard.
#
#   bash tests/bots_cli_test.sh build/hoard
set -u
HOARD=$(realpath "${1:?usage: bots_cli_test.sh PATH_TO_HOARD}")
REPO=$(realpath "$(dirname "$0")/..")
PY=/usr/bin/python3
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"
cd "$WORK"

if [ ! -d "$REPO/bots/node/node_modules/@grpc/grpc-js" ]; then
  echo "FAIL the Node SDK's packages are not installed (run: bash scripts/setup.sh)"
  exit 1
fi

PY_RANDOM="$PY $REPO/bots/python/examples/random_bot.py"
PY_VILLAGE="$PY $REPO/bots/python/examples/village_bot.py"
NODE_RANDOM="node $REPO/bots/node/examples/random-bot.js"
CPP_RANDOM="$HOARD bot --quiet"

# conforms NAME COMMAND [FLAGS...]: check-bot passes the bot, every check.
conforms() {
  local name=$1 command=$2
  shift 2
  "$HOARD" check-bot --command "$command" --bot-log "$WORK/$name.log" "$@" >"$WORK/$name.out" 2>&1
  local got=$?
  check "check-bot passes $name" "$WORK/$name.out" [ "$got" -eq 0 ]
  check "$name: every check passed" "$WORK/$name.out" \
    bash -c "! grep -q '^FAIL' '$WORK/$name.out' && grep -q 'the bot conforms' '$WORK/$name.out'"
}

# fails NAME COMMAND [FLAGS...]: check-bot fails the bot (exit 1, saying so);
# its report goes to $WORK/NAME.out, the bot's output to $WORK/NAME.log.
fails() {
  local name=$1 command=$2
  shift 2
  "$HOARD" check-bot --command "$command" --bot-log "$WORK/$name.log" "$@" >"$WORK/$name.out" 2>&1
  local got=$?
  check "check-bot fails $name (exit 1)" "$WORK/$name.out" \
    bash -c "[ $got -eq 1 ] && grep -q 'the bot does NOT conform' '$WORK/$name.out'"
}

# says NAME WHAT PATTERN: the report on NAME has a line matching PATTERN.
says() {
  check "$1: $2" "$WORK/$1.out" grep -qE -- "$3" "$WORK/$1.out"
}

# Every game the program knows, as --game flags.
ALL_GAMES=$("$HOARD" games | sed -n 's/^\([a-z_][a-z_0-9]*\) — .*/--game \1/p')

conforms py-random "$PY_RANDOM" $ALL_GAMES
check "py-random survived the cut by reconnecting" "$WORK/py-random.log" \
  grep -q "1 reconnects" "$WORK/py-random.log"
conforms py-village "$PY_VILLAGE"
check "a Python bot logs its score and place after each match" "$WORK/py-village.log" \
  grep -qE "finished, seat [0-9]+: score -?[0-9.e+]+, place [0-9]+ of [0-9]+" "$WORK/py-village.log"
# docs/bots.md's Dragon's Gold example, as the page shows it, run as a bot.
{
  echo "import sys; sys.path.insert(0, '$REPO/bots/python')"
  awk '/^Dragon.s Gold — propose a division/ {found = 1} found && /^```python$/ {body = 1; next}
       body && /^```$/ {exit} body {print}' "$REPO/docs/bots.md"
  echo "hoard_bot.run(decide)"
} >"$WORK/docs_dragons_gold.py"
check "the docs' Dragon's Gold example was found" "$WORK/docs_dragons_gold.py" \
  grep -q "actions.dragons_gold.propose" "$WORK/docs_dragons_gold.py"
conforms py-docs-dragons-gold "$PY $WORK/docs_dragons_gold.py" --game dragons_gold
conforms node-random "$NODE_RANDOM" $ALL_GAMES
check "node-random survived the cut by reconnecting" "$WORK/node-random.log" \
  grep -q "1 reconnects" "$WORK/node-random.log"
conforms cpp-random "$CPP_RANDOM"
check "the checker reports the registration, each game, the cut and the conduct" \
  "$WORK/py-random.out" bash -c "grep -q '^PASS  registers' '$WORK/py-random.out' &&
    grep -q '^PASS  plays village' '$WORK/py-random.out' &&
    grep -q '^PASS  plays dragons_gold' '$WORK/py-random.out' &&
    grep -q '^PASS  several matches at once' '$WORK/py-random.out' &&
    grep -qE '^PASS  survives a reconnect +connection cut in the middle of match' '$WORK/py-random.out' &&
    grep -q '^PASS  answers in time' '$WORK/py-random.out' &&
    grep -q '^PASS  legal answers' '$WORK/py-random.out' &&
    grep -q '^PASS  decisions succeed' '$WORK/py-random.out'"

# The SDKs cover what a bot's own function gets wrong with the default
# action, and say so in each answer: the checker counts those answers as the
# faults they are, with an example.
FAST=(--decision-ms 500 --bank-ms 0)
for sdk in "py:$PY $REPO/tests/bots/sdk_bot.py" "node:node $REPO/tests/bots/sdk-bot.js"; do
  lang=${sdk%%:*}
  command=${sdk#*:}
  fails "$lang-sdk-illegal" "$command illegal" "${FAST[@]}"
  says "$lang-sdk-illegal" "illegal decisions fail, with an example and the SDK's retries" \
    '^FAIL  legal answers +[0-9]+ answers refused as illegal in [0-9]+ decisions \(at most 2% may be\); e.g. match m1, request [0-9]+: the bot answered legal_index [0-9]+, refused: legal_index [0-9]+ is out of range.*; the bot.s client answered [0-9]+ of them again with the default action$'
  check "$lang SDK: a refused decision is answered again, and logged" \
    "$WORK/$lang-sdk-illegal.log" grep -q "refused: legal_index" "$WORK/$lang-sdk-illegal.log"
  fails "$lang-sdk-slow" "$command slow" --decision-ms 300 --bank-ms 0
  says "$lang-sdk-slow" "the decisions its SDK answered for are late" \
    '^FAIL  answers in time +[0-9]+ of [0-9]+ decisions \(100%\) late \(300 ms a decision \+ 0 ms bank; at most 2% may be\): [0-9]+ not decided in time: the bot.s client sent the default action just before the deadline \(e\.g\. match m1, request [0-9]+\)'
  check "$lang SDK: a decision too slow for its deadline gets the default action in time" \
    "$WORK/$lang-sdk-slow.log" grep -q "no decision in time for request" "$WORK/$lang-sdk-slow.log"
  fails "$lang-sdk-crash" "$command crash" "${FAST[@]}"
  says "$lang-sdk-crash" "failing decisions fail" \
    '^FAIL  decisions succeed +[0-9]+ of [0-9]+ decisions \(100%\) failed \(at most 2% may be\): the bot.s code raised an error'
  says "$lang-sdk-crash" "the report shows the bot's error from its output" \
    '^        \| .*this bot fails on purpose'
  check "$lang SDK: a failing decision is logged and the default action played" \
    "$WORK/$lang-sdk-crash.log" grep -q "this bot fails on purpose" "$WORK/$lang-sdk-crash.log"
done

# Broken bots fail, with the reason.
fails illegal "$PY $REPO/tests/bots/broken_bot.py illegal" "${FAST[@]}"
says illegal "its refused answers, with an example" \
  '^FAIL  legal answers +[0-9]+ answers refused as illegal in [0-9]+ decisions \(at most 2% may be\); e\.g\. match m1, request 1: the bot answered legal_index [0-9]+, refused: '
says illegal "it forfeited" '^FAIL  plays village +forfeited match'
fails silent "$PY $REPO/tests/bots/broken_bot.py silent" "${FAST[@]}"
says silent "its decisions timed out, in which matches" \
  '^FAIL  answers in time +[0-9]+ of [0-9]+ decisions \(100%\) late .*: [0-9]+ timed out, the server playing the default action \(m1 \(3\), .*forfeited m1, '
fails slow "$PY $REPO/tests/bots/broken_bot.py slow" --decision-ms 300 --bank-ms 0
says slow "its 1.5 s decisions time out" \
  '^FAIL  answers in time +[0-9]+ of [0-9]+ decisions \(100%\) late \(300 ms a decision \+ 0 ms bank; at most 2% may be\): [0-9]+ timed out'
fails crash "$PY $REPO/tests/bots/broken_bot.py crash" "${FAST[@]}"
says crash "it played its first match" '^PASS  plays village'
says crash "then it died, with its last output shown" \
  '^FAIL  several matches at once +.*the bot exited with status 3.*; its last output \(all of it in .*/crash\.log\):$'
says crash "which says why" '^        \| broken_bot: crashing on purpose after match m1$'
says crash "the checks after that say it is gone" \
  '^FAIL  survives a reconnect +the bot exited with status 3: not checked$'
fails one-at-a-time "$PY_RANDOM --max-matches 1" "${FAST[@]}"
says one-at-a-time "several matches at once fails, with the hint" \
  '^FAIL  several matches at once +offered 3 matches at once .*; the bot registered with max_matches 1; start it with --max-matches 3 \(or max_matches in its hello\) to play several at once$'
fails dead "/bin/false" --connect-timeout-ms 3000
says dead "a bot that exits at once did so before registering" \
  '^FAIL  registers +the bot exited with status 1 before registering; it wrote nothing'
expect_error "check-bot needs a bot" 2 "give either --command CMD or --bot NAME" \
  -- "$HOARD" check-bot
expect_error "check-bot refuses an unknown game" 2 "unknown game 'chess'" \
  -- "$HOARD" check-bot --command "$PY_RANDOM" --game chess

# A round-robin across languages: launched Python, Node and C++ bots and a
# built-in one play village to the end, stored in SQLite, with a leaderboard.
"$HOARD" tournament --db "$WORK/cross.db" --bot-logs "$WORK/logs" --game village --players 3 \
  --participant "py-village=command:$PY_VILLAGE" --participant "py-random=command:$PY_RANDOM" \
  --participant "node-random=command:$NODE_RANDOM" --participant "cpp-random=command:$CPP_RANDOM" \
  --participant "builtin-random=builtin:random" --quiet >"$WORK/cross.out" 2>"$WORK/cross.err"
check "the cross-language round-robin finishes" "$WORK/cross.err" [ $? -eq 0 ]
check "it stored all 30 matches (5 bots, 3 a match, every seat order)" "$WORK/cross.out" \
  grep -q "FINISHED, 30 of 30 matches stored" "$WORK/cross.out"
seats=$("$PY" -c 'import sqlite3,sys; print(" ".join(sorted(
  "%s:%s=%d" % (("bot", "builtin")[builtin], name, n) for builtin, name, n in sqlite3.connect(sys.argv[1]).execute(
  "SELECT m.builtin, b.name, COUNT(*) FROM bot_matches m JOIN bots b ON b.id = m.bot_id "
  "GROUP BY m.builtin, b.name"))))' \
  "$WORK/cross.db" 2>&1)
echo "$seats" >"$WORK/seats"
check "SQLite holds 18 finished seats of each bot, in every language" "$WORK/seats" \
  [ "$seats" = "bot:cpp-random=18 bot:node-random=18 bot:py-random=18 bot:py-village=18 builtin:builtin-random=18" ]
for bot in py-village py-random node-random cpp-random builtin-random; do
  check "the leaderboard ranks $bot over its 18 matches" "$WORK/cross.out" \
    grep -qE "^[1-5] +$bot +[-+][0-9]+ \[.*\] .* 18 " "$WORK/cross.out"
done
"$HOARD" leaderboard --db "$WORK/cross.db" --game village >"$WORK/board" 2>&1
check "hoard leaderboard shows the same five bots" "$WORK/board" \
  [ "$(grep -cE '^[1-5] +(py|node|cpp|builtin)-' "$WORK/board")" -eq 5 ]

finish
