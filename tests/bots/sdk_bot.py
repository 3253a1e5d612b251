#!/usr/bin/python3
"""A bot on the Python SDK whose decisions go wrong, count, or think, for the SDK's tests.

    sdk_bot.py illegal   decides an index past the end of the legal actions,
                         each time it is asked: after 3 refusals the SDK
                         answers the default action
    sdk_bot.py slow      decides too slowly (sleeps 2 s): the SDK answers the
                         default action before the deadline
    sdk_bot.py crash     raises in every decision: the SDK logs it and answers
                         the default action
    sdk_bot.py stuck     decides for 60 s: the SDK answers the default action
                         before the deadline, and a stop signal must not wait
                         for the decision
    sdk_bot.py count     answers 1, then 2, 3... (how many decisions it has
                         made), so a test tells a fresh decision from an
                         answer sent again
    sdk_bot.py think     answers with typed actions built by hoard_bot.actions,
                         and in village and Dragon's Gold proposals first
                         answers illegally and corrects itself from the
                         refusal; prints a JSON line per call of its decide
                         function (tests/sdk_think_test.py says what it plays)
"""
import itertools
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bots", "python"))
import hoard_bot  # noqa: E402
from hoard_bot import actions  # noqa: E402
from hoard_bot.stubs import dragons_gold_pb2, frost_dragon_pb2, hedonia_pb2  # noqa: E402
from hoard_bot.stubs import village_pb2  # noqa: E402

MODE = sys.argv.pop(1) if len(sys.argv) > 1 else ""
_decisions = itertools.count(1)


def decide(decision):
    if MODE == "illegal":
        return len(decision.legal_actions)
    if MODE == "slow":
        time.sleep(2)
        return 0
    if MODE == "stuck":
        time.sleep(60)
        return 0
    if MODE == "count":
        return next(_decisions)
    raise RuntimeError("this bot fails on purpose")


# ---- think ---------------------------------------------------------------------------

_print_lock = threading.Lock()
_village_requests = {}  # request key -> its place among the village requests, from 0


def target(decision):
    """The legal action the bot means, spread over the list by the request id;
    in village never the default (0) when there is a choice, so that a
    correction differs from it."""
    n = len(decision.legal_actions)
    if decision.game != "village":
        return (decision.request.request_id * 7919) % n
    return 0 if n == 1 else 1 + (decision.request.request_id * 7919) % (n - 1)


def short(enum, value, prefix):
    return enum.Name(value)[len(prefix):].lower()


