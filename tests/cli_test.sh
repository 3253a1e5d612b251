#!/usr/bin/env bash
# End-to-end tests of the hoard program: play, records, replay verify, and
# the one-line errors of bad input.
#
#   bash tests/cli_test.sh build/hoard
set -u
HOARD=${1:?usage: cli_test.sh PATH_TO_HOARD}
PY=/usr/bin/python3
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"

# A match finishes for every player count, with a final table of every seat.
for players in 2 3 4 5; do
  if "$HOARD" play --game village --players "$players" --seed 7 \
      --record "$WORK/match$players.json" >"$WORK/play$players" 2>&1 &&
      grep -q "^match over after" "$WORK/play$players" &&
      [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +random ' "$WORK/play$players")" -eq "$players" ]; then
    pass "play finishes a $players-player match"
  else
    fail "play finishes a $players-player match" "$WORK/play$players"
  fi
  if "$HOARD" replay verify "$WORK/match$players.json" >"$WORK/verify" 2>&1 &&
      grep -q "matches" "$WORK/verify"; then
    pass "replay verify accepts the $players-player record"
  else
    fail "replay verify accepts the $players-player record" "$WORK/verify"
  fi
done

# The log names who did what and shows the favor row after each action.
if grep -qE '^ +1\. seat 0 \(random\): ' "$WORK/play4" &&
    grep -qE '^ +favor [a-z]+=1 ' "$WORK/play4"; then
  pass "play prints each action and the favor row"
else
  fail "play prints each action and the favor row" "$WORK/play4"
fi

# The same seed plays the same match.
"$HOARD" play --players 4 --seed 7 --quiet >"$WORK/a" 2>&1
"$HOARD" play --players 4 --seed 7 --quiet >"$WORK/b" 2>&1
"$HOARD" play --players 4 --seed 8 --quiet >"$WORK/c" 2>&1
if cmp -s "$WORK/a" "$WORK/b" && ! cmp -s "$WORK/a" "$WORK/c"; then
  pass "the same seed plays the same match"
else
  fail "the same seed plays the same match"
fi

# A record with one action altered is rejected, naming the step.
step=$("$PY" - "$WORK/match4.json" "$WORK/altered.json" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))
step = next(i for i, a in enumerate(record["actions"]) if i >= 5 and a["text"] != "draw a card")
record["actions"][step]["code"] = "112"       # a draw
record["actions"][step]["text"] = "draw a card"
json.dump(record, open(sys.argv[2], "w"))
print(step + 1)
EOF
)
expect_error "replay verify names the altered step" 1 "does not match: step $step (seat" \
  -- "$HOARD" replay verify "$WORK/altered.json"

# An illegal action in a record is refused with the rule it breaks.
"$PY" - "$WORK/match3.json" "$WORK/illegal.json" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))
record["actions"][2]["code"] = str(1 | (5 << 4) | (40 << (7 + 6 * 6)))
record["actions"][2]["text"] = "bribe crowns with 40 wilds"
json.dump(record, open(sys.argv[2], "w"))
EOF
expect_error "replay verify refuses an illegal action" 1 \
  "step 3 (seat 2): 'bribe crowns with 40 wilds' cannot be played: " \
  -- "$HOARD" replay verify "$WORK/illegal.json"

# A recorded match commits to its deal: docs/records.md's recipe (jq and
# sha256sum alone), run as the doc writes it, hashes the record's seed and
# salt to the commitment the match printed before its first move.
recipe=$(grep -m1 "^test \"\$(printf '%s:%s'" "$(dirname "$0")/../docs/records.md")
mkdir -p "$WORK/recipe"
cp "$WORK/match4.json" "$WORK/recipe/r.json"
printed=$(sed -n 's/^deal commitment //p' "$WORK/play4")
check "docs/records.md's recipe checks a played match's commitment" "$WORK/recipe/out" \
  eval '[ -n "$recipe" ] && (cd "$WORK/recipe" && bash -c "$recipe") >"$WORK/recipe/out" 2>&1 &&
        grep -qx "commitment verified" "$WORK/recipe/out" &&
        [ "$(jq -r .seed_commitment "$WORK/recipe/r.json")" = "$printed" ] &&
        [[ "$printed" =~ ^[0-9a-f]{64}$ ]] &&
        [[ "$(jq -r .seed_salt "$WORK/recipe/r.json")" =~ ^[0-9a-f]{32}$ ]]'
