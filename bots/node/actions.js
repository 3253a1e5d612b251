// Typed actions of every game, built without assembling messages by hand.
//
//   const { actions } = require('./hoard-bot');
//   actions.village.bribe('sword', 2, 1);
//   actions.dragons_gold.propose({ 0: { gold: 2 }, 2: { silver: 1, blue: 1 } });
//   actions.frost_dragon.play(card.id);
//   actions.hedonia.claim('left');
//
// Each returns an Action object to return from a decide function. Names are
// the proto enums' names without their prefix, in any case ('sword',
// 'knight_4', 'snorkel_pig', 'left'); the full names and the enum numbers work
// too. A name that is no such thing throws a RangeError naming the valid
// ones. The helpers check only what they can without the match (names,
// numbers): the server judges the rest, and a refusal says why
// (decision.refused). docs/bots.md has an example per game;
// proto/hoard/v1/<game>.proto and docs/rules/<game>.md say what each action
// means.

'use strict';

// `load` returns the protocol (hoard-bot.js's loadProtocol()); it is called
// once, when a helper first needs an enum's names.
module.exports = function makeActions(load) {
  let protocol = null;
  const enumValues = (type) => {
    if (!protocol) protocol = load();
    return protocol[type].type.value;  // [{ name, number }]
  };

  // The full name of `value` (a short or full name, or a number) in enum `type`.
  const enumName = (type, prefix, value, what) => {
    const values = enumValues(type);
    const names = values.map((v) => v.name);
    let name;
    if (Number.isInteger(value)) {
      name = (values.find((v) => v.number === value) || {}).name;
    } else if (typeof value === 'string') {
      name = value.trim().toUpperCase().replace(/[ -]/g, '_');
      if (!name.startsWith(prefix)) name = prefix + name;
      if (!names.includes(name)) name = undefined;
    }
    if (name && !name.endsWith('_UNSPECIFIED')) return name;
    const valid = names.filter((n) => !n.endsWith('_UNSPECIFIED'))
      .map((n) => n.slice(prefix.length).toLowerCase());
    throw new RangeError(`${what} must be one of ${valid.join(', ')}, not ${String(value)}`);
  };

  // A counts message from { name: count } (the message's own field names,
  // or the names `aliases` maps to them).
  const counts = (fields, aliases, given, what) => {
    const message = {};
    for (const [name, count] of Object.entries(given || {})) {
      const key = String(name).trim().toLowerCase().replace(/[ -]/g, '_');
      const field = fields.includes(key) ? key : aliases[key];
      if (!field) {
        throw new RangeError(`${what}: no such kind '${name}'; the kinds are ${fields.join(', ')}`);
      }
      if (!Number.isInteger(count) || count < 0) {
        throw new RangeError(`${what}: the count of ${name} must be a whole number >= 0, ` +
                             `not ${count}`);
      }
      message[field] = (message[field] || 0) + count;
    }
    return message;
  };

  // Please Don't Burn My Village! (docs/rules/village.md).
  const CARDS = ['swords', 'scrolls', 'feathers', 'potions', 'axes', 'crowns', 'wilds'];
  const CARD_ALIASES = { sword: 'swords', scroll: 'scrolls', feather: 'feathers', potion: 'potions',
                         axe: 'axes', crown: 'crowns', wild: 'wilds' };
  const villageCard = (value, what) => enumName('VillageCard', 'VILLAGE_CARD_', value, what);
  const village = {
    draw: () => ({ village: { draw: {} } }),
    // `count` cards of `treasure` ('sword' to 'crown') and `wilds` wilds.
    bribe: (treasure, count, wilds = 0) => {
      const kind = villageCard(treasure, "bribe's treasure");
      if (kind === 'VILLAGE_CARD_WILD') {
        throw new RangeError("a bribe's treasure is a treasure type; give wilds as the third " +
                             'argument');
      }
      const field = CARD_ALIASES[kind.slice('VILLAGE_CARD_'.length).toLowerCase()];
      const cards = counts(CARDS, CARD_ALIASES, { [field]: count, wilds }, 'bribe');
      return { village: { bribe: { treasure: kind, cards } } };
    },
    // Stall 0 to 3, paying `payment` ({ sword: 1, wild: 1 }), cursing a type
    // paid (none for the free stall 0).
    buy: (stall, payment = {}, curse = null) => ({ village: { buy: {
      stall,
      payment: counts(CARDS, CARD_ALIASES, payment, "buy's payment"),
      ...(curse === null ? {} : { curse: villageCard(curse, "buy's curse") }),
    } } }),
  };

  // Dragon's Gold (docs/rules/dragons_gold.md). Tokens are 'silver', 'gold',
  // 'red', 'blue', 'green', 'purple', 'yellow', 'white' and 'black';
  // adventurers 'knight_4', 'knight_3', 'thief' and 'wizard'.
  const TOKENS = ['silver', 'gold', 'red', 'blue', 'green', 'purple', 'yellow', 'white', 'black'];
  const dg = (kind, message = {}) => ({ dragons_gold: { [kind]: message } });
  const token = (value, what) => enumName('DragonsGoldToken', 'DRAGONS_GOLD_TOKEN_', value, what);
  const adventurer = (value, what) =>
    enumName('DragonsGoldAdventurer', 'DRAGONS_GOLD_ADVENTURER_', value, what);
  const object = (kind, parameters = {}) =>
    dg('use_object', { object: `DRAGONS_GOLD_OBJECT_${kind}`, ...parameters });
  const dragons_gold = {
    // `adventurer` against the dragon in `slot` (0 to 3); with a Second
    // Strike, `second` too (a weaker ready adventurer).
    attack: (slot, first, second = null) => dg('attack', {
      slot, adventurer: adventurer(first, "attack's adventurer"),
      ...(second === null ? {} : { second: adventurer(second, "attack's second") }) }),
    dragonSwap: (slotA, slotB) =>
      object('DRAGON_SWAP', { a: Math.min(slotA, slotB), b: Math.max(slotA, slotB) }),
    recall: () => object('RECALL'),
    retreat: (who) => object('RETREAT', { adventurer: adventurer(who, "retreat's adventurer") }),
    treasureMap: () => object('TREASURE_MAP'),
    sleepingPotion: (slot) => object('SLEEPING_POTION', { a: slot }),
    silverTongue: () => object('SILVER_TONGUE'),
    invisibleHand: (seat) => object('INVISIBLE_HAND', { a: seat }),
    // A division: each contributor's seat to its tokens, { 0: { gold: 2 },
    // 2: { silver: 1 } } (or a Map, or [[seat, tokens], ...]). Every token of
    // the treasure must go to one contributor; one left out gets nothing.
    propose: (shares) => {
      const entries = shares instanceof Map ? [...shares] : Array.isArray(shares) ? shares
        : Object.entries(shares);
      const list = entries.map(([seat, tokens]) => ({
        seat: Number(seat), tokens: counts(TOKENS, {}, tokens, `seat ${seat}'s share`) }));
      list.sort((a, b) => a.seat - b.seat);
      return dg('propose', { shares: list });
    },
    // The engine's form (the examples' form): for each token of the treasure
    // in kind order, the index of its receiver among the contributors.
    proposeAssignment: (assignment) => dg('propose', { assignment: [...assignment] }),
    // The division a proposal makes, in either form, as { seat: { token:
    // count } } (every contributor listed). `action` is an Action, a
    // DragonsGoldAction or a DragonsGoldPropose (an example of the legal
    // actions, say), `negotiation` the view's DragonsGoldNegotiation.
    shares: (action, negotiation) => {
      let propose = action.dragons_gold || action;
      propose = propose.propose || propose;
      const result = {};
      for (const seat of negotiation.contributors) result[seat] = {};
      if (propose.shares && propose.shares.length) {
        for (const share of propose.shares) {
          const into = result[share.seat] || (result[share.seat] = {});
          for (const kind of TOKENS) {
            if (share.tokens && share.tokens[kind]) into[kind] = share.tokens[kind];
          }
        }
        return result;
      }
      const assignment = propose.assignment || [];
      let index = 0;
      for (const kind of TOKENS) {
        for (let i = 0; i < (negotiation.tokens[kind] || 0); i += 1, index += 1) {
          const who = index < assignment.length ? assignment[index] : 0;
          const share = result[negotiation.contributors[who]];
          share[kind] = (share[kind] || 0) + 1;
        }
      }
      return result;
    },
    accept: () => dg('accept'),
    reject: () => dg('reject'),
    // A kind in the victim's share of this dragon (view negotiation.shares).
    steal: (kind) => dg('steal', { token: token(kind, "steal's token") }),
    // A kind in the robbed player's own share of this dragon.
    decoyGive: (kind) => dg('decoy_give', { token: token(kind, "decoy_give's token") }),
    decoyKeep: () => dg('decoy_keep'),
    marketPass: () => dg('market_pass'),
    // Offer seat `to` the tokens `give` for the tokens `get`, each
    // { silver: 2, gold: 1 } (or a kind's name for one token): at least one
    // token and at most 7 of a kind each way, no kind on both sides.
    marketOffer: (to, give, get) => {
      const bundle = (tokens, what) =>
        counts(TOKENS, {}, typeof tokens === 'string' ? { [tokens]: 1 } : tokens, what);
      return dg('market_offer', {
        to, give: bundle(give, "market_offer's give"), get: bundle(get, "market_offer's get") });
    },
    marketAccept: () => dg('market_accept'),
    marketRefuse: () => dg('market_refuse'),
  };

  // Frost Dragon's Treasure (docs/rules/frost_dragon.md). Kingdoms are
  // 'mountain', 'forest', 'river' and 'glacier'.
  const kingdom = (value, what) =>
    enumName('FrostDragonKingdom', 'FROST_DRAGON_KINGDOM_', value, what);
  const frost_dragon = {
    chooseTrump: (k) => ({ frost_dragon: { choose_trump: {
      kingdom: kingdom(k, "choose_trump's kingdom") } } }),
    boast: (challenges) => ({ frost_dragon: { boast: { challenges } } }),
    // `card` is an id or a card of your hand; an ally joker is played as the
    // kingdom card `asKingdom`, `asRank` (2 to 14).
    play: (card, asKingdom = null, asRank = null) => {
      const play = { card: typeof card === 'object' ? card.id : card };
      if (asKingdom !== null || asRank !== null) {
        play.as_kingdom = kingdom(asKingdom, "play's as_kingdom");
        play.as_rank = asRank || 0;
      }
      return { frost_dragon: { play } };
    },
  };

  // Hedonia (docs/rules/hedonia.md). Assets are 'snorkel_pig',
  // 'bearded_hopper', ..., 'misdirection'; sides 'left' and 'right'.
  const hedonia = {
    offer: (asset) => ({ hedonia: { offer: {
      asset: enumName('HedoniaAsset', 'HEDONIA_ASSET_', asset, "offer's asset") } } }),
    claim: (side) => ({ hedonia: { claim: {
      side: enumName('HedoniaSide', 'HEDONIA_SIDE_', side, "claim's side") } } }),
  };

  return { village, dragons_gold, frost_dragon, hedonia };
};
