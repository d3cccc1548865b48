"""Bot benchmark: decision latency per game and level, and the strength ladder.

Each rung plays one level against the level below it (random-legal at the bottom)
in-process, seats alternating, and prints the upper level's win rate with its 95%
Wilson interval. Latency is measured on the same decisions. The ladder includes
`solver`, the least-deadwood baseline (Spades: hard without mistakes), and `sound`, the
yardstick (bench/yardstick.py measures it on paired deals), between hard and pro; they are
measuring rungs only, not levels clients can seat.

    python bench/bots.py [--games spades,zhol] [--matches 100] [--seed 1]
    python bench/bots.py --games zhol --options '{"variant": "large"}'

`--options` (a JSON object) is merged over each game's BENCH_OPTIONS.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.stats import pct  # noqa: E402
from engines import tournament  # noqa: E402
from engines.registry import GAMES  # noqa: E402

LADDER = ["random", "easy", "medium", "hard", "solver", "sound", "pro"]

# The rungs with a target above an interval over 50% (docs/bots.md): (least rate, interval's
# lower bound above).
TARGETS = {("hard", "pro"): (0.65, 0.5), ("solver", "pro"): (0.65, 0.55), ("sound", "pro"): (0.65, 0.55)}

# Shorter matches than the defaults keep the ladder affordable; the unit is still a whole
# match, played to these targets.
BENCH_OPTIONS = {
    "spades": {"target_score": 200},
    "zoliky": {"target_wins": 1},
    "zhol": {"target_wins": 1},
    "three-thirteen": {},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rungs", default=None, help="e.g. hard:pro,medium:hard (default: the whole ladder)")
    ap.add_argument(
        "--options",
        type=json.loads,
        default={},
        help='JSON object merged over BENCH_OPTIONS, e.g. \'{"variant": "large"}\'',
    )
    args = ap.parse_args()
    if not isinstance(args.options, dict):
        ap.error("--options must be a JSON object")
    rungs = (
        [tuple(r.split(":")) for r in args.rungs.split(",")]
        if args.rungs
        else list(zip(LADDER, LADDER[1:], strict=False))
    )
    if not args.rungs:
        # listed too: their target is 65%, not an interval over 50%
        rungs += [("hard", "pro"), ("solver", "pro")]
        rungs = list(dict.fromkeys(rungs))
    for game_id in args.games.split(","):
        game = GAMES[game_id]
        options = {**BENCH_OPTIONS.get(game_id, {}), **args.options}
        latencies: dict[str, list[float]] = {}
        print(f"\n## {game_id} (options {options}, {args.matches} matches per rung)")
        print("| upper vs lower | upper win rate | 95% CI | verdict | seconds |")
        print("|---|---|---|---|---|")
        for lower, upper in rungs:
            start = time.perf_counter()
            # Two sides: two seats, or two partnerships in Spades.
            result = tournament.run(game, [upper, lower], args.matches, args.seed, options)
            wins = sum(s.wins for s in result.sides if s.level == upper)
            n = args.matches
            lo, hi = tournament.wilson(wins, n)
            target, floor = TARGETS.get((lower, upper), (0.5, 0.5))
            verdict = "ok" if (lo > floor and wins / n >= target) else "MISSED"
            took = time.perf_counter() - start
            print(f"| {upper} vs {lower} | {wins / n:.1%} | [{lo:.1%}, {hi:.1%}] | {verdict} | {took:.0f} |")
            for level, secs in result.decision_seconds.items():
                latencies.setdefault(level, []).extend(secs)
        print("\n| level | decisions | median ms | p95 ms | target p95 |")
        print("|---|---|---|---|---|")
        for level in LADDER:
            secs = latencies.get(level)
            if secs:
                target = "1000" if level == "pro" else "50"
                median = statistics.median(secs) * 1000
                print(f"| {level} | {len(secs)} | {median:.2f} | {pct(secs, 0.95):.2f} | {target} |")


if __name__ == "__main__":
    main()
