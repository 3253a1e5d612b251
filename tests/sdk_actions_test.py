#!/usr/bin/python3
"""The SDKs' typed-action helpers, derived from the protocol.

    /usr/bin/python3 tests/sdk_actions_test.py [NODE]

Python (hoard_bot.actions): every game of hoard.v1.Action has a helper per
kind of action, building that kind; the helpers of the four games build the
same actions as the hand-written ones they replace (each call below, as
docs/bots.md and the examples make them), and refuse bad names as they did.
Both SDKs: a game added to a copy of proto/ (tests/games/coin_pile/
coin_pile.proto, the wire the test game coin_pile would have) gets helpers
with no code in the SDKs, taking names for enums, dicts for messages and
counts, lists for repeated fields. NODE is the node program (default: the
one on PATH). tests/sdk_actions_test.js checks the Node SDK's helpers of
the four games.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
NODE = (sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-")
        else shutil.which("node"))

from google.protobuf import text_format  # noqa: E402
from hoard_bot import actions  # noqa: E402
from hoard_bot.stubs import arena_pb2, frost_dragon_pb2  # noqa: E402

# Each call and the action it builds, in text format.
BUILT = [
    ('village.draw()', 'village { draw { } }'),
    ('village.bribe("sword", 2, wilds=1)',
     'village { bribe { treasure: VILLAGE_CARD_SWORD cards { swords: 2 wilds: 1 } } }'),
    ('village.bribe("CROWN", 3)',
     'village { bribe { treasure: VILLAGE_CARD_CROWN cards { crowns: 3 } } }'),
    ('village.bribe(2, 1, wilds=2)',
     'village { bribe { treasure: VILLAGE_CARD_SCROLL cards { scrolls: 1 wilds: 2 } } }'),
    ('village.buy(2, {"sword": 1, "wild": 1}, curse="sword")',
     'village { buy { stall: 2 payment { swords: 1 wilds: 1 } curse: VILLAGE_CARD_SWORD } }'),
    ('village.buy(0)', 'village { buy { } }'),
    ('village.buy(3, {"swords": 2, "scroll": 1}, curse="VILLAGE_CARD_SCROLL")',
     'village { buy { stall: 3 payment { swords: 2 scrolls: 1 } curse: VILLAGE_CARD_SCROLL } }'),
    ('dragons_gold.attack(1, "knight_4")',
     'dragons_gold { attack { slot: 1 adventurer: DRAGONS_GOLD_ADVENTURER_KNIGHT_4 } }'),
    ('dragons_gold.attack(2, "knight_4", second="thief")',
     'dragons_gold { attack { slot: 2 adventurer: DRAGONS_GOLD_ADVENTURER_KNIGHT_4 '
     'second: DRAGONS_GOLD_ADVENTURER_THIEF } }'),
    ('dragons_gold.dragon_swap(3, 1)',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_DRAGON_SWAP a: 1 b: 3 } }'),
    ('dragons_gold.recall()', 'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_RECALL } }'),
    ('dragons_gold.retreat("wizard")',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_RETREAT '
     'adventurer: DRAGONS_GOLD_ADVENTURER_WIZARD } }'),
    ('dragons_gold.treasure_map()',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_TREASURE_MAP } }'),
    ('dragons_gold.sleeping_potion(2)',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_SLEEPING_POTION a: 2 } }'),
    ('dragons_gold.silver_tongue()',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_SILVER_TONGUE } }'),
    ('dragons_gold.invisible_hand(3)',
     'dragons_gold { use_object { object: DRAGONS_GOLD_OBJECT_INVISIBLE_HAND a: 3 } }'),
    ('dragons_gold.propose({2: {"silver": 1, "blue": 1}, 0: {"gold": 2}})',
     'dragons_gold { propose { shares { tokens { gold: 2 } } '
     'shares { seat: 2 tokens { silver: 1 blue: 1 } } } }'),
    ('dragons_gold.propose([(1, {"red": 1})])',
     'dragons_gold { propose { shares { seat: 1 tokens { red: 1 } } } }'),
    ('dragons_gold.propose_assignment([0, 1, 1])',
     'dragons_gold { propose { assignment: 0 assignment: 1 assignment: 1 } }'),
    ('dragons_gold.accept()', 'dragons_gold { accept { } }'),
    ('dragons_gold.reject()', 'dragons_gold { reject { } }'),
    ('dragons_gold.steal("gold")', 'dragons_gold { steal { token: DRAGONS_GOLD_TOKEN_GOLD } }'),
    ('dragons_gold.decoy_give("purple")',
     'dragons_gold { decoy_give { token: DRAGONS_GOLD_TOKEN_PURPLE } }'),
    ('dragons_gold.decoy_keep()', 'dragons_gold { decoy_keep { } }'),
    ('dragons_gold.market_pass()', 'dragons_gold { market_pass { } }'),
    ('dragons_gold.market_offer(2, {"silver": 2}, "gold")',
     'dragons_gold { market_offer { to: 2 give { silver: 2 } get { gold: 1 } } }'),
    ('dragons_gold.market_accept()', 'dragons_gold { market_accept { } }'),
    ('dragons_gold.market_refuse()', 'dragons_gold { market_refuse { } }'),
    ('frost_dragon.choose_trump("river")',
     'frost_dragon { choose_trump { kingdom: FROST_DRAGON_KINGDOM_RIVER } }'),
    ('frost_dragon.boast(3)', 'frost_dragon { boast { challenges: 3 } }'),
    ('frost_dragon.boast(0)', 'frost_dragon { boast { } }'),
    ('frost_dragon.play(17)', 'frost_dragon { play { card: 17 } }'),
    ('frost_dragon.play(frost_dragon_pb2.FrostDragonCard(id=5))',
     'frost_dragon { play { card: 5 } }'),
    ('frost_dragon.play(52, "river", 14)',
     'frost_dragon { play { card: 52 as_kingdom: FROST_DRAGON_KINGDOM_RIVER as_rank: 14 } }'),
    ('hedonia.offer("snorkel_pig")', 'hedonia { offer { asset: HEDONIA_ASSET_SNORKEL_PIG } }'),
    ('hedonia.offer("Very Rare Egg")', 'hedonia { offer { asset: HEDONIA_ASSET_VERY_RARE_EGG } }'),
    ('hedonia.claim("left")', 'hedonia { claim { side: HEDONIA_SIDE_LEFT } }'),
    ('hedonia.claim(2)', 'hedonia { claim { side: HEDONIA_SIDE_RIGHT } }'),
]

# Each call refused, and words its error holds.
REFUSED = [
    ('village.bribe("wild", 1)', "a bribe's treasure is a treasure type"),
    ('village.bribe("spoon", 1)',
     "bribe's treasure must be one of sword, scroll, feather, potion, axe, crown, wild, "
     "not 'spoon'"),
    ('village.buy(1, {"spoon": 1})',
     "buy's payment: no such kind 'spoon'; the kinds are swords, scrolls, feathers"),
    ('village.buy(1, {"sword": -1})',
     "buy's payment: the count of sword must be a whole number >= 0, not -1"),
    ('village.buy(1, {"sword": True})', "the count of sword must be a whole number"),
    ('frost_dragon.choose_trump("sea")',
     "choose_trump's kingdom must be one of mountain, forest, river, glacier, not 'sea'"),
    ('frost_dragon.choose_trump(0)', "choose_trump's kingdom must be one of"),
    ('hedonia.claim("up")', "claim's side must be one of left, right, not 'up'"),
    ('dragons_gold.steal("unspecified")', "steal's token must be one of silver, gold"),
    ('dragons_gold.retreat("dragon")', "retreat's adventurer must be one of knight_4"),
    ('dragons_gold.market_offer(1, {"dust": 1}, "gold")',
     "market_offer's give: no such kind 'dust'"),
    ('dragons_gold.propose({0: {"gold": 1, "mud": 1}})', "seat 0's share: no such kind 'mud'"),
]


def text(action):
    return text_format.MessageToString(action, as_one_line=True)


class PythonHelpersTest(unittest.TestCase):
    def test_every_kind_of_every_game_has_a_helper_that_builds_it(self):
        games = [f.name for f in arena_pb2.Action.DESCRIPTOR.oneofs_by_name["game"].fields]
        self.assertEqual(actions.__all__, games)
        for game in games:
            helpers = getattr(actions, game)
            kinds = [f.name for f in
                     arena_pb2.Action.DESCRIPTOR.fields_by_name[game].message_type.oneofs[0].fields]
            self.assertEqual(list(helpers.kinds), kinds)
            for kind in kinds:
                self.assertTrue(callable(getattr(helpers, kind)), f"{game}.{kind}")
                built = helpers.build(kind)
                self.assertEqual(built.WhichOneof("game"), game)
                self.assertEqual(getattr(built, game).WhichOneof("kind"), kind)

    def test_the_helpers_build_the_actions_the_written_ones_did(self):
        scope = {"frost_dragon_pb2": frost_dragon_pb2, **{g: getattr(actions, g)
                                                          for g in actions.__all__}}
        for call, expected in BUILT:
            with self.subTest(call):
                self.assertEqual(text(eval(call, scope)), expected)

    def test_bad_names_and_counts_are_refused_naming_the_valid_ones(self):
        scope = {g: getattr(actions, g) for g in actions.__all__}
        for call, words in REFUSED:
            with self.subTest(call):
                with self.assertRaises(ValueError) as raised:
                    eval(call, scope)
                self.assertIn(words, str(raised.exception))

    def test_a_derived_helper_takes_fields_by_position_or_name_and_says_what_it_takes(self):
        self.assertEqual(text(actions.village.buy(stall=1, curse="axe", payment={"axe": 1})),
                         'village { buy { stall: 1 payment { axes: 1 } curse: VILLAGE_CARD_AXE } }')
        self.assertIn("stall, payment, curse", actions.village.buy.__doc__)
        with self.assertRaisesRegex(TypeError, "at most 3 arguments"):
            actions.village.buy(1, {}, "axe", 4)
        with self.assertRaisesRegex(TypeError, "no field 'cost'; its fields are stall, payment"):
            actions.village.buy(cost=1)
        with self.assertRaisesRegex(AttributeError, "no action 'steal'; its kinds are draw"):
            actions.village.steal  # noqa: B018


def proto_with_coin_pile(work):
    """A copy of proto/ whose wire has coin_pile too; returns its folder."""
    root = os.path.join(work, "proto")
    shutil.copytree(os.path.join(REPO, "proto"), root)
    shutil.copy(os.path.join(REPO, "tests", "games", "coin_pile", "coin_pile.proto"),
                os.path.join(root, "hoard", "v1"))
    arena = os.path.join(root, "hoard", "v1", "arena.proto")
    with open(arena, encoding="utf-8") as f:
        text_ = f.read()
    text_ = text_.replace('import "hoard/v1/village.proto";',
                          'import "hoard/v1/village.proto";\nimport "hoard/v1/coin_pile.proto";')
    for message, branch in (("View", "CoinPileView"), ("Action", "CoinPileAction")):
        text_, n = re.subn(rf"(message {message} {{\s*oneof game {{)",
                           rf"\1\n    {branch} coin_pile = 99;", text_)
        assert n == 1, f"no oneof game in {message}"
    with open(arena, "w", encoding="utf-8") as f:
        f.write(text_)
    return root


PYTHON_ASKS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from google.protobuf import text_format
from hoard_bot import actions
from hoard_bot.stubs import coin_pile_pb2
text = lambda a: text_format.MessageToString(a, as_one_line=True)
try:
    actions.coin_pile.play("four")
    refused = ""
except ValueError as error:
    refused = str(error)
print(json.dumps({
    "games": actions.__all__, "kinds": list(actions.coin_pile.kinds),
    "play": text(actions.coin_pile.play("two")),
    "wager": text(actions.coin_pile.wager({"seat": 2, "stake": {"one": 2, "threes": 1}},
                                          ["three", "one"], note="all in")),
    "by_name": text(actions.coin_pile.build("wager", bet=coin_pile_pb2.CoinPileBet(seat=1))),
    "refused": refused}))
"""

