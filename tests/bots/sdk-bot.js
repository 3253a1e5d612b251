#!/usr/bin/env node
// A bot on the Node SDK whose decisions go wrong, count, or think, for the SDK's tests.
//
//   sdk-bot.js illegal   decides an index past the end of the legal actions,
//                        each time it is asked: after 3 refusals the SDK
//                        answers the default action
//   sdk-bot.js slow      decides too slowly (2 s): the SDK answers the
//                        default action before the deadline
//   sdk-bot.js crash     throws in every decision: the SDK logs it and
//                        answers the default action
//   sdk-bot.js stuck     decides for 60 s: the SDK answers the default
//                        action before the deadline, and a stop signal must
//                        not wait for the decision
//   sdk-bot.js count     answers 1, then 2, 3... (how many decisions it has
//                        made), so a test tells a fresh decision from an
//                        answer sent again
//   sdk-bot.js think     answers with typed actions built by the SDK's
//                        actions, and in village and Dragon's Gold proposals
//                        first answers illegally and corrects itself from the
//                        refusal; prints a JSON line per call of its decide
//                        function (tests/sdk_think_test.py says what it plays)
'use strict';
const { run, actions } = require('../../bots/node/hoard-bot');

const mode = process.argv[2];
let decisions = 0;

// ---- think ------------------------------------------------------------------------

const TOKENS = ['silver', 'gold', 'red', 'blue', 'green', 'purple', 'yellow', 'white', 'black'];
const villageRequests = new Map();  // request key -> its place among the village requests

// The legal action the bot means, spread over the list by the request id; in
// village never the default (0) when there is a choice, so that a correction
// differs from it.
function target(decision) {
  const n = decision.legalActions.length;
  const id = Number(decision.request.request_id);
  if (decision.game !== 'village') return (id * 7919) % n;
  return n === 1 ? 0 : 1 + ((id * 7919) % (n - 1));
}

const short = (name, prefix) => name.slice(prefix.length).toLowerCase();

// The helper call that builds `action` (a legal action of the request).
function mirror(action) {
  if (action.game === 'village') {
    const a = action.village;
    if (a.kind === 'draw') return actions.village.draw();
    if (a.kind === 'bribe') {
      const cards = a.bribe.cards;
      const count = Object.entries(cards).filter(([k]) => k !== 'wilds')
        .reduce((sum, [, n]) => sum + n, 0);
      return actions.village.bribe(short(a.bribe.treasure, 'VILLAGE_CARD_'), count, cards.wilds);
    }
    const payment = Object.fromEntries(Object.entries(a.buy.payment).filter(([, n]) => n > 0));
    const curse = a.buy.curse === 'VILLAGE_CARD_UNSPECIFIED' ? null
      : short(a.buy.curse, 'VILLAGE_CARD_');
    return actions.village.buy(a.buy.stall, payment, curse);
  }
  if (action.game === 'dragons_gold') {
    const a = action.dragons_gold;
    const dg = actions.dragons_gold;
    const adventurer = (v) => short(v, 'DRAGONS_GOLD_ADVENTURER_');
    const token = (v) => short(v, 'DRAGONS_GOLD_TOKEN_');
    switch (a.kind) {
      case 'attack':
        return dg.attack(a.attack.slot, adventurer(a.attack.adventurer),
                         a.attack.second === 'DRAGONS_GOLD_ADVENTURER_UNSPECIFIED' ? null
                           : adventurer(a.attack.second));
      case 'use_object': {
        const use = a.use_object;
        return {
          DRAGONS_GOLD_OBJECT_DRAGON_SWAP: () => dg.dragonSwap(use.a, use.b),
          DRAGONS_GOLD_OBJECT_RECALL: () => dg.recall(),
          DRAGONS_GOLD_OBJECT_RETREAT: () => dg.retreat(adventurer(use.adventurer)),
          DRAGONS_GOLD_OBJECT_TREASURE_MAP: () => dg.treasureMap(),
          DRAGONS_GOLD_OBJECT_SLEEPING_POTION: () => dg.sleepingPotion(use.a),
          DRAGONS_GOLD_OBJECT_SILVER_TONGUE: () => dg.silverTongue(),
          DRAGONS_GOLD_OBJECT_INVISIBLE_HAND: () => dg.invisibleHand(use.a),
        }[use.object]();
      }
      case 'propose': return dg.proposeAssignment(a.propose.assignment);
      case 'accept': return dg.accept();
      case 'reject': return dg.reject();
      case 'steal': return dg.steal(token(a.steal.token));
      case 'decoy_give': return dg.decoyGive(token(a.decoy_give.token));
      case 'decoy_keep': return dg.decoyKeep();
      case 'market_pass': return dg.marketPass();
      case 'market_offer':
        return dg.marketOffer(a.market_offer.to, a.market_offer.give, a.market_offer.get);
      case 'market_accept': return dg.marketAccept();
      case 'market_refuse': return dg.marketRefuse();
      default: throw new Error(`no helper for ${a.kind}`);
    }
  }
  if (action.game === 'frost_dragon') {
    const a = action.frost_dragon;
    const kingdom = (v) => short(v, 'FROST_DRAGON_KINGDOM_');
    if (a.kind === 'choose_trump') {
      return actions.frost_dragon.chooseTrump(kingdom(a.choose_trump.kingdom));
    }
    if (a.kind === 'boast') return actions.frost_dragon.boast(a.boast.challenges);
    if (a.play.as_kingdom !== 'FROST_DRAGON_KINGDOM_UNSPECIFIED') {
      return actions.frost_dragon.play(a.play.card, kingdom(a.play.as_kingdom), a.play.as_rank);
    }
    return actions.frost_dragon.play(a.play.card);
  }
  const a = action.hedonia;
  if (a.kind === 'offer') return actions.hedonia.offer(short(a.offer.asset, 'HEDONIA_ASSET_'));
  return actions.hedonia.claim(short(a.claim.side, 'HEDONIA_SIDE_'));
}

