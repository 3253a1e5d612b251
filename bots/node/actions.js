// Typed actions of every game, built without assembling messages by hand.
//
//   const { actions } = require('./hoard-bot');
//   actions.village.bribe('sword', 2, 1);
//   actions.dragons_gold.propose({ 0: { gold: 2 }, 2: { silver: 1, blue: 1 } });
//   actions.frost_dragon.play(card.id);
//   actions.hedonia.claim('left');
//
// Each returns an Action object to return from a decide function. The
// namespaces are read from the protocol by reflection (protobufjs): every
// branch of hoard.v1.Action is a game, and every member of the oneof of its
// action message (VillageAction's draw, bribe, buy) a helper named as it in
// camelCase, whose arguments are that member's fields in the .proto's order.
// So a game added to the protocol has its helpers with no code here.
// Arguments:
// - an enum field takes the value's name without its prefix, in any case
//   ('sword', 'knight_4', 'snorkel_pig', 'left'); the full name and the
//   number work too. A name that is no such thing throws a RangeError naming
//   the valid ones;
// - a message field takes an object of its fields; a message of counts only
//   (VillageCards) takes { kind: count }, a kind named by its field or in
//   the singular ('sword' for swords), or one kind's name for one of it;
// - a repeated field takes an array;
// - null or undefined leaves a field unset.
// actions.<game>.kinds lists a game's kinds, actions.<game>.build(kind,
// ...fields) builds one by name. A few helpers read better with other
// arguments (a bribe of `count` cards, a magic object by name, a division as
// { seat: tokens }); they are written below over the derived ones.
//
// The helpers check only what they can without the match (names,
// numbers): the server judges the rest, and a refusal says why
// (decision.refused). docs/bots.md has an example per game;
// proto/hoard/v1/<game>.proto and docs/rules/<game>.md say what each action
// means.

'use strict';

const path = require('path');
const util = require('util');
const protobuf = require('protobufjs');

const INTEGERS = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32',
                          'fixed64', 'sfixed32', 'sfixed64']);

const words = (name) => String(name).trim().toLowerCase().replace(/[ -]/g, '_');
const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

// The hoard.v1 types of the .proto files in `protoDir`, by reflection.
function loadTypes(protoDir) {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => path.resolve(protoDir, target);
  root.loadSync('hoard/v1/arena.proto', { keepCase: true });
  root.resolveAll();
  return root.lookup('hoard.v1');
}

// The prefix of an enum's value names: 'VILLAGE_CARD_' of VillageCard.
function enumPrefix(type) {
  const names = Object.keys(type.values);
  const zero = names.find((name) => type.values[name] === 0);
  if (zero && zero.endsWith('UNSPECIFIED')) return zero.slice(0, -'UNSPECIFIED'.length);
  let common = names[0] || '';
  for (const name of names) while (!name.startsWith(common)) common = common.slice(0, -1);
  return common.slice(0, common.lastIndexOf('_') + 1);
}

// The full name of `value` (a short or full name, or a number) in enum `type`.
function enumName(type, value, what) {
  const prefix = enumPrefix(type);
  let name;
  if (Number.isInteger(value)) {
    name = type.valuesById[value];
  } else if (typeof value === 'string') {
    name = value.trim().toUpperCase().replace(/[ -]/g, '_');
    if (!name.startsWith(prefix)) name = prefix + name;
    if (!(name in type.values)) name = undefined;
  }
  if (name && !name.endsWith('_UNSPECIFIED')) return name;
  const valid = Object.keys(type.values).filter((n) => !n.endsWith('_UNSPECIFIED'))
    .map((n) => n.slice(prefix.length).toLowerCase());
  throw new RangeError(`${what} must be one of ${valid.join(', ')}, not ${String(value)}`);
}

// Whether a message holds counts only: every field a single whole number.
function isCounts(type) {
  return type.fieldsArray.length > 0 &&
    type.fieldsArray.every((f) => !f.repeated && !f.map && INTEGERS.has(f.type));
}

// The field of a counts message `name` means: its own, or the kind in the
// singular ('sword' for swords).
function kindField(type, name) {
  const key = words(name);
  return type.fields[key] || type.fields[`${key}s`];
}

