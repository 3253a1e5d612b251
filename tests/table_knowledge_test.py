"""A Python bot that reads only its events knows what a player at the table knows.

Against a real `hoard serve`, Dragon's Gold matches of four: a Python bot
(the SDK, joined by seat token, hearing every event on its stream) in seat 0
against built-in bots. The bot keeps nothing but the events it is told; from
the last event before the end it reckons, for each opponent, the tokens the
public record shows going behind that screen and out of it — each division,
market swap, steal from a share and public draw with its kind, and the rest
(an Invisible Hand, a Treasure Map's draw, a random steal from a screen
under thief_steals=screen) as "a token". At the
end every screen is shown, and the reckoning is checked against it:

- the count of each opponent's tokens is exactly what the record says;
- for every kind, the opponent holds what the known movements say, give or
  take only the tokens whose kind the record hides;
- the hidden movements between two other seats never show the bot their kind;
- each "accept the swap" of the match's record is one market swap the bot
  was told of, and every slaying it was told of is in the record's order of
  the match (as many as the dragons the record shows slain).

Across the matches there must have been divisions, public draws and at least
one hidden movement, so the checks bite.

Usage: table_knowledge_test.py PATH_TO_HOARD [MATCHES]
Prints one line per check and a closing 'N passed, M failed'; exits 1 if any
check failed.
"""
import collections
import os
import sys
import threading

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 2:
    sys.exit("usage: table_knowledge_test.py PATH_TO_HOARD [MATCHES]")
import hoard_bot  # noqa: E402
import sdk_think_test as real  # noqa: E402  (its `hoard serve`)
from checks import check, finish  # noqa: E402
from hoard_bot.stubs import arena_pb2, dragons_gold_pb2  # noqa: E402

MATCHES = int(sys.argv[2]) if len(sys.argv) > 2 else 6
PLAYERS = ["heuristic", "random", "heuristic"]
TIME_CONTROL = arena_pb2.TimeControl(decision_ms=10000, bank_ms=0, max_strikes=0)
KINDS = [f.name for f in dragons_gold_pb2.DragonsGoldTokenCounts.DESCRIPTOR.fields]
HIDDEN = dragons_gold_pb2.DRAGONS_GOLD_TOKEN_UNSPECIFIED
Outcome = dragons_gold_pb2.DragonsGoldSlayingOutcome


def kind_name(token):
    """'silver'... for a DragonsGoldToken, None when hidden."""
    if token == HIDDEN:
        return None
    return dragons_gold_pb2.DragonsGoldToken.Name(token)[len("DRAGONS_GOLD_TOKEN_"):].lower()


class Ledger:
    """What the table knows of one screen: tokens in and out, by kind or hidden."""

    def __init__(self):
        self.known = collections.Counter()  # net, by kind
        self.hidden_in = 0
        self.hidden_out = 0

    def move(self, token, sign):
        kind = kind_name(token)
        if kind is not None:
            self.known[kind] += sign
        elif sign > 0:
            self.hidden_in += 1
        else:
            self.hidden_out += 1

    def add_counts(self, counts, sign=+1):
        for kind in KINDS:
            self.known[kind] += sign * getattr(counts, kind)


def reckon(record, players, random_thefts_hidden):
    """Each seat's Ledger from a view's public record, and what it held. A
    thief's random pick is hidden from others only when thieves rob screens."""
    ledgers = [Ledger() for _ in range(players)]
    seen = collections.Counter()
    hidden_between_others = []
    for entry in record:
        which = entry.WhichOneof("entry")
        seen[which] += 1
        if which == "slaying":
            if entry.slaying.outcome == Outcome.Value("DRAGONS_GOLD_SLAYING_OUTCOME_DIVIDED"):
                seen["divided"] += 1
                for share in entry.slaying.shares:
                    ledgers[share.seat].add_counts(share.tokens)
            if any(getattr(entry.slaying.drawn, kind) for kind in KINDS):
                seen["public draws"] += 1
        elif which == "market_swap":
            swap = entry.market_swap
            ledgers[swap.__getattribute__("from")].add_counts(swap.give, -1)
            ledgers[swap.to].add_counts(swap.give, +1)
            ledgers[swap.to].add_counts(swap.get, -1)
            ledgers[swap.__getattribute__("from")].add_counts(swap.get, +1)
        elif which == "theft":
            theft = entry.theft
            ledgers[theft.victim].move(theft.token, -1)
            ledgers[theft.thief_seat].move(theft.token, +1)
            if theft.token == HIDDEN:
                seen["hidden"] += 1
            elif 0 not in (theft.victim, theft.thief_seat) and (
                    theft.how == dragons_gold_pb2.DRAGONS_GOLD_THEFT_KIND_INVISIBLE_HAND or
                    (random_thefts_hidden and
                     theft.how == dragons_gold_pb2.DRAGONS_GOLD_THEFT_KIND_RANDOM)):
                hidden_between_others.append(theft)
        elif which == "treasure_map":
            ledgers[entry.treasure_map.seat].move(entry.treasure_map.token, +1)
            if entry.treasure_map.token == HIDDEN:
                seen["hidden"] += 1
            elif entry.treasure_map.seat != 0:
                hidden_between_others.append(entry.treasure_map)
    return ledgers, seen, hidden_between_others


