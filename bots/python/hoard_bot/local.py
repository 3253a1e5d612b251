"""Play a bot's code against Hoard's engine in this process: no server.

The same `decide` function a bot gives `hoard_bot.run` plays here, with the
same Decision objects (typed view, legal actions as hoard.v1.Action, their
texts, constraints, refusals, events) and the same answers (an index, a
typed action built with `hoard_bot.actions`, or DEFAULT):

    import hoard_bot.local

    results = hoard_bot.local.play(decide, game="village", players=4,
                                   opponents=["heuristic", "random", "random"],
                                   matches=100, seed=1)
    print(results.summary())

Opponents are built-in bots by name ("random", "first", "heuristic",
"mcts", "mcts-N") or other decide functions (self-play: opponents=[decide]).
The bot's seat rotates from match to match. Matches are reproducible: the
same seed, opponents and decisions give the same matches.

The engine is the Python module hoard_engine (bots/python/hoard_engine.cc),
built into build/python by `bash scripts/setup.sh` (or `bash scripts/setup.sh
hoard_engine_python`); `engine()` finds it there. docs/bots.md, "Train
locally", is the guide.
"""

import collections
import importlib
import os
import sys

from hoard_bot.client import DEFAULT, MAX_REFUSALS, Decision, Refusal
from hoard_bot.stubs import arena_pb2

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

# A local decision's clock: it is not enforced here (a match waits for the
# bot), but a bot reads it as on a server.
TIME_LEFT_MS = 5000


def engine():
    """The hoard_engine module: importable as is, or from the checkout's build/python."""
    try:
        return importlib.import_module("hoard_engine")
    except ImportError:
        pass
    built = os.environ.get("HOARD_ENGINE_DIR") or os.path.join(_ROOT, "build", "python")
    if built not in sys.path:
        sys.path.insert(0, built)
    try:
        return importlib.import_module("hoard_engine")
    except ImportError as error:
        raise ImportError(
            f"the engine module hoard_engine is not built (looked in {built}): run "
            "'bash scripts/setup.sh hoard_engine_python' in the Hoard checkout, or set "
            f"HOARD_ENGINE_DIR to the folder that holds it; with /usr/bin/python3 ({error})"
        ) from None


class MatchResult(collections.namedtuple("MatchResult", "seed seat scores ranks actions")):
    """One match: its seed, the bot's seat, every seat's score and rank, the actions played."""

    __slots__ = ()

    @property
    def score(self):
        return self.scores[self.seat]

    @property
    def place(self):
        return self.ranks[self.seat]


class Results(list):
    """The MatchResults of play(), with what a bot author asks first."""

    def wins(self):
        """Matches the bot finished first in (a shared first place counts)."""
        return sum(1 for r in self if r.place == 1)

    def average_place(self):
        return sum(r.place for r in self) / len(self) if self else 0.0

    def average_score(self):
        return sum(r.score for r in self) / len(self) if self else 0.0

    def summary(self):
        return (f"{len(self)} matches: {self.wins()} won ({100.0 * self.wins() / max(1, len(self)):.1f}%), "
                f"average place {self.average_place():.2f}, average score {self.average_score():.2f}")


class _Player:
    """A seat's player: a built-in bot of the engine, or a decide function."""

    def __init__(self, engine_module, spec, game, seed):
        self.builtin = None
        self.decide = None
        if isinstance(spec, str):
            self.builtin = engine_module.Bot(spec, game, seed)
        elif callable(spec):
            self.decide = spec
        else:
            raise TypeError(f"an opponent is a built-in bot's name or a decide function, "
                            f"not {type(spec).__name__}")


def _event(match_id, item, match):
    step, seat, code, text = item
    taken = arena_pb2.ActionTaken(seat=seat, text=text)
    if code is not None:
        taken.action.ParseFromString(match.action_message(code))
    return arena_pb2.MatchEvent(match_id=match_id, step=step, action_taken=taken)


def _request(match, match_id, request_id, seat, events, describe_actions):
    request = arena_pb2.DecisionRequest(
        match_id=match_id, request_id=request_id, seat=seat,
        legal_actions_complete=match.legal_actions_complete(seat),
        constraints=match.constraints(seat), time_left_ms=TIME_LEFT_MS, bank_ms=0)
    request.view.ParseFromString(match.view(seat))
    messages = match.legal_action_messages(seat)
    texts = match.legal_action_texts(seat) if describe_actions else [""] * len(messages)
    for index, (message, text) in enumerate(zip(messages, texts)):
        legal = request.legal_actions.add(index=index, text=text)
        legal.action.ParseFromString(message)
    request.events.extend(events)
    return request


