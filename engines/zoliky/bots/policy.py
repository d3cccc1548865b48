"""The heuristic Žolíky policy behind the easy, medium and hard bots (and the pro's candidates).

Per decision: close when the hand can go out this turn (with the closing card, the discard or
the stock card, joker swaps included); open as soon as the hand holds 42 points with a pure run,
putting down only the melds the opening needs; lay off deadwood; swap a table joker when the
hand is no worse for it; take the discard when it shrinks the deadwood more than a stock card
would on average; discard the card whose loss leaves the least deadwood, the most live cards to
improve on ("outs") and the least for the opponent to take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import Action
from engines.cards import JOKER
from engines.melds import Meld
from engines.zoliky.bots.close import Close, find_close
from engines.zoliky.bots.hand import (
    Analysis,
    Slot,
    analyse,
    gain_map,
    hand_meld_takes,
    lay_off,
    neighbours,
    opening_gap,
    opening_melds,
    partners,
    position_of,
    pure_runs,
    slots_of,
    smallest_opening,
    split_hand,
    table_takes,
    without,
)
from engines.zoliky.bots.knowledge import Knowledge
from engines.zoliky.rules import FIRST_MELDING_TURN, card_points, sort_key


@dataclass(frozen=True)
class Style:
    """What a heuristic level pays attention to, and the weights of its discard score."""

    hold_melds: bool = True  # after the opening, keep further melds in hand until closing
    outs: float = 3.0  # weight of the expected deadwood saved by the next draw
    spread: float = 0.6  # weight of live cards that pair with deadwood (two draws ahead)
    safety: float = 1.0  # weight of the opponent's use of the discard
    take_margin: float = 0.25  # how much better than an average draw taking the discard must be
    open_base: float = 0.6  # deadwood-equivalent cost of a hand that cannot open yet
    open_points: float = 1 / 12  # … per point missing to the 42
    open_pure: float = 0.8  # … for a missing pure run
    close: float = 4.0  # weight of the chance to go out with the next stock card
    # Count the closing card as a sure out: it waits face up for whoever can close with it.
    closing: bool = False


HARD = Style()


def decide(know: Knowledge, style: Style = HARD) -> Action:
    """The policy's action for the seat to move (a complete, legal action)."""
    if know.phase == "draw":
        return draw_phase(know, style)
    return play_phase(know, style)


# --- the draw --------------------------------------------------------------------------------------


def draw_phase(know: Knowledge, style: Style) -> Action:
    slots = slots_of(know.melds)
    types = know.types
    if "take_closing" in types and know.closing is not None:
        plan = find_close([*know.hand, know.closing], slots, know.opened, must_use=know.closing, swaps=False)
        if plan is not None:
            return take_closing_action(plan)
    if "take_discard" in types and know.top is not None:
        plan = find_close([*know.hand, know.top], slots, know.opened, must_use=know.top, swaps=False)
        if plan is not None:
            return take_action(plan.melds, plan.lay_offs)
        take = useful_take(know, slots, style)
        if take is not None:
            return take
    return {"type": "draw"}


def useful_take(know: Knowledge, slots: list[Slot], style: Style) -> Action | None:
    """Take the discard when using it beats an average stock card (or opens the hand)."""
    top = know.top
    assert top is not None
    hand = [*know.hand, top]
    if not know.opened:
        melds = opening_melds(hand, must_use=top)
        if melds is None:
            return None
        chosen = smallest_opening(melds, must_use=top) if style.hold_melds else melds
        rest = without(hand, [c for m in chosen for c in m.cards])
        if not rest:
            return None
        laid = opening_lay_offs(rest, chosen, slots)
        if len(laid) >= len(rest):
            laid = laid[: len(rest) - 1]
        return take_action([list(m.cards) for m in chosen], laid)
    now = analyse(know.hand, slots)
    after = analyse(hand, slots)
    use = _use_of(top, after, slots)
    if use is None:
        return None
    new_melds, used_lay_offs = use
    # Post-turn deadwood: taking, we discard a deadwood card after using the top; drawing, we
    # expect to save `draw_gain` on average.
    saved = now.deadwood - (after.deadwood - 1) if after.deadwood else now.deadwood
    draw_gain = expected_gain(know, know.hand, now, slots)
    if saved <= draw_gain + style.take_margin:
        return None
    used = [c for m in new_melds for c in m] + [c for _, c in used_lay_offs]
    if len(used) >= len(hand):
        return None
    return take_action(new_melds, used_lay_offs)


