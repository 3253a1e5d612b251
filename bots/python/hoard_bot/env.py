"""Hoard's games as multi-agent environments, in PettingZoo's AEC conventions.

    from hoard_bot.env import HoardEnv

    env = HoardEnv("village", players=4)
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = next(i for i, ok in enumerate(mask) if ok)   # your policy here
        env.step(action)

The API is PettingZoo's agent-environment cycle (`possible_agents`, `agents`,
`agent_selection`, `reset`, `observe`, `last`, `step`, `agent_iter`,
`rewards`, `terminations`, `truncations`, `infos`, `observation_space`,
`action_space`), written here without that package; the spaces are small
stand-ins for gymnasium's Box and Discrete (`shape`, `n`, `sample`).

Agents are "seat_0", "seat_1", ...: whoever must decide is the selected
agent (at a sealed decision, each of its seats in turn, none seeing the
others' answers). An observation is a dict of two arrays (`array.array`:
`numpy.frombuffer(obs, numpy.float32)` reads one without a copy):
  "observation"  float32, the seat's view (the hoard.v1 view message the
                 server would send) flattened by `Encoding` below;
  "action_mask"  int8, 1 for each legal action: action i is the i-th of the
                 seat's legal actions, in the engine's order (the first the
                 default).
`infos[agent]` holds the legal actions themselves (codes and typed
hoard.v1.Action messages), for a policy that reads their meaning. A match
ends with every agent terminated and its reward: (n − rank) / (n − 1), 1 for
first place and 0 for last (0 before the end); `truncations` are never set:
every match ends by its rules.

The encoding of a game (`/usr/bin/python3 -m hoard_bot.env describe GAME`
lists it): the game's view message, its fields in the order of their
numbers, depth first — a number, enum or bool is one value; a message is its
fields; a repeated field is its length and then `capacity` slots (zeros past
its length); strings and maps are left out. The capacities are fixed per
game and ruleset in encodings.json beside this file, so a trained policy
keeps its inputs: each is the longest the field was in the view of a seat to
act over 20 matches of random play at each player count (seeds 1 to 20),
plus a quarter; a longer field is cut there (`infos[agent]["cut"]` counts
the values left out). The action space is the longest legal list seen
there, plus a quarter; a longer list offers its first actions only.
`/usr/bin/python3 -m hoard_bot.env measure` measures them again (after a
rules change: `python_engine_test` fails until it is run).
"""

import array
import json
import math
import os
import random
import sys

from hoard_bot import local
from hoard_bot.stubs import arena_pb2

# Where each game's capacities are kept, and the random matches they are
# measured from (seeds 1 to 20 at every player count).
_STORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "encodings.json")
_MEASURE_SEEDS = range(1, 21)


class Box:
    """The shape and bounds of an observation (gymnasium.spaces.Box's)."""

    def __init__(self, shape, low=float("-inf"), high=float("inf")):
        self.shape, self.low, self.high, self.dtype = shape, low, high, "float32"

    def __repr__(self):
        return f"Box({self.low}, {self.high}, {self.shape}, float32)"


class Discrete:
    """n actions, 0 to n - 1 (gymnasium.spaces.Discrete's)."""

    def __init__(self, n):
        self.n = n
        self._rng = random.Random()

    def sample(self, mask=None):
        """A random action, among those `mask` allows when given."""
        allowed = [i for i in range(self.n) if mask is None or mask[i]]
        return self._rng.choice(allowed)

    def seed(self, seed):
        self._rng.seed(seed)

    def __repr__(self):
        return f"Discrete({self.n})"


def _fields(descriptor):
    """The fields an encoding keeps, by number."""
    kept = []
    for field in sorted(descriptor.fields, key=lambda f: f.number):
        if field.type in (field.TYPE_STRING, field.TYPE_BYTES):
            continue
        if field.type == field.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
            continue
        kept.append(field)
    return kept


def _measure(message, path, lengths):
    """The longest length of each repeated field of `message`, by path."""
    for field in _fields(message.DESCRIPTOR):
        where = f"{path}.{field.name}"
        value = getattr(message, field.name)
        if field.label == field.LABEL_REPEATED:
            lengths[where] = max(lengths.get(where, 0), len(value))
            if field.type == field.TYPE_MESSAGE:
                for item in value:
                    _measure(item, where, lengths)
        elif field.type == field.TYPE_MESSAGE:
            _measure(value, where, lengths)


