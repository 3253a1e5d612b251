#!/usr/bin/env bash
# The main job: set up and build the program (only it), then run a tournament on the embedded
# defaults — the search bot (mcts) and the heuristic against random and first,
# three to a village match, 120 duplicate matches (about a minute on two
# cores) — storing every result in hoard.db and ending with the leaderboard.
# Run it again and it shows the finished tournament; a stopped one resumes.
# Extra arguments go to 'hoard tournament' (try --fresh, --rounds 500 or
# --config FILE; 'build/hoard tournament --help' lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh hoard
exec build/hoard tournament "$@"
