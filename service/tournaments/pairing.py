"""The rounds of Swiss and knockout tournaments, as pure functions of plain data (no I/O).

The data is what the tournament's record keeps as JSON:
- an entrant: `{"player": id, "rating": the player's rating mean, "order": join order (0-based)}`;
- a played round: `{"round": 1-based, "tables": [{"seats": [ids in seat order], "winners": [ids]
  or None while the table still plays}], "byes": [ids]}`; a match that ended with no winner has
  `winners: []`.

A player's seed is their place by rating (descending), then join order. At a table of 4 (Spades)
seats 0+2 and 1+3 are partners: a table whose players rank s1..s4 is seated [s1, s2, s4, s3], so
its partnerships s1+s4 and s2+s3 are balanced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

Entrant = Mapping[str, Any]
Round = Mapping[str, Any]
Table = Mapping[str, Any]
Pairing = tuple[list[list[str]], list[str]]

# Candidates the rematch-free search of a Swiss round at tables of 2 may look at before it
# settles for the greedy pairing: a round of 1,024 looks at a few thousand when little is undone,
# so the bound (a few tenths of a second) only cuts short the hopeless, exponential, cases.
SEARCH_CHECKS = 1_000_000
# Passes of the swap pass at tables of more than 2: a pass stops early once it changes nothing,
# and each swap it makes lowers the repeats, so a few passes settle what swaps can settle.
SWAP_PASSES = 3


def seed_order(entrants: Sequence[Entrant]) -> list[str]:
    """The players' ids by seed: rating descending, then join order ascending."""
    return [e["player"] for e in sorted(entrants, key=lambda e: (-e["rating"], e["order"]))]


def points(entrants: Sequence[Entrant], rounds: Sequence[Round]) -> dict[str, float]:
    """Each player's points: 1 a table won (every id of its `winners`), 1 a bye, else 0.

    A table still playing (`winners` None) counts nothing yet.
    """
    score = {e["player"]: 0.0 for e in entrants}
    for played in rounds:
        for table in played["tables"]:
            for player in table["winners"] or ():
                score[player] = score.get(player, 0.0) + 1
        for player in played["byes"]:
            score[player] = score.get(player, 0.0) + 1
    return score


def swiss_pairing(entrants: Sequence[Entrant], rounds: Sequence[Round], size: int) -> Pairing:
    """The next Swiss round: its tables (lists of `size` ids in seat order) and its byes.

    Players rank by points, then rating (descending), then join order. `len(entrants) % size`
    of them sit out with a bye (a point): those with the fewest byes so far, lowest-ranked first.
    At tables of 2 the rest pair top-down, each with the best-ranked player not yet met
    (backtracking when the rest cannot pair so; rematches only when no pairing avoids them, or
    the search runs past SEARCH_CHECKS). At larger tables they sit `size` at a time in rank order,
    then players of neighbouring tables swap where that lowers the pairs who have already sat
    together; a table of 4 is seated [s1, s2, s4, s3], other sizes in rank order.
    ValueError with fewer than `size` players.
    """
    if size < 2:
        raise ValueError(f"tables of {size} players")
    if len(entrants) < size:
        raise ValueError(f"a round at tables of {size} needs at least {size} players")
    score = points(entrants, rounds)
    ranked = sorted(entrants, key=lambda e: (-score[e["player"]], -e["rating"], e["order"]))
    ranking = [e["player"] for e in ranked]
    byes = _byes(ranking, rounds, len(ranking) % size)
    sitting_out = set(byes)
    playing = [p for p in ranking if p not in sitting_out]
    met = _met(rounds)
    if size == 2:
        pairs = _pair_without_rematches(playing, met) or _pair_greedily(playing, met)
        return pairs, byes
    return [_seated(table) for table in _grouped(playing, size, met)], byes