// The message `type` from `value`: an object of its fields, or for a counts
// message { kind: count } (or a Map) or one kind's name.
function messageValue(type, value, what) {
  if (isCounts(type)) {
    const given = typeof value === 'string' ? { [value]: 1 }
      : value instanceof Map ? Object.fromEntries(value) : value || {};
    const message = {};
    for (const [name, count] of Object.entries(given)) {
      const field = kindField(type, name);
      if (!field) {
        throw new RangeError(`${what}: no such kind '${name}'; the kinds are ` +
                             `${type.fieldsArray.map((f) => f.name).join(', ')}`);
      }
      if (!Number.isInteger(count) || count < 0) {
        throw new RangeError(`${what}: the count of ${name} must be a whole number >= 0, ` +
                             `not ${count}`);
      }
      message[field.name] = (message[field.name] || 0) + count;
    }
    return message;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RangeError(`${what} must be an object of ${type.name}'s fields ` +
                         `(${type.fieldsArray.map((f) => f.name).join(', ')}), not ${value}`);
  }
  return fieldsMessage(type, [], value, what);
}

function fieldValue(field, value, what) {
  const type = field.resolvedType;
  if (type instanceof protobuf.Enum) return enumName(type, value, what);
  if (type instanceof protobuf.Type) return messageValue(type, value, what);
  return value;
}

// The message `type` with its fields given in order by `args` and by name by
// `named`, each converted as this file's head says.
function fieldsMessage(type, args, named, what) {
  const fields = type.fieldsArray;
  if (args.length > fields.length) {
    throw new RangeError(`${what} takes at most ${fields.length} arguments ` +
                         `(${fields.map((f) => f.name).join(', ')}), not ${args.length}`);
  }
  const given = new Map(args.map((value, i) => [fields[i].name, value]));
  for (const [name, value] of Object.entries(named)) {
    if (!type.fields[name]) {
      throw new RangeError(`${what} has no field '${name}'; its fields are ` +
                           `${fields.map((f) => f.name).join(', ') || 'none'}`);
    }
    given.set(name, value);
  }
  const message = {};
  for (const [name, value] of given) {
    if (value === null || value === undefined) continue;
    const field = type.fields[name];
    const part = `${what}'s ${name}`;
    message[name] = field.repeated ? [...value].map((v) => fieldValue(field, v, part))
      : fieldValue(field, value, part);
  }
  return message;
}

// The typed actions of one game: a helper per kind (camelCase), `kinds`,
// and `build(kind, ...fields)`.
function gameActions(types, game) {
  const actionType = types.lookupType('Action').fields[game].resolvedType;
  // A game's action message is the oneof of its kinds.
  const kinds = actionType.oneofsArray[0].fieldsArray.map((f) => f.name);
  const make = (kind, what, args, named = {}) => {
    const field = actionType.fields[kind];
    if (!kinds.includes(kind)) {
      throw new RangeError(`${game} has no action '${kind}'; its kinds are ${kinds.join(', ')}`);
    }
    return { [game]: { [kind]: fieldsMessage(field.resolvedType, args, named, what) } };
  };
  const derived = {};
  for (const kind of kinds) derived[camel(kind)] = (...args) => make(kind, kind, args);
  const written = WRITTEN[game] ? WRITTEN[game](derived, types, make) : {};
  return { ...derived, ...written, kinds, build: (kind, ...args) => make(kind, kind, args) };
}