check "replay verify says the seed and salt hash to the commitment" "$WORK/verify4" \
  eval '"$HOARD" replay verify "$WORK/match4.json" >"$WORK/verify4" 2>&1 &&
        grep -q "hash to the deal.s commitment $printed" "$WORK/verify4"'
# Another seed (or salt) than the one committed to fails both.
jq '.seed = "8"' "$WORK/match4.json" >"$WORK/wrong-seed.json"
cp "$WORK/wrong-seed.json" "$WORK/recipe/r.json"
check "the recipe fails on a record whose seed was changed" "$WORK/recipe/out" \
  eval '! (cd "$WORK/recipe" && bash -c "$recipe") >"$WORK/recipe/out" 2>&1'
expect_error "replay verify refuses a seed other than the one committed to" 1 \
  "wrong-seed.json does not match: its seed and salt do not hash to its seed_commitment (SHA-256 of \"8:" \
  -- "$HOARD" replay verify "$WORK/wrong-seed.json"
jq '.seed_salt = "00000000000000000000000000000000"' "$WORK/match4.json" >"$WORK/wrong-salt.json"
expect_error "replay verify refuses a salt other than the one committed to" 1 \
  "does not match: its seed and salt do not hash to its seed_commitment" \
  -- "$HOARD" replay verify "$WORK/wrong-salt.json"
# A record written before commitments still verifies, and says it has none.
check "a record without a commitment verifies, saying its deal carries none" "$WORK/old" \
  eval '"$HOARD" replay verify "$(dirname "$0")/../engine/testdata/village_v1.json" >"$WORK/old" 2>&1 &&
        grep -q "the deal carries no commitment" "$WORK/old"'

# The compact form a store keeps (format 3) verifies as the expanded one
# does, names the step where a changed move parts, and expands back to the
# same record in every field.
"$HOARD" replay compact "$WORK/match4.json" >"$WORK/compact4.json" 2>"$WORK/compact4.err"
check "replay compact writes format 3: packed moves and the final state, no steps or deal" \
  "$WORK/compact4.json" jq -e '.format == "hoard.match_record.v3" and (.compact.moves | length) > 0
    and (.compact.final_state | length) == 16 and (.actions | length) == 0
    and (.setup | length) == 0' "$WORK/compact4.json"
check "a compact record verifies, with as many actions as the record it came from" "$WORK/v3" \
  eval '"$HOARD" replay verify "$WORK/compact4.json" >"$WORK/v3" 2>&1 &&
        grep -q "$(jq .actions\|length "$WORK/match4.json") actions, compact)" "$WORK/v3" &&
        grep -q "the seed and salt hash to the deal" "$WORK/v3"'
jq '.compact.final_state = "0000000000000000"' "$WORK/compact4.json" >"$WORK/compact-bad.json"
expect_error "replay verify refuses a compact record whose final state differs" 1 \
  "does not match: the final state's fingerprint is" \
  -- "$HOARD" replay verify "$WORK/compact-bad.json"
"$HOARD" replay compact "$WORK/compact4.json" >"$WORK/compact4-again.json" 2>&1
check "compacting a compact record gives it back" "$WORK/compact4-again.json" \
  cmp -s "$WORK/compact4.json" "$WORK/compact4-again.json"

# The games are listed with their options; each listed game has its rules
# page, plays a seeded match between built-in bots, and replays from its
# record. The list comes from the program itself (its game registry).
"$HOARD" games >"$WORK/games" 2>&1
GAMES=$(sed -n 's/^\([a-z_][a-z_0-9]*\) — .*/\1/p' "$WORK/games")
if [ "$(echo "$GAMES" | wc -w)" -ge 4 ] &&
    grep -q "^village — Please Don't Burn My Village!" "$WORK/games" &&
    grep -q "option wilds (default auto)" "$WORK/games" &&
    grep -q "option negotiation_proposals (default 6)" "$WORK/games"; then
  pass "games lists every game and its options"
else
  fail "games lists every game and its options" "$WORK/games"