const sameShares = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// A division of the treasure that is none of the examples, or null.
function ownDivision(decision) {
  const negotiation = decision.view.negotiation;
  const contributors = negotiation.contributors;
  const me = decision.seat;
  const other = contributors[(contributors.indexOf(me) + 1) % contributors.length];
  const tokens = TOKENS.flatMap((kind) => Array(negotiation.tokens[kind] || 0).fill(kind));
  const examples = decision.legalActions.filter((a) => a.dragons_gold.kind === 'propose')
    .map((a) => actions.dragons_gold.shares(a, negotiation));
  const n = tokens.length;
  if (n < 2) return null;
  // One token (the last, or the first) to one seat, the rest to the other.
  for (const [lone, loneTo, restTo] of [[n - 1, other, me], [0, other, me], [n - 1, me, other]]) {
    const shares = Object.fromEntries(contributors.map((seat) => [seat, {}]));
    tokens.forEach((kind, i) => {
      const share = shares[i === lone ? loneTo : restTo];
      share[kind] = (share[kind] || 0) + 1;
    });
    // In kind order, as shares() lists them.
    for (const seat of contributors) {
      shares[seat] = Object.fromEntries(TOKENS.filter((k) => shares[seat][k])
        .map((k) => [k, shares[seat][k]]));
    }
    if (!examples.some((example) => sameShares(example, shares))) return shares;
  }
  return null;
}

// In Dragon's Gold, the index of a legal action whose helper random play
// rarely reaches, if one is legal: a Silver Tongue, a Second Strike, and a
// market pass at every fourth offer; else null.
function preferred(decision) {
  const i = decision.legalActions.findIndex((action) => {
    const a = action.dragons_gold;
    const rare = ['DRAGONS_GOLD_OBJECT_SILVER_TONGUE', 'DRAGONS_GOLD_OBJECT_TREASURE_MAP',
                  'DRAGONS_GOLD_OBJECT_RETREAT'];
    return (a.kind === 'use_object' && rare.includes(a.use_object.object)) ||
      (a.kind === 'attack' && a.attack.second !== 'DRAGONS_GOLD_ADVENTURER_UNSPECIFIED') ||
      (a.kind === 'market_pass' && Number(decision.request.request_id) % 4 === 0);
  });
  return i < 0 ? null : i;
}