def measure(game, seeds=_MEASURE_SEEDS):
    """A game's capacities, from random play: {"ruleset_version", "actions",
    "capacity": {path: n}}, as encodings.json keeps them."""
    he = local.engine()
    info = he.game(game)
    lengths, most_legal = {}, 1
    for players in range(info["min_players"], info["max_players"] + 1):
        for seed in seeds:
            match = he.Match(game, players, seed)
            rng = random.Random(seed)
            while not match.is_over():
                for seat in match.seats_to_act():
                    view = arena_pb2.View.FromString(match.view(seat))
                    _measure(getattr(view, game), game, lengths)
                    legal = match.legal_actions(seat)
                    most_legal = max(most_legal, len(legal))
                    match.apply(seat, rng.choice(legal))
    margin = lambda n: max(1, math.ceil(1.25 * n))  # noqa: E731
    return {"ruleset_version": info["ruleset_version"], "actions": margin(most_legal),
            "capacity": {path: margin(n) for path, n in sorted(lengths.items())}}


def _stored():
    with open(_STORED) as f:
        return json.load(f)


class Encoding:
    """How a game's views become arrays of numbers, and its action space."""

    def __init__(self, game, measured=None):
        """`measured`: the game's entry of measure(); by default the one
        encodings.json keeps for the game's current ruleset."""
        if measured is None:
            stored = _stored()
            if game not in stored:
                raise ValueError(f"no encoding of {game!r} in {_STORED} (python3 -m "
                                 "hoard_bot.env measure writes it)")
            measured = stored[game]
            current = local.engine().game(game)["ruleset_version"]
            if measured["ruleset_version"] != current:
                raise ValueError(f"{_STORED} holds the encoding of {game!r} ruleset "
                                 f"{measured['ruleset_version']}, not {current} (python3 -m "
                                 "hoard_bot.env measure writes it again)")
        self.game = game
        self.view_descriptor = getattr(arena_pb2.View(), game).DESCRIPTOR
        self.capacity = dict(measured["capacity"])
        self.actions = measured["actions"]
        self._widths = {}
        self.size = self._width(self.view_descriptor, game)
    def _width(self, descriptor, path):
        """How many values a message at `path` takes."""
        if path not in self._widths:
            total = 0
            for field in _fields(descriptor):
                where = f"{path}.{field.name}"
                if field.label == field.LABEL_REPEATED:
                    capacity = self.capacity.setdefault(where, 1)
                    item = (self._width(field.message_type, where)
                            if field.type == field.TYPE_MESSAGE else 1)
                    total += 1 + capacity * item
                elif field.type == field.TYPE_MESSAGE:
                    total += self._width(field.message_type, where)
                else:
                    total += 1
            self._widths[path] = total
        return self._widths[path]

    def _describe(self, descriptor, path, shown, at, lines):
        for field in _fields(descriptor):
            where, label = f"{path}.{field.name}", f"{shown}.{field.name}"
            if field.label == field.LABEL_REPEATED:
                capacity = self.capacity[where]
                if field.type == field.TYPE_MESSAGE:
                    width = self._width(field.message_type, where)
                    lines.append((at, label, f"its length, then {capacity} items of {width} "
                                             "values each, the first:"))
                    self._describe(field.message_type, where, f"{label}[0]", at + 1, lines)
                    at += 1 + capacity * width
                else:
                    lines.append((at, label, f"its length, then {capacity} values"))
                    at += 1 + capacity
            elif field.type == field.TYPE_MESSAGE:
                at = self._describe(field.message_type, where, label, at, lines)
            else:
                lines.append((at, label, "a value"))
                at += 1
        return at

    def _fill(self, message, path, out, at, cut):
        for field in _fields(message.DESCRIPTOR):
            where = f"{path}.{field.name}"
            value = getattr(message, field.name)
            if field.label == field.LABEL_REPEATED:
                capacity = self.capacity[where]
                out[at] = len(value)
                at += 1
                cut[0] += max(0, len(value) - capacity)
                if field.type == field.TYPE_MESSAGE:
                    width = self._width(field.message_type, where)
                    for i, item in enumerate(value[:capacity]):
                        self._fill(item, where, out, at + i * width, cut)
                    at += capacity * width
                else:
                    for i, item in enumerate(value[:capacity]):
                        out[at + i] = float(item)
                    at += capacity
            elif field.type == field.TYPE_MESSAGE:
                at = self._fill(value, where, out, at, cut)
            else:
                out[at] = float(value)
                at += 1
        return at

    def encode(self, view_bytes):
        """The view (a serialized hoard.v1.View of this game) as float32 values,
        and how many values were cut."""
        view = getattr(arena_pb2.View.FromString(view_bytes), self.game)
        out = array.array("f", bytes(4 * self.size))
        cut = [0]
        self._fill(view, self.game, out, 0, cut)
        return out, cut[0]

    def describe(self):
        """One line per value or repeated field: its index, its path, what it holds."""
        lines = []
        self._describe(self.view_descriptor, self.game, self.game, 0, lines)
        head = [f"{self.game}: {self.size} values, {self.actions} actions"]
        return "\n".join(head + [f"{index:6d}  {path}  ({what})" for index, path, what in lines])


