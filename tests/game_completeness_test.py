#!/usr/bin/python3
"""Every registered game has what the others have, on every face.

    /usr/bin/python3 tests/game_completeness_test.py build/hoard build/python

For each game `hoard games` lists, checks the pieces a game needs beyond its
engine folder (docs/engine.md, "Adding a game"): its branch of the wire's
View and Action, its rules doc, its typed-action helpers in the Python and
Node SDKs (and its row of docs/bots.md's table of them), its table in the
web app, its golden matches, its encoding for the Python environment
(bots/python/hoard_bot/encodings.json), a heuristic bot and a codec in the
engine module. Then checks that the check itself fails a game that has none
of them (the test-only game coin_pile, which no face knows). Prints one
line per check and 'N passed, M failed'.
"""
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 3:
    sys.exit("usage: game_completeness_test.py PATH_TO_HOARD PATH_TO_BUILD_PYTHON")
HOARD = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.abspath(sys.argv[2]))

import hoard_engine  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot import actions  # noqa: E402
from hoard_bot.stubs import arena_pb2  # noqa: E402


def read(*path):
    with open(os.path.join(REPO, *path), encoding="utf-8") as f:
        return f.read()


def missing(game):
    """The pieces `game` lacks, in words (empty: it has them all)."""
    lacks = []
    view_branches = {f.name for f in arena_pb2.View.DESCRIPTOR.oneofs_by_name["game"].fields}
    action_branches = {f.name for f in arena_pb2.Action.DESCRIPTOR.oneofs_by_name["game"].fields}
    if game not in view_branches or game not in action_branches:
        lacks.append("a branch of hoard.v1.View and hoard.v1.Action (proto/hoard/v1/arena.proto)")
    if not os.path.exists(os.path.join(REPO, "docs", "rules", f"{game}.md")):
        lacks.append(f"docs/rules/{game}.md")
    if game not in actions.__all__ or not hasattr(actions, game):
        lacks.append("typed-action helpers in the Python SDK (bots/python/hoard_bot/actions.py)")
    node_exports = re.search(r"return \{([^}]*)\};\s*\};\s*$", read("bots", "node", "actions.js"))
    if not node_exports or game not in [n.strip() for n in node_exports.group(1).split(",")]:
        lacks.append("typed-action helpers in the Node SDK (bots/node/actions.js)")
    if not re.search(rf"^\| `{game}` \|", read("docs", "bots.md"), re.M):
        lacks.append("a row in docs/bots.md's table of typed actions")
    if f"if (view.{game}) return" not in read("service", "web", "app", "app.js"):
        lacks.append("a table in the web app (service/web/app/app.js)")
    if not re.search(rf"^{game} ", read("tests", "golden_matches.txt"), re.M):
        lacks.append("golden matches (tests/golden_matches.txt)")
    if game not in json.loads(read("bots", "python", "hoard_bot", "encodings.json")):
        lacks.append("an encoding for hoard_bot.env (python3 -m hoard_bot.env measure)")
    try:
        info = hoard_engine.game(game)
        if "heuristic" not in info["bots"]:
            lacks.append("a heuristic bot")
        if not hoard_engine.Match(game, info["min_players"], 1).view(0):
            lacks.append("a codec")
    except ValueError as error:
        lacks.append(f"a registration in the hoard program ({error})")
    return lacks


def main():
    listed = subprocess.run([HOARD, "games"], check=True, capture_output=True, text=True).stdout
    games = re.findall(r"^([a-z_][a-z_0-9]*) — ", listed, re.M)
    check("hoard games lists the games", len(games) >= 4, listed)
    for game in games:
        lacks = missing(game)
        check(f"{game} has everything the other games have", not lacks, "\n".join(lacks))
    # The check fails a game that only the engine's tests know.
    lacks = missing("coin_pile")
    check("a game with none of them is failed, each piece named",
          len(lacks) >= 8 and any("web app" in l for l in lacks) and
          any("Node SDK" in l for l in lacks), "\n".join(lacks))
    finish()


if __name__ == "__main__":
    main()