fi
for game in $GAMES; do
  players=$(sed -n "/^$game — /{n;s/^  players \([0-9]*\)-.*/\1/p}" "$WORK/games")
  bots=$(yes heuristic | head -n "$players" | paste -sd,)
  if [ -f "$(dirname "$0")/../docs/rules/$game.md" ] &&
      "$HOARD" play --game "$game" --players "$players" --seed 3 --bots "$bots" \
        --record "$WORK/$game.json" >"$WORK/$game.out" 2>&1 &&
      grep -q "^match over after" "$WORK/$game.out" &&
      "$HOARD" replay verify "$WORK/$game.json" >"$WORK/$game.verify" 2>&1; then
    pass "$game has its rules page, plays a match of $players and replays it"
  else
    fail "$game has its rules page, plays a match of $players and replays it" "$WORK/$game.out"
  fi
  # Its replay file carries every perspective in at most ten times the
  # record's bytes beyond the app (docs/performance.md, Replays).
  "$HOARD" replay html "$WORK/$game.json" >"$WORK/$game.html" 2>&1
  data=$(sed -n 's/.*HOARD_REPLAY_GZIP = "\([A-Za-z0-9+\/=]*\)".*/\1/p' "$WORK/$game.html" | wc -c)
  record=$(wc -c <"$WORK/$game.json")
  if [ "$data" -gt 100 ] && [ "$data" -le $((10 * record)) ]; then
    pass "$game's replay file carries its replay in $data bytes, at most 10 times its record's $record"
  else
    fail "$game's replay file carries its replay in $data bytes, at most 10 times its record's $record"
  fi
done
# Every built-in bot of every game plays through hoard play, side by side
# (typed actions outside a decision's examples included), and the record
# replays. Four seats, taken in turn by the game's bots as `hoard games`
# lists them (mcts with a small search).
for game in $GAMES; do
  bots=$(sed -n "/^$game — /{n;s/.*bots: //p}" "$WORK/games" | sed 's/mcts/mcts-30/; s/, /\n/g' |
         awk '{b[NR]=$0} END {for (i = 0; i < 4; i++) printf "%s%s", (i ? "," : ""), b[i % NR + 1]}')
  if "$HOARD" play --game "$game" --players 4 --seed 11 --bots "$bots" --quiet \
        --record "$WORK/$game-all.json" >"$WORK/$game-all.out" 2>&1 &&
      "$HOARD" replay verify "$WORK/$game-all.json" >"$WORK/$game-all.verify" 2>&1; then
    pass "$game: every built-in bot plays a match ($bots) that replays"
  else
    fail "$game: every built-in bot plays a match ($bots) that replays" "$WORK/$game-all.out"
  fi
done
KNOWN=$(echo $GAMES | sed 's/ /, /g')
README="$(dirname "$0")/../README.md"
"$HOARD" games --markdown >"$WORK/games.md" 2>&1
if sed -n '/^| id | game | players |$/,/^$/p' "$README" | sed '/^$/d' | diff - "$WORK/games.md" >"$WORK/games.diff"; then
  pass "README's table of games is hoard games --markdown"
else
  fail "README's table of games is hoard games --markdown" "$WORK/games.diff"
fi

# A Dragon's Gold match between built-in bots, with its record verified.
if "$HOARD" play --game dragons_gold --players 4 --seed 5 --record "$WORK/dg.json" \
      >"$WORK/dg" 2>&1 && grep -q "propose" "$WORK/dg" &&
    [ "$(grep -cE '^ +[1-4] +[0-3] +random ' "$WORK/dg")" -eq 4 ] &&
    "$HOARD" replay verify "$WORK/dg.json" >"$WORK/dg.verify" 2>&1; then
  pass "a Dragon's Gold match plays, negotiates and verifies"
else
  fail "a Dragon's Gold match plays, negotiates and verifies" "$WORK/dg"
fi

# A Frost Dragon's Treasure match between built-in bots, with its record verified.
if "$HOARD" play --game frost_dragon --players 3 --seed 5 --record "$WORK/fd.json" \
      >"$WORK/fd" 2>&1 && grep -q "name .* trump" "$WORK/fd" && grep -q "boast" "$WORK/fd" &&
    [ "$(grep -cE '^ +[1-3] +[0-2] +random ' "$WORK/fd")" -eq 3 ] &&
    "$HOARD" replay verify "$WORK/fd.json" >"$WORK/fd.verify" 2>&1; then
  pass "a Frost Dragon's Treasure match plays, boasts and verifies"
else
  fail "a Frost Dragon's Treasure match plays, boasts and verifies" "$WORK/fd"
fi

# Hedonia: listed with its option; a match with sealed claims verifies.
if grep -q "^hedonia — Hedonia" "$WORK/games" &&
    grep -q "option end (default hands_empty)" "$WORK/games"; then
  pass "games lists hedonia and its options"
else
  fail "games lists hedonia and its options" "$WORK/games"