_ENCODINGS = {}


def encoding(game):
    """The game's Encoding, measured once per process."""
    if game not in _ENCODINGS:
        _ENCODINGS[game] = Encoding(game)
    return _ENCODINGS[game]


class HoardEnv:
    """One game at a table of `players` as an AEC environment."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game="village", players=2, options=None, render_mode=None):
        self._engine = local.engine()
        self.game = game
        self.players = players
        self.options = dict(options or {})
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"hoard_{game}_v0")
        self.encoding = encoding(game)
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._observation_space = Box((self.encoding.size,))
        self._action_space = Discrete(self.encoding.actions)
        self.match = None
        self._next_seed = 0
        self.reset()

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = self._next_seed
        self._next_seed = seed + 1
        self.match = self._engine.Match(self.game, self.players, seed, self.options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._queue = []
        self._select()

    def _seat(self, agent):
        return int(agent.rsplit("_", 1)[1])

    def _select(self):
        """The next agent: the next seat of the decision in progress, each
        terminated agent once the match is over."""
        if self.match.is_over():
            self.agent_selection = self.agents[0] if self.agents else None
            return
        if not self._queue:
            self._queue = list(self.match.seats_to_act())
        seat = self._queue.pop(0)
        self.agent_selection = f"seat_{seat}"
        legal = self.match.legal_actions(seat)
        self.infos[self.agent_selection] = {
            "legal_actions": legal,
            "legal_action_messages": [arena_pb2.Action.FromString(m)
                                      for m in self.match.legal_action_messages(seat)],
        }

    def observe(self, agent):
        seat = self._seat(agent)
        observation, cut = self.encoding.encode(self.match.view(seat))
        mask = array.array("b", bytes(self.encoding.actions))
        if not self.match.is_over() and agent == self.agent_selection:
            for i in range(min(len(self.match.legal_actions(seat)), self.encoding.actions)):
                mask[i] = 1
        self.infos[agent]["cut"] = cut
        return {"observation": observation, "action_mask": mask}

    def last(self, observe=True):
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter=2 ** 63):
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent} is done: step it with None")
            self.agents.remove(agent)
            self.agent_selection = self.agents[0] if self.agents else None
            return
        seat = self._seat(agent)
        legal = self.match.legal_actions(seat)
        if not isinstance(action, int) or not 0 <= action < min(len(legal), self.encoding.actions):
            raise ValueError(f"{agent}: action {action!r} is not one of its "
                             f"{len(legal)} legal actions (see the action mask)")
        self._cumulative_rewards[agent] = 0.0
        self.match.apply(seat, legal[action])
        for a in self.agents:
            self.rewards[a] = 0.0
        if self.match.is_over():
            ranks = self.match.ranks()
            n = self.players
            for a in self.agents:
                self.rewards[a] = (n - ranks[self._seat(a)]) / (n - 1)
                self._cumulative_rewards[a] += self.rewards[a]
                self.terminations[a] = True
        self._select()

    def render(self):
        if self.render_mode != "ansi":
            return None
        view = arena_pb2.View.FromString(self.match.view(self._engine.SPECTATOR))
        return str(getattr(view, self.game))

    def close(self):
        self.match = None


def main(argv):
    """python3 -m hoard_bot.env measure | describe GAME"""
    if len(argv) == 2 and argv[1] == "measure":
        he = local.engine()
        stored = {game["id"]: measure(game["id"]) for game in he.games()}
        with open(_STORED, "w") as f:
            json.dump(stored, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {_STORED}")
        return 0
    if len(argv) == 3 and argv[1] == "describe":
        print(encoding(argv[2]).describe())
        return 0
    print("usage: python3 -m hoard_bot.env measure | describe GAME", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
