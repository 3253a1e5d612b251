"""Typed actions of every game, built without assembling protobufs by hand.

Each game is a namespace of functions returning a hoard.v1.Action, ready to
return from a bot's decide function:

    from hoard_bot import actions

    actions.village.bribe("sword", 2, wilds=1)
    actions.dragons_gold.propose({0: {"gold": 2}, 2: {"silver": 1, "blue": 1}})
    actions.frost_dragon.play(card.id)
    actions.hedonia.claim("left")

The namespaces are read from the protocol: every branch of hoard.v1.Action is
a game, and every member of the oneof of its action message (VillageAction's
draw, bribe, buy) a helper of the same name, whose arguments are that
member's fields in the .proto's order, by position or by name. So a game
added to the protocol has its helpers with no code here. Arguments:

- an enum field takes the value's name without its prefix, in any case
  ("sword", "knight_4", "snorkel_pig", "left"); the full name and the
  number work too. A name that is no such thing raises ValueError naming the
  valid ones;
- a message field takes the message, or a dict of its fields; a message of
  counts only (VillageCards) takes {kind: count}, a kind named by its field
  or in the singular ("sword" for swords), or one kind's name for one of it;
- a repeated field takes a list;
- None leaves a field unset (an enum's "unspecified" is no valid name).

`actions.<game>.kinds` lists a game's kinds, `actions.<game>.build(kind,
...)` builds one by name. A few helpers read better with other arguments (a
bribe of `count` cards, a magic object by name, a division as {seat:
tokens}); they are written below over the derived ones, and a game's other
helpers are the derived ones.

The helpers check only what they can without the match (names, numbers):
the server judges the rest, and a refusal says why (Decision.refused).
docs/bots.md has an example per game; proto/hoard/v1/<game>.proto and
docs/rules/<game>.md say what each action means.
"""

import inspect
import os

from google.protobuf import symbol_database
from google.protobuf.descriptor import FieldDescriptor

from hoard_bot.stubs import arena_pb2, dragons_gold_pb2, village_pb2

_INTEGERS = frozenset(getattr(FieldDescriptor, f"TYPE_{kind}") for kind in (
    "INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "FIXED32", "FIXED64", "SFIXED32",
    "SFIXED64"))


def _message_class(descriptor):
    return symbol_database.Default().GetSymbol(descriptor.full_name)


def _words(name):
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


def enum_prefix(descriptor):
    """The prefix of an enum's value names: "VILLAGE_CARD_" of VillageCard."""
    zero = descriptor.values_by_number.get(0)
    if zero is not None and zero.name.endswith("UNSPECIFIED"):
        return zero.name[:-len("UNSPECIFIED")]
    common = os.path.commonprefix([value.name for value in descriptor.values])
    return common[:common.rfind("_") + 1]


def enum_value(descriptor, value, what):
    """The number of `value` (a short or full name in any case, or a number)
    in the enum `descriptor`. Raises ValueError naming the valid values,
    which are all but an UNSPECIFIED one."""
    prefix = enum_prefix(descriptor)
    found = None
    if isinstance(value, int) and not isinstance(value, bool):
        found = descriptor.values_by_number.get(value)
    elif isinstance(value, str):
        name = value.strip().upper().replace(" ", "_").replace("-", "_")
        if not name.startswith(prefix):
            name = prefix + name
        found = descriptor.values_by_name.get(name)
    if found is not None and not found.name.endswith("_UNSPECIFIED"):
        return found.number
    names = [v.name[len(prefix):].lower() for v in descriptor.values
             if not v.name.endswith("_UNSPECIFIED")]
    raise ValueError(f"{what} must be one of {', '.join(names)}, not {value!r}")


def is_counts(descriptor):
    """Whether a message holds counts only: every field a single whole number."""
    return bool(descriptor.fields) and all(
        f.label != f.LABEL_REPEATED and f.type in _INTEGERS
        for f in descriptor.fields)


def kind_field(descriptor, name):
    """The field of a counts message that `name` means: its own name, or the
    kind in the singular ("sword" for swords). None if none."""
    key = _words(name)
    return descriptor.fields_by_name.get(key) or descriptor.fields_by_name.get(key + "s")


