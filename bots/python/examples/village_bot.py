#!/usr/bin/python3
"""A simple heuristic bot for Please Don't Burn My Village! (game `village`).

It scores every legal action and plays the best:
  * bribe big, and bribe the treasures the Dragon's Favor already ranks high;
  * buy stalls that give more cards than they cost, wilds above all, and
    curse the treasure its opponents have bribed most;
  * draw otherwise, and as the deck runs low empty its hand into bribes
    (cards left in hand cost points at the end).
In other games it plays the first legal action.

    /usr/bin/python3 bots/python/examples/village_bot.py --name pyvillage --key secret
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hoard_bot  # noqa: E402

FIELDS = ["swords", "scrolls", "feathers", "potions", "axes", "crowns", "wilds"]
WILD = 7  # VILLAGE_CARD_WILD


def count(cards):
    return sum(getattr(cards, field) for field in FIELDS)


def favor_value(view, treasure, steps=0):
    """The value of `treasure`'s token after moving it `steps` spaces right."""
    position = list(view.favor).index(treasure)
    return view.favor_values[min(position + steps, len(view.favor_values) - 1)]


def score(view, action):
    me = view.players[view.observer]
    late = view.deck_size < 12  # few draws left: cards in hand will cost points
    kind = action.WhichOneof("kind")
    if kind == "draw":
        return 1.0 - (2.0 if late else 0.0)
    if kind == "bribe":
        cards = count(action.bribe.cards)
        value = favor_value(view, action.bribe.treasure, cards)
        joins = any(b.treasure == action.bribe.treasure for b in me.bribes)
        return cards * value * (1.5 if late else 1.0) + (1.0 if joins else 0.0) - 2.0
    # buy: cards gained against cards paid; wilds are flexible.
    stall = view.market[action.buy.stall]
    gained = count(stall) + 0.5 * stall.wilds
    paid = count(action.buy.payment)
    theirs = sum(b.treasures for p in view.players if p.seat != view.observer
                 for b in p.bribes if b.treasure == action.buy.curse)
    mine = sum(b.treasures for b in me.bribes if b.treasure == action.buy.curse)
    return gained - paid + 0.3 * (theirs - mine) - (1.5 if late else 0.0)


def decide(decision):
    if decision.game != "village":
        return 0
    scores = [score(decision.view, action.village) for action in decision.legal_actions]
    return max(range(len(scores)), key=scores.__getitem__)


if __name__ == "__main__":
    hoard_bot.run(decide, description=__doc__)