def _byes(ranking: list[str], rounds: Sequence[Round], count: int) -> list[str]:
    """The `count` players with the fewest byes so far, the lowest-ranked first; in rank order."""
    had = Counter(p for played in rounds for p in played["byes"])
    # sorted() is stable: among equal counts the bottom-up order stays.
    chosen = set(sorted(reversed(ranking), key=lambda p: had[p])[:count])
    return [p for p in ranking if p in chosen]


def _met(rounds: Sequence[Round]) -> Counter[frozenset[str]]:
    """How often each pair of players has sat at a table together (a table still playing too:
    it is a meeting already made)."""
    return Counter(
        frozenset(pair)
        for played in rounds
        for table in played["tables"]
        for pair in combinations(table["seats"], 2)
    )


def _pair_without_rematches(playing: list[str], met: Counter[frozenset[str]]) -> list[list[str]] | None:
    """Pairs top-down in which nobody meets a player again, or None if none is found.

    The best-ranked unpaired player takes the best-ranked unpaired opponent not yet met; when
    the rest cannot be paired the last choice is undone and the next opponent tried. Iterative
    (a round of 1,024 would nest 512 calls deep) and bounded by SEARCH_CHECKS.
    """
    seen: dict[str, set[str]] = {p: set() for p in playing}
    for pair in met:
        a, b = pair
        seen.setdefault(a, set()).add(b)
        seen.setdefault(b, set()).add(a)
    n = len(playing)
    used = [False] * n
    chosen: list[tuple[int, int]] = []
    first, tried, checks = 0, 0, 0
    while 2 * len(chosen) < n:
        other, met_first = tried + 1, seen[playing[first]]
        while other < n and (used[other] or playing[other] in met_first):
            other += 1
        checks += other - tried
        if checks > SEARCH_CHECKS:
            return None
        if other == n:
            if not chosen:
                return None
            first, tried = chosen.pop()
            used[first] = used[tried] = False
            continue
        used[first] = used[other] = True
        chosen.append((first, other))
        first = used.index(False, first) if 2 * len(chosen) < n else n
        tried = first
    return [[playing[a], playing[b]] for a, b in chosen]


def _pair_greedily(playing: list[str], met: Counter[frozenset[str]]) -> list[list[str]]:
    """Pairs top-down, each player with the best-ranked of the opponents met the fewest times."""
    rest = list(playing)
    pairs = []
    while rest:
        first = rest.pop(0)
        # min() keeps the first of equals: the best-ranked.
        other = min(rest, key=lambda p: met[frozenset((first, p))])
        rest.remove(other)
        pairs.append([first, other])
    return pairs


def _grouped(playing: list[str], size: int, met: Counter[frozenset[str]]) -> list[list[str]]:
    """Tables of `size` consecutive players, after the swap pass; each table in rank order."""
    tables = [playing[i : i + size] for i in range(0, len(playing), size)]
    for _ in range(SWAP_PASSES):
        swapped = [_swap(tables[t], tables[t + 1], met) for t in range(len(tables) - 1)]
        if not any(swapped):
            break
    place = {p: i for i, p in enumerate(playing)}
    return [sorted(table, key=place.__getitem__) for table in tables]


def _repeats(table: list[str], met: Counter[frozenset[str]]) -> int:
    return sum(1 for pair in combinations(table, 2) if frozenset(pair) in met)


def _swap(upper: list[str], lower: list[str], met: Counter[frozenset[str]]) -> bool:
    """Swaps (in place) the one player of `upper` and one of `lower` that most lowers the
    repeated pairs of the two tables, if any does; True if it swapped.

    Swaps are tried closest in rank first (upper's last with lower's first), so that of equally
    good swaps the one that moves players least in the ranking wins.
    """
    best = _repeats(upper, met) + _repeats(lower, met)
    if best == 0:
        return False
    moves = sorted(
        ((i, j) for i in range(len(upper)) for j in range(len(lower))),
        key=lambda ij: (len(upper) - 1 - ij[0]) + ij[1],
    )
    found = None
    for i, j in moves:
        up, low = list(upper), list(lower)
        up[i], low[j] = lower[j], upper[i]
        repeats = _repeats(up, met) + _repeats(low, met)
        if repeats < best:
            best, found = repeats, (i, j)
    if found is None:
        return False
    i, j = found
    upper[i], lower[j] = lower[j], upper[i]
    return True