def _use_of(
    top: str, found: Analysis, slots: list[Slot]
) -> tuple[list[list[str]], list[tuple[str, str]]] | None:
    """How the analysis uses the taken card: the meld holding it (put down now), or its lay-off."""
    for i, (_, card) in enumerate(found.lay_offs):
        if card == top:
            # Lay-offs before it may be what makes room for it (JD under QD on 8D-TD).
            return [], found.lay_offs[: i + 1]
    for meld in found.melds:
        if top in meld.cards:
            return [list(meld.cards)], []
    return None


def opening_lay_offs(rest: list[str], melds: tuple[Meld, ...], slots: list[Slot]) -> list[tuple[str, str]]:
    """Deadwood the table takes, laid off at the end of the opening action."""
    loose = [c for c in split_hand(rest)[1] if c != JOKER]
    laid, _ = lay_off(loose, slots)
    return laid


# --- the play phase ---------------------------------------------------------------------------------


def play_phase(know: Knowledge, style: Style) -> Action:
    types = know.types
    slots = slots_of(know.melds)
    hand = know.hand
    if know.phase == "play" and know.may_meld:
        plan = find_close(hand, slots, know.opened, swaps="swap_joker" in types)
        if plan is not None:
            return close_step(plan, know)
        if not know.opened and "meld" in types:
            action = opening_action(hand, slots, style)
            if action is not None:
                return action
        if know.opened:
            action = improve_step(know, slots, style)
            if action is not None:
                return action
    return {"type": "discard", "card": choose_discard(know, slots, style)}


def opening_action(hand: list[str], slots: list[Slot], style: Style) -> Action | None:
    melds = opening_melds(hand)
    if melds is None:
        return None
    chosen = smallest_opening(melds) if style.hold_melds else melds
    rest = without(hand, [c for m in chosen for c in m.cards])
    laid = opening_lay_offs(rest, chosen, slots)
    if len(laid) >= len(rest):
        laid = laid[: len(rest) - 1]
    if not rest:
        return None
    return meld_action([list(m.cards) for m in chosen], laid)


def improve_step(know: Knowledge, slots: list[Slot], style: Style) -> Action | None:
    """After the opening: a joker swap, a lay-off, or (not holding melds) a new meld."""
    hand = know.hand
    types = know.types
    now = analyse(hand, slots)
    if "swap_joker" in types:
        for slot in slots:
            for card in sorted({c for c in hand if slot.swaps_for(c)}, key=sort_key):
                after = analyse([*without(hand, [card]), JOKER], slots)
                if after.deadwood <= now.deadwood:
                    return {"type": "swap_joker", "meld": slot.id, "card": card}
    if "lay_off" in types and now.lay_offs and len(hand) > len(now.lay_offs):
        first = now.lay_offs[0][0]
        cards = [c for meld_id, c in now.lay_offs if meld_id == first]
        return {"type": "lay_off", "meld": first, "cards": cards}
    if not style.hold_melds and "meld" in types and now.melds:
        used = sum(len(m.cards) for m in now.melds)
        if used < len(hand):
            return meld_action([list(m.cards) for m in now.melds], [])
    return None


def close_step(plan: Close, know: Knowledge) -> Action:
    """The next action of a closing plan: swaps, then melds and lay-offs, then the discard."""
    if plan.swaps:
        meld_id, card = plan.swaps[0]
        return {"type": "swap_joker", "meld": meld_id, "card": card}
    if plan.melds:
        return meld_action(plan.melds, plan.lay_offs)
    if plan.lay_offs:
        first = plan.lay_offs[0][0]
        return {"type": "lay_off", "meld": first, "cards": [c for m, c in plan.lay_offs if m == first]}
    return {"type": "discard", "card": plan.discard}


# --- the discard -----------------------------------------------------------------------------------


def choose_discard(know: Knowledge, slots: list[Slot], style: Style) -> str:
    scored = discard_scores(know, slots, style)
    return min(scored, key=lambda item: item[1])[0]


