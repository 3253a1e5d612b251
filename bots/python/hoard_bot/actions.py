"""Typed actions of every game, built without assembling protobufs by hand.

Each game is a namespace of functions returning a hoard.v1.Action, ready to
return from a bot's decide function:

    from hoard_bot import actions

    actions.village.bribe("sword", 2, wilds=1)
    actions.dragons_gold.propose({0: {"gold": 2}, 2: {"silver": 1, "blue": 1}})
    actions.frost_dragon.play(card.id)
    actions.hedonia.claim("left")

Names are the proto enums' names without their prefix, in any case ("sword",
"knight_4", "snorkel_pig", "left"); the full names and the enum numbers work
too. A name that is no such thing raises ValueError naming the valid ones.
The helpers check only what they can without the match (names, numbers): the
server judges the rest, and a refusal says why (Decision.refused).
docs/bots.md has an example per game; proto/hoard/v1/<game>.proto and
docs/rules/<game>.md say what each action means.
"""

from hoard_bot.stubs import arena_pb2, dragons_gold_pb2, frost_dragon_pb2, hedonia_pb2, village_pb2

__all__ = ["village", "dragons_gold", "frost_dragon", "hedonia"]


def _enum(enum, prefix, value, what, none_allowed=False):
    """The number of `value` (a short or full name, or a number) in `enum`."""
    if value is None and none_allowed:
        return 0
    names = [name[len(prefix):].lower() for name in enum.keys()
             if not name.endswith("_UNSPECIFIED")]
    if isinstance(value, int) and not isinstance(value, bool):
        if value in enum.values() and (value != 0 or none_allowed):
            return value
    elif isinstance(value, str):
        name = value.strip().upper().replace(" ", "_").replace("-", "_")
        if not name.startswith(prefix):
            name = prefix + name
        if name in enum.keys() and (not name.endswith("_UNSPECIFIED") or none_allowed):
            return enum.Value(name)
    raise ValueError(f"{what} must be one of {', '.join(names)}, not {value!r}")


def _counts(message_type, fields, counts, what):
    """A counts message from a dict of name -> count (or the message itself).

    `fields` maps each accepted name (lower case) to the message's field.
    """
    if isinstance(counts, message_type):
        return counts
    message = message_type()
    for name, count in dict(counts or {}).items():
        field = fields.get(str(name).strip().lower().replace(" ", "_").replace("-", "_"))
        if field is None:
            raise ValueError(f"{what}: no such kind {name!r}; the kinds are "
                             f"{', '.join(sorted(set(fields.values())))}")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"{what}: the count of {name} must be a whole number >= 0, "
                             f"not {count!r}")
        setattr(message, field, getattr(message, field) + count)
    return message


class village:
    """Please Don't Burn My Village! (docs/rules/village.md)."""

    # Card kinds by their enum's short name and their counts' field name.
    _FIELDS = {"sword": "swords", "scroll": "scrolls", "feather": "feathers",
               "potion": "potions", "axe": "axes", "crown": "crowns", "wild": "wilds"}
    _FIELDS.update({field: field for field in _FIELDS.values()})

    @staticmethod
    def draw():
        """Draw a card."""
        return arena_pb2.Action(village=village_pb2.VillageAction(draw=village_pb2.VillageDraw()))

    @staticmethod
    def bribe(treasure, count, wilds=0):
        """Bribe with `count` cards of `treasure` ("sword" to "crown") and `wilds` wilds."""
        kind = _enum(village_pb2.VillageCard, "VILLAGE_CARD_", treasure, "bribe's treasure")
        if kind == village_pb2.VILLAGE_CARD_WILD:
            raise ValueError("a bribe's treasure is a treasure type; give wilds as wilds=")
        field = village._FIELDS[village_pb2.VillageCard.Name(kind)[len("VILLAGE_CARD_"):].lower()]
        cards = _counts(village_pb2.VillageCards, village._FIELDS, {field: count, "wilds": wilds},
                        "bribe")
        return arena_pb2.Action(village=village_pb2.VillageAction(
            bribe=village_pb2.VillageBribeAction(treasure=kind, cards=cards)))

    @staticmethod
    def buy(stall, payment=None, curse=None):
        """Buy stall `stall` (0 to 3), paying `payment` ({"sword": 1, "wild": 1}),
        cursing `curse`, a treasure type paid (None for the free stall 0)."""
        return arena_pb2.Action(village=village_pb2.VillageAction(buy=village_pb2.VillageBuy(
            stall=stall,
            payment=_counts(village_pb2.VillageCards, village._FIELDS, payment, "buy's payment"),
            curse=_enum(village_pb2.VillageCard, "VILLAGE_CARD_", curse, "buy's curse",
                        none_allowed=True))))


