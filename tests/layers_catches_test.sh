#!/usr/bin/env bash
# layers_test fails a copy of the layered folders with five wrong includes:
# the server including its web face, the web face including the command
# line, a game's rules including the protocol, the web face including the
# gRPC face, and the core including the API; it names each.
#
#   bash tests/layers_catches_test.sh
set -u
REPO=$(realpath "$(dirname "$0")/..")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/cli_checks.sh"

for folder in engine bots db tournament service; do cp -r "$REPO/$folder" "$WORK/"; done
echo '#include "service/web/web_server.h"' >>"$WORK/service/match.cc"
echo '#include "service/cli/commands.h"' >>"$WORK/service/web/web_server.cc"
echo '#include "hoard/v1/arena.pb.h"' >>"$WORK/engine/games/village/village.cc"
echo '#include "service/grpc_server.h"' >>"$WORK/service/web/http_server.cc"
echo '#include "service/api.h"' >>"$WORK/service/core.cc"
/usr/bin/python3 "$REPO/tests/layers_test.py" "$WORK" >"$WORK/out" 2>&1
got=$?
check "the copy fails (exit 1)" "$WORK/out" [ "$got" -eq 1 ]
check "the server including its web face" "$WORK/out" \
  grep -q "^service/match.cc:[0-9]*: .*service/web/ is a layer above service/" "$WORK/out"
check "the web face including the command line" "$WORK/out" \
  grep -q "^service/web/web_server.cc:[0-9]*: .*service/cli/ is a layer above service/web/" "$WORK/out"
check "the rules including the protocol" "$WORK/out" \
  grep -q "^engine/games/village/village.cc:[0-9]*: .*only the engine's codecs" "$WORK/out"
check "the web face including the gRPC face" "$WORK/out" \
  grep -q "^service/web/http_server.cc:[0-9]*: .*siblings over the core" "$WORK/out"
check "the core including the API" "$WORK/out" \
  grep -q "^service/core.cc:[0-9]*: .*knows neither the API nor a face" "$WORK/out"
check "nothing else" "$WORK/out" grep -q "FAIL: 5 include" "$WORK/out"
finish