fi
if "$HOARD" play --game hedonia --players 5 --seed 5 --record "$WORK/hd.json" \
      >"$WORK/hd" 2>&1 && grep -q "claim left" "$WORK/hd" &&
    grep -q "round 12 claims" "$WORK/hd" &&
    [ "$(grep -cE '^ +[1-5] +[0-4] +random ' "$WORK/hd")" -eq 5 ] &&
    "$HOARD" replay verify "$WORK/hd.json" >"$WORK/hd.verify" 2>&1; then
  pass "a Hedonia match plays twelve rounds of claims and verifies"
else
  fail "a Hedonia match plays twelve rounds of claims and verifies" "$WORK/hd"
fi

# Bad input: one line naming the problem, a non-zero exit, never a crash.
printf '{"format": "hoard.match_record.v1", "actions": [' >"$WORK/corrupt.json"
expect_error "a corrupt record" 1 "corrupt.json: not a match record" \
  -- "$HOARD" replay verify "$WORK/corrupt.json"
head -c 300 /dev/urandom >"$WORK/noise.json"
expect_error "a record of random bytes" 1 "not a match record" \
  -- "$HOARD" replay verify "$WORK/noise.json"
expect_error "a missing record" 1 "cannot open" \
  -- "$HOARD" replay verify "$WORK/none.json"
expect_error "an unknown game" 2 "unknown game 'chess' (known: $KNOWN)" \
  -- "$HOARD" play --game chess
expect_error "a bad player count" 2 "village is played by 2 to 5 players, not 6" \
  -- "$HOARD" play --players 6
expect_error "a player count that is no number" 2 "--players needs a whole number" \
  -- "$HOARD" play --players four
expect_error "an unknown bot" 2 "unknown bot 'genius'" \
  -- "$HOARD" play --players 2 --bots random,genius
expect_error "too few bots" 2 "names 2 bots for 3 players: give one per seat or one for all" \
  -- "$HOARD" play --players 3 --bots random,first
"$HOARD" play --players 3 --bots heuristic --record "$WORK/one-name.json" --quiet >/dev/null 2>&1
check "one --bots name seats that bot in every seat, as in hoard stats" "$WORK/one-name.json" \
  bash -c "[ \"\$(jq -c .seats '$WORK/one-name.json')\" = '[\"heuristic\",\"heuristic\",\"heuristic\"]' ]"
"$HOARD" --help >"$WORK/help" 2>&1
check "hoard --help lists every command, replay html among them" "$WORK/help" \
  bash -c "grep -q '^  replay html ' '$WORK/help' && grep -q '^  replay verify ' '$WORK/help'"
check "every command hoard --help lists answers its own --help" "$WORK/help" \
  bash -c "for c in \$(sed -n 's/^  \([a-z-]*\) .*/\1/p' '$WORK/help' | sort -u); do
             '$HOARD' \$c --help >/dev/null 2>&1 || { echo \$c; exit 1; }; done"
expect_error "an unknown option" 2 "village has no option 'dragons'" \
  -- "$HOARD" play --option dragons=2
expect_error "a bad option value" 2 "wilds must be 'auto' or a number" \
  -- "$HOARD" play --option wilds=lots
expect_error "an unknown flag" 2 "unknown flag --speed" \
  -- "$HOARD" play --speed 3
expect_error "an unknown command" 2 "unknown command 'fly'" \
  -- "$HOARD" fly
expect_error "replay without verify or html" 2 "usage: hoard replay verify|html|compact FILE" \
  -- "$HOARD" replay "$WORK/match2.json"
expect_error "a bot without credentials" 2 "give either --name and --key, or --match and --token" \
  -- "$HOARD" bot --server 127.0.0.1:1
expect_error "a bot with an unknown strategy" 2 "unknown strategy 'smart'" \
  -- "$HOARD" bot --name a --key b --strategy smart
expect_error "serve with a bad limit" 2 "--max-matches needs a number from 1" \
  -- "$HOARD" serve --max-matches 0
expect_error "a match without seats" 2 "create needs --seats" \
  -- "$HOARD" match create --server 127.0.0.1:1
expect_error "a seat of no kind" 2 "a seat is open, builtin:NAME or bot:NAME, not 'robot'" \
  -- "$HOARD" match create --server 127.0.0.1:1 --seats open,robot
# A near miss of a command or of a flag is named.
expect_error "a misspelt command gets a suggestion" 2 "unknown command 'mach' (did you mean 'match'?" \
  -- "$HOARD" mach list
