#!/usr/bin/python3
"""Every registered game has what the others have, on every face.

    /usr/bin/python3 tests/game_completeness_test.py build/hoard build/python [NODE]

For each game `hoard games` lists, checks the pieces a game needs beyond its
engine folder (docs/engine.md, "Adding a game"): its branch of the wire's
View and Action, its rules doc, its typed-action helpers in the Python and
Node SDKs (derived from the protocol: each SDK is asked for the game's
helpers, and must have one per kind of action the game's action message
lists, building that kind), its table in the web app (the app the server
serves must know the shape of the game's view), its golden matches, its
encoding for the Python environment (bots/python/hoard_bot/encodings.json),
a heuristic bot and a codec in the engine module. Then checks that the check
itself fails a game that has none of them (the test-only game coin_pile,
which no face knows). NODE is the node program (default: the one on PATH).
Prints one line per check and 'N passed, M failed'.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 3:
    sys.exit("usage: game_completeness_test.py PATH_TO_HOARD PATH_TO_BUILD_PYTHON")
HOARD = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.abspath(sys.argv[2]))
NODE = sys.argv[3] if len(sys.argv) > 3 else shutil.which("node")

import hoard_engine  # noqa: E402
from checks import check, finish  # noqa: E402
from hoard_bot import actions  # noqa: E402
from hoard_bot.stubs import arena_pb2  # noqa: E402


def read(*path):
    with open(os.path.join(REPO, *path), encoding="utf-8") as f:
        return f.read()


def kinds_of(game):
    """The kinds of action of `game` in the protocol: the members of the oneof
    of its action message (empty if the wire has no such game)."""
    field = arena_pb2.Action.DESCRIPTOR.fields_by_name.get(game)
    return [f.name for f in field.message_type.oneofs[0].fields] if field else []


def python_helpers_lack(game):
    """What the Python SDK's helpers of `game` lack, in words."""
    helpers = getattr(actions, game, None) if game in actions.__all__ else None
    if helpers is None:
        return ["no namespace"]
    lacks = []
    for kind in kinds_of(game):
        try:
            action = helpers.build(kind)
        except (AttributeError, TypeError, ValueError):
            action = arena_pb2.Action()
        if not callable(getattr(helpers, kind, None)) or action.WhichOneof("game") != game or \
                getattr(action, game).WhichOneof("kind") != kind:
            lacks.append(kind)
    return lacks


# Asks the Node SDK, for each game given, for its helpers and what each
# kind's build makes: { game: { helpers: [...], built: { kind: "game.kind" } } }.
NODE_ASK = """
const { actions } = require(process.argv[1]);
const out = {};
for (const game of process.argv.slice(2)) {
  const helpers = actions[game];
  if (!helpers) continue;
  const built = {};
  for (const kind of helpers.kinds) {
    const action = helpers.build(kind);
    const branch = Object.keys(action)[0];
    built[kind] = `${branch}.${Object.keys(action[branch])[0]}`;
  }
  out[game] = { helpers: Object.keys(helpers), built };
}
console.log(JSON.stringify(out));
"""


def node_helpers(games):
    result = subprocess.run(
        [NODE, "-e", NODE_ASK, os.path.join(REPO, "bots", "node", "hoard-bot.js"), *games],
        capture_output=True, text=True, timeout=60)
    check("the Node SDK answers which helpers each game has", result.returncode == 0,
          result.stderr)
    return json.loads(result.stdout) if result.returncode == 0 else {}


def node_helpers_lack(game, node):
    """What the Node SDK's helpers of `game` lack, in words."""
    if game not in node:
        return ["no namespace"]
    camel = lambda kind: re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), kind)  # noqa: E731
    return [kind for kind in kinds_of(game)
            if camel(kind) not in node[game]["helpers"] or
            node[game]["built"].get(kind) != f"{game}.{kind}"]


def web_view_schema():
    """The shape of every game's view in the app.js `hoard serve --http` serves."""
    with tempfile.TemporaryDirectory(prefix="hoard-completeness-") as work:
        server = subprocess.Popen(
            [HOARD, "serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
             "--db", os.path.join(work, "hoard.db"), "--state-dir", os.path.join(work, "state")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            server.stdout.readline()
            web = server.stdout.readline().split()[-1]
            with urllib.request.urlopen(f"{web}/app.js", timeout=30) as response:
                app = response.read().decode()
        finally:
            server.terminate()
            server.wait(timeout=60)
    schema = re.search(r"^const VIEW_SCHEMA = (.*);$", app, re.M)
    check("the served web app carries the shape of the games' views", schema is not None
          and schema.group(1) != "/*HOARD_VIEW_SCHEMA*/null", app[:200])
    return json.loads(schema.group(1)) if schema else {"views": {}, "messages": {}, "enums": {}}


def web_table_lacks(game, schema):
    """Whether the web app cannot draw `game`'s view: it does not know its
    message, or a message or enum the view reaches."""
    if game not in schema["views"]:
        return True
    pending, seen = [schema["views"][game]], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in schema["messages"]:
            return True
        for field in schema["messages"][name]:
            if field["type"] == "enum" and field["of"] not in schema["enums"]:
                return True
            if field["type"] == "message":
                pending.append(field["of"])
    return False


def missing(game, node, schema):
    """The pieces `game` lacks, in words (empty: it has them all)."""
    lacks = []
    view_branches = {f.name for f in arena_pb2.View.DESCRIPTOR.oneofs_by_name["game"].fields}
    action_branches = {f.name for f in arena_pb2.Action.DESCRIPTOR.oneofs_by_name["game"].fields}
    if game not in view_branches or game not in action_branches:
        lacks.append("a branch of hoard.v1.View and hoard.v1.Action (proto/hoard/v1/arena.proto)")
    if not os.path.exists(os.path.join(REPO, "docs", "rules", f"{game}.md")):
        lacks.append(f"docs/rules/{game}.md")
    python_lacks = python_helpers_lack(game)
    if python_lacks:
        lacks.append("typed-action helpers in the Python SDK (hoard_bot.actions, derived from "
                     f"hoard.v1.Action): {', '.join(python_lacks)}")
    node_lacks = node_helpers_lack(game, node)
    if node_lacks:
        lacks.append("typed-action helpers in the Node SDK (bots/node/actions.js, derived from "
                     f"hoard.v1.Action): {', '.join(node_lacks)}")
    if web_table_lacks(game, schema):
        lacks.append("a table in the web app (the shape of its view, derived from hoard.v1.View)")
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
    node = node_helpers(games + ["coin_pile"])
    schema = web_view_schema()
    for game in games:
        lacks = missing(game, node, schema)
        check(f"{game} has everything the other games have", not lacks, "\n".join(lacks))
    # The check fails a game that only the engine's tests know.
    lacks = missing("coin_pile", node, schema)
    check("a game with none of them is failed, each piece named",
          len(lacks) >= 8 and all(any(piece in lack for lack in lacks)
                                  for piece in ("web app", "Node SDK", "Python SDK")),
          "\n".join(lacks))
    finish()


if __name__ == "__main__":
    main()
