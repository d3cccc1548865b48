"""How well the Zhol pro's discards could avoid handing the next player its Zhol: a measurement.

Usage: python bench/zhol_danger.py [--matches N] [--seed S] [--variant large] [--procs P]

Plays N one-hand matches of pro against solver exactly as `cardtable tournament --seats
pro,solver` does (the same deals, seats alternating, the same bot generator). At each of the
pro's discards it replays the pro's choice (`pro.Search.discard`, the same sampled hands) with
the chance that a card wins for the next player (`Opponents.danger`) estimated four ways:

- `sampler`: the sampled hands, as the pro plays;
- `none`: zero for every card (speed alone);
- `oracle`: from the next player's real hand, which no bot may read;
- `learned`: a gradient-boosted model of per-card features read from the seat's view (the card's
  rank, the unseen copies of the card and of the cards it could group with, what the next player
  threw, took and let pass near it, its turns, the sampler's own estimate), fitted on one half of
  the matches and scored on the other, both ways round. It needs scikit-learn (`pip install
  scikit-learn`) and is skipped without it.

For each it prints how many of the replayed discards hand the next player a winning card and how
many steps from a Zhol they give up against the fastest discard, with the learned model's and the
sampler's AUC for telling winning cards from the rest. The gap between `learned` and `oracle`
shows how much of what the next player holds can be read from the table at all (docs/bots.md,
"Zhol bots", issue 16's fifth pass). The oracle and the labels read the match state: they exist
only in this process, for this measurement.
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

from bench.zhol_oracle import LEVELS, tournament_match  # noqa: E402
from engines.cards import CARD_INDEX, CARD_OF, JOKER_INDEX  # noqa: E402
from engines.meld_solver import goes_out  # noqa: E402
from engines.registry import GAMES  # noqa: E402
from engines.tournament import seat_levels  # noqa: E402
from engines.zhol.bots import hand as bh  # noqa: E402
from engines.zhol.bots import pro  # noqa: E402
from engines.zhol.bots.knowledge import SIZES, Knowledge  # noqa: E402
from engines.zhol.rules import RULES  # noqa: E402

ESTIMATES = ["sampler", "none", "oracle", "learned"]
SampledOpponents = pro.Opponents


def near(a: int, b: int, reach: int) -> bool:
    """Whether two naturals of one suit are at most `reach` ranks apart (the ace next to the king too)."""
    if a // 13 != b // 13 or a == b:
        return False
    gap = abs(a % 13 - b % 13)
    return min(gap, 13 - gap) <= reach


def features(know: Knowledge, card: int, sampled: tuple[float, float, float]) -> list[float]:
    """What the seat can read about `card` and the next player, from its view only."""
    seat = know.next_seat
    unseen = know.unseen
    thrown = [c for c in know.thrown[seat] if c != JOKER_INDEX]
    held = [c for c in know.held[seat].elements() if c != JOKER_INDEX]
    passed = [c for c in SampledOpponents._passed(know, seat) if c != JOKER_INDEX]
    turns = len(know.thrown[seat])
    if card == JOKER_INDEX:
        return [1, 0, turns, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, len(held), sampled[0], sampled[1]]
    suit, rank = divmod(card, 13)

    def run(reach: int) -> int:
        return sum(unseen[13 * suit + (rank + d) % 13] for d in (-reach, reach))

    return [
        0,
        rank + 1,
        turns,
        unseen[card],
        sum(unseen[13 * s + rank] for s in range(4) if s != suit),
        run(1),
        run(2),
        sum(1 for c in thrown if c % 13 == rank),
        sum(1 for c in thrown if near(c, card, 2)),
        sum(1 for c in passed if c == card),
        sum(1 for c in passed if c != card and (c % 13 == rank or near(c, card, 2))),
        sum(1 for c in held if c % 13 == rank),
        sum(1 for c in held if near(c, card, 2)),
        len(held),
        sampled[0],
        sampled[1],
    ]


class Fixed:
    """The sampled hands of one decision, with `danger`'s chance of a win replaced."""

    def __init__(self, sampled: pro.Opponents, win: Callable[[int, float], float]):
        self.sampled = sampled
        self.win = win

    def danger(self, card: int) -> tuple[float, float, float]:
        win, closer, saved = self.sampled.danger(card)
        return self.win(card, win), closer, saved

    def holds(self) -> dict[int, float]:
        return self.sampled.holds()

    def draws(self, variant: str) -> float:
        return self.sampled.draws(variant)


def replay(know: Knowledge, sampled: pro.Opponents, win: Callable[[int, float], float], rng_seed: str) -> int:
    """The card the pro discards when the chance of a win is `win`."""
    fixed = Fixed(sampled, win)
    pro.Opponents = lambda *args: fixed  # type: ignore[assignment,misc]
    try:
        return pro.Search(know, random.Random(rng_seed)).discard()
    finally:
        pro.Opponents = SampledOpponents  # type: ignore[misc]


