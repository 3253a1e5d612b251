// The Node SDK's typed-action helpers (bots/node/actions.js), derived from
// the protocol: every game of hoard.v1.Action has a helper per kind of
// action, building that kind; the helpers of the four games build the same
// actions as the hand-written ones they replace, and refuse bad names as
// they did. tests/sdk_actions_test.py checks a game the SDKs have no code
// for.
//
//   node tests/sdk_actions_test.js
'use strict';

const assert = require('node:assert');
const path = require('node:path');
const test = require('node:test');
const protobuf = require('../bots/node/node_modules/protobufjs');
const { actions } = require('../bots/node/hoard-bot');

const call = (text) => new Function('actions', `return actions.${text};`)(actions);

// Each call and the action it builds.
const BUILT = [
  [`village.draw()`,
   {"village": {"draw": {}}}],
  [`village.bribe('sword', 2, 1)`,
   {"village": {"bribe": {"treasure": "VILLAGE_CARD_SWORD", "cards": {"swords": 2, "wilds": 1}}}}],
  [`village.bribe('CROWN', 3)`,
   {"village": {"bribe": {"treasure": "VILLAGE_CARD_CROWN", "cards": {"crowns": 3, "wilds": 0}}}}],
  [`village.bribe(2, 1, 2)`,
   {"village": {"bribe": {"treasure": "VILLAGE_CARD_SCROLL", "cards": {"scrolls": 1, "wilds": 2}}}}],
  [`village.buy(2, { sword: 1, wild: 1 }, 'sword')`,
   {"village": {"buy": {"stall": 2, "payment": {"swords": 1, "wilds": 1}, "curse": "VILLAGE_CARD_SWORD"}}}],
  [`village.buy(0)`,
   {"village": {"buy": {"stall": 0}}}],
  [`village.buy(3, { swords: 2, scroll: 1 }, 'VILLAGE_CARD_SCROLL')`,
   {"village": {"buy": {"stall": 3, "payment": {"swords": 2, "scrolls": 1}, "curse": "VILLAGE_CARD_SCROLL"}}}],
  [`dragons_gold.attack(1, 'knight_4')`,
   {"dragons_gold": {"attack": {"slot": 1, "adventurer": "DRAGONS_GOLD_ADVENTURER_KNIGHT_4"}}}],
  [`dragons_gold.attack(2, 'knight_4', 'thief')`,
   {"dragons_gold": {"attack": {"slot": 2, "adventurer": "DRAGONS_GOLD_ADVENTURER_KNIGHT_4", "second": "DRAGONS_GOLD_ADVENTURER_THIEF"}}}],
  [`dragons_gold.dragonSwap(3, 1)`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_DRAGON_SWAP", "a": 1, "b": 3}}}],
  [`dragons_gold.recall()`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_RECALL"}}}],
  [`dragons_gold.retreat('wizard')`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_RETREAT", "adventurer": "DRAGONS_GOLD_ADVENTURER_WIZARD"}}}],
  [`dragons_gold.treasureMap()`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_TREASURE_MAP"}}}],
  [`dragons_gold.sleepingPotion(2)`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_SLEEPING_POTION", "a": 2}}}],
  [`dragons_gold.silverTongue()`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_SILVER_TONGUE"}}}],
  [`dragons_gold.invisibleHand(3)`,
   {"dragons_gold": {"use_object": {"object": "DRAGONS_GOLD_OBJECT_INVISIBLE_HAND", "a": 3}}}],
  [`dragons_gold.propose({ 2: { silver: 1, blue: 1 }, 0: { gold: 2 } })`,
   {"dragons_gold": {"propose": {"shares": [{"seat": 0, "tokens": {"gold": 2}}, {"seat": 2, "tokens": {"silver": 1, "blue": 1}}]}}}],
  [`dragons_gold.propose(new Map([[1, { red: 1 }]]))`,
   {"dragons_gold": {"propose": {"shares": [{"seat": 1, "tokens": {"red": 1}}]}}}],
  [`dragons_gold.propose([[1, { red: 1 }]])`,
   {"dragons_gold": {"propose": {"shares": [{"seat": 1, "tokens": {"red": 1}}]}}}],
  [`dragons_gold.proposeAssignment([0, 1, 1])`,
   {"dragons_gold": {"propose": {"assignment": [0, 1, 1]}}}],
  [`dragons_gold.accept()`,
   {"dragons_gold": {"accept": {}}}],
  [`dragons_gold.reject()`,
   {"dragons_gold": {"reject": {}}}],
  [`dragons_gold.steal('gold')`,
   {"dragons_gold": {"steal": {"token": "DRAGONS_GOLD_TOKEN_GOLD"}}}],
  [`dragons_gold.decoyGive('purple')`,
   {"dragons_gold": {"decoy_give": {"token": "DRAGONS_GOLD_TOKEN_PURPLE"}}}],
  [`dragons_gold.decoyKeep()`,
   {"dragons_gold": {"decoy_keep": {}}}],
  [`dragons_gold.marketPass()`,
   {"dragons_gold": {"market_pass": {}}}],
  [`dragons_gold.marketOffer(2, { silver: 2 }, 'gold')`,
   {"dragons_gold": {"market_offer": {"to": 2, "give": {"silver": 2}, "get": {"gold": 1}}}}],
  [`dragons_gold.marketAccept()`,
   {"dragons_gold": {"market_accept": {}}}],
  [`dragons_gold.marketRefuse()`,
   {"dragons_gold": {"market_refuse": {}}}],
  [`frost_dragon.chooseTrump('river')`,
   {"frost_dragon": {"choose_trump": {"kingdom": "FROST_DRAGON_KINGDOM_RIVER"}}}],
  [`frost_dragon.boast(3)`,
   {"frost_dragon": {"boast": {"challenges": 3}}}],
  [`frost_dragon.boast(0)`,
   {"frost_dragon": {"boast": {"challenges": 0}}}],
  [`frost_dragon.play(17)`,
   {"frost_dragon": {"play": {"card": 17}}}],
  [`frost_dragon.play({ id: 5, kingdom: 'FROST_DRAGON_KINGDOM_RIVER' })`,
   {"frost_dragon": {"play": {"card": 5}}}],
  [`frost_dragon.play(52, 'river', 14)`,
   {"frost_dragon": {"play": {"card": 52, "as_kingdom": "FROST_DRAGON_KINGDOM_RIVER", "as_rank": 14}}}],
  [`hedonia.offer('snorkel_pig')`,
   {"hedonia": {"offer": {"asset": "HEDONIA_ASSET_SNORKEL_PIG"}}}],
  [`hedonia.offer('Very Rare Egg')`,
   {"hedonia": {"offer": {"asset": "HEDONIA_ASSET_VERY_RARE_EGG"}}}],
  [`hedonia.claim('left')`,
   {"hedonia": {"claim": {"side": "HEDONIA_SIDE_LEFT"}}}],
  [`hedonia.claim(2)`,
   {"hedonia": {"claim": {"side": "HEDONIA_SIDE_RIGHT"}}}],
  [`dragons_gold.shares({ dragons_gold: { propose: { assignment: [0, 1, 1] } } }, { contributors: [0, 2], tokens: { gold: 1, red: 2 } })`,
   {"0": {"gold": 1}, "2": {"red": 2}}],
  [`dragons_gold.shares(actions.dragons_gold.propose({ 2: { silver: 1 }, 0: { gold: 2 } }), { contributors: [0, 2], tokens: { gold: 2, silver: 1 } })`,
   {"0": {"gold": 2}, "2": {"silver": 1}}],];

// Each call refused, and words its error holds.
const REFUSED = [
  ["village.bribe('wild', 1)", "a bribe's treasure is a treasure type"],
  ["village.bribe('spoon', 1)",
   "bribe's treasure must be one of sword, scroll, feather, potion, axe, crown, wild, not spoon"],
  ["village.buy(1, { spoon: 1 })",
   "buy's payment: no such kind 'spoon'; the kinds are swords, scrolls, feathers"],
  ["village.buy(1, { sword: -1 })",
   "buy's payment: the count of sword must be a whole number >= 0, not -1"],
  ["frost_dragon.chooseTrump('sea')",
   "choose_trump's kingdom must be one of mountain, forest, river, glacier, not sea"],
  ["frost_dragon.chooseTrump(0)", "choose_trump's kingdom must be one of"],
  ["hedonia.claim('up')", "claim's side must be one of left, right, not up"],
  ["dragons_gold.steal('unspecified')", "steal's token must be one of silver, gold"],
  ["dragons_gold.retreat('dragon')", "retreat's adventurer must be one of knight_4"],
  ["dragons_gold.marketOffer(1, { dust: 1 }, 'gold')", "market_offer's give: no such kind 'dust'"],
  ["dragons_gold.propose({ 0: { gold: 1, mud: 1 } })", "seat 0's share: no such kind 'mud'"],
];

test('every kind of every game has a helper that builds it', () => {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => path.resolve(__dirname, '..', 'proto', target);
  root.loadSync('hoard/v1/arena.proto', { keepCase: true });
  root.resolveAll();
  const games = root.lookupType('hoard.v1.Action').oneofs.game.fieldsArray;
  assert.deepStrictEqual(Object.keys(actions), games.map((g) => g.name));
  for (const game of games) {
    const kinds = game.resolvedType.oneofsArray[0].fieldsArray.map((f) => f.name);
    assert.deepStrictEqual(actions[game.name].kinds, kinds);
    for (const kind of kinds) {
      const camel = kind.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
      assert.strictEqual(typeof actions[game.name][camel], 'function', `${game.name}.${camel}`);
      assert.deepStrictEqual(Object.keys(actions[game.name].build(kind)[game.name]), [kind]);
    }
  }
});

test('the helpers build the actions the written ones did', () => {
  for (const [text, expected] of BUILT) assert.deepStrictEqual(call(text), expected, text);
});

test('bad names and counts are refused naming the valid ones', () => {
  for (const [text, words] of REFUSED) {
    assert.throws(() => call(text), (error) => error instanceof RangeError &&
                  error.message.includes(words), text);
  }
});

test('a derived helper takes the fields in order and says what it takes', () => {
  assert.deepStrictEqual(actions.village.buy(1, 'axe', 'axe'),
                         { village: { buy: { stall: 1, payment: { axes: 1 }, curse: 'VILLAGE_CARD_AXE' } } });
  assert.throws(() => actions.village.buy(1, {}, 'axe', 4), /buy takes at most 3 arguments \(stall, payment, curse\)/);
  assert.throws(() => actions.village.build('steal'), /village has no action 'steal'; its kinds are draw, bribe, buy/);
});
