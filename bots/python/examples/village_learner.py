#!/usr/bin/python3
"""A learned bot for Please Don't Burn My Village!: trained by self-play on the
local engine, then played on a server by the same code.

The bot scores each legal action as a weighted sum of a few features (what a
bribe is worth on the Dragon's Favor, what a purchase gains and costs, how
late it is...) and plays the best. Training starts from all-zero weights
(which play the default action, like the built-in `first`) and improves them
by the cross-entropy method: each generation draws candidate weights around
the current ones, plays each candidate against the current champion (itself:
self-play) and against `random` on the engine in this process, and moves
toward the best. After each generation it prints the learning curve: the
champion's win rate against `random` and against `heuristic`.

    /usr/bin/python3 bots/python/examples/village_learner.py train --minutes 3 --out weights.json
    /usr/bin/python3 bots/python/examples/village_learner.py play --weights weights.json \\
        --name learner --key KEY

`play` takes every flag of a Hoard bot (--server, --matches, ...). The engine
module is built by `bash scripts/setup.sh` (docs/bots.md, "Train locally").
"""
import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hoard_bot  # noqa: E402
from hoard_bot import local  # noqa: E402

FIELDS = ["swords", "scrolls", "feathers", "potions", "axes", "crowns", "wilds"]
FEATURES = ["draw", "draw_late", "bribe", "bribe_cards", "bribe_value", "bribe_late_value",
            "bribe_joins", "buy", "buy_gain", "buy_paid", "buy_wilds", "buy_curse", "buy_late"]


def count(cards):
    return sum(getattr(cards, field) for field in FIELDS)


def features(view, action):
    """The action's features in the order of FEATURES."""
    me = view.players[view.observer]
    late = 1.0 if view.deck_size < 12 else 0.0
    f = [0.0] * len(FEATURES)
    kind = action.WhichOneof("kind")
    if kind == "draw":
        f[0], f[1] = 1.0, late
    elif kind == "bribe":
        cards = count(action.bribe.cards)
        position = list(view.favor).index(action.bribe.treasure)
        value = view.favor_values[min(position + cards, len(view.favor_values) - 1)]
        f[2], f[3], f[4] = 1.0, cards, cards * value / 10.0
        f[5] = late * cards * value / 10.0
        f[6] = 1.0 if any(b.treasure == action.bribe.treasure for b in me.bribes) else 0.0
    elif kind == "buy":
        stall = view.market[action.buy.stall]
        theirs = sum(b.treasures for p in view.players if p.seat != view.observer
                     for b in p.bribes if b.treasure == action.buy.curse)
        mine = sum(b.treasures for b in me.bribes if b.treasure == action.buy.curse)
        f[7], f[8], f[9] = 1.0, count(stall), count(action.buy.payment)
        f[10], f[11], f[12] = stall.wilds, (theirs - mine) / 5.0, late
    return f


def make_decide(weights):
    """The bot: a decide function of hoard_bot, as run() and local.play() take it."""
    def decide(decision):
        if decision.game != "village":
            return 0
        best, best_score = 0, None
        for index, action in enumerate(decision.legal_actions):
            score = sum(w * x for w, x in zip(weights, features(decision.view, action.village)))
            if best_score is None or score > best_score:
                best, best_score = index, score
        return best
    return decide


def win_rate(decide, opponent, matches, seed):
    results = local.play(decide, game="village", players=2, opponents=[opponent],
                         matches=matches, seed=seed)
    return results.wins() / len(results)


def train(minutes, out, seed, log=print):
    rng = random.Random(seed)
    mean = [0.0] * len(FEATURES)
    sigma = [1.0] * len(FEATURES)
    candidates, elite, matches = 10, 3, 10
    started = time.monotonic()
    curve = []
    generation = 0
    while time.monotonic() - started < minutes * 60:
        generation += 1
        champion = make_decide(mean)
        scored = []
        for c in range(candidates):
            weights = [m + s * rng.gauss(0, 1) for m, s in zip(mean, sigma)]
            decide = make_decide(weights)
            game_seed = rng.randrange(1 << 31)
            # Self-play against the champion, and play against random.
            fitness = win_rate(decide, champion, matches, game_seed) + \
                win_rate(decide, "random", matches // 2, game_seed + 1)
            scored.append((fitness, c, weights))
        scored.sort(reverse=True)
        best = [weights for _, _, weights in scored[:elite]]
        mean = [sum(w[i] for w in best) / elite for i in range(len(FEATURES))]
        sigma = [max(0.05, (sum((w[i] - mean[i]) ** 2 for w in best) / elite) ** 0.5)
                 for i in range(len(FEATURES))]
        champion = make_decide(mean)
        point = {"generation": generation, "seconds": round(time.monotonic() - started, 1),
                 "vs_random": win_rate(champion, "random", 40, 7),
                 "vs_heuristic": win_rate(champion, "heuristic", 40, 7)}
        curve.append(point)
        log(f"generation {generation} ({point['seconds']:.0f} s): wins {100 * point['vs_random']:.0f}% "
            f"against random, {100 * point['vs_heuristic']:.0f}% against heuristic")
        with open(out, "w") as f:
            json.dump({"features": FEATURES, "weights": mean, "curve": curve}, f, indent=1)
    return mean, curve


def main(argv):
    if len(argv) > 1 and argv[1] == "train":
        parser = argparse.ArgumentParser(prog="village_learner.py train",
                                         description="Train the weights by self-play.")
        parser.add_argument("--minutes", type=float, default=3.0, metavar="M",
                            help="how long to train (default 3)")
        parser.add_argument("--out", default="weights.json", metavar="FILE",
                            help="where to write the weights and the learning curve "
                                 "(default weights.json; written after every generation)")
        parser.add_argument("--seed", type=int, default=1, metavar="N",
                            help="the training's seed (default 1)")
        args = parser.parse_args(argv[2:])
        train(args.minutes, args.out, args.seed)
        return 0
    if len(argv) > 1 and argv[1] == "play":
        parser = argparse.ArgumentParser(add_help=False)
        parser.add_argument("--weights", required=True, metavar="FILE")
        args, rest = parser.parse_known_args(argv[2:])
        with open(args.weights) as f:
            weights = json.load(f)["weights"]
        sys.argv = [argv[0]] + rest
        hoard_bot.run(make_decide(weights), description="The learned village bot.")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
