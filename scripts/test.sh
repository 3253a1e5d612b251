#!/usr/bin/env bash
# Every test: set up and build, then run the whole CTest suite (unit tests,
# the conformance suite over every game, and the command-line end-to-end
# tests), then the sanitizer run (scripts/sanitize.sh: ASan and UBSan over
# the engine, the games, the bots, the arena and the tournament runner).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
bash scripts/sanitize.sh