def _code_of(match, seat, request, choice):
    """The action code `choice` answers, or a Refusal's (reason, code) pair."""
    if choice is DEFAULT:
        return match.legal_actions(seat)[0], None
    if isinstance(choice, arena_pb2.Action):
        try:
            return match.action_from_message(choice.SerializeToString()), None
        except ValueError as error:
            return None, str(error)
    if isinstance(choice, int) and not isinstance(choice, bool):
        count = len(request.legal_actions)
        if 0 <= choice < count:
            return match.legal_actions(seat)[choice], None
        return None, f"legal_index {choice} is out of range: {count} legal actions"
    raise TypeError(f"a bot answers an index into legal_actions, a hoard.v1.Action or "
                    f"DEFAULT, not {type(choice).__name__}")


class _Seat:
    """A decide function's seat in one match: what it was told, and its answers."""

    def __init__(self, decide, match_id, on_event, describe_actions):
        self.decide = decide
        self.match_id = match_id
        self.on_event = on_event
        self.describe_actions = describe_actions
        self.told = 0      # items of match.told() passed on
        self.events = []   # the MatchEvents told so far
        self.requests = 0

    def catch_up(self, match):
        fresh = [_event(self.match_id, item, match) for item in match.told(self.told)]
        self.told += len(fresh)
        self.events.extend(fresh)
        if self.on_event is not None:
            for event in fresh:
                self.on_event(event)
        return fresh

    def act(self, match, seat):
        """Asks the function for the seat's action (again after a refusal, as a
        server does) and plays it; the default after MAX_REFUSALS refusals."""
        fresh = self.catch_up(match)
        self.requests += 1
        request = _request(match, self.match_id, self.requests, seat, fresh,
                           self.describe_actions)
        refused = []
        while len(refused) < MAX_REFUSALS:
            decision = Decision(request, match.game, refused=refused, events=self.events)
            choice = self.decide(decision)
            code, reason = _code_of(match, seat, request, choice)
            if code is not None:
                try:
                    match.apply(seat, code)
                    return
                except ValueError as error:
                    reason = str(error)
            refused.append(Refusal(choice, reason, 3))
        match.apply(seat, match.legal_actions(seat)[0])


def play_match(decide, game="village", players=2, opponents=("random",), seat=0, seed=0,
               options=None, on_event=None, match_id="local", describe_actions=False):
    """Plays one match with `decide` in `seat` and returns its MatchResult.

    `opponents` fill the other seats in order (the list is repeated when
    shorter); each is a built-in bot's name or a decide function. With
    `describe_actions`, decision.texts holds each legal action in words (as
    a server's describe_actions; costs time), else empty strings.
    """
    he = engine()
    match = he.Match(game, players, seed, options or {})
    if not 0 <= seat < players:
        raise ValueError(f"seat {seat} is not at a table of {players}")
    others = list(opponents) or ["random"]
    specs = []
    for s in range(players):
        specs.append(decide if s == seat else others[(s - (s > seat)) % len(others)])
    players_at = []
    for s, spec in enumerate(specs):
        player = _Player(he, spec, game, seed * 31 + s + 1)
        if player.decide is not None:
            player.seat_state = _Seat(player.decide, match_id,
                                      on_event if s == seat else None, describe_actions)
        players_at.append(player)
    while not match.is_over():
        for s in match.seats_to_act():
            player = players_at[s]
            if player.builtin is not None:
                match.apply(s, player.builtin.choose(match, s))
            else:
                player.seat_state.act(match, s)
    for s, player in enumerate(players_at):
        if player.decide is not None:
            player.seat_state.catch_up(match)
    return MatchResult(seed, seat, match.scores(), match.ranks(), len(match.history))


def play(decide, game="village", players=2, opponents=("random",), matches=1, seed=0,
         options=None, on_event=None, on_result=None, describe_actions=False):
    """Plays `matches` matches of `decide` against `opponents`, its seat
    rotating (match m: seat m % players), each match's seed drawn from
    `seed`; returns their Results. `on_result(result)` is called after each."""
    results = Results()
    for m in range(matches):
        match_seed = (seed * 1_000_003 + m) % (1 << 64)
        result = play_match(decide, game, players, opponents, seat=m % players, seed=match_seed,
                            options=options, on_event=on_event, match_id=f"local-{m + 1}",
                            describe_actions=describe_actions)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