expect_error "an abbreviated command gets a suggestion" 2 "did you mean 'leaderboard'?" \
  -- "$HOARD" leader --game village
for pair in "bots lst:list" "match wach:watch" "replay verfy:verify" "bench arna:arena" \
    "tournament lst:list"; do
  expect_error "a misspelt subcommand gets a suggestion (${pair%%:*})" 2 \
    "unknown ${pair%% *} command '.*' (did you mean '${pair##*:}'?)" -- "$HOARD" ${pair%%:*}
done
expect_error "a misspelt flag gets a suggestion" 2 "unknown flag --gmae (did you mean --game?)" \
  -- "$HOARD" match list --gmae village
expect_error "a far miss gets none" 2 "unknown flag --colour$" \
  -- "$HOARD" match list --colour red

# Where no server answers, each client command says so in one line (exit 1),
# naming the address it tried: --server, else HOARD_SERVER.
NO_SERVER="no Hoard server answers at 127.0.0.1:1 (start one with 'hoard serve', or set --server / HOARD_SERVER)"
expect_error "match list: no server answers" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" match list --server 127.0.0.1:1
expect_error "match create: no server answers" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" match create --seats builtin:random,builtin:random --server 127.0.0.1:1
expect_error "bots list: no server answers" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" bots list --server 127.0.0.1:1
expect_error "health: no server answers" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" health --server 127.0.0.1:1
expect_error "leaderboard --server: no server answers" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" leaderboard --server 127.0.0.1:1 --game village
expect_error "tournament --server: no server answers, before anything is stored" 1 \
  "^hoard: $NO_SERVER$" -- "$HOARD" tournament --server 127.0.0.1:1 --db "$WORK/remote.db" --quiet
check "and it stores no tournament" "$WORK/err" [ ! -e "$WORK/remote.db" ]
expect_error "tournament --server twice the same: refused before any call" 2 \
  "^hoard: the server 127.0.0.1:1 is given twice$" \
  -- "$HOARD" tournament --server 127.0.0.1:1 --server 127.0.0.1:1 --db "$WORK/remote.db" --quiet
expect_error "tournament --server that is no HOST:PORT" 2 \
  "^hoard: '127.0.0.1' is not a server's HOST:PORT$" \
  -- "$HOARD" tournament --server 127.0.0.1:1 --server 127.0.0.1 --db "$WORK/remote.db" --quiet
echo "not a certificate" >"$WORK/ca.pem"
expect_error "tournament over TLS to servers of two host names: one channel checks one name" 2 \
  "several servers must share one host name" \
  -- env HOARD_TLS_CA="$WORK/ca.pem" "$HOARD" tournament --server 127.0.0.1:1 \
  --server localhost:2 --db "$WORK/remote.db" --quiet
expect_error "tournament over several servers, none answering" 1 "^hoard: $NO_SERVER$" \
  -- "$HOARD" tournament --server 127.0.0.1:1 --server 127.0.0.1:2 --db "$WORK/remote.db" --quiet
check "none of them stores a tournament" "$WORK/err" [ ! -e "$WORK/remote.db" ]
for command in "match list" "bots list" health "leaderboard --remote --game village"; do
  expect_error "$command reads HOARD_SERVER" 1 "^hoard: $NO_SERVER$" \
    -- env HOARD_SERVER=127.0.0.1:1 "$HOARD" $command
done
expect_error "tournament --remote reads HOARD_SERVER" 1 "^hoard: $NO_SERVER$" \
  -- env HOARD_SERVER=127.0.0.1:1 "$HOARD" tournament --remote --db "$WORK/remote.db" --quiet
# HOARD_SERVER alone does not turn a leaderboard's reading of a database into
# a call to a server.
expect_error "leaderboard without --remote reads a database, not HOARD_SERVER" 1 \
  "no database $WORK/none.db (run a tournament first, or give --db; --remote asks the server at 127.0.0.1:1)" \
  -- env HOARD_SERVER=127.0.0.1:1 "$HOARD" leaderboard --game village --db "$WORK/none.db"
# A bot waits for its server, and says once that none answers (then, told
# to stop by timeout's SIGTERM, it may sum up what it did).
timeout 3 "$HOARD" bot --server 127.0.0.1:1 --name a --key b >"$WORK/bot.out" 2>&1
check "a bot waiting for its server says once that none answers" "$WORK/bot.out" \
  [ "$(head -1 "$WORK/bot.out")" = "hoard bot: $NO_SERVER; waiting for it" ]
