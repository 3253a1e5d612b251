#!/usr/bin/env bash
# End-to-end tests of hoard ratings: the three systems on small results
# files, the machine-readable forms, and the one-line errors of bad input.
#
#   bash tests/ratings_cli_test.sh build/hoard
set -u
HOARD=${1:?usage: ratings_cli_test.sh PATH_TO_HOARD}
PY=/usr/bin/python3
WORK=$(mktemp -d)
# Servers keep their admin token here, where this test's clients find it.
export HOARD_STATE_DIR="$WORK/state"
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"

differ() { ! cmp -s "$1" "$2"; }

# One two-player match: equal bots at 1500 move by K/2 = 16 (each provisional, ?).
printf 'match_id,bot,place\nm1,alpha,1\nm1,beta,2\n' >"$WORK/two.csv"
"$HOARD" ratings --input "$WORK/two.csv" --system elo --k 32 >"$WORK/elo" 2>&1
check "elo: the winner gains 16, the loser loses 16" "$WORK/elo" \
  grep -qE '^ +1 +alpha +1516\.0\? +1$' "$WORK/elo"
check "elo: the loser is second at 1484" "$WORK/elo" \
  grep -qE '^ +2 +beta +1484\.0\? +1$' "$WORK/elo"
check "elo says it depends on the order of the matches" "$WORK/elo" \
  grep -q "depends on the order of the matches" "$WORK/elo"

# Tied places: the tied bots get the same rating.
printf 'match_id,bot,place\nm1,a,1\nm1,b,1\nm1,c,3\n' >"$WORK/tie.csv"
"$HOARD" ratings --input "$WORK/tie.csv" --system elo --csv >"$WORK/tie" 2>&1
check "elo: bots tied for first share rank and rating" "$WORK/tie" \
  grep -qx '1,a,1510.6666666666667,1' "$WORK/tie"
check "elo: ... both of them" "$WORK/tie" grep -qx '1,b,1510.6666666666667,1' "$WORK/tie"

# OpenSkill, one three-player match at the defaults with tau 0.
printf 'match_id,bot,place\nm1,third,3\nm1,first,1\nm1,second,2\n' >"$WORK/three.csv"
"$HOARD" ratings --input "$WORK/three.csv" --system openskill --tau 0 >"$WORK/os" 2>&1
check "openskill: mu and sigma of the winner" "$WORK/os" \
  grep -qE '^ +1 +first +3\.25\? +27\.87 +8\.20 +1$' "$WORK/os"
check "openskill: the third place" "$WORK/os" \
  grep -qE '^ +3 +third +-2\.76\? +21\.41 +8\.06 +1$' "$WORK/os"
"$HOARD" ratings --input "$WORK/three.csv" --system openskill --tau 0 --csv >"$WORK/os.csv" 2>&1
awk -F, 'NR > 1 { printf "%s %.4f %.4f\n", $2, $4, $5 }' "$WORK/os.csv" >"$WORK/os.vector"
printf 'first 27.8689 8.2048\nsecond 25.7172 8.0578\nthird 21.4139 8.0578\n' >"$WORK/os.expected"
check "openskill --csv: the test vector to four decimals" "$WORK/os.csv" \
  cmp -s "$WORK/os.vector" "$WORK/os.expected"

# Maximum likelihood: strong wins most of 60 three-player matches, weak
# loses most; the rows of each match list weak first.
{
  echo "match_id,bot,place"
  for m in $(seq 60); do
    if [ $((m % 5)) -eq 0 ]; then w=3 i=1 s=2
    elif [ $((m % 7)) -eq 0 ]; then w=1 i=3 s=2
    else w=3 i=2 s=1; fi
    printf 'g%d,weak,%d\ng%d,middle,%d\ng%d,strong,%d\n' "$m" "$w" "$m" "$i" "$m" "$s"
  done
} >"$WORK/ml.csv"
"$HOARD" ratings --input "$WORK/ml.csv" --system ml >"$WORK/ml" 2>&1
check "ml: best first" "$WORK/ml" \
  test "$(awk '/^ +[0-9]+ /{print $2}' "$WORK/ml" | paste -sd,)" = "strong,middle,weak"