def discard_scores(know: Knowledge, slots: list[Slot], style: Style) -> list[tuple[str, float]]:
    """The sensible discards with their scores (lower is better): any deadwood card, and a card
    of a meld that stays a meld without it or holds a joker; every normal card when none is."""
    allowed = [a["card"] for a in know.legal if a["type"] == "discard"]
    normals = [c for c in allowed if c != JOKER]
    if not normals:
        return [(c, 0.0) for c in allowed]
    found = analyse(know.hand, slots)
    candidates = [c for c in normals if c in found.loose or _may_leave_meld(c, found)] or normals
    out = []
    chances = []
    for card in candidates:
        rest = without(know.hand, [card])
        after = without_card(found, card) or analyse(rest, slots)
        score = hand_score(know, rest, after, slots, style, close=False)
        score += style.safety * danger(know, card, slots)
        # Before the opening a high card is worth keeping for the 42; afterwards it is a card.
        score += (-1 if not know.opened else 1) * card_points(card) / 1000
        out.append((card, score))
        chances.append((rest, after))
    if style.close and know.turn_number + 2 >= FIRST_MELDING_TURN:
        # The chance to go out next turn is dear to compute: only for the discards it could lift
        # to the top (it is worth at most `style.close` times a chance well below one half).
        best = min(score for _, score in out)
        reach = style.close if style.closing else style.close / 2
        for i, ((card, score), (rest, after)) in enumerate(zip(out, chances, strict=True)):
            if after.deadwood <= 2 and score <= best + reach:
                chance = close_chance(know, rest, after, slots, style.closing)
                out[i] = (card, score - style.close * chance)
    return out


def without_card(found: Analysis, card: str) -> Analysis | None:
    """The analysis of the hand less one of its deadwood cards: its melds stay the best (a better
    split of the smaller hand plus that card would have been a better split before)."""
    if card not in found.loose:
        return None
    left = list(found.loose)
    left.remove(card)
    return Analysis(found.melds, list(found.lay_offs), left, found.jokers)


def _may_leave_meld(card: str, found: Analysis) -> bool:
    """Whether taking `card` out of the hand's melds could pay: a long meld keeps going without
    it, a joker meld frees its joker, a lay-off card just stays; breaking a plain three-card meld
    never beats throwing deadwood."""
    if any(c == card for _, c in found.lay_offs):
        return True
    return any(card in m.cards and (len(m.cards) >= 4 or JOKER in m.cards) for m in found.melds)


def hand_score(
    know: Knowledge,
    hand: list[str],
    found: Analysis,
    slots: list[Slot],
    style: Style,
    cheap_opening: bool = False,
    close: bool = True,
) -> float:
    """How far a hand at the end of a turn is from going out, in deadwood cards (lower is better):
    its deadwood, the opening still missing, less what the next draws should bring."""
    score = float(found.deadwood)
    if not know.opened:
        score += open_penalty(hand, found, style, cheap_opening)
    score -= style.outs * expected_gain(know, hand, found, slots)
    score -= style.spread * spread(know, found)
    if close and style.close and found.deadwood <= 2 and know.turn_number + 2 >= FIRST_MELDING_TURN:
        score -= style.close * close_chance(know, hand, found, slots, style.closing)
    return score


def close_chance(
    know: Knowledge, hand: list[str], found: Analysis, slots: list[Slot], closing: bool = False
) -> float:
    """The chance that the next stock card lets this hand go out (exact over the unseen cards);
    with `closing`, 1 when the closing card lets it go out (it stays until someone closes).

    Deadwood alone misleads here: two kings left need a lay-off each, as melding them with a
    third king would leave no card to discard.
    """
    if closing and know.closing is not None and found.deadwood <= 2:
        plan = find_close([*hand, know.closing], slots, know.opened, must_use=know.closing, swaps=False)
        if plan is not None:
            return 1.0
    total = know.unseen_total
    if total <= 0:
        return 0.0
    gains = gain_map(found, hand_meld_takes(found.melds), table_takes(slots))
    hits = 0
    for card, n in know.unseen.items():
        if found.deadwood and card not in gains:
            continue
        if find_close([*hand, card], slots, know.opened) is not None:
            hits += n
    return hits / total