def mirror(action):
    """The helper call that builds `action` (a legal action of the request)."""
    game = action.WhichOneof("game")
    if game == "village":
        a = action.village
        kind = a.WhichOneof("kind")
        if kind == "draw":
            return actions.village.draw()
        if kind == "bribe":
            treasure = short(village_pb2.VillageCard, a.bribe.treasure, "VILLAGE_CARD_")
            counts = {f.name: n for f, n in a.bribe.cards.ListFields()}
            count = sum(n for name, n in counts.items() if name != "wilds")
            return actions.village.bribe(treasure, count, wilds=counts.get("wilds", 0))
        payment = {f.name: n for f, n in a.buy.payment.ListFields()}
        curse = short(village_pb2.VillageCard, a.buy.curse, "VILLAGE_CARD_") \
            if a.buy.curse else None
        return actions.village.buy(a.buy.stall, payment, curse=curse)
    if game == "dragons_gold":
        a = action.dragons_gold
        kind = a.WhichOneof("kind")
        adventurer = lambda v: short(  # noqa: E731
            dragons_gold_pb2.DragonsGoldAdventurer, v, "DRAGONS_GOLD_ADVENTURER_")
        token = lambda v: short(dragons_gold_pb2.DragonsGoldToken, v, "DRAGONS_GOLD_TOKEN_")  # noqa
        dg = actions.dragons_gold
        if kind == "attack":
            return dg.attack(a.attack.slot, adventurer(a.attack.adventurer),
                             second=adventurer(a.attack.second) if a.attack.second else None)
        if kind == "use_object":
            use = a.use_object
            name = short(dragons_gold_pb2.DragonsGoldObject, use.object, "DRAGONS_GOLD_OBJECT_")
            return {"dragon_swap": lambda: dg.dragon_swap(use.a, use.b),
                    "recall": dg.recall,
                    "retreat": lambda: dg.retreat(adventurer(use.adventurer)),
                    "treasure_map": dg.treasure_map,
                    "sleeping_potion": lambda: dg.sleeping_potion(use.a),
                    "silver_tongue": dg.silver_tongue,
                    "invisible_hand": lambda: dg.invisible_hand(use.a)}[name]()
        if kind == "propose":
            return dg.propose_assignment(a.propose.assignment)
        if kind in ("steal", "decoy_give"):
            return getattr(dg, kind)(token(getattr(a, kind).token))
        if kind == "market_offer":
            offer = a.market_offer
            bundle = lambda counts: {f.name: n for f, n in counts.ListFields()}  # noqa: E731
            return dg.market_offer(offer.to, bundle(offer.give), bundle(offer.get))
        return getattr(dg, kind)()  # accept, reject, decoy_keep, market_*
    if game == "frost_dragon":
        a = action.frost_dragon
        kind = a.WhichOneof("kind")
        kingdom = lambda v: short(  # noqa: E731
            frost_dragon_pb2.FrostDragonKingdom, v, "FROST_DRAGON_KINGDOM_")
        if kind == "choose_trump":
            return actions.frost_dragon.choose_trump(kingdom(a.choose_trump.kingdom))
        if kind == "boast":
            return actions.frost_dragon.boast(a.boast.challenges)
        if a.play.as_kingdom:
            return actions.frost_dragon.play(a.play.card, kingdom(a.play.as_kingdom),
                                             a.play.as_rank)
        return actions.frost_dragon.play(a.play.card)
    a = action.hedonia
    if a.WhichOneof("kind") == "offer":
        return actions.hedonia.offer(short(hedonia_pb2.HedoniaAsset, a.offer.asset,
                                           "HEDONIA_ASSET_"))
    return actions.hedonia.claim(short(hedonia_pb2.HedoniaSide, a.claim.side, "HEDONIA_SIDE_"))


def own_division(decision):
    """A division of the treasure that is none of the examples, or None."""
    negotiation = decision.view.negotiation
    contributors = list(negotiation.contributors)
    me = contributors.index(decision.seat)
    other = contributors[(me + 1) % len(contributors)]
    tokens = [f.name for f in dragons_gold_pb2.DragonsGoldTokenCounts.DESCRIPTOR.fields
              for _ in range(getattr(negotiation.tokens, f.name))]
    examples = [actions.dragons_gold.shares(a, negotiation) for a in decision.legal_actions
                if a.dragons_gold.WhichOneof("kind") == "propose"]
    n = len(tokens)
    # One token (the last, or the first) to one seat, the rest to the other.
    for lone, lone_to, rest_to in ((n - 1, other, decision.seat), (0, other, decision.seat),
                                   (n - 1, decision.seat, other)):
        if n < 2:
            break
        shares = {seat: {} for seat in contributors}
        for i, kind in enumerate(tokens):
            share = shares[lone_to if i == lone else rest_to]
            share[kind] = share.get(kind, 0) + 1
        if shares not in examples:
            return shares
    return None


def preferred(decision):
    """In Dragon's Gold, the index of a legal action whose helper random play
    rarely reaches, if one is legal: a Silver Tongue, a Treasure Map, a
    Retreat, a Second Strike, and a market pass at every fourth offer; else
    None."""
    rare = (dragons_gold_pb2.DRAGONS_GOLD_OBJECT_SILVER_TONGUE,
            dragons_gold_pb2.DRAGONS_GOLD_OBJECT_TREASURE_MAP,
            dragons_gold_pb2.DRAGONS_GOLD_OBJECT_RETREAT)
    for i, action in enumerate(decision.legal_actions):
        a = action.dragons_gold
        kind = a.WhichOneof("kind")
        if (kind == "use_object" and a.use_object.object in rare) \
                or (kind == "attack" and a.attack.second) \
                or (kind == "market_pass" and decision.request.request_id % 4 == 0):
            return i
    return None