// 'index 999', or the helper that built a typed action ('dragons_gold.recall').
function describe(answer) {
  if (Number.isInteger(answer)) return `index ${answer}`;
  const [game, message] = Object.entries(answer)[0];
  const [kind, inner] = Object.entries(message)[0];
  if (kind === 'use_object') return `${game}.${short(inner.object, 'DRAGONS_GOLD_OBJECT_')}`;
  if (kind === 'propose' && inner.assignment) return `${game}.propose_assignment`;
  if (kind === 'play' && inner.as_kingdom) return `${game}.play_as`;
  if (kind === 'attack' && inner.second) return `${game}.attack_second`;
  return `${game}.${kind}`;
}

function think(decision) {
  const t = target(decision);
  const line = {
    game: decision.game, match: decision.matchId, request: Number(decision.request.request_id),
    seat: decision.seat, attempt: decision.refused.length + 1, time_left: decision.timeLeftMs,
    refused: decision.refused.map((r) => ({ reason: r.reason, code: r.code })),
    legal: decision.legalActions.length, default: decision.texts[0], expect: decision.texts[t],
    plan: '', illegal: false, shares: null, contributors: null,
  };
  let answer;
  if (decision.game === 'village') {
    // By the request's place among the match's: first answers that are
    // refused, then the correction, or an answer at once; the fourth request
    // stays wrong.
    const key = `${decision.matchId}/${decision.request.request_id}`;
    if (!villageRequests.has(key)) villageRequests.set(key, villageRequests.size);
    const place = villageRequests.get(key);
    const plan = place === 3 ? 'stubborn' : ['index', 'typed', 'index typed', ''][place % 4];
    const steps = plan ? plan.split(' ') : [];
    line.plan = plan;
    const draw = decision.legalActions.findIndex((a) => a.village.kind === 'draw');
    if (plan === 'stubborn' || decision.refused.length < steps.length) {
      const step = plan === 'stubborn' ? 'index' : steps[decision.refused.length];
      answer = step === 'index' ? 999 : actions.village.bribe('crown', 60);
      line.illegal = true;
    } else if (!plan && draw >= 0) {  // answered at once: a draw, when one is legal
      answer = actions.village.draw();
      line.expect = decision.texts[draw];
    } else {
      answer = mirror(decision.legalActions[t]);
    }
  } else if (decision.game === 'dragons_gold' && preferred(decision) !== null) {
    answer = mirror(decision.legalActions[preferred(decision)]);
    line.expect = decision.texts[preferred(decision)];
  } else if (decision.game === 'dragons_gold' && !decision.complete &&
             decision.view.phase === 'DRAGONS_GOLD_PHASE_PROPOSE') {
    // Every third proposal an example (in the assignment form), the others a
    // division of its own, sent first with a token too many.
    const shares = Number(decision.request.request_id) % 3 === 0 ? null : ownDivision(decision);
    if (!shares) {
      answer = mirror(decision.legalActions[t]);
    } else if (!decision.refused.length) {
      const wrong = JSON.parse(JSON.stringify(shares));
      const kind = Object.keys(Object.values(shares).find((s) => Object.keys(s).length))[0];
      wrong[decision.seat][kind] = (wrong[decision.seat][kind] || 0) + 1;
      answer = actions.dragons_gold.propose(wrong);
      line.illegal = true;
    } else {
      answer = actions.dragons_gold.propose(shares);
      line.shares = shares;
      line.contributors = decision.view.negotiation.contributors;
    }
  } else {
    answer = mirror(decision.legalActions[t]);
  }
  line.answer = describe(answer);
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return answer;
}

const decide = {
  illegal: (decision) => decision.legalActions.length,
  slow: () => new Promise((resolve) => setTimeout(() => resolve(0), 2000)),
  stuck: () => new Promise((resolve) => setTimeout(() => resolve(0), 60000)),
  crash: () => { throw new Error('this bot fails on purpose'); },
  count: () => { decisions += 1; return decisions; },
  think,
}[mode];
if (!decide) {
  process.stderr.write('usage: sdk-bot.js illegal|slow|stuck|crash|count|think [flags]\n');
  process.exit(2);
}
run(decide, { argv: process.argv.slice(3), describeActions: mode === 'think' });
