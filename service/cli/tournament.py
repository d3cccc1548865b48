"""`cardtable tournament`: bots of given levels play each other in-process, and the win rates
with their 95% intervals are printed (and drawn with `--plot`: matplotlib, the `plot` extra)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where it runs: `cardtable --help` needs none of the engines
    from engines.tournament import TournamentResult


def add_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`cardtable tournament`."""
    tour = sub.add_parser("tournament", help="play bots against each other in-process and print win rates")
    tour.add_argument("--game", required=True)
    tour.add_argument("--seats", required=True, help="levels, comma-separated, e.g. pro,hard")
    tour.add_argument("--matches", type=int, default=100)
    tour.add_argument("--seed", type=int, default=1)
    tour.add_argument("--options", default=None, help="match options as JSON, e.g. '{\"target_score\": 200}'")
    tour.add_argument("--plot", default=None, help="write the ladder as a PNG")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    tour.add_argument(
        "--max-decisions",
        type=int,
        default=200_000,
        help="stop with an error when one match takes more bot decisions than this (a stalled match)",
    )
    tour.set_defaults(func=cmd_tournament)


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_tournament(args: argparse.Namespace) -> int:
    from engines import tournament
    from engines.errors import InvalidOptions
    from engines.registry import GAMES

    if args.game not in GAMES:
        sys.exit(f"unknown game {args.game!r}; choose from {', '.join(sorted(GAMES))}")
    levels = [lv.strip() for lv in args.seats.split(",")]
    bad = [lv for lv in levels if lv not in tournament.LEVELS]
    if bad or len(levels) < 2:
        sys.exit(f"--seats takes two or more of {', '.join(tournament.LEVELS)}, comma-separated")
    try:
        options = json.loads(args.options) if args.options else {}
        if not isinstance(options, dict):
            raise ValueError("a JSON object is expected, e.g. '{\"target_wins\": 1}'")
        # validated before the first match, so a bad option is one line, not a traceback
        seats = len(tournament.seat_levels(GAMES[args.game], levels, 0)[0])
        GAMES[args.game].validate_options(options, seats)
    except (ValueError, InvalidOptions) as e:  # JSONDecodeError is a ValueError
        sys.exit(f"--options: {e}")
    try:
        result = tournament.run(
            GAMES[args.game],
            levels,
            args.matches,
            args.seed,
            options,
            None if args.quiet else _progress,
            args.max_decisions,
        )
    except RuntimeError as e:  # a match that did not end (engines.tournament.play_match)
        sys.exit(f"tournament stopped: {e}")
    print(f"{args.game}: {args.matches} matches, seed {args.seed}")
    for side in result.sides:
        lo, hi = side.interval()
        print(f"  {side.level:>7}: win rate {side.rate:6.1%}  95% CI [{lo:6.1%}, {hi:6.1%}]")
    if args.plot:
        plot(result, args.plot, options)
        print(f"plot written to {args.plot}")
    return 0


def plot(result: TournamentResult, path: str, options: dict[str, Any] | None = None) -> None:
    """Each side's win rate with its 95% interval, and the even share as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.level for s in result.sides]
    rates = [s.rate for s in result.sides]
    errs = [
        [s.rate - s.interval()[0] for s in result.sides],
        [s.interval()[1] - s.rate for s in result.sides],
    ]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar(names, rates, yerr=errs, capsize=6, color="#4c72b0")
    ax.axhline(1 / len(names), color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% CI)")
    # The options in the title: two ladders of one game (Zhol small and large) must differ.
    given = ", ".join(f"{k} {v}" for k, v in sorted((options or {}).items()))
    ax.set_title(f"{result.game}{f' ({given})' if given else ''}: {result.sides[0].matches} matches")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
