"""What knowing the opponent's hand would be worth to the Žolíky pro: a measurement, never play.

Usage: python bench/zoliky_oracle.py [--matches N] [--seed S] [--procs P] [--oracle none|all]
                                     [--against sound]

Plays N one-hand matches of pro against `--against` (default `sound`) exactly as `cardtable
tournament --game zoliky --seats pro,sound` does (the same deals, seats alternating), in P
processes. With `--oracle all` the pro's sampled opponent hands (`search._sample_opponents`: what
it checks each discard against, for the opponent going out, opening or shrinking its hand) are the
opponent's real hand. The gap to `--oracle none` is the most a better inference of the opponent's
hand could win the pro (docs/bots.md, "The sound yardstick"). The oracle reads the match state,
which no bot may: it exists only in this process, for this measurement.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.zhol_oracle import tournament_match  # noqa: E402
from engines.tournament import wilson  # noqa: E402
from engines.zoliky.bots import search  # noqa: E402
from engines.zoliky.bots.hand import Analysis, Slot, analyse  # noqa: E402
from engines.zoliky.bots.knowledge import Knowledge  # noqa: E402

LEVELS = ["pro", "sound"]  # the second is set by --against
MATCH: dict[str, Any] = {}  # the state of the match being played in this process


def real_opponent(
    know: Knowledge, slots: list[Slot], rng: random.Random, samples: int | None = None
) -> list[tuple[list[str], Analysis]]:
    """The opponent's real hand as the one 'sampled' hand."""
    hand = list(MATCH["state"]["hands"][know.opp])
    return [(hand, analyse(hand, slots))]


def setup(oracle: str, against: str) -> None:
    LEVELS[1] = against
    if oracle == "all":
        search._sample_opponents = real_opponent  # type: ignore[assignment]


def play(job: tuple[int, int]) -> float:
    """Pro's score in match m of the tournament with this seed: 1 or 0."""
    m, seed = job

    def remember(state: Any, seat: int, view: Any) -> None:
        MATCH["state"] = state

    state, side_of = tournament_match(m, seed, "zoliky", {}, LEVELS, remember)
    sides = {side_of[s] for s in state.get("winners") or []}
    return 1.0 / len(sides) if 0 in sides else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=400)
    ap.add_argument("--seed", type=int, default=10001)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--oracle", default="all", choices=["none", "all"])
    ap.add_argument("--against", default="sound", choices=["solver", "sound", "hard"])
    args = ap.parse_args()
    jobs = [(m, args.seed) for m in range(args.matches)]
    with multiprocessing.Pool(args.procs, initializer=setup, initargs=(args.oracle, args.against)) as pool:
        scores = pool.map(play, jobs, chunksize=4)
    wins = sum(scores)
    low, high = wilson(wins, len(scores))
    print(
        f"zoliky, pro (oracle: {args.oracle}) against {args.against}, {len(scores)} matches, "
        f"seed {args.seed}: {100 * wins / len(scores):.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"
    )


if __name__ == "__main__":
    main()