def _seated(ranked: list[str]) -> list[str]:
    """A table's seats from its players in rank order: [s1, s2, s4, s3] at 4, else as ranked."""
    if len(ranked) == 4:
        return [ranked[0], ranked[1], ranked[3], ranked[2]]
    return list(ranked)


def knockout_pairing(entrants: Sequence[Entrant], rounds: Sequence[Round], size: int) -> Pairing | None:
    """The next knockout round (tables, byes), or None once the knockout is decided.

    Tables of 2 or 4 (Spades: a partnership advances). Round 1 fills a bracket of B places, B
    the smallest power of 2 (at 2) or 4 times a power of 2 (at 4) that holds every player: the
    top B - n seeds have byes, the rest play. Only round 1 has byes. After a round the table's
    advancing players (see `advancing`) and the byes remain, ordered by seed again: at tables of
    2 the best meets the worst (1 v N, 2 v N-1, ...); at tables of 4 table i takes seeds 2i+1,
    2i+2 from the top and the matching two from the bottom (the first: 1, 2, N-1, N), seated
    [s1, s2, s4, s3] so the best seed partners the worst. Decided when one player (at 2) or one
    partnership (at 4) remains. ValueError for other sizes, too few players, an odd number at
    tables of 4, or a last round with a table still playing.
    """
    _check_knockout(len(entrants), size)
    seeds = seed_order(entrants)
    if not rounds:
        byes = seeds[: _bracket(len(seeds), size) - len(seeds)]
        return _knockout_tables(seeds[len(byes) :], size), byes
    place = {p: i for i, p in enumerate(seeds)}
    last = rounds[-1]
    remaining = [p for table in last["tables"] for p in advancing(table, place, last["round"])]
    remaining += last["byes"]
    if len(remaining) <= size // 2:
        return None
    return _knockout_tables(sorted(remaining, key=place.__getitem__), size), []