class dragons_gold:
    """Dragon's Gold (docs/rules/dragons_gold.md). Tokens are "silver", "gold",
    "red", "blue", "green", "purple", "yellow", "white" and "black";
    adventurers "knight_4", "knight_3", "thief" and "wizard"."""

    _TOKENS = {name: name for name in ("silver", "gold", "red", "blue", "green", "purple",
                                       "yellow", "white", "black")}

    @staticmethod
    def _action(**kind):
        return arena_pb2.Action(dragons_gold=dragons_gold_pb2.DragonsGoldAction(**kind))

    @staticmethod
    def _token(token, what):
        return _enum(dragons_gold_pb2.DragonsGoldToken, "DRAGONS_GOLD_TOKEN_", token, what)

    @staticmethod
    def _adventurer(adventurer, what, none_allowed=False):
        return _enum(dragons_gold_pb2.DragonsGoldAdventurer, "DRAGONS_GOLD_ADVENTURER_",
                     adventurer, what, none_allowed)

    @staticmethod
    def _object(object_, **parameters):
        return dragons_gold._action(use_object=dragons_gold_pb2.DragonsGoldUseObject(
            object=dragons_gold_pb2.DragonsGoldObject.Value("DRAGONS_GOLD_OBJECT_" + object_),
            **parameters))

    @staticmethod
    def attack(slot, adventurer, second=None):
        """Send `adventurer` against the dragon in `slot` (0 to 3); with a Second
        Strike, `second` too (a weaker ready adventurer)."""
        return dragons_gold._action(attack=dragons_gold_pb2.DragonsGoldAttack(
            slot=slot, adventurer=dragons_gold._adventurer(adventurer, "attack's adventurer"),
            second=dragons_gold._adventurer(second, "attack's second", none_allowed=True)))

    @staticmethod
    def dragon_swap(slot_a, slot_b):
        """Play a Dragon Swap on two face-up slots."""
        return dragons_gold._object("DRAGON_SWAP", a=min(slot_a, slot_b), b=max(slot_a, slot_b))

    @staticmethod
    def recall():
        """Play a Recall: your resting adventurers get ready."""
        return dragons_gold._object("RECALL")

    @staticmethod
    def retreat(adventurer):
        """Play a Retreat: your attacking `adventurer` comes back ready."""
        return dragons_gold._object(
            "RETREAT", adventurer=dragons_gold._adventurer(adventurer, "retreat's adventurer"))

    @staticmethod
    def treasure_map():
        """Play a Treasure Map: draw a token from the bag."""
        return dragons_gold._object("TREASURE_MAP")

    @staticmethod
    def sleeping_potion(slot):
        """Play a Sleeping Potion on the dragon in `slot`."""
        return dragons_gold._object("SLEEPING_POTION", a=slot)

    @staticmethod
    def silver_tongue():
        """Play a Silver Tongue when you are to propose: two more proposals."""
        return dragons_gold._object("SILVER_TONGUE")

    @staticmethod
    def invisible_hand(seat):
        """Play an Invisible Hand: steal a random token from `seat`."""
        return dragons_gold._object("INVISIBLE_HAND", a=seat)

    @staticmethod
    def propose(shares):
        """Propose a division: `shares` maps each contributor's seat to its tokens,
        {0: {"gold": 2}, 2: {"silver": 1}}. Every token of the treasure must go
        to one contributor; a contributor left out gets nothing."""
        items = shares.items() if hasattr(shares, "items") else shares
        return dragons_gold._action(propose=dragons_gold_pb2.DragonsGoldPropose(shares=[
            dragons_gold_pb2.DragonsGoldShare(seat=seat, tokens=_counts(
                dragons_gold_pb2.DragonsGoldTokenCounts, dragons_gold._TOKENS, tokens,
                f"seat {seat}'s share"))
            for seat, tokens in sorted(items, key=lambda item: item[0])]))

    @staticmethod
    def propose_assignment(assignment):
        """Propose a division in the engine's form (the examples' form): for each
        token of the treasure in kind order, the index of its receiver among
        the contributors."""
        return dragons_gold._action(
            propose=dragons_gold_pb2.DragonsGoldPropose(assignment=list(assignment)))

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

    @staticmethod
    def accept():
        """Vote for the proposal under vote."""
        return dragons_gold._action(accept=dragons_gold_pb2.DragonsGoldAccept())

    @staticmethod
    def reject():
        """Vote against it."""
        return dragons_gold._action(reject=dragons_gold_pb2.DragonsGoldReject())

    @staticmethod
    def steal(token):
        """As a thief's owner whose wizard took part: the kind of token to take,
        one in the victim's share of this dragon (view negotiation.shares)."""
        return dragons_gold._action(steal=dragons_gold_pb2.DragonsGoldSteal(
            token=dragons_gold._token(token, "steal's token")))

    @staticmethod
    def decoy_give(token):
        """As a robbed player: play the Decoy Purse and give up `token`, a kind
        in your share of this dragon."""
        return dragons_gold._action(decoy_give=dragons_gold_pb2.DragonsGoldDecoyGive(
            token=dragons_gold._token(token, "decoy_give's token")))

    @staticmethod
    def decoy_keep():
        """As a robbed player: keep the Decoy Purse; the thief takes at random."""
        return dragons_gold._action(decoy_keep=dragons_gold_pb2.DragonsGoldDecoyKeep())

    @staticmethod
    def market_pass():
        """At the market: make no offer."""
        return dragons_gold._action(market_pass=dragons_gold_pb2.DragonsGoldMarketPass())

    @staticmethod
    def _bundle(tokens, what):
        """Tokens as {"gold": 2, "blue": 1}, or one kind's name for one token."""
        if isinstance(tokens, str):
            tokens = {tokens: 1}
        return _counts(dragons_gold_pb2.DragonsGoldTokenCounts, dragons_gold._TOKENS, tokens, what)

    @staticmethod
    def market_offer(to, give, get):
        """At the market: offer seat `to` the tokens `give` for the tokens `get`,
        each {"silver": 2, "gold": 1} (or a kind's name for one token): at
        least one token and at most 7 of a kind each way, no kind on both
        sides."""
        return dragons_gold._action(market_offer=dragons_gold_pb2.DragonsGoldMarketOffer(
            to=to, give=dragons_gold._bundle(give, "market_offer's give"),
            get=dragons_gold._bundle(get, "market_offer's get")))

    @staticmethod
    def market_accept():
        """Take the swap offered to you."""
        return dragons_gold._action(market_accept=dragons_gold_pb2.DragonsGoldMarketAccept())

    @staticmethod
    def market_refuse():
        """Turn it down."""
        return dragons_gold._action(market_refuse=dragons_gold_pb2.DragonsGoldMarketRefuse())


