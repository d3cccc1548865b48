"""What knowing the opponent's hand would be worth in Three Thirteen: a measurement, never play.

    python bench/three_thirteen_oracle.py --seats sound,hard --deals 30 --seed 60000 --oracle all
    python bench/three_thirteen_oracle.py --seats sound,sound --deals 30 --seed 60000 --oracle all

Plays each deal twice, the two levels swapping seats (as `engines.tournament.run_paired`: the same
deals, the same bot generator), whole matches of 2 players, and prints the first level's score
rate with its 95% Wilson interval and its mean margin per match in points (the other side's total
less its own) with its 95% interval. With `--oracle all` the first level (`sound` or pro) is told
what no view shows, in its seats only:

- the cards it may draw are the stock's (the multiset, not its order), not every card it cannot
  see: the opponent's hand is no longer counted among its outs;
- what a discard gives the next player is the points it really saves that player (its points now
  less its points after taking the card and its best discard), not the danger read off its takings.

`--oracle outs` tells it the first only, `--oracle danger` the second only.

No player deciding from its seat's view can know more about the opponent than that, so the rate it
reaches bounds what any better inference of the opponent's hand could add to that level's judgement
(docs/bots.md, "How far the pro can go against the yardstick"). The oracle reads the match state,
which no bot may: it exists only in this process, for this measurement.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.three_thirteen_variants import margin, paired  # noqa: E402
from engines import bots  # noqa: E402
from engines.registry import GAMES  # noqa: E402
from engines.three_thirteen.bots import eval as tt_eval  # noqa: E402
from engines.three_thirteen.bots import pro, sound  # noqa: E402
from engines.three_thirteen.bots.eval import Judge  # noqa: E402
from engines.tournament import wilson  # noqa: E402

GAME = GAMES["three-thirteen"]
MATCH: dict[str, Any] = {}  # the state of the match being played and the oracle's seat
VIEWED = {"unseen": tt_eval.unseen_cards, "danger": sound.danger, "gift": pro.gift}


def _oracle_seat(view: dict[str, Any]) -> bool:
    return MATCH.get("oracle") == view["turn"]["seat"]


def unseen_cards(view: dict[str, Any], exclude_taken: bool = True) -> list[str]:
    """The oracle's draws: the stock itself."""
    if _oracle_seat(view):
        return sorted(MATCH["state"]["stock"])
    return VIEWED["unseen"](view, exclude_taken)


def saved(view: dict[str, Any], judge: Judge, card: str) -> float:
    """The points `card` on the pile really saves the next player (none when dumped)."""
    if any(a.get("card") == card and "onto" in a for a in view["legal_actions"]):
        return 0.0
    state = MATCH["state"]
    nxt = (view["turn"]["seat"] + 1) % state["num_seats"]
    theirs = list(state["hands"][nxt])
    return float(max(0, judge.left(theirs) - judge.after_best_discard([*theirs, card])))


def danger(view: dict[str, Any], judge: Judge, card: str, declined: list[str]) -> float:
    if _oracle_seat(view):
        return saved(view, judge, card)
    return float(VIEWED["danger"](view, judge, card, declined))


def gift(view: dict[str, Any], judge: Judge, card: str) -> float:
    if _oracle_seat(view):
        return saved(view, judge, card)
    return float(VIEWED["gift"](view, judge, card))


def setup(oracle: str) -> None:
    if oracle in ("all", "outs"):
        sound.unseen_cards = unseen_cards  # type: ignore[assignment]
        pro.unseen_cards = unseen_cards  # type: ignore[assignment]
    if oracle in ("all", "danger"):
        sound.danger = danger  # type: ignore[assignment]
        pro.gift = gift  # type: ignore[assignment]


def play(levels: list[str], seed: int, oracle_seat: int) -> dict[str, Any]:
    """One whole match as `engines.tournament.play_match` plays it, the oracle at `oracle_seat`."""
    options = GAME.validate_options({}, 2)
    state, _ = GAME.new_match(options, 2, seed)
    rng = random.Random(f"tournament:{seed}")
    MATCH.update(state=state, oracle=oracle_seat)
    while GAME.status(state) != "finished":
        if GAME.status(state) == "round_over":
            GAME.start_next_round(state)
            continue
        seat = GAME.to_move(state)
        assert seat is not None
        view = GAME.view(state, seat)
        GAME.apply(state, seat, bots.decide(GAME, view, levels[seat], rng))
    return state


def deal(job: tuple[list[str], int]) -> list[tuple[float, int]]:
    """Both matches of a deal, the oracle in the first level's seat: its score and its margin."""
    levels, seed = job
    return paired(levels, seed, play)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", default="sound,hard")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=60000)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--oracle", choices=("none", "outs", "danger", "all"), default="all")
    args = ap.parse_args()
    levels = args.seats.split(",")
    start = time.time()
    jobs = [(levels, s) for s in range(args.seed, args.seed + args.deals)]
    with Pool(args.processes, initializer=setup, initargs=(args.oracle,)) as pool:
        pairs = pool.map(deal, jobs, chunksize=1)
    matches = [m for pair in pairs for m in pair]
    n = len(matches)
    wins = sum(s for s, _ in matches)
    low, high = wilson(wins, n)
    mean, spread = margin(matches)
    print(
        f"{levels[0]} (oracle: {args.oracle}) vs {levels[1]}: {wins / n:.1%} of {n} [{low:.1%}, {high:.1%}],"
        f" margin {mean:.1f} ± {spread:.1f} points a match  seed {args.seed}, {time.time() - start:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