NODE_ASKS = """
const { actions } = require(process.argv[1]);
let refused = '';
try { actions.coin_pile.play('four'); } catch (error) { refused = error.message; }
console.log(JSON.stringify({
  games: Object.keys(actions), kinds: actions.coin_pile.kinds,
  play: actions.coin_pile.play('two'),
  wager: actions.coin_pile.wager({ seat: 2, stake: { one: 2, threes: 1 } }, ['three', 'one'],
                                 'all in'),
  byName: actions.coin_pile.build('wager', { seat: 1 }),
  refused }));
"""


class ANewGameTest(unittest.TestCase):
    """A game the SDKs have no code for gets its helpers from its .proto."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="hoard-sdk-actions-")
        cls.env = dict(os.environ, HOARD_PROTO_DIR=proto_with_coin_pile(cls.work),
                       HOARD_STUBS_DIR=os.path.join(cls.work, "stubs"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def ask(self, command):
        result = subprocess.run(command, env=self.env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def test_python(self):
        got = self.ask([sys.executable, "-c", PYTHON_ASKS, os.path.join(REPO, "bots", "python")])
        self.assertEqual(sorted(got["games"]), ["coin_pile", "dragons_gold", "frost_dragon",
                                                "hedonia", "village"])
        self.assertEqual(got["kinds"], ["play", "wager"])
        self.assertEqual(got["play"], "coin_pile { play { coin: COIN_PILE_VALUE_TWO } }")
        self.assertEqual(got["wager"],
                         'coin_pile { wager { bet { seat: 2 stake { ones: 2 threes: 1 } } '
                         'order: COIN_PILE_VALUE_THREE order: COIN_PILE_VALUE_ONE '
                         'note: "all in" } }')
        self.assertEqual(got["by_name"], "coin_pile { wager { bet { seat: 1 } } }")
        self.assertEqual(got["refused"], "play's coin must be one of one, two, three, not 'four'")

    @unittest.skipIf(NODE is None, "no node")
    def test_node(self):
        got = self.ask([NODE, "-e", NODE_ASKS, os.path.join(REPO, "bots", "node", "hoard-bot.js")])
        self.assertEqual(sorted(got["games"]), ["coin_pile", "dragons_gold", "frost_dragon",
                                                "hedonia", "village"])
        self.assertEqual(got["kinds"], ["play", "wager"])
        self.assertEqual(got["play"], {"coin_pile": {"play": {"coin": "COIN_PILE_VALUE_TWO"}}})
        self.assertEqual(got["wager"], {"coin_pile": {"wager": {
            "bet": {"seat": 2, "stake": {"ones": 2, "threes": 1}},
            "order": ["COIN_PILE_VALUE_THREE", "COIN_PILE_VALUE_ONE"], "note": "all in"}}})
        self.assertEqual(got["byName"], {"coin_pile": {"wager": {"bet": {"seat": 1}}}})
        self.assertEqual(got["refused"], "play's coin must be one of one, two, three, not four")


if __name__ == "__main__":
    unittest.main(verbosity=2)
