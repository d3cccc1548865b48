"""Žolíky's pure rule helpers, shared by the engine and its bots: card points, meld reading,
the opening test, the action schema, the cut and deal, and checking an action's melds,
lay-offs and joker swaps against the table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.base import Game
from engines.cards import CARD_INDEX, JOKER, RANK_VALUE, is_card, rank, suit
from engines.errors import IllegalAction, InvalidAction
from engines.melds import Meld, MeldRules, classify, interpretations

# docs/rules/zoliky.md "Melds": aces low or high (never wrapping), sets of 3–4 distinct suits,
# a joker never at either end of a run.
RULES = MeldRules(ace_low=True, ace_high=True, max_set=4, set_distinct_suits=True, wild_at_run_ends=False)
# The same rules with jokers allowed at run ends, only to explain a refusal in words.
_RULES_WILD_ENDS = MeldRules(ace_low=True, ace_high=True, max_set=4, set_distinct_suits=True)

OPENING_POINTS = 42
FIRST_MELDING_TURN = 7
CUTTER_HAND = 13
OTHER_HAND = 12
CUT_REVEALS = 3


def rank_points(r: str) -> int:
    """Points of a rank for the 42: 2–10 face value, J Q K 10, ace 11 (also in A-2-3)."""
    if r == "A":
        return 11
    return min(RANK_VALUE[r], 10)


def card_points(code: str) -> int:
    """Points of a card left in hand: a joker there stands for no card, so it counts 0."""
    return 0 if code == JOKER else rank_points(rank(code))


def meld_points(meld: Meld) -> int:
    """Points of a meld for the opening: every joker counts as the card it stands for."""
    return sum(rank_points(code[0]) for code in meld.stands_for)


def read_meld(cards: Sequence[str], kind: str | None = None) -> Meld | None:
    """The reading of `cards` as one meld (of `kind` when given), worth the most points; None if none."""
    readings = [m for m in interpretations(list(cards), RULES) if kind is None or m.kind == kind]
    if not readings:
        return None
    return max(readings, key=meld_points)


def _joker_stands(cards: Sequence[str], stands_for: Sequence[str]) -> list[str]:
    return [s for c, s in zip(cards, stands_for, strict=True) if c == JOKER]


def joker_cards(meld: dict[str, Any]) -> list[str]:
    """The cards the jokers of a table meld stand for (a set's open suit shows as "7?")."""
    return _joker_stands(meld["cards"], meld["stands_for"])


def lay_off_reading(meld: dict[str, Any], cards: Sequence[str]) -> Meld | None:
    """Table meld `meld` with `cards` laid off, read as it lies; None when they do not fit.

    docs/rules/zoliky.md, "Laying off": the meld keeps its kind and every joker of a run keeps the card
    it stands for, so the card a joker stands for goes in only by a joker swap. A set's joker
    keeps its rank, its suit may still settle (as a set of 3 fills up). The engine judges every
    lay-off with this and the bots plan theirs with it.
    """
    readings = interpretations([*meld["cards"], *cards], RULES)
    readings = [m for m in readings if m.kind == meld["kind"]]
    if meld["kind"] == "run":
        fixed = Counter(joker_cards(meld))
        readings = [m for m in readings if not fixed - Counter(_joker_stands(m.cards, m.stands_for))]
    if not readings:
        return None
    return max(readings, key=meld_points)


def why_no_lay_off(meld: dict[str, Any], cards: Sequence[str]) -> str:
    """A player-facing reason why `cards` cannot be laid off on the table meld `meld`."""
    head = f"{describe(cards)} cannot be laid off on {meld['id']} ({describe(meld['cards'])})"
    held = [c for c in joker_cards(meld) if c in cards] if meld["kind"] == "run" else []
    if held:
        return (
            f"{head}: a joker on the table keeps the card it stands for, and the joker there stands "
            f"for {held[0]}; {held[0]} goes in only by a joker swap"
        )
    return f"{head}: the {meld['kind']} would not stay valid"


def is_pure_run(meld: Meld) -> bool:
    return meld.kind == "run" and JOKER not in meld.cards


def opening_problem(melds: Sequence[Meld]) -> str | None:
    """Why these new melds cannot be a first meld, in a player's words; None when they can."""
    worth = sum(meld_points(m) for m in melds)
    short = worth < OPENING_POINTS
    impure = not any(is_pure_run(m) for m in melds)
    if short and impure:
        return (
            f"the first meld needs at least {OPENING_POINTS} points and a run without jokers; "
            f"these melds are worth {worth} and have no such run"
        )
    if short:
        return f"the first meld needs at least {OPENING_POINTS} points; these melds are worth {worth}"
    if impure:
        return "the first meld needs a run without jokers"
    return None


def describe(cards: Iterable[str]) -> str:
    return " ".join(cards)


def why_not_a_meld(cards: Sequence[str]) -> str:
    """A player-facing reason why `cards` form no meld."""
    shown = describe(cards)
    naturals = [c for c in cards if c != JOKER]
    if len(cards) < 3:
        return f"a meld needs at least 3 cards; {shown} has {len(cards)}"
    if not naturals:
        return "a meld needs at least one normal card besides jokers"
    if len({rank(c) for c in naturals}) == 1:
        if len(cards) > 4:
            return f"{shown} is not a meld: a set has at most 4 cards"
        twice = [c for c, n in Counter(naturals).items() if n > 1]
        if twice:
            return f"{shown} is not a meld: two {twice[0]} cannot be in one set"
    if classify(list(cards), _RULES_WILD_ENDS) is not None:
        return f"{shown} is not a meld: a joker may stand only inside a run, not at its end"
    if len({suit(c) for c in naturals}) > 1 and len({rank(c) for c in naturals}) > 1:
        return f"{shown} is not a meld: a run needs one suit and a set one rank"
    return f"{shown} is neither a run nor a set"


def hand_shortfall(hand: Sequence[str], used: Iterable[str]) -> str | None:
    """Which used card the hand lacks, in words; None when the hand holds them all."""
    have = Counter(hand)
    for card, n in sorted(Counter(used).items()):
        if have[card] < n:
            if have[card] == 0:
                return f"you do not hold {card}"
            return f"you hold only {have[card]} × {card}, not {n}"
    return None


def sort_key(code: str) -> int:
    """Hand order: by suit (S H D C), then rank A…K; jokers last (the order of `CARD_INDEX`)."""
    return CARD_INDEX[code]


def copy_meld(meld: dict[str, Any]) -> dict[str, Any]:
    return {**meld, "cards": list(meld["cards"]), "stands_for": list(meld["stands_for"])}


def copy_melds(melds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of table melds: views are built often, and this is three times faster than
    engines.base.json_copy on them."""
    return [copy_meld(m) for m in melds]


# --- action schema -----------------------------------------------------------------

ACTION_TYPES = ("draw", "meld", "lay_off", "swap_joker", "take_discard", "take_closing", "discard", "resign")
_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # type: (required fields, optional fields) besides "type"
    "draw": (set(), set()),
    "discard": ({"card"}, set()),
    "meld": ({"melds"}, {"lay_offs"}),
    "lay_off": ({"meld", "cards"}, set()),
    "swap_joker": ({"meld", "card"}, set()),
    "take_discard": (set(), {"melds", "lay_offs"}),
    "take_closing": ({"discard"}, {"melds", "lay_offs"}),
    "resign": (set(), set()),
}
# Each type's fields, required or not: the game's declaration (Game.actions).
ACTION_FIELDS = {kind: tuple(sorted(required | optional)) for kind, (required, optional) in _FIELDS.items()}
_MAX_LIST = 108


def _card(value: Any, where: str) -> str:
    if not is_card(value):
        raise InvalidAction(f"{where} must be a card code like '7H' or 'JK', not {value!r}")
    return value


def _cards(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise InvalidAction(f"{where} must be a non-empty list of card codes")
    if len(value) > _MAX_LIST:
        raise InvalidAction(f"{where} has more cards than the game has")
    return [_card(c, f"each card of {where}") for c in value]


def _meld_lists(value: Any) -> list[list[str]]:
    if not isinstance(value, list):
        raise InvalidAction("melds must be a list of melds, each a list of card codes")
    if len(value) > _MAX_LIST:
        raise InvalidAction("melds lists more melds than the game has cards")
    return [_cards(m, f"meld {i}") for i, m in enumerate(value)]


def _meld_ref(value: Any, allow_index: bool) -> str | int:
    if isinstance(value, str) and value:
        return value
    if allow_index and isinstance(value, int) and not isinstance(value, bool):
        return value
    if allow_index:
        raise InvalidAction("meld must be a table meld id like 'm2' or the position of a new meld (0, 1, …)")
    raise InvalidAction("meld must be a table meld id like 'm2'")


def _lay_off_list(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise InvalidAction("lay_offs must be a list of {meld, cards}")
    if len(value) > _MAX_LIST:
        raise InvalidAction("lay_offs lists more lay-offs than the game has cards")
    out = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) != {"meld", "cards"}:
            raise InvalidAction(f"lay-off {i} must be an object with exactly the fields meld and cards")
        out.append(
            {
                "meld": _meld_ref(entry["meld"], allow_index=True),
                "cards": _cards(entry["cards"], f"lay-off {i}"),
            }
        )
    return out


def parse_action(action: Any) -> dict[str, Any]:
    """The action checked against the schema and normalised; InvalidAction on anything else."""
    kind = Game.require_type(action, ACTION_TYPES)
    required, optional = _FIELDS[kind]
    fields = set(action) - {"type"}
    missing = sorted(required - fields)
    if missing:
        raise InvalidAction(f"a {kind} action needs the field(s) {', '.join(missing)}")
    unknown = sorted(fields - required - optional)
    if unknown:
        raise InvalidAction(f"a {kind} action has no field(s) {', '.join(unknown)}")
    out: dict[str, Any] = {"type": kind}
    if kind == "discard":
        out["card"] = _card(action["card"], "card")
    elif kind == "lay_off":
        out["meld"] = _meld_ref(action["meld"], allow_index=False)
        out["cards"] = _cards(action["cards"], "cards")
    elif kind == "swap_joker":
        out["meld"] = _meld_ref(action["meld"], allow_index=False)
        out["card"] = _card(action["card"], "card")
    elif kind in ("meld", "take_discard", "take_closing"):
        out["melds"] = _meld_lists(action.get("melds", []))
        out["lay_offs"] = _lay_off_list(action.get("lay_offs", []))
        if kind == "take_closing":
            out["discard"] = _card(action["discard"], "discard")
    return out


# --- when an action may be taken ------------------------------------------------------

_MELDING = {
    "meld": "melding",
    "lay_off": "laying off",
    "swap_joker": "swapping jokers",
    "take_discard": "taking the discard",
    "take_closing": "taking the closing card",
}


def phase_problem(kind: str, phase: str) -> str | None:
    """Why an action of `kind` may not be taken in the turn's `phase`, or None."""
    if kind in ("draw", "take_discard", "take_closing"):
        if phase == "discard":
            return "your first turn as the cutter only discards: you already hold 13 cards"
        if phase == "play":
            return "you have already drawn this turn"
    elif kind == "discard":
        if phase == "draw":
            return "draw a card first: every turn starts with a draw"
    else:
        if phase == "draw":
            return "draw a card first: you may meld, lay off or swap only after drawing"
        if phase == "discard":
            return "your first turn as the cutter only discards"
    return None


def melding_turn_problem(kind: str, turn_number: int) -> str | None:
    """Why a meld-type action of `kind` may not be taken on turn `turn_number`, or None."""
    if kind in _MELDING and turn_number < FIRST_MELDING_TURN:
        return (
            f"{_MELDING[kind]} is allowed only from turn {FIRST_MELDING_TURN} of the round, "
            f"after three full circuits; this is turn {turn_number}"
        )
    return None


# --- the deal ------------------------------------------------------------------------


def cut_stock(stock: list[str]) -> tuple[list[str], str, int]:
    """The cut from the bottom of `stock` (the end of the list, as it is top first): the revealed
    cards, the closing card and the jokers for the cutter; taken cards leave `stock`."""
    revealed: list[str] = []
    taken: list[int] = []
    closing: str | None = None
    cut_jokers = 0
    index = len(stock) - 1
    while len(revealed) < CUT_REVEALS or closing is None:
        card = stock[index]
        revealed.append(card)
        if card == JOKER:
            cut_jokers += 1
            taken.append(index)
        elif closing is None:
            closing = card
            taken.append(index)
        index -= 1
    for i in sorted(taken, reverse=True):
        del stock[i]
    return revealed, closing, cut_jokers


def deal(stock: list[str], cutter: int, jokers: int) -> list[list[str]]:
    """One card at a time from the top of `stock`, cutter first, skipping a full hand; the
    cutter's `jokers` count toward 13."""
    other = 1 - cutter
    hands: list[list[str]] = [[], []]
    hands[cutter] = [JOKER] * jokers
    targets = {cutter: CUTTER_HAND, other: OTHER_HAND}
    seat = cutter
    while len(hands[cutter]) < CUTTER_HAND or len(hands[other]) < OTHER_HAND:
        if len(hands[seat]) < targets[seat]:
            hands[seat].append(stock.pop(0))
        seat = 1 - seat
    return hands


# --- melds, lay-offs and swaps on the table ------------------------------------------


def swap_problem(meld: dict[str, Any], card: str) -> str | None:
    """Why `card` may not replace a joker of table meld `meld` (which holds one), or None."""
    if meld["kind"] == "run":
        stands = joker_cards(meld)
        if card not in stands:
            return (
                f"the joker in {meld['id']} stands for {' or '.join(stands)}; only that card can replace it"
            )
        return None
    set_rank = next(c[0] for c in meld["cards"] if c != JOKER)
    present = {c[1] for c in meld["cards"] if c != JOKER}
    if card[0] != set_rank or card[1] in present:
        return (
            f"a joker in the set {meld['id']} can be replaced only by a {set_rank} of a suit "
            "not yet in the set"
        )
    return None


def discard_problem(hand: list[str], opened: bool, card: str) -> str | None:
    """Why `card` may not be discarded from `hand`, or None."""
    if card not in hand:
        return f"you do not hold {card}"
    rest = list(hand)
    rest.remove(card)
    if not opened and all(c == JOKER for c in rest):
        # Unreachable in play (an unopened hand keeps 12+ cards), kept as the rule's guard.
        return "you can close the round only after your own first meld"
    return None


def require_used(action: dict[str, Any], card: str, name: str, verb: str) -> None:
    """`card` (the taken discard or closing card) must be in the action's melds or lay-offs."""
    used = [c for m in action["melds"] for c in m] + [c for lo in action["lay_offs"] for c in lo["cards"]]
    if card not in used:
        raise IllegalAction(
            f"you may {verb} only to use it at once: {name} ({card}) must be in a new meld or a lay-off "
            "of this action"
        )


def find_meld(table: list[dict[str, Any]], ref: str) -> int:
    for i, meld in enumerate(table):
        if meld["id"] == ref:
            return i
    raise IllegalAction(f"there is no meld {ref} on the table")


@dataclass
class Plan:
    """The outcome of an action's melds and lay-offs, computed before anything is mutated."""

    hand: list[str]
    table: list[dict[str, Any]]
    next_meld: int
    opened: bool
    events: list[dict[str, Any]] = field(default_factory=list)


def new_melds(meld_lists: list[list[str]], opened: bool, lay_offs: bool) -> list[Meld]:
    """The readings of an action's new melds, checked as an opening when `opened` is False."""
    new: list[Meld] = []
    for cards in meld_lists:
        meld = read_meld(cards)
        if meld is None:
            raise IllegalAction(why_not_a_meld(cards))
        new.append(meld)
    if new and not opened:
        problem = opening_problem(new)
        if problem:
            raise IllegalAction(problem)
    if lay_offs and not opened and not new:
        raise IllegalAction("you may lay off only after your own first meld")
    return new


def lay_off_on(
    table: list[dict[str, Any]], new_ids: list[str], seat: int, lay_off: dict[str, Any]
) -> dict[str, Any]:
    """Lay `lay_off` on its meld of `table` (a copy); its event."""
    ref = lay_off["meld"]
    if isinstance(ref, int):
        if not 0 <= ref < len(new_ids):
            raise IllegalAction(
                f"a lay-off names new meld {ref}, but this action puts down {len(new_ids)} new meld(s)"
            )
        ref = new_ids[ref]
    target = table[find_meld(table, ref)]
    # Read against the meld as it lies, its jokers fixed (docs/rules/zoliky.md, "Laying off").
    result = lay_off_reading(target, lay_off["cards"])
    if result is None:
        raise IllegalAction(why_no_lay_off(target, lay_off["cards"]))
    target["cards"] = list(result.cards)
    target["stands_for"] = list(result.stands_for)
    return {
        "type": "lay_off",
        "seat": seat,
        "meld": target["id"],
        "cards": list(lay_off["cards"]),
        "result": copy_meld(target),
    }


def make_plan(
    melds: list[dict[str, Any]],
    next_meld: int,
    opened: bool,
    seat: int,
    hand: list[str],
    meld_lists: list[list[str]],
    lay_offs: list[dict[str, Any]],
) -> Plan:
    """Check melds then lay-offs against `hand` and the table `melds`, on copies; IllegalAction."""
    used = [c for m in meld_lists for c in m] + [c for lo in lay_offs for c in lo["cards"]]
    shortfall = hand_shortfall(hand, used)
    if shortfall:
        raise IllegalAction(shortfall)
    new = new_melds(meld_lists, opened, bool(lay_offs))
    table = copy_melds(melds)
    events: list[dict[str, Any]] = []
    new_ids: list[str] = []
    for meld in new:
        entry: dict[str, Any] = {
            "id": f"m{next_meld}",
            "owner": seat,
            "kind": meld.kind,
            "cards": list(meld.cards),
            "stands_for": list(meld.stands_for),
        }
        next_meld += 1
        table.append(entry)
        new_ids.append(entry["id"])
        events.append({"type": "meld", "seat": seat, "meld": copy_meld(entry)})
    events.extend(lay_off_on(table, new_ids, seat, lay_off) for lay_off in lay_offs)
    rest = list(hand)
    for card in used:
        rest.remove(card)
    return Plan(hand=rest, table=table, next_meld=next_meld, opened=opened or bool(new), events=events)
