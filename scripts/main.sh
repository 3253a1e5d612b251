#!/usr/bin/env bash
# The main job: set up and build, then play a full four-player match of
# Please Don't Burn My Village! between built-in bots and print it.
# Extra arguments go to 'hoard play' (try --seed 42 or --players 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/hoard play --game village --players 4 --seed 1 "$@"
