"""The opponent's hand as the pro imagines it: dealt from the cards its seat cannot see, shaped
by what the opponent's play has shown (docs/bots.md, "Žolíky bots", the pro).

A hand dealt uniformly from the unseen cards is a poor picture of a real one after a few turns:
every turn the opponent drew a card and threw the one it needed least, so its hand is richer in
melds and pairs than chance. `sample_opponent` deals the hand together with as many extra cards
as the opponent has drawn (up to `MAX_EXTRA`) and keeps the best of them (the cards of the
best split's melds, jokers, then cards with a partner), which stands for that selection. Then it
checks the hand against what the opponent did not do, in the way determinized search with
inference from the discard pile does (Cowling, Powley & Whitehouse 2012), redealing a bounded
number of times:

- an opponent who has not opened though it has played a turn on which it could: its hand holds
  no opening (every level opens as soon as it can);
- the last of this seat's discards the opponent let lie, on a turn it could take it: it could
  not go out with that card (no level overlooks a way to go out).

Only the view is read: the unseen counts, the opponent's hand size, the turn and the pile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engines.cards import JOKER
from engines.zoliky.bots.close import find_close
from engines.zoliky.bots.hand import Slot, neighbours, opening_melds, split_hand
from engines.zoliky.bots.knowledge import Knowledge
from engines.zoliky.rules import FIRST_MELDING_TURN

MAX_EXTRA = 2  # at most this many drawn-and-thrown cards are imagined behind the hand
REDEALS = 4  # a hand that contradicts what the opponent did is dealt again up to this often


def opponent_turns(know: Knowledge) -> int:
    """How many turns the opponent has played this round (turns alternate; the seat to move
    plays `turn_number`)."""
    return know.turn_number // 2


def opponent_draws(know: Knowledge) -> int:
    """How many cards the opponent has drawn or taken this round: one a turn, except the
    cutter's first turn (the cutter plays turn 1)."""
    turns = opponent_turns(know)
    cutter_is_opponent = know.turn_number % 2 == 0  # the cutter plays the odd turns
    return max(0, turns - 1) if cutter_is_opponent else turns


def passed_card(know: Knowledge) -> str | None:
    """This seat's most recent discard still in the pile, when the opponent let it lie on a turn
    on which it could have taken it (turn 7 on): a card it could not go out with."""
    if not know.my_discards or know.turn_number - 1 < FIRST_MELDING_TURN:
        return None
    return know.my_discards[-1]


def opponent_could_open(know: Knowledge) -> bool:
    """Whether the opponent has played a turn on which it could have opened."""
    return not know.opp_opened and know.turn_number - 1 >= FIRST_MELDING_TURN


def keep_best(cards: Sequence[str], size: int, rng: random.Random) -> list[str]:
    """`size` of `cards` as a player would have kept them: jokers and the cards of the best
    split's melds first, then leftover cards with a partner among the cards, then the rest."""
    if len(cards) <= size:
        return list(cards)
    melds, leftover = split_hand(cards)
    kept: list[str] = [c for c in leftover if c == JOKER]
    for meld in melds:
        kept.extend(meld.cards)
    loose = [c for c in leftover if c != JOKER]
    rng.shuffle(loose)
    present = set(cards)
    loose.sort(key=lambda c: not any(n in present for n in neighbours(c)))
    kept.extend(loose)
    return kept[:size]


def deal_opponent(know: Knowledge, rng: random.Random, pool: list[str] | None = None) -> list[str]:
    """One opponent hand from the unseen cards, shaped by the opponent's draws (not yet checked
    against its play)."""
    pool = list(know.unseen.elements()) if pool is None else pool
    rng.shuffle(pool)
    size = min(know.opp_cards, len(pool))
    extra = min(MAX_EXTRA, opponent_draws(know), len(pool) - size)
    return keep_best(pool[: size + extra], size, rng)


def contradicts(know: Knowledge, hand: list[str], slots: Sequence[Slot]) -> bool:
    """Whether this opponent hand contradicts what the opponent did not do (module docstring)."""
    if opponent_could_open(know) and opening_melds(hand) is not None:
        return True
    passed = passed_card(know)
    if passed is not None:
        if find_close([*hand, passed], slots, know.opp_opened, must_use=passed, swaps=False) is not None:
            return True
    return False


def sample_opponent(know: Knowledge, slots: Sequence[Slot], rng: random.Random) -> list[str]:
    """One opponent hand consistent with the view and (as far as `REDEALS` allows) its play."""
    pool = list(know.unseen.elements())
    hand = deal_opponent(know, rng, pool)
    for _ in range(REDEALS):
        if not contradicts(know, hand, slots):
            break
        hand = deal_opponent(know, rng, pool)
    return hand
