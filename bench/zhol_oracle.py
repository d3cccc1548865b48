"""What knowing the next player's hand would be worth to the Zhol pro: a measurement, never play.

Usage: python bench/zhol_oracle.py [--matches N] [--seed S] [--variant large] [--procs P]
                                   [--oracle none|danger|all] [--against solver|sound]

Plays N one-hand matches of pro against solver (or `--against sound`) exactly as `cardtable
tournament --seats pro,solver` does (the same deals, seats alternating, the same bot
generator), in P processes.
With `--oracle danger` the pro's estimate of what each discard hands the next player
(`Opponents.danger`) is computed from that player's real hand instead of sampled hands; with
`--oracle all` every use of the sampled hands is (danger, the cards it holds, the draws it still
needs). The gap to `--oracle none` is the most any better inference of the next player's hand
could win (docs/bots.md, "Zhol bots", issue 16's fourth pass). The oracle reads the match state,
which no bot may: it exists only in this process, for this measurement.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import bots as engine_bots  # noqa: E402
from engines.cards import CARD_INDEX  # noqa: E402
from engines.registry import GAMES  # noqa: E402
from engines.tournament import seat_levels, wilson  # noqa: E402
from engines.zhol.bots import hand as bh  # noqa: E402
from engines.zhol.bots import pro  # noqa: E402

LEVELS = ["pro", "solver"]  # the second is set by --against
MATCH: dict[str, Any] = {}  # the state of the match being played in this process


class Truth(pro.Opponents):
    """The next player's real hand as the one 'sampled' hand."""

    def __init__(self, know: Any, rng: random.Random, budget: dict[str, Any], infer: bool):
        hand = tuple(sorted(CARD_INDEX[c] for c in MATCH["state"]["hands"][know.next_seat]))
        self.hands = [hand]
        self.needs = [bh.deficiency(hand, know.size)]
        self.weights = [1.0]
        self.total = 1.0
        self.size = know.size
        self.exact = False
        self.variant = know.variant


class DangerOnly(pro.Opponents):
    """Sampled hands for everything but the danger, which the real hand answers."""

    def __init__(self, know: Any, rng: random.Random, budget: dict[str, Any], infer: bool):
        super().__init__(know, rng, budget, infer)
        self.truth = Truth(know, rng, budget, infer)

    def danger(self, card: int) -> tuple[float, float, float]:
        return self.truth.danger(card)


def setup(oracle: str, against: str = "solver") -> None:
    LEVELS[1] = against
    if oracle == "all":
        pro.Opponents = Truth  # type: ignore[misc]
    elif oracle == "danger":
        pro.Opponents = DangerOnly  # type: ignore[misc]


def play(job: tuple[int, int, str]) -> float:
    m, seed, variant = job
    return pro_score(m, seed, "zhol", {"variant": variant})


def pro_score(m: int, seed: int, game_id: str, options: dict[str, Any]) -> float:
    """Pro's score in match m of the tournament of `LEVELS` with this seed: 1, 0, or 0.5 for a
    shared win; the state of the match is in `MATCH` for the oracle at every move."""

    def remember(state: Any, seat: int, view: Any) -> None:
        MATCH["state"] = state

    state, side_of = tournament_match(m, seed, game_id, options, LEVELS, remember)
    sides = {side_of[s] for s in state.get("winners") or []}
    return 1.0 / len(sides) if 0 in sides else 0.0


def measure(
    play: Callable[[Any], float],
    jobs: list[Any],
    procs: int,
    setup: Callable[..., None],
    initargs: tuple[Any, ...],
) -> str:
    """Pro's rate over `jobs` played in `procs` processes set up by `setup(*initargs)`, with its
    95% interval, as printed."""
    with multiprocessing.Pool(procs, initializer=setup, initargs=initargs) as pool:
        scores = pool.map(play, jobs, chunksize=4)
    wins = sum(scores)
    low, high = wilson(wins, len(scores))
    return f"{len(scores)} matches: {100 * wins / len(scores):.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"


def tournament_match(
    m: int,
    seed: int,
    game_id: str,
    options: dict[str, Any],
    levels: list[str],
    watch: Callable[[Any, int, Any], None],
) -> tuple[Any, list[int]]:
    """Match m of `cardtable tournament --game game_id --seats levels --seed seed` (one hand),
    calling `watch(state, seat, view)` before each move; the final state and each seat's side."""
    game = GAMES[game_id]
    by_seat, side_of = seat_levels(game, levels, m)
    options = game.validate_options({**options, "target_wins": 1}, 2)
    state, _ = game.new_match(options, 2, seed + m)
    rng = random.Random(f"tournament:{seed + m}")  # as engines.tournament.play_match seeds it
    while game.status(state) != "finished":
        if game.status(state) == "round_over":
            game.start_next_round(state)
            continue
        seat = game.to_move(state)
        assert seat is not None
        view = game.view(state, seat)
        watch(state, seat, view)
        game.apply(state, seat, engine_bots.decide(game, view, by_seat[seat], rng))
    return state, side_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=400)
    ap.add_argument("--seed", type=int, default=10001)
    ap.add_argument("--variant", default="large", choices=["small", "large"])
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--oracle", default="danger", choices=["none", "danger", "all"])
    # `sound` reads the next player's danger off the table, never from sampled hands, so the
    # oracle changes the pro alone
    ap.add_argument("--against", default="solver", choices=["solver", "sound"])
    args = ap.parse_args()
    jobs = [(m, args.seed, args.variant) for m in range(args.matches)]
    rate = measure(play, jobs, args.procs, setup, (args.oracle, args.against))
    label = f"zhol {args.variant}, pro (oracle: {args.oracle}) against {args.against}"
    print(f"{label}, seed {args.seed}, {rate}")


if __name__ == "__main__":
    main()