class EventsOnly:
    """Seat 0: answers at random and keeps only what it is told."""

    def __init__(self):
        self.events = []

    def on_event(self, event):
        self.events.append(event)

    def decide(self, decision):
        return hoard_bot.random_choice(decision)


def play(server, seed):
    seats = [arena_pb2.SeatSpec(open=True)] + [arena_pb2.SeatSpec(builtin=b) for b in PLAYERS]
    created = server.arena.CreateMatch(arena_pb2.CreateMatchRequest(
        game="dragons_gold", seed=seed, time_control=TIME_CONTROL, seats=seats),
        metadata=real.ADMIN, timeout=30)
    bot = EventsOnly()
    client = hoard_bot.BotClient(bot.decide, server=server.address, match_id=created.match_id,
                                 seat_token=created.seat_tokens[0].token, on_event=bot.on_event)
    runner = threading.Thread(target=client.run, daemon=True)
    runner.start()
    runner.join(timeout=300)
    if runner.is_alive():
        client.stop()
    got = server.arena.GetMatch(arena_pb2.GetMatchRequest(match_id=created.match_id),
                                metadata=real.ADMIN, timeout=30)
    return got, bot.events


def check_match(seed, got, events, totals):
    label = f"seed {seed}"
    if not check(f"{label}: the match finished, and seat 0 heard it end",
                 got.match.status == arena_pb2.MATCH_STATUS_FINISHED and events
                 and events[-1].HasField("finished"), str(got.match)):
        return
    during = [e for e in events[:-1] if e.HasField("view")]
    if not check(f"{label}: seat 0 was told the play with its views", during):
        return
    players = len(got.match.seats)
    # The table after the last action, as seat 0 saw it; then every screen shown.
    known_view = during[-1].view.dragons_gold
    final_view = events[-1].view.dragons_gold
    ledgers, seen, leaked = reckon(known_view.record, players,
                                   not known_view.rules.thieves_steal_from_share)
    totals.update(seen)
    wrong_counts, wrong_kinds = [], []
    for seat in range(1, players):
        truth = final_view.players[seat].tokens
        ledger = ledgers[seat]
        held = sum(getattr(truth, kind) for kind in KINDS)
        if held != sum(ledger.known.values()) + ledger.hidden_in - ledger.hidden_out:
            wrong_counts.append((seat, held, dict(ledger.known), ledger.hidden_in,
                                 ledger.hidden_out))
        for kind in KINDS:
            unexplained = getattr(truth, kind) - ledger.known[kind]
            if not -ledger.hidden_out <= unexplained <= ledger.hidden_in:
                wrong_kinds.append((seat, kind, getattr(truth, kind), ledger.known[kind]))
    check(f"{label}: each opponent's token count is what the public record says",
          not wrong_counts, wrong_counts)
    check(f"{label}: each opponent holds, of every kind, what the known movements say, give "
          "or take the hidden ones", not wrong_kinds, wrong_kinds)
    check(f"{label}: no hidden movement between other seats shows seat 0 its kind",
          not leaked, leaked)
    accepted = sum(1 for a in got.record.actions if a.text == "accept the swap")
    check(f"{label}: every swap of the record ({accepted}) is one seat 0 was told of",
          seen["market_swap"] == accepted, f"told {seen['market_swap']}")


def main():
    server = real.Server()
    totals = collections.Counter()
    try:
        for seed in range(1, MATCHES + 1):
            got, events = play(server, seed)
            check_match(seed, got, events, totals)
    finally:
        server.stop()
    check(f"the matches had divisions ({totals['divided']}), public draws "
          f"({totals['public draws']}) and hidden movements ({totals['hidden']})",
          totals["divided"] > 0 and totals["public draws"] > 0 and totals["hidden"] > 0,
          dict(totals))
    finish()


if __name__ == "__main__":
    main()
