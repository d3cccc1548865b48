"""The Žolíky `sound` level: the top rung of the ladder, a sound player from the table alone.

It plays the heuristic policy (`policy.decide`) with every decision noticed, no deliberate
mistakes, in the style `SOUND` (docs/bots.md, "The sound yardstick"):

- Outs over live cards: a discard is scored by the deadwood it leaves less the deadwood the next
  draw is expected to save, over the cards still live (not in its hand, on the pile or the table,
  or taken by the opponent and still held: `Knowledge`), and the live cards that pair with its
  deadwood (two draws ahead).
- Not feeding the next player: a card the opponent could lay off, meld with what it took from
  the pile, or use near what it holds costs more than its points (`policy.danger`); the open card
  is taken only when using it beats the average stock card.
- Going out (closing): it goes out whenever the hand can this turn (the closing card, the open
  card or its own cards, joker swaps included), keeps its further melds in hand until then, and
  weighs each discard by the chance to go out with the next draw, the face-up closing card
  counted as a sure out (it waits for whoever can close with it).
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.zoliky.bots.knowledge import read_view
from engines.zoliky.bots.policy import Style, decide

SOUND = Style(closing=True)


def sound_action(view: dict[str, Any], rng: random.Random) -> Action:
    """The sound player's action for the seat whose view this is."""
    return decide(read_view(view), SOUND)