check "and only once" "$WORK/bot.out" \
  [ "$(grep -c "no Hoard server answers" "$WORK/bot.out")" -eq 1 ]

# hoard stats: many matches summed up, the same on any number of threads.
"$HOARD" stats --game village --players 3 --matches 200 --threads 1 >"$WORK/stats1" 2>"$WORK/stats.err"
"$HOARD" stats --game village --players 3 --matches 200 --threads 2 --quiet >"$WORK/stats2" 2>&1
check "stats prints the win rate of each seat" "$WORK/stats1" \
  [ "$(grep -cE '^  seat [0-2] +[0-9.]+% ±' "$WORK/stats1")" -eq 3 ]
check "stats prints how the matches ended, all of them" "$WORK/stats1" \
  [ "$(awk '/^ended/{on=1;next} on&&/^  /{n+=$(NF-3)} on&&/^$/{on=0} END{print n}' "$WORK/stats1")" = 200 ]
check "stats reports progress on stderr and ends at the last match" "$WORK/stats.err" \
  grep -q "^stats: 200/200 matches" "$WORK/stats.err"
check "stats gives the same report on one thread or two" "$WORK/stats2" \
  cmp -s "$WORK/stats1" "$WORK/stats2"
expect_error "stats needs a game" 2 "stats needs --game" -- "$HOARD" stats
expect_error "stats: a player count the game does not take" 2 "is played by 2 to 5" \
  -- "$HOARD" stats --game village --players 9
expect_error "stats: a bot for each seat or one for all" 2 "give one per seat or one for all" \
  -- "$HOARD" stats --game village --players 3 --bots random,first
expect_error "stats: a bad option is named" 2 "hand_size" \
  -- "$HOARD" stats --game village --option hand_size=99 --quiet

for command in serve bot match "bench arena" stats; do
  if "$HOARD" $command --help >"$WORK/help" 2>&1 && grep -q "^usage: hoard ${command%% *}" "$WORK/help"; then
    pass "$command --help"
  else
    fail "$command --help" "$WORK/help"
  fi
done
# The arena bench, every phase at a tiny size: each prints its line.
"$HOARD" bench arena --seconds 0.5 --idle-matches 20 --timeout-matches 20 \
  --timeout-seconds 0.5 --thinking-matches 0 --load-matches 10,30 --load-seconds 0.5 \
  >"$WORK/bench" 2>&1
check "bench arena: decisions, floor and the single stream against its floor" "$WORK/bench" \
  grep -q "^single stream p50 vs floor: [0-9.]*x" "$WORK/bench"
check "bench arena: each load phase, then the ratio between them" "$WORK/bench" \
  grep -qE "^load: decisions/s at 30 matches vs at 10: [0-9.]+" "$WORK/bench"
check "bench arena: the load phases' bots answer at once, so nothing times out" "$WORK/bench" \
  [ "$(grep -cE '^load: [0-9]+ matches at 100 ms.* [1-9][0-9]* decisions.*; 0 time-outs' "$WORK/bench")" -eq 2 ]
check "bench arena: each load phase names the rate its matches need (matches / decision time)" "$WORK/bench" \
  grep -qE "^load: 30 matches at 100 ms need at least 300 decisions/s" "$WORK/bench"
expect_error "bench arena: a bad load list" 2 "--load-matches needs counts" \
  -- "$HOARD" bench arena --load-matches 10,x
expect_error "an unwritable record path" 1 "cannot write" \
  -- "$HOARD" play --players 2 --quiet --record "$WORK/no/such/dir/r.json"

# A database password never goes on a command line, where ps shows it.
for command in serve "leaderboard --game village" "export --game village" \
    "tournament --game village --participant a=builtin:random --participant b=builtin:first"; do
  expect_error "${command%% *}: a password in the --db address is refused" 2 \
    "give postgresql://hoard@db.example/hoard and the password in a file named by HOARD_DB_PASSWORD_FILE (or in PGPASSWORD, or ~/.pgpass)" \
    -- "$HOARD" $command --db "postgresql://hoard:s3cret@db.example/hoard"
  check "${command%% *}: and not shown" "$WORK/err" bash -c "! grep -q s3cret '$WORK/err'"
done
expect_error "a password= in the address is refused too" 2 "HOARD_DB_PASSWORD_FILE" \
  -- "$HOARD" leaderboard --game village --db "postgresql://db.example/hoard?password=s3cret"

finish