def describe(answer):
    """'index 999', or the helper that built a typed action ('dragons_gold.recall')."""
    if isinstance(answer, int):
        return f"index {answer}"
    game = answer.WhichOneof("game")
    message = getattr(answer, game)
    kind = message.WhichOneof("kind")
    if kind == "use_object":
        return f"{game}." + short(dragons_gold_pb2.DragonsGoldObject, message.use_object.object,
                                  "DRAGONS_GOLD_OBJECT_")
    if kind == "propose" and message.propose.assignment:
        return f"{game}.propose_assignment"
    if kind == "play" and message.play.as_kingdom:
        return f"{game}.play_as"
    if kind == "attack" and message.attack.second:
        return f"{game}.attack_second"
    return f"{game}.{kind}"


def think(decision):
    t = target(decision)
    line = {"game": decision.game, "match": decision.match_id,
            "request": decision.request.request_id, "seat": decision.seat,
            "attempt": len(decision.refused) + 1, "time_left": decision.time_left_ms,
            "refused": [{"reason": r.reason, "code": r.code} for r in decision.refused],
            "legal": len(decision.legal_actions), "default": decision.texts[0],
            "expect": decision.texts[t], "plan": "", "illegal": False,
            "shares": None, "contributors": None}
    if decision.game == "village":
        # By the request's place among the match's: first answers that are
        # refused, then the correction, or an answer at once; the fourth
        # request stays wrong.
        key = (decision.match_id, decision.request.request_id)
        place = _village_requests.setdefault(key, len(_village_requests))
        plan = "stubborn" if place == 3 else ["index", "typed", "index typed", ""][place % 4]
        steps = plan.split()
        line["plan"] = plan
        draws = [i for i, a in enumerate(decision.legal_actions) if a.village.HasField("draw")]
        if plan == "stubborn" or len(decision.refused) < len(steps):
            step = "index" if plan == "stubborn" else steps[len(decision.refused)]
            answer = 999 if step == "index" else actions.village.bribe("crown", 60)
            line["illegal"] = True
        elif not plan and draws:  # answered at once: a draw, when one is legal
            answer = actions.village.draw()
            line["expect"] = decision.texts[draws[0]]
        else:
            answer = mirror(decision.legal_actions[t])
    elif decision.game == "dragons_gold" and preferred(decision) is not None:
        answer = mirror(decision.legal_actions[preferred(decision)])
        line["expect"] = decision.texts[preferred(decision)]
    elif decision.game == "dragons_gold" and not decision.complete and \
            decision.view.phase == dragons_gold_pb2.DRAGONS_GOLD_PHASE_PROPOSE:
        # Every third proposal an example (in the assignment form), the
        # others a division of its own, sent first with a token too many.
        shares = None if decision.request.request_id % 3 == 0 else own_division(decision)
        if shares is None:
            answer = mirror(decision.legal_actions[t])
        elif not decision.refused:
            wrong = {seat: dict(share) for seat, share in shares.items()}
            kind = next(kind for share in shares.values() for kind in share)
            wrong[decision.seat][kind] = wrong[decision.seat].get(kind, 0) + 1
            answer = actions.dragons_gold.propose(wrong)
            line["illegal"] = True
        else:
            answer = actions.dragons_gold.propose(shares)
            line["shares"] = {str(seat): share for seat, share in shares.items()}
            line["contributors"] = list(decision.view.negotiation.contributors)
    else:
        answer = mirror(decision.legal_actions[t])
    line["answer"] = describe(answer)
    with _print_lock:
        print(json.dumps(line), flush=True)
    return answer


if MODE == "think":
    hoard_bot.run(think, describe_actions=True)
elif MODE in ("illegal", "slow", "stuck", "crash", "count"):
    hoard_bot.run(decide)
else:
    sys.exit("usage: sdk_bot.py illegal|slow|stuck|crash|count|think [flags]")
