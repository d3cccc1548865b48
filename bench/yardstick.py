"""The `sound` yardstick against another level on paired deals, in every game.

Each deal is played twice, the two levels swapping seats (`engines.tournament.run_paired`; in
Spades the partnerships swap, seats 0 and 2 against 1 and 3), so the luck of the deal cancels;
prints each game's score rate of the first level with its 95% Wilson interval, one game at a
time (docs/bots.md, "The sound yardstick").

    python bench/yardstick.py --seats sound,hard --deals 100 --seed 1000
    python bench/yardstick.py --seats pro,sound --deals 100 --games zhol-small,zoliky
    python bench/yardstick.py --seats sound,hard --deals 25 --match default

`--match one` (the default) plays one hand a match in Zhol and Žolíky (`target_wins` 1) as
bench/bots.py does; `--match default` plays the games' own match length (first to 5 crowns);
Three Thirteen is always its whole match (11 rounds), 2 players; Spades its match to 500.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engines import tournament  # noqa: E402
from engines.registry import GAMES  # noqa: E402

GAME_OPTIONS = {
    "zhol-small": ("zhol", {"variant": "small"}),
    "zhol-large": ("zhol", {"variant": "large"}),
    "three-thirteen": ("three-thirteen", {}),
    "zoliky": ("zoliky", {}),
    "spades": ("spades", {}),
}
ONE_HAND = {"zhol", "zoliky"}


def match_options(
    name: str, match: str, games: dict[str, tuple[str, dict[str, Any]]] = GAME_OPTIONS
) -> tuple[str, dict[str, Any]]:
    """(game id, options) of game `name` in `games` at `match` length: "one" is one hand a match
    in Zhol and Žolíky (`target_wins` 1), "default" the game's own match."""
    game_id, options = games[name]
    if match == "one" and game_id in ONE_HAND:
        return game_id, {**options, "target_wins": 1}
    return game_id, dict(options)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", default="sound,hard")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--games", default=",".join(GAME_OPTIONS))
    ap.add_argument("--match", choices=("one", "default"), default="one")
    args = ap.parse_args()
    levels = args.seats.split(",")
    for name in args.games.split(","):
        game_id, options = match_options(name, args.match)
        start = time.process_time()
        result = tournament.run_paired(GAMES[game_id], levels, args.deals, args.seed, options)
        side = result.sides[0]
        lo, hi = side.interval()
        cpu = time.process_time() - start
        print(
            f"{name:>15} {args.match}: {side.level} vs {levels[1]} {side.rate:.1%} of {side.matches}"
            f" [{lo:.1%}, {hi:.1%}]  seed {args.seed}, {cpu:.0f} s CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