def decision(know: Knowledge, real: tuple[int, ...], key: str) -> dict[str, Any] | None:
    """One discard state: the candidates' features and labels and the discards of the three
    estimates that need no fitting; None when the pro can go out (nothing to estimate)."""
    size = know.size
    options = sorted({CARD_INDEX[a["card"]] for a in know.legal})
    if any(goes_out([CARD_OF[c] for c in bh.without_card(know.hand, c)], RULES) for c in options):
        return None
    sampled = SampledOpponents(know, random.Random(f"danger:{key}"), pro.PRO[know.variant], True)
    needs = {c: bh.deficiency(bh.without_card(know.hand, c), size) for c in options}
    least = min(needs.values())

    def wins(card: int) -> bool:
        return bh.deficiency(bh.with_card(real, card), size) == 0

    rows = [
        (card, features(know, card, sampled.danger(card)), wins(card))
        for card in options
        if needs[card] <= least + 1  # the cards the pro weighs (`Search.discard`)
    ]
    chosen = {
        "sampler": replay(know, sampled, lambda c, w: w, key),
        "none": replay(know, sampled, lambda c, w: 0.0, key),
        "oracle": replay(know, sampled, lambda c, w: 1.0 if wins(c) else 0.0, key),
    }
    outcome = {name: (wins(c), needs[c] - least) for name, c in chosen.items()}
    return {"key": key, "know": know, "sampled": sampled, "rows": rows, "outcome": outcome, "needs": needs}


def play(job: tuple[int, int, str]) -> list[dict[str, Any]]:
    """Match m of the tournament with this seed, and every pro discard state in it."""
    m, seed, variant = job
    by_seat, _ = seat_levels(GAMES["zhol"], LEVELS, m)
    states = []
    moves = [0]  # the moves played so far: the key of each decision's sampled hands

    def record(state: Any, seat: int, view: Any) -> None:
        turn = moves[0]
        moves[0] += 1
        if by_seat[seat] == "pro" and view["turn"]["phase"] == "discard" and len(view["legal_actions"]) > 1:
            know = Knowledge(dict(view))
            real = tuple(sorted(CARD_INDEX[c] for c in state["hands"][know.next_seat]))
            found = decision(know, real, f"{seed + m}:{turn}")
            if found is not None:
                found["match"] = m
                states.append(found)

    tournament_match(m, seed, "zhol", {"variant": variant}, LEVELS, record)
    return states


def learned_job(job: tuple[dict[str, Any], dict[int, float]]) -> tuple[bool, int]:
    item, predicted = job
    card = replay(item["know"], item["sampled"], lambda c, w: predicted.get(c, w), item["key"])
    real_wins = {c: label for c, _, label in item["rows"]}
    return real_wins.get(card, False), item["needs"][card] - min(item["needs"].values())


def fit_learned(states: list[dict[str, Any]], procs: int) -> tuple[float, float] | None:
    """Cross-fitted predictions by match parity; each state's `learned` outcome. None without
    scikit-learn or with too few matches (a half with no winning card)."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.metrics import roc_auc_score
    except ImportError:
        return None
    if len({(item["match"] % 2, label) for item in states for _, _, label in item["rows"]}) < 4:
        return None  # each half needs winning cards and others to fit and score a model
    rows = [
        (i, card, x, y, item["match"] % 2) for i, item in enumerate(states) for card, x, y in item["rows"]
    ]
    predicted: list[dict[int, float]] = [{} for _ in states]
    scores, labels, sampler = [], [], []
    for fold in (0, 1):
        train = [r for r in rows if r[4] != fold]
        test = [r for r in rows if r[4] == fold]
        model = HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=40
        )
        model.fit([r[2] for r in train], [int(r[3]) for r in train])
        for r, p in zip(test, model.predict_proba([r[2] for r in test])[:, 1], strict=True):
            predicted[r[0]][r[1]] = float(p)
            scores.append(float(p))
            labels.append(int(r[3]))
            sampler.append(r[2][-2])
    with multiprocessing.Pool(procs) as pool:
        outcomes = pool.map(learned_job, list(zip(states, predicted, strict=True)), chunksize=8)
    for item, outcome in zip(states, outcomes, strict=True):
        item["outcome"]["learned"] = outcome
    return roc_auc_score(labels, scores), roc_auc_score(labels, sampler)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20001)
    ap.add_argument("--variant", default="large", choices=sorted(SIZES))
    ap.add_argument("--procs", type=int, default=2)
    args = ap.parse_args()
    jobs = [(m, args.seed, args.variant) for m in range(args.matches)]
    with multiprocessing.Pool(args.procs) as pool:
        states = [s for found in pool.map(play, jobs, chunksize=2) for s in found]
    candidates = sum(len(s["rows"]) for s in states)
    winners = sum(label for s in states for _, _, label in s["rows"])
    print(
        f"zhol {args.variant}, pro against solver, {args.matches} matches from seed {args.seed}: "
        f"{len(states)} pro discards, {candidates} cards weighed, "
        f"{winners} of them winning cards for the next player"
    )
    aucs = fit_learned(states, args.procs)
    if aucs is not None:
        print(f"AUC telling winning cards apart: learned {aucs[0]:.3f}, sampler {aucs[1]:.3f}")
    for name in ESTIMATES:
        got = [s["outcome"][name] for s in states if name in s["outcome"]]
        if got:
            handed = sum(1 for w, _ in got if w)
            slower = sum(steps for _, steps in got)
            print(f"{name:8s} hands a winning card {handed:4d} times; steps given up {slower:4d}")


if __name__ == "__main__":
    main()
