"""Going out this turn in Žolíky (docs/bots.md, "Žolíky bots"): `find_close` finds joker swaps,
melds with lay-offs and the discard that leave no normal card in hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engines.cards import JOKER
from engines.melds import Meld
from engines.zoliky.bots.hand import (
    Slot,
    analyse,
    lay_off,
    neighbours,
    opening_melds,
    opening_ok,
    partners,
    pure_runs,
    without,
)
from engines.zoliky.rules import read_meld

# --- closing ---------------------------------------------------------------------------------------


@dataclass
class Close:
    """A way to go out this turn: joker swaps, then melds with lay-offs, then the discard."""

    swaps: list[tuple[str, str]]  # (meld id, card given for its joker)
    melds: list[list[str]]
    lay_offs: list[tuple[str, str]]  # (meld id, card)
    discard: str


def find_close(
    hand: Sequence[str],
    slots: Sequence[Slot],
    opened: bool,
    must_use: str | None = None,
    swaps: bool = True,
) -> Close | None:
    """A way to end this turn with no normal card left, or None.

    `hand` is the hand after the draw (with the taken card, if any); `must_use` must go into a
    meld or lay-off (the taken discard or closing card). Swaps need the player's opening.
    """
    plan = _find_close(tuple(sorted(hand)), tuple(slots), opened, must_use, swaps)
    if plan is None:
        return None
    # A fresh copy: callers may edit the plan, the cache keeps its own.
    return Close(list(plan.swaps), [list(m) for m in plan.melds], list(plan.lay_offs), plan.discard)


@lru_cache(maxsize=50_000)
def _find_close(
    hand: tuple[str, ...], slots: tuple[Slot, ...], opened: bool, must_use: str | None, swaps: bool
) -> Close | None:
    if _hopeless(hand, slots, swaps and opened):
        return None
    plan = _close_as_is(hand, slots, opened, must_use)
    if plan is not None or not (swaps and opened):
        return plan
    for slot in slots:
        for card in sorted({c for c in hand if slot.swaps_for(c)}):
            after = [*without(hand, [card]), JOKER]
            swapped = _swap_slot(slot, card)
            rest = [swapped if s.id == slot.id else s for s in slots]
            plan = _close_as_is(after, rest, opened, must_use)
            if plan is not None:
                plan.swaps.insert(0, (slot.id, card))
                return plan
    return None


def _hopeless(hand: Sequence[str], slots: Sequence[Slot], swaps: bool) -> bool:
    """A quick test that spares most hands the search: two normal cards that no meld of the hand
    and no table meld could take never all go (without jokers a card needs two partners for a
    set or run of three; with one joker, one card near it; with two, anything melds)."""
    jokers = hand.count(JOKER)
    if swaps:
        # A swap brings a joker: count every card that could make one.
        jokers += sum(1 for c in hand if any(s.swaps_for(c) for s in slots))
    if jokers >= 2:
        return False
    # What the table takes, chains included (5H goes once 6H is on 7H-9H).
    takes = {c for _, c in lay_off([c for c in hand if c != JOKER], slots)[0]} if slots else set()
    present = set(hand)
    alone = 0
    for card in present:
        if card == JOKER or card in takes:
            continue
        if jokers and any(n in present for n in neighbours(card)):
            continue
        if not jokers and any(a in present and b in present for a, b in partners(card)):
            continue
        if swaps and any(s.swaps_for(card) for s in slots):
            continue
        alone += hand.count(card)
        if alone >= 2:
            return True
    return False


def _swap_slot(slot: Slot, card: str) -> Slot:
    jokers = list(slot.joker_for)
    if slot.kind == "run":
        jokers.remove(card)
        return Slot(slot.id, "run", slot.suit, "", slot.lo, slot.hi, frozenset(), slot.size, tuple(jokers))
    jokers.pop()
    return Slot(slot.id, "set", "", slot.rank, 0, 0, slot.suits | {card[1]}, slot.size, tuple(jokers))


def _close_as_is(
    hand: Sequence[str], slots: Sequence[Slot], opened: bool, must_use: str | None
) -> Close | None:
    normals = [c for c in hand if c != JOKER]
    if not normals:
        return Close([], [], [], JOKER) if opened and must_use is None else None
    if not opened and not pure_runs(hand):
        return None  # the opening needs a run without jokers
    found = analyse(hand, slots)
    if found.deadwood > 1:
        return None
    tries = [(found.melds, found.lay_offs, found.loose)]
    if not opened:
        # The opening needs 42 and a pure run: look for such melds among the splits too.
        melds = opening_melds(hand, must_use)
        if melds is not None:
            rest = without(hand, [c for m in melds for c in m.cards])
            laid, left = lay_off([c for c in rest if c != JOKER], slots)
            tries.append((melds, laid, left))
    for melds, laid, left in tries:
        if len(left) > 1:
            continue
        if not opened and not opening_ok(melds):
            continue
        plan = _with_discard(list(melds), list(laid), list(left), hand, must_use, opened, slots)
        if plan is not None:
            return plan
    return None


def _with_discard(
    melds: list[Meld],
    laid: list[tuple[str, str]],
    left: list[str],
    hand: Sequence[str],
    must_use: str | None,
    opened: bool,
    slots: Sequence[Slot],
) -> Close | None:
    """Choose the card to discard, freeing one when everything fits."""

    def plan(ms: list[Meld], lo: list[tuple[str, str]], discard: str) -> Close | None:
        used = [c for m in ms for c in m.cards] + [c for _, c in lo]
        if must_use is not None and must_use not in used:
            return None
        if not opened and not opening_ok(ms):
            return None
        if not ms and not lo and discard != JOKER and len([c for c in hand if c != JOKER]) > 1:
            return None
        return Close([], [list(m.cards) for m in ms], lo, discard)

    if left:
        return plan(melds, laid, left[0])
    # Everything fits: keep one card back to discard. A spare joker is the cheapest to give up
    # only with nothing else; a card off a long meld or a lay-off keeps the jokers for the next round.
    for i in range(len(laid) - 1, -1, -1):
        result = plan(melds, laid[:i] + laid[i + 1 :], laid[i][1])
        if result is not None and _lay_offs_fit(laid[:i] + laid[i + 1 :], slots):
            return result
    for i, meld in enumerate(melds):
        if len(meld.cards) < 4:
            continue
        for card in dict.fromkeys(meld.cards):
            if card == JOKER:
                continue
            smaller = read_meld(without(meld.cards, [card]), kind=meld.kind)
            if smaller is not None:
                result = plan([*melds[:i], smaller, *melds[i + 1 :]], laid, card)
                if result is not None:
                    return result
    if JOKER in without(hand, [c for m in melds for c in m.cards] + [c for _, c in laid]):
        return plan(melds, laid, JOKER)
    return None


def _lay_offs_fit(laid: Sequence[tuple[str, str]], slots: Sequence[Slot]) -> bool:
    """Whether these lay-offs still fit in order (dropping 6H would strand 5H laid under it)."""
    current = {s.id: s for s in slots}
    for meld_id, card in laid:
        slot = current[meld_id]
        if card not in slot.takes():
            return False
        current[meld_id] = slot.add(card)
    return True