// The helpers written by hand, by game, over the derived ones; every other
// game's are all derived.
const WRITTEN = {
  // Please Don't Burn My Village! (docs/rules/village.md).
  village: (derived, types) => ({
    // `count` cards of `treasure` ('sword' to 'crown') and `wilds` wilds.
    bribe: (treasure, count, wilds = 0) => {
      const card = types.lookupEnum('VillageCard');
      const kind = enumName(card, treasure, "bribe's treasure");
      if (kind === 'VILLAGE_CARD_WILD') {
        throw new RangeError("a bribe's treasure is a treasure type; give wilds as the third " +
                             'argument');
      }
      const cards = types.lookupType('VillageCards');
      const field = kindField(cards, kind.slice(enumPrefix(card).length)).name;
      return derived.bribe(kind, messageValue(cards, { [field]: count, wilds }, 'bribe'));
    },
  }),

  // Dragon's Gold (docs/rules/dragons_gold.md). Tokens are 'silver', 'gold',
  // 'red', 'blue', 'green', 'purple', 'yellow', 'white' and 'black';
  // adventurers 'knight_4', 'knight_3', 'thief' and 'wizard'.
  dragons_gold: (derived, types, make) => {
    const object = (kind, named = {}) => make('use_object', kind, [kind], named);
    const tokenKinds = () =>
      types.lookupType('DragonsGoldTokenCounts').fieldsArray.map((f) => f.name);
    return {
      dragonSwap: (slotA, slotB) =>
        object('dragon_swap', { a: Math.min(slotA, slotB), b: Math.max(slotA, slotB) }),
      recall: () => object('recall'),
      retreat: (who) => object('retreat', { adventurer: who }),
      treasureMap: () => object('treasure_map'),
      sleepingPotion: (slot) => object('sleeping_potion', { a: slot }),
      silverTongue: () => object('silver_tongue'),
      invisibleHand: (seat) => object('invisible_hand', { a: seat }),
      // A division: each contributor's seat to its tokens, { 0: { gold: 2 },
      // 2: { silver: 1 } } (or a Map, or [[seat, tokens], ...]). Every token
      // of the treasure must go to one contributor; one left out gets nothing.
      propose: (shares) => {
        const entries = shares instanceof Map ? [...shares] : Array.isArray(shares) ? shares
          : Object.entries(shares);
        const counts = types.lookupType('DragonsGoldTokenCounts');
        const list = entries.map(([seat, tokens]) => ({
          seat: Number(seat), tokens: messageValue(counts, tokens, `seat ${seat}'s share`) }));
        list.sort((a, b) => a.seat - b.seat);
        return make('propose', 'propose', [], { shares: list });
      },
      // The engine's form (the examples' form): for each token of the
      // treasure in kind order, the index of its receiver among the
      // contributors.
      proposeAssignment: (assignment) =>
        make('propose', 'propose', [], { assignment: [...assignment] }),
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
            for (const kind of tokenKinds()) {
              if (share.tokens && share.tokens[kind]) into[kind] = share.tokens[kind];
            }
          }
          return result;
        }
        const assignment = propose.assignment || [];
        let index = 0;
        for (const kind of tokenKinds()) {
          for (let i = 0; i < (negotiation.tokens[kind] || 0); i += 1, index += 1) {
            const who = index < assignment.length ? assignment[index] : 0;
            const share = result[negotiation.contributors[who]];
            share[kind] = (share[kind] || 0) + 1;
          }
        }
        return result;
      },
    };
  },

  // Frost Dragon's Treasure (docs/rules/frost_dragon.md). Kingdoms are
  // 'mountain', 'forest', 'river' and 'glacier'.
  frost_dragon: (derived) => ({
    // `card` is an id or a card of your hand; an ally joker is played as the
    // kingdom card `asKingdom`, `asRank` (2 to 14).
    play: (card, asKingdom = null, asRank = null) =>
      derived.play(typeof card === 'object' ? card.id : card, asKingdom, asRank),
  }),
};

// `protoDir` returns the folder of hoard/v1/*.proto; it is called once, when
// the actions are first looked at. Returns { <game>: its actions } for every
// game of the protocol.
module.exports = function makeActions(protoDir) {
  let built = null;
  const all = () => {
    if (!built) {
      const types = loadTypes(protoDir());
      built = {};
      for (const field of types.lookupType('Action').oneofs.game.fieldsArray) {
        built[field.name] = gameActions(types, field.name);
      }
    }
    return built;
  };
  return new Proxy({}, {
    // console.log(actions) shows the games, not the empty target.
    get: (_, name) => (name === util.inspect.custom ? () => all() : all()[name]),
    has: (_, name) => name in all(),
    ownKeys: () => Object.keys(all()),
    getOwnPropertyDescriptor: (_, name) => (name in all()
      ? { value: all()[name], enumerable: true, configurable: true } : undefined),
  });
};
