"""How far from a Zhol a player's hand is after t of its turns: the pro's `PLAYED` table.

Usage: python bench/zhol_played.py [--levels solver,solver] [--matches N] [--seed S] [--variant large]

Plays N one-hand matches between the two levels (seats alternating) and, after each discard that
does not end the hand, records the discarding seat's number of discards so far (t, the last row
gathers t >= 10) and its hand's deficiency (`hand.deficiency`, the cards it still has to draw).
Prints per t the share of hands 1, 2, ... cards away, the row format of
`engines/zhol/bots/pro.PLAYED` (row 0, before any discard, is a dealt hand: `RANDOM_HAND`).
`PLAYED` came from hard bots; issue 16's fourth pass measured the large table between solver
bots with the defaults and played the pro with it: no stronger (docs/bots.md, "Zhol bots").
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import bots as engine_bots  # noqa: E402
from engines.cards import CARD_INDEX  # noqa: E402
from engines.registry import GAMES  # noqa: E402
from engines.zhol.bots import hand as bh  # noqa: E402
from engines.zhol.bots.knowledge import SIZES  # noqa: E402

LAST_ROW = 10


def measure(levels: list[str], matches: int, seed: int, variant: str) -> dict[int, Counter[int]]:
    game = GAMES["zhol"]
    size = SIZES[variant]
    options = game.validate_options({"variant": variant, "target_wins": 1}, 2)
    by_turns: dict[int, Counter[int]] = defaultdict(Counter)
    for m in range(matches):
        state, _ = game.new_match(options, 2, seed + m)
        rng = random.Random(m)  # the bots' generator, by match number
        discards = [0, 0]
        while (seat := game.to_move(state)) is not None:
            view = game.view(state, seat)
            action = engine_bots.decide(game, view, levels[(seat + m) % 2], rng)
            game.apply(state, seat, action)
            if action["type"] == "discard" and game.status(state) == "active":
                discards[seat] += 1
                hand = tuple(sorted(CARD_INDEX[c] for c in state["hands"][seat]))
                by_turns[min(discards[seat], LAST_ROW)][bh.deficiency(hand, size)] += 1
    return by_turns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="solver,solver")
    ap.add_argument("--matches", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=50001)
    ap.add_argument("--variant", default="large", choices=sorted(SIZES))
    args = ap.parse_args()
    by_turns = measure(args.levels.split(","), args.matches, args.seed, args.variant)
    width = 7 if args.variant == "large" else 5
    for t in sorted(by_turns):
        counts = by_turns[t]
        total = sum(counts.values())
        # a share never measured stays 0.001: the sampler divides by nothing smaller
        row = tuple(max(0.001, round(counts[d] / total, 3)) for d in range(1, width + 1))
        print(f"t={t:2d} hands={total:5d} {row}")


if __name__ == "__main__":
    main()