class frost_dragon:
    """Frost Dragon's Treasure (docs/rules/frost_dragon.md). Kingdoms are
    "mountain", "forest", "river" and "glacier"."""

    @staticmethod
    def _kingdom(kingdom, what):
        return _enum(frost_dragon_pb2.FrostDragonKingdom, "FROST_DRAGON_KINGDOM_", kingdom, what)

    @staticmethod
    def choose_trump(kingdom):
        """As the Fate: name the trump kingdom."""
        return arena_pb2.Action(frost_dragon=frost_dragon_pb2.FrostDragonAction(
            choose_trump=frost_dragon_pb2.FrostDragonChooseTrump(
                kingdom=frost_dragon._kingdom(kingdom, "choose_trump's kingdom"))))

    @staticmethod
    def boast(challenges):
        """Boast how many challenges you will win this quest."""
        return arena_pb2.Action(frost_dragon=frost_dragon_pb2.FrostDragonAction(
            boast=frost_dragon_pb2.FrostDragonBoast(challenges=challenges)))

    @staticmethod
    def play(card, as_kingdom=None, as_rank=None):
        """Play `card` (its id, or the FrostDragonCard of your hand); an ally joker
        is played as the kingdom card `as_kingdom`, `as_rank` (2 to 14)."""
        play = frost_dragon_pb2.FrostDragonPlay(card=getattr(card, "id", card))
        if as_kingdom is not None or as_rank is not None:
            play.as_kingdom = frost_dragon._kingdom(as_kingdom, "play's as_kingdom")
            play.as_rank = as_rank or 0
        return arena_pb2.Action(frost_dragon=frost_dragon_pb2.FrostDragonAction(play=play))


class hedonia:
    """Hedonia (docs/rules/hedonia.md). Assets are "snorkel_pig",
    "bearded_hopper", ..., "misdirection"; sides "left" and "right"."""

    @staticmethod
    def offer(asset):
        """Offer a card of kind `asset` from your hand."""
        return arena_pb2.Action(hedonia=hedonia_pb2.HedoniaAction(offer=hedonia_pb2.HedoniaOffer(
            asset=_enum(hedonia_pb2.HedoniaAsset, "HEDONIA_ASSET_", asset, "offer's asset"))))

    @staticmethod
    def claim(side):
        """Claim the card on your "left" or your "right"."""
        return arena_pb2.Action(hedonia=hedonia_pb2.HedoniaAction(claim=hedonia_pb2.HedoniaClaim(
            side=_enum(hedonia_pb2.HedoniaSide, "HEDONIA_SIDE_", side, "claim's side"))))