def message_value(descriptor, value, what):
    """The message `descriptor` from `value`: the message itself, a dict of its
    fields, or for a counts message {kind: count} or one kind's name."""
    message_class = _message_class(descriptor)
    if isinstance(value, message_class):
        return value
    if is_counts(descriptor):
        if isinstance(value, str):
            value = {value: 1}
        message = message_class()
        for name, count in dict(value or {}).items():
            field = kind_field(descriptor, name)
            if field is None:
                raise ValueError(f"{what}: no such kind {name!r}; the kinds are "
                                 f"{', '.join(f.name for f in descriptor.fields)}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"{what}: the count of {name} must be a whole number >= 0, "
                                 f"not {count!r}")
            setattr(message, field.name, getattr(message, field.name) + count)
        return message
    if not hasattr(value, "items"):
        raise ValueError(f"{what} must be a {descriptor.name} or a dict of its fields "
                         f"({', '.join(f.name for f in descriptor.fields)}), not {value!r}")
    return fields_message(descriptor, (), dict(value), what)


def _field_value(field, value, what):
    if field.enum_type is not None:
        return enum_value(field.enum_type, value, what)
    if field.message_type is not None:
        return message_value(field.message_type, value, what)
    return value


def fields_message(descriptor, args, kwargs, what):
    """The message `descriptor` with its fields given in order by `args`, and
    by name by `kwargs`, each converted as the module's docstring says."""
    fields = descriptor.fields
    if len(args) > len(fields):
        raise TypeError(f"{what} takes at most {len(fields)} arguments "
                        f"({', '.join(f.name for f in fields)}), not {len(args)}")
    given = {field.name: value for field, value in zip(fields, args)}
    for name, value in kwargs.items():
        if name not in descriptor.fields_by_name:
            raise TypeError(f"{what} has no field {name!r}; its fields are "
                            f"{', '.join(f.name for f in fields) or 'none'}")
        if name in given:
            raise TypeError(f"{what} got {name!r} twice")
        given[name] = value
    message = _message_class(descriptor)()
    for name, value in given.items():
        field = descriptor.fields_by_name[name]
        part = f"{what}'s {name}"
        if value is None:
            continue
        if field.label == field.LABEL_REPEATED:
            getattr(message, name).extend([_field_value(field, v, part) for v in value])
        elif field.message_type is not None:
            getattr(message, name).CopyFrom(_field_value(field, value, part))
        else:
            setattr(message, name, _field_value(field, value, part))
    return message


