"""Bot decision time while several matches share one worker, in-process (exact percentiles).

A worker (an RQ SimpleWorker) takes queued bot turns one at a time; with N bot matches at once
their decisions interleave. This plays N matches between two levels that way, round-robin in one
thread, and prints per level the wall and CPU milliseconds of a decision (p50, p95, p99, max).
Wall time includes whatever else the machine is running: note the load with the figures.
bench/bot_latency.py measures the same in a real `cardtable worker` (buckets of /metrics).

    python bench/bot_decisions.py --game zoliky --levels pro,solver --at-once 8 --matches 4
    python bench/bot_decisions.py --game zhol --options '{"variant": "large"}'

Options per game are bench/bots.py's BENCH_OPTIONS, updated by --options (JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.bots import BENCH_OPTIONS  # noqa: E402
from bench.stats import pct  # noqa: E402
from engines import bots as engine_bots  # noqa: E402
from engines import tournament  # noqa: E402
from engines.registry import GAMES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="zoliky")
    ap.add_argument("--levels", default="pro,solver", help="the two sides' levels")
    ap.add_argument("--at-once", type=int, default=8, help="matches sharing the worker")
    ap.add_argument("--matches", type=int, default=4, help="matches played in each slot, one after another")
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--options", default="{}", help="JSON game options over BENCH_OPTIONS")
    args = ap.parse_args()
    game = GAMES[args.game]
    levels = args.levels.split(",")
    options = {**BENCH_OPTIONS.get(args.game, {}), **json.loads(args.options)}
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}

    def new(slot: int, played: int) -> dict[str, Any]:
        number = slot * args.matches + played
        by_seat, _ = tournament.seat_levels(game, levels, number)
        opts = game.validate_options(options, len(by_seat))
        state, _ = game.new_match(opts, len(by_seat), args.seed + number)
        rng = random.Random(args.seed + number)
        return {"state": state, "levels": by_seat, "rng": rng, "slot": slot, "n": played}

    running = [new(slot, 0) for slot in range(args.at_once)]
    start = time.perf_counter()
    while running:
        for match in list(running):
            state = match["state"]
            if game.status(state) == "round_over":
                game.start_next_round(state)
            if game.status(state) == "finished":
                running.remove(match)
                if match["n"] + 1 < args.matches:
                    running.append(new(match["slot"], match["n"] + 1))
                continue
            seat = game.to_move(state)
            assert seat is not None
            view = game.view(state, seat)
            level = match["levels"][seat]
            t, c = time.perf_counter(), time.process_time()
            action = engine_bots.decide(game, view, level, match["rng"])
            wall.setdefault(level, []).append(time.perf_counter() - t)
            cpu.setdefault(level, []).append(time.process_time() - c)
            game.apply(state, seat, action)
    took = time.perf_counter() - start
    print(f"## {args.game} {options}: {args.at_once} matches at once, {args.matches} each, {levels}")
    print(f"{took:.0f} s, load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| level | decisions | wall p50 | p95 | p99 | max ms | CPU p50 | p95 | p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for level, w in wall.items():
        c = cpu[level]
        print(
            f"| {level} | {len(w)} | {pct(w, 0.5):.1f} | {pct(w, 0.95):.1f} | {pct(w, 0.99):.1f} | "
            f"{max(w) * 1000:.0f} | {pct(c, 0.5):.1f} | {pct(c, 0.95):.1f} | {pct(c, 0.99):.1f} |"
        )


if __name__ == "__main__":
    main()