interval_row='^ +[0-9]+ +[a-z]+ +-?[0-9.]+ +\[ *-?[0-9.]+, +-?[0-9.]+\] +60$'
check "ml: an interval per bot" "$WORK/ml" test "$(grep -cE "$interval_row" "$WORK/ml")" -eq 3
check "ml states how its intervals were computed" "$WORK/ml" \
  grep -qx "95% intervals: the wider of a percentile bootstrap over matches (1000 samples, seed 1) and the profile likelihood with the prior; the same in any order of the rows." "$WORK/ml"
"$HOARD" ratings --input "$WORK/ml.csv" --system ml >"$WORK/ml.again" 2>&1
"$HOARD" ratings --input "$WORK/ml.csv" --system ml --seed 2 >"$WORK/ml.seed2" 2>&1
check "ml: the same seed gives the same intervals" "$WORK/ml.again" \
  cmp -s "$WORK/ml" "$WORK/ml.again"
check "ml: another seed resamples differently" "$WORK/ml.seed2" \
  differ <(grep '^ ' "$WORK/ml") <(grep '^ ' "$WORK/ml.seed2")
check "ml: ... and says so" "$WORK/ml.seed2" \
  grep -q "bootstrap over matches (1000 samples, seed 2)" "$WORK/ml.seed2"
