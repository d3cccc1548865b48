"""Random full Spades hands per second: our engine against OpenSpiel's C++ Spades, in one run.

Usage: python bench/engine.py [--hands N] [--seed S] [--repeat R]

Each hand is a deal, four random legal bids and 52 random legal plays. Our engine is
driven only through its public interface (new_match, to_move, legal_actions, apply,
start_next_round); OpenSpiel through load_game("spades") with random chance outcomes
for the deal. The target is a ratio of at least 0.25.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402

from engines.spades import GAME  # noqa: E402

TARGET_RATIO = 0.25


def bench_ours(hands: int, seed: int) -> float:
    rng = random.Random(seed)
    choice = rng.choice
    # The highest target the options allow (10,000), so each match is a long run of hands; the
    # loop starts a new match when one ends.
    options = GAME.validate_options({"target_score": 10_000}, 4)
    start = time.perf_counter()
    state, _ = GAME.new_match(options, 4, seed)
    played = 0
    while played < hands:
        status = state["status"]
        if status == "round_over":
            played += 1
            if played == hands:
                break
            GAME.start_next_round(state)
            continue
        if status == "finished":
            state, _ = GAME.new_match(options, 4, rng.randrange(2**31))
            continue
        seat = GAME.to_move(state)
        GAME.apply(state, seat, choice(GAME.legal_actions(state, seat)))
    return hands / (time.perf_counter() - start)


def bench_openspiel(hands: int, seed: int) -> float:
    rng = random.Random(seed)
    choice = rng.choice
    game = pyspiel.load_game("spades")
    start = time.perf_counter()
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
    return hands / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="random full hands per engine (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs; the best of each counts")
    args = parser.parse_args(argv)
    ours = theirs = 0.0
    # Alternate the engines and keep each one's best run, so a busy machine skews both alike.
    for i in range(args.repeat):
        ours = max(ours, bench_ours(args.hands, args.seed + i))
        theirs = max(theirs, bench_openspiel(args.hands, args.seed + i))
    ratio = ours / theirs
    print(f"cardtable spades: {ours:10.1f} hands/s")
    print(f"openspiel spades: {theirs:10.1f} hands/s")
    print(f"ratio:            {ratio:10.3f} (target >= {TARGET_RATIO})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
