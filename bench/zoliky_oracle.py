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
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.zhol_oracle import LEVELS, MATCH, measure, pro_score  # noqa: E402
from engines.zoliky.bots import search  # noqa: E402
from engines.zoliky.bots.hand import Analysis, Slot, analyse  # noqa: E402
from engines.zoliky.bots.knowledge import Knowledge  # noqa: E402


def real_opponent(
    know: Knowledge, slots: list[Slot], rng: random.Random, samples: int | None = None
) -> list[tuple[list[str], Analysis]]:
    """The opponent's real hand as the one 'sampled' hand."""
    hand = list(MATCH["state"]["hands"][know.opp])
    return [(hand, analyse(hand, slots))]


def setup(oracle: str, against: str) -> None:
    LEVELS[1] = against  # the levels bench/zhol_oracle.py plays
    if oracle == "all":
        search._sample_opponents = real_opponent  # type: ignore[assignment]


def play(job: tuple[int, int]) -> float:
    m, seed = job
    return pro_score(m, seed, "zoliky", {})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=400)
    ap.add_argument("--seed", type=int, default=10001)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--oracle", default="all", choices=["none", "all"])
    ap.add_argument("--against", default="sound", choices=["solver", "sound", "hard"])
    args = ap.parse_args()
    jobs = [(m, args.seed) for m in range(args.matches)]
    rate = measure(play, jobs, args.procs, setup, (args.oracle, args.against))
    print(f"zoliky, pro (oracle: {args.oracle}) against {args.against}, seed {args.seed}, {rate}")


if __name__ == "__main__":
    main()
