#!/usr/bin/env bash
# Every test: set up and build, then run the whole CTest suite (unit tests,
# the conformance suite over every game, and the command-line end-to-end
# tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