class Game:
    """The typed actions of one game: a helper per kind of action (the
    members of the oneof of its action message), each taking that kind's
    fields, by position or by name."""

    def __init__(self, game):
        self.game = game
        self._action = arena_pb2.Action.DESCRIPTOR.fields_by_name[game].message_type
        # A game's action message is the oneof of its kinds.
        self.kinds = tuple(f.name for f in self._action.oneofs[0].fields)
        self._derived = {kind: self._helper(kind) for kind in self.kinds}

    def __getattr__(self, name):
        derived = self.__dict__.get("_derived", {})
        if name in derived:
            return derived[name]
        raise AttributeError(f"{self.__dict__.get('game')} has no action {name!r}; its kinds "
                             f"are {', '.join(derived)}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.kinds))

    def __repr__(self):
        return f"<typed actions of {self.game}: {', '.join(self.kinds)}>"

    def build(self, kind, *args, **fields):
        """The Action of kind `kind` with these fields (the derived helper)."""
        return self._make(kind, kind, *args, **fields)

    def _make(self, kind, what, *args, **fields):
        if kind not in self.kinds:
            raise ValueError(f"{self.game} has no action {kind!r}; its kinds are "
                             f"{', '.join(self.kinds)}")
        field = self._action.fields_by_name[kind]
        message = fields_message(field.message_type, args, fields, what)
        game_action = _message_class(self._action)(**{kind: message})
        return arena_pb2.Action(**{self.game: game_action})

    def _helper(self, kind):
        descriptor = self._action.fields_by_name[kind].message_type
        names = [f.name for f in descriptor.fields]

        def helper(*args, **fields):
            return self._make(kind, kind, *args, **fields)
        helper.__name__ = kind
        helper.__qualname__ = f"{self.game}.{kind}"
        helper.__doc__ = (f"The {self.game} action {kind} (hoard.v1.{descriptor.name})"
                          + (f": {', '.join(names)}." if names else "."))
        helper.__signature__ = inspect.Signature(
            [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
             for name in names])
        return helper


class _Village(Game):
    """Please Don't Burn My Village! (docs/rules/village.md)."""

    def bribe(self, treasure, count, wilds=0):
        """Bribe with `count` cards of `treasure` ("sword" to "crown") and `wilds` wilds."""
        card = village_pb2.VillageCard.DESCRIPTOR
        kind = enum_value(card, treasure, "bribe's treasure")
        if kind == village_pb2.VILLAGE_CARD_WILD:
            raise ValueError("a bribe's treasure is a treasure type; give wilds as wilds=")
        cards = village_pb2.VillageCards.DESCRIPTOR
        field = kind_field(cards, card.values_by_number[kind].name[len(enum_prefix(card)):])
        return self.build("bribe", kind, message_value(cards, {field.name: count, "wilds": wilds},
                                                       "bribe"))


class _DragonsGold(Game):
    """Dragon's Gold (docs/rules/dragons_gold.md). Tokens are "silver", "gold",
    "red", "blue", "green", "purple", "yellow", "white" and "black";
    adventurers "knight_4", "knight_3", "thief" and "wizard"."""

    def dragon_swap(self, slot_a, slot_b):
        """Play a Dragon Swap on two face-up slots."""
        return self.use_object("dragon_swap", a=min(slot_a, slot_b), b=max(slot_a, slot_b))

    def recall(self):
        """Play a Recall: your resting adventurers get ready."""
        return self.use_object("recall")

    def retreat(self, adventurer):
        """Play a Retreat: your attacking `adventurer` comes back ready."""
        return self._make("use_object", "retreat", "retreat", adventurer=adventurer)

    def treasure_map(self):
        """Play a Treasure Map: draw a token from the bag."""
        return self.use_object("treasure_map")

    def sleeping_potion(self, slot):
        """Play a Sleeping Potion on the dragon in `slot`."""
        return self.use_object("sleeping_potion", a=slot)

    def silver_tongue(self):
        """Play a Silver Tongue when you are to propose: two more proposals."""
        return self.use_object("silver_tongue")

    def invisible_hand(self, seat):
        """Play an Invisible Hand: steal a random token from `seat`."""
        return self.use_object("invisible_hand", a=seat)

    def propose(self, shares):
        """Propose a division: `shares` maps each contributor's seat to its tokens,
        {0: {"gold": 2}, 2: {"silver": 1}}. Every token of the treasure must go
        to one contributor; a contributor left out gets nothing."""
        items = shares.items() if hasattr(shares, "items") else shares
        tokens = dragons_gold_pb2.DragonsGoldTokenCounts.DESCRIPTOR
        return self.build("propose", shares=[
            dragons_gold_pb2.DragonsGoldShare(
                seat=seat, tokens=message_value(tokens, counts, f"seat {seat}'s share"))
            for seat, counts in sorted(items, key=lambda item: item[0])])

    def propose_assignment(self, assignment):
        """Propose a division in the engine's form (the examples' form): for each
        token of the treasure in kind order, the index of its receiver among
        the contributors."""
        return self.build("propose", assignment=list(assignment))

    @staticmethod
    def shares(action, negotiation):
        """The division a proposal makes, in either form, as {seat: {token: count}}
        (every contributor listed; kinds with no token left out).

        `action` is a proposal (an Action, a DragonsGoldAction or a
        DragonsGoldPropose: an example of the decision's legal actions, say),
        `negotiation` the view's DragonsGoldNegotiation."""
        propose = action
        if isinstance(propose, arena_pb2.Action):
            propose = propose.dragons_gold
        if isinstance(propose, dragons_gold_pb2.DragonsGoldAction):
            propose = propose.propose
        contributors = list(negotiation.contributors)
        result = {seat: {} for seat in contributors}
        if propose.shares:
            for share in propose.shares:
                for field, count in share.tokens.ListFields():
                    result.setdefault(share.seat, {})[field.name] = count
            return result
        index = 0
        for field in dragons_gold_pb2.DragonsGoldTokenCounts.DESCRIPTOR.fields:
            for _ in range(getattr(negotiation.tokens, field.name)):
                who = propose.assignment[index] if index < len(propose.assignment) else 0
                share = result[contributors[who]]
                share[field.name] = share.get(field.name, 0) + 1
                index += 1
        return result


class _FrostDragon(Game):
    """Frost Dragon's Treasure (docs/rules/frost_dragon.md). Kingdoms are
    "mountain", "forest", "river" and "glacier"."""

    def play(self, card, as_kingdom=None, as_rank=None):
        """Play `card` (its id, or the FrostDragonCard of your hand); an ally joker
        is played as the kingdom card `as_kingdom`, `as_rank` (2 to 14)."""
        return self.build("play", getattr(card, "id", card), as_kingdom, as_rank)


# The helpers written by hand, by game; every other game's are all derived.
_WRITTEN = {"village": _Village, "dragons_gold": _DragonsGold, "frost_dragon": _FrostDragon}

__all__ = [f.name for f in arena_pb2.Action.DESCRIPTOR.oneofs_by_name["game"].fields]
for _game in __all__:
    globals()[_game] = _WRITTEN.get(_game, Game)(_game)