def knockout_rounds(n: int, size: int) -> int:
    """How many rounds a knockout of `n` players at tables of `size` (2 or 4) takes."""
    _check_knockout(n, size)
    # At 2: ceil(log2 n). At 4: round 1 leaves B/2 = 2^(j+1) players, each later round halves
    # them, and the last leaves 2: j + 1 rounds in all.
    return (n - 1).bit_length() if size == 2 else (_bracket(n, size) // 4).bit_length()


def _check_knockout(n: int, size: int) -> None:
    if size not in (2, 4):
        raise ValueError(f"a knockout is played at tables of 2 or 4, not {size}")
    if size == 4 and n % 2:
        raise ValueError("a knockout at tables of 4 needs an even number of players")
    if n < size:
        raise ValueError(f"a knockout at tables of {size} needs at least {size} players")


def _bracket(n: int, size: int) -> int:
    """The places of round 1's bracket: the smallest size * 2^j (j >= 0) holding `n` players."""
    bracket = size
    while bracket < n:
        bracket *= 2
    return bracket


def _knockout_tables(ordered: list[str], size: int) -> list[list[str]]:
    """Tables from players in seed order: the best with the worst (see `knockout_pairing`)."""
    n = len(ordered)
    if size == 2:
        return [[ordered[i], ordered[n - 1 - i]] for i in range(n // 2)]
    return [
        _seated([ordered[2 * i], ordered[2 * i + 1], ordered[n - 2 - 2 * i], ordered[n - 1 - 2 * i]])
        for i in range(n // 4)
    ]


def advancing(table: Table, place: Mapping[str, int], round_number: int = 0) -> list[str]:
    """Who goes on from an ended knockout table; `place` is each player's seed (0 the best).

    At 2: the one winner; if there are none or several (an abandoned match, a tie), the
    best-seeded of the winners, or of the seats when there are none. At 4: the partnership
    (seats 0+2 or 1+3) that won; if `winners` is not exactly one partnership, the partnership
    holding the best seed of the winners (of all four when there are none).
    ValueError if the table still plays.
    """
    seats, winners = table["seats"], table["winners"]
    if winners is None:
        raise ValueError(f"round {round_number} still has a table playing")
    if len(seats) == 4:
        teams = [[seats[0], seats[2]], [seats[1], seats[3]]]
        exact = [team for team in teams if set(team) == set(winners)]
        if exact:
            return exact[0]
        pool = [p for p in winners if p in seats] or seats
        best = min(pool, key=place.__getitem__)
        return next(team for team in teams if best in team)
    if len(winners) == 1:
        return list(winners)
    pool = [p for p in winners if p in seats] or seats
    return [min(pool, key=place.__getitem__)]


def standings(entrants: Sequence[Entrant], rounds: Sequence[Round], format: str) -> list[dict[str, Any]]:
    """One row per entrant, `{"player", "points", "buchholz", "rank"}`, ranked 1..n in order.

    Buchholz: the sum of the current points of every opponent met at an ended table (at a table
    of 4 the other partnership, at 2 the other player, at other sizes everyone else).
    "swiss": points, then Buchholz, then rating (descending), then join order.
    "knockout": how far the player got (the last round they were in, a bye counting; above those
    of that round, whoever went on from it: the champions first), then points, then seed;
    Buchholz only for information. ValueError for another format.
    """
    if format not in ("swiss", "knockout"):
        raise ValueError(f"no tournament format {format!r}")
    score = points(entrants, rounds)
    buchholz = _buchholz(rounds, score)
    primary: Mapping[str, float]
    secondary: Mapping[str, float]
    if format == "swiss":
        primary, secondary = score, buchholz
    else:
        primary, secondary = _stages(entrants, rounds), score
    ranked = sorted(
        entrants,
        key=lambda e: (-primary[e["player"]], -secondary.get(e["player"], 0.0), -e["rating"], e["order"]),
    )
    return [
        {
            "player": e["player"],
            "points": score[e["player"]],
            "buchholz": buchholz.get(e["player"], 0.0),
            "rank": rank,
        }
        for rank, e in enumerate(ranked, 1)
    ]


def _opponents(seats: list[str], seat: int) -> list[str]:
    """Whom the player in `seat` plays against: at 4 the other partnership, else everyone else."""
    if len(seats) == 4:
        return [p for s, p in enumerate(seats) if s % 2 != seat % 2]
    return [p for s, p in enumerate(seats) if s != seat]


def _buchholz(rounds: Sequence[Round], score: Mapping[str, float]) -> dict[str, float]:
    """Each player's sum of their opponents' points, over the ended tables (as points are)."""
    total: dict[str, float] = {}
    for played in rounds:
        for table in played["tables"]:
            if table["winners"] is None:
                continue
            seats = table["seats"]
            for seat, player in enumerate(seats):
                met = sum(score.get(o, 0.0) for o in _opponents(seats, seat))
                total[player] = total.get(player, 0.0) + met
    return total


def _stages(entrants: Sequence[Entrant], rounds: Sequence[Round]) -> dict[str, int]:
    """How far each player got in a knockout: 2r for being in round r, 2r + 1 for going on from
    it (a bye, or advancing from an ended table), so the champions are above the last losers."""
    place = {p: i for i, p in enumerate(seed_order(entrants))}
    stage = {e["player"]: 0 for e in entrants}
    for played in rounds:
        r = played["round"]
        for table in played["tables"]:
            for player in table["seats"]:
                stage[player] = max(stage.get(player, 0), 2 * r)
            if table["winners"] is not None:
                for player in advancing(table, place, r):
                    stage[player] = 2 * r + 1
        for player in played["byes"]:
            stage[player] = 2 * r + 1
    return stage