def open_penalty(rest: list[str], found: Analysis, style: Style, cheap: bool = False) -> float:
    """The cost of a hand that cannot open yet (cheap: judged on its best split alone)."""
    missing, impure = opening_gap(found.melds)
    if not (missing or impure):
        return 0.0
    if not cheap and pure_runs(rest) and opening_melds(rest) is not None:
        return 0.0
    return style.open_base + style.open_points * missing + style.open_pure * impure


def expected_gain(know: Knowledge, hand: list[str], found: Analysis, slots: list[Slot]) -> float:
    """Deadwood the next stock card saves on average (after the discard that follows it)."""
    total = know.unseen_total
    if total <= 0 or not found.loose:
        return 0.0
    gains = gain_map(found, hand_meld_takes(found.melds), table_takes(slots))
    dw = found.deadwood
    # A card that melds the last deadwood leaves the hand all melds; a turn still ends with a
    # discard, so without a card to spare (off a long meld, a lay-off, a joker) a meld breaks.
    spare = bool(found.lay_offs) or found.jokers > 0 or any(len(m.cards) >= 4 for m in found.melds)
    gain = 0
    for card, raw in gains.items():
        n = know.unseen[card]
        if not n:
            continue
        if raw > dw:
            raw = dw if spare else max(0, dw - 2)
        gain += n * raw
    return gain / total


def spread(know: Knowledge, found: Analysis) -> float:
    """Live cards that would pair with the deadwood: the chances two draws ahead."""
    total = know.unseen_total
    if total <= 0:
        return 0.0
    live = 0
    for card in found.loose:
        live += sum(know.unseen[n] for n in neighbours(card))
    return live / total


def holds(know: Knowledge, card: str) -> float:
    """The chance that the opponent holds a copy of `card`, from the cards they may hold."""
    total = know.unseen_total
    n = know.unseen[card]
    if total <= 0 or n <= 0:
        return 0.0
    share = min(1.0, know.opp_cards / total)
    return 1 - (1 - share) ** n


def danger(know: Knowledge, card: str, slots: list[Slot]) -> float:
    """How much the opponent would gain from this discard, in deadwood they would save."""
    if not know.opp_may_take_next:
        return 0.0
    value = 0.0
    if know.opp_opened and card in table_takes(slots):
        value += 1.0
    meld = 0.0
    for a, b in partners(card):
        meld = 1 - (1 - meld) * (1 - holds(know, a) * holds(know, b))
    joker = holds(know, JOKER)
    if joker:
        near = [n for n in neighbours(card) if n[0] == card[0] or abs(_rank_gap(n, card)) == 2]
        single = 1.0
        for n in near:
            single *= 1 - holds(know, n)
        meld = 1 - (1 - meld) * (1 - joker * (1 - single))
    value += meld * (3.0 if know.opp_opened else 1.0)
    if card in know.opp_discards:
        value *= 0.5
    if know.opp_opened and know.opp_cards <= 3:
        value *= 2.5  # a usable discard may let them go out
    return value


def _rank_gap(a: str, b: str) -> int:
    return min((abs(p - q) for p in position_of(a) for q in position_of(b)), default=99)


# --- action bodies -----------------------------------------------------------------------------------


def lay_off_bodies(laid: list[tuple[str, str]]) -> list[dict[str, Any]]:
    grouped: dict[str, list[str]] = {}
    for meld_id, card in laid:
        grouped.setdefault(meld_id, []).append(card)
    return [{"meld": m, "cards": cards} for m, cards in grouped.items()]


def meld_action(melds: list[list[str]], laid: list[tuple[str, str]]) -> Action:
    return {"type": "meld", "melds": melds, "lay_offs": lay_off_bodies(laid)}


def take_action(melds: list[list[str]], laid: list[tuple[str, str]]) -> Action:
    return {"type": "take_discard", "melds": melds, "lay_offs": lay_off_bodies(laid)}


def take_closing_action(plan: Close) -> Action:
    return {
        "type": "take_closing",
        "melds": plan.melds,
        "lay_offs": lay_off_bodies(plan.lay_offs),
        "discard": plan.discard,
    }