# Rows reordered (reversed; shuffled, so that bots and matches first appear
# in another order): every rating and interval the same, to the last bit
# (--csv prints every digit).
{ head -1 "$WORK/ml.csv"; tail -n +2 "$WORK/ml.csv" | tac; } >"$WORK/ml.reversed.csv"
{ head -1 "$WORK/ml.csv"; tail -n +2 "$WORK/ml.csv" | "$PY" -c '
import random, sys
rows = sys.stdin.readlines()
random.Random(7).shuffle(rows)
sys.stdout.writelines(rows)'; } >"$WORK/ml.shuffled.csv"
for order in ml ml.reversed ml.shuffled; do
  "$HOARD" ratings --input "$WORK/$order.csv" --system ml --csv >"$WORK/$order.ml"
  "$HOARD" ratings --input "$WORK/$order.csv" --system elo --csv >"$WORK/$order.elo"
done
check "ml: the shuffled file differs in its first rows" "$WORK/ml.shuffled.csv" \
  differ <(sed -n 2,4p "$WORK/ml.csv") <(sed -n 2,4p "$WORK/ml.shuffled.csv")
check "ml: rows in reverse order give the same ratings and intervals, bit for bit" \
  "$WORK/ml.reversed.ml" cmp -s "$WORK/ml.ml" "$WORK/ml.reversed.ml"
check "ml: shuffled rows give the same ratings and intervals, bit for bit" \
  "$WORK/ml.shuffled.ml" cmp -s "$WORK/ml.ml" "$WORK/ml.shuffled.ml"
check "elo: matches in reverse order give other ratings" "$WORK/ml.reversed.elo" \
  differ "$WORK/ml.elo" "$WORK/ml.reversed.elo"
check "--csv prints full precision (shortest round trip, more than 10 digits)" "$WORK/ml.ml" \
  grep -qE '^1,strong,-?[0-9]+\.[0-9]{9,}' "$WORK/ml.ml"

# A perfect record: A first in all of 1,000 matches against B. The data
# bound the gap from below only, the prior's virtual ties from above: both
# intervals finite, the gap at least about 950 points.
{
  echo "match_id,bot,place"
  for m in $(seq 1000); do printf 'p%d,A,1\np%d,B,2\n' "$m" "$m"; done
} >"$WORK/perfect.csv"
"$HOARD" ratings --input "$WORK/perfect.csv" --system ml >"$WORK/perfect" 2>&1
check "ml: a perfect record gives A a finite interval" "$WORK/perfect" \
  grep -qE '^ +1 +A +605\.2  +\[ +4[0-9][0-9]\.[0-9], +8[0-9][0-9]\.[0-9]\] +1000$' "$WORK/perfect"
check "ml: ... and B the mirror image" "$WORK/perfect" \
  grep -qE '^ +2 +B +-605\.2  +\[ +-8[0-9][0-9]\.[0-9], +-4[0-9][0-9]\.[0-9]\] +1000$' "$WORK/perfect"
check "ml: ... and says the tiers are separated" "$WORK/perfect" \
  grep -q "^Separated: .*tier 0: A; tier 1: B\.$" "$WORK/perfect"
"$HOARD" ratings --input "$WORK/perfect.csv" --system ml --json >"$WORK/perfect.json" 2>&1
check "ml --json: every end a number, and the separation flagged" "$WORK/perfect.json" \
  "$PY" -c '
import json, sys
report = json.load(open(sys.argv[1]))
a, b = report["ratings"]
assert report["separated"] is True and report["disconnected"] is False, report
assert report["prior_ties"] == 2, report
assert 400 < a["low"] < a["rating"] < a["high"] < 1000, report
assert abs(a["low"] + b["high"]) < 1e-6 and (a["tier"], b["tier"]) == (0, 1), report
' "$WORK/perfect.json"
"$HOARD" ratings --input "$WORK/perfect.csv" --system ml --prior 8 --bootstrap 0 --csv \
  >"$WORK/perfect.prior8" 2>&1
check "ml --prior: a stronger prior pulls the gap in" "$WORK/perfect.prior8" \
  "$PY" -c '
import csv, sys
a = next(csv.DictReader(open(sys.argv[1])))
assert 300 < float(a["rating"]) < 605, a
' "$WORK/perfect.prior8"

# Provisional: a bot of one match (unbeaten) is marked ? and ranked below
# the established ones; --all ranks everyone together.
{ cat "$WORK/ml.csv"; printf 'x1,newcomer,1\nx1,strong,2\nx1,weak,3\n'; } >"$WORK/newcomer.csv"
"$HOARD" ratings --input "$WORK/newcomer.csv" --system ml >"$WORK/newcomer" 2>&1
"$HOARD" ratings --input "$WORK/newcomer.csv" --system ml --all >"$WORK/newcomer.all" 2>&1
check "ml: a one-match bot ranks below the established, marked ?" "$WORK/newcomer" \
  test "$(awk '/^ +[0-9]+ /{print $2 $3}' "$WORK/newcomer" | paste -sd,)" = \
  "$(awk '/^ +[0-9]+ /{print $2 $3}' "$WORK/newcomer" | grep -v '?$' | paste -sd,),$(awk '/^ +[0-9]+ /{print $2 $3}' "$WORK/newcomer" | grep '^newcomer' )"
check "ml: ... its interval finite" "$WORK/newcomer" \
  grep -qE '^ +4 +newcomer +[0-9.]+\? +\[ *-?[0-9.]+, +[0-9.]+\] +1$' "$WORK/newcomer"
check "ml: ... and the footer says what ? means" "$WORK/newcomer" \
  grep -q '^?: provisional (fewer than 15 matches and an interval wider than 400 points)\.$' \
  "$WORK/newcomer"
check "ml --all: one ranking by rating" "$WORK/newcomer.all" \
  test "$(awk '/^ +[0-9]+ /{print $3}' "$WORK/newcomer.all" | tr -d '?' | paste -sd' ')" = \
  "$(awk '/^ +[0-9]+ /{print $3}' "$WORK/newcomer.all" | tr -d '?' | sort -gr | paste -sd' ')"

# An independent computation (plain Python: MM and the profile interval)
# agrees with hoard to 1e-6 points, at two strengths of the prior.
for prior in 2 0.5; do
  "$PY" "$(dirname "$0")/ratings_ml_reference.py" "$(dirname "$0")/ratings_ml_vectors.csv" \
    --hoard "$HOARD" --prior "$prior" >"$WORK/reference" 2>&1
  check "ml: the reference computation agrees (prior $prior)" "$WORK/reference" \
    grep -qx agree "$WORK/reference"
done
printf 'match_id,bot,place\nm1,a,1\nm1,b,2\nm2,b,1\nm2,a,2\nm3,c,1\nm3,d,2\nm4,d,1\nm4,c,2\n' \
  >"$WORK/apart.csv"
"$HOARD" ratings --input "$WORK/apart.csv" --system ml >"$WORK/apart" 2>&1
check "ml: groups that never met are flagged" "$WORK/apart" \
  grep -qE "^Disconnected: .*: (a, b \| c, d|c, d \| a, b)\.$" "$WORK/apart"

# --json is valid JSON carrying the same ratings and the interval method.
"$HOARD" ratings --input "$WORK/ml.csv" --system ml --json >"$WORK/ml.json" 2>&1
check "ml --json" "$WORK/ml.json" "$PY" -c '
import json, sys
report = json.load(open(sys.argv[1]))
bots = [r["bot"] for r in report["ratings"]]
assert report["system"] == "ml" and report["matches"] == 60, report
assert report["interval"] == "the wider of a percentile bootstrap over matches (1000 samples, seed 1) and the profile likelihood with the prior", report
assert report["separated"] is False and report["disconnected"] is False, report
assert report["bootstrap_samples"] == 1000 and report["seed"] == "1", report
assert bots == ["strong", "middle", "weak"], bots
assert all(r["low"] < r["rating"] < r["high"] for r in report["ratings"]), report
' "$WORK/ml.json"

# Bad input: one line naming the problem. expect_bad_file NAME PATTERN
# CONTENT rates a file of CONTENT (a printf format); expect_usage NAME
# PATTERN FLAGS... rates two.csv with FLAGS.
expect_bad_file() {
  printf "$3" >"$WORK/bad.csv"
  expect_error "$1" 1 "$2" -- "$HOARD" ratings --input "$WORK/bad.csv" --system ml
}
expect_usage() {
  local name=$1 pattern=$2
  shift 2
  expect_error "$name" 2 "$pattern" -- "$HOARD" ratings --input "$WORK/two.csv" "$@"
}
expect_bad_file "a place that is no number" \
  "bad.csv: line 3: place 'second' is not a positive integer" \
  'match_id,bot,place\nm1,a,1\nm1,b,second\n'
expect_bad_file "an unknown header" "bad.csv: line 2: unknown header 'match,player,rank'" \
  '# results\nmatch,player,rank\n'
expect_bad_file "a missing column" "line 3: missing column place" \
  'match_id,bot,place\nm1,a,1\nm1,b\n'
expect_bad_file "a bot twice in a match" \
  "line 4: bot 'a' is in match 'm1' twice (also on line 2)" \
  'match_id,bot,place\nm1,a,1\nm1,b,2\nm1,a,3\n'
expect_bad_file "a match of one player" "line 4: match 'm2' has only one player" \
  'match_id,bot,place\nm1,a,1\nm1,b,2\nm2,a,1\n'
expect_bad_file "a file without matches" "bad.csv: no matches" 'match_id,bot,place\n'
expect_error "a missing file" 1 "cannot open $WORK/none.csv" \
  -- "$HOARD" ratings --input "$WORK/none.csv" --system ml
expect_usage "no system" "ratings needs --system elo, ml or openskill"
expect_usage "an unknown system" "unknown rating system 'glicko'" --system glicko
expect_usage "a flag of another system" "--k applies to --system elo only" --system ml --k 16
expect_usage "a bad K" "--k needs a number above 0" --system elo --k 0
expect_usage "a prior of no ties" "--prior needs a number above 0" --system ml --prior 0
expect_usage "a prior for elo" "--prior applies to --system ml only" --system elo --prior 2
expect_usage "a bad resample count" "--bootstrap needs a number from 0 to 100000" \
  --system ml --bootstrap many
expect_usage "two output forms" "give --json or --csv, not both" --system ml --json --csv
if "$HOARD" ratings --help >"$WORK/help" 2>&1 && grep -q "^usage: hoard ratings" "$WORK/help"; then
  pass "ratings --help"
else
  fail "ratings --help" "$WORK/help"
fi

finish
