"""service/tournaments/pairing.py: Swiss and knockout rounds, standings, as pure functions."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from service.tournaments.pairing import (
    knockout_pairing,
    knockout_rounds,
    points,
    standings,
    swiss_pairing,
)


def entrants(n: int, rng: random.Random | None = None) -> list[dict]:
    """Players p0..p(n-1); without `rng` p0 is the best seed (ratings descending), with it the
    ratings are random (a few equal, so join order matters)."""
    return [
        {"player": f"p{i}", "rating": float(rng.randint(0, n // 2) if rng else n - i), "order": i}
        for i in range(n)
    ]


def win(seats: list[str], rng: random.Random) -> list[str]:
    """A random winner: one player at 2, one partnership (seats 0+2 or 1+3) at 4."""
    if len(seats) == 4:
        return list(rng.choice([[seats[0], seats[2]], [seats[1], seats[3]]]))
    return [rng.choice(seats)]


def played(number: int, tables: list[list[str]], byes: list[str], rng: random.Random) -> dict:
    return {"round": number, "tables": [{"seats": t, "winners": win(t, rng)} for t in tables], "byes": byes}


def swiss(players: list[dict], count: int, size: int, rng: random.Random) -> list[dict]:
    rounds: list[dict] = []
    for number in range(1, count + 1):
        tables, byes = swiss_pairing(players, rounds, size)
        rounds.append(played(number, tables, byes, rng))
    return rounds


def knockout(players: list[dict], size: int, rng: random.Random) -> list[dict]:
    rounds: list[dict] = []
    while (pairing := knockout_pairing(players, rounds, size)) is not None:
        rounds.append(played(len(rounds) + 1, *pairing, rng))
    return rounds


def ranking(players: list[dict], rounds: list[dict]) -> list[str]:
    """The Swiss ranking: points, then rating (descending), then join order."""
    score = points(players, rounds)
    return [
        e["player"] for e in sorted(players, key=lambda e: (-score[e["player"]], -e["rating"], e["order"]))
    ]


def pairs_met(rounds: list[dict]) -> Counter:
    return Counter(frozenset(t["seats"]) for r in rounds for t in r["tables"])


def test_swiss_of_8_over_3_rounds_never_pairs_the_same_two_twice():
    for seed in range(200):
        rng = random.Random(seed)
        rounds = swiss(entrants(8, rng), 3, 2, rng)
        assert max(pairs_met(rounds).values()) == 1, seed


def test_swiss_round_2_of_8_pairs_the_4_winners_with_each_other():
    for seed in range(200):
        rng = random.Random(seed)
        players = entrants(8, rng)
        rounds = swiss(players, 1, 2, rng)
        after_one = points(players, rounds)
        tables, byes = swiss_pairing(players, rounds, 2)
        assert byes == [] and len(tables) == 4
        assert all(after_one[a] == after_one[b] for a, b in tables), seed


def test_swiss_points_add_up_to_the_tables_won_and_the_byes():
    for seed in range(200):
        rng = random.Random(seed)
        n = 8 + seed % 3
        players = entrants(n, rng)
        rounds = swiss(players, 3, 2, rng)
        total = sum(len(t["winners"]) for r in rounds for t in r["tables"]) + sum(
            len(r["byes"]) for r in rounds
        )
        assert sum(points(players, rounds).values()) == total == 3 * (n // 2 + n % 2)


def test_swiss_with_an_odd_count_gives_one_bye_a_round_to_a_new_player_each_time_worth_a_point():
    for seed in range(50):
        rng = random.Random(seed)
        players = entrants(7, rng)
        rounds: list[dict] = []
        for number in range(1, 8):
            tables, byes = swiss_pairing(players, rounds, 2)
            assert len(byes) == 1 and len(tables) == 3
            assert byes[0] not in {p for r in rounds for p in r["byes"]}, seed  # 7 rounds: one each
            before = points(players, rounds)
            rounds.append(played(number, tables, byes, rng))
            assert points(players, rounds)[byes[0]] == before[byes[0]] + 1
        # An eighth round: everybody has had a bye, so it goes to the lowest-ranked.
        _, byes = swiss_pairing(players, rounds, 2)
        assert byes == [ranking(players, rounds)[-1]]


def test_swiss_of_1024_players_plays_10_rounds_without_a_rematch():
    rng = random.Random(7)
    rounds = swiss(entrants(1024, rng), 10, 2, rng)
    assert all(len(r["tables"]) == 512 and r["byes"] == [] for r in rounds)
    assert max(pairs_met(rounds).values()) == 1


def test_swiss_at_tables_of_4_seats_s1_s2_s4_s3_and_gives_n_mod_4_byes():
    players = entrants(10)  # p0 the best seed: round 1 ranks by rating
    tables, byes = swiss_pairing(players, [], 4)
    assert byes == ["p8", "p9"]
    assert tables == [["p0", "p1", "p3", "p2"], ["p4", "p5", "p7", "p6"]]
    for seed in range(50):
        rng = random.Random(seed)
        players = entrants(10 + seed % 4, rng)
        rounds = swiss(players, 3, 4, rng)
        tables, byes = swiss_pairing(players, rounds, 4)
        assert len(byes) == len(players) % 4 and all(len(t) == 4 for t in tables)
        score = points(players, rounds)
        rank = {
            e["player"]: i
            for i, e in enumerate(
                sorted(players, key=lambda e: (-score[e["player"]], -e["rating"], e["order"]))
            )
        }
        for table in tables:
            s1, s2, s3, s4 = sorted(table, key=rank.__getitem__)
            assert table == [s1, s2, s4, s3]


def test_swiss_at_tables_of_4_swaps_players_to_split_who_already_sat_together():
    players = entrants(12)
    # Round 1 (tables of p0-p3, p4-p7, p8-p11): the partnerships of the best seeds win, so the
    # winners rank p0, p3, p4, p7, p8, p11, and in plain rank order p0+p3 and p4+p7 would meet again.
    first = [["p0", "p1", "p3", "p2"], ["p4", "p5", "p7", "p6"], ["p8", "p9", "p11", "p10"]]
    rounds = [{"round": 1, "tables": [{"seats": t, "winners": [t[0], t[2]]} for t in first], "byes": []}]
    tables, _ = swiss_pairing(players, rounds, 4)
    old = {frozenset(p) for t in first for p in combinations(t, 2)}
    repeats = sum(frozenset(p) in old for t in tables for p in combinations(t, 2))
    assert repeats < 6  # 6: the plain grouping [p0 p3 p4 p7] [p8 p11 p1 p2] [p5 p6 p9 p10]
    assert sorted(p for t in tables for p in t) == sorted(e["player"] for e in players)


def test_swiss_needs_at_least_a_table_of_players():
    with pytest.raises(ValueError):
        swiss_pairing(entrants(3), [], 4)


def test_knockout_of_8_pairs_1v8_to_4v5_advances_the_winners_and_ends_after_3_rounds():
    players = entrants(8)
    tables, byes = knockout_pairing(players, [], 2)
    assert byes == [] and tables == [["p0", "p7"], ["p1", "p6"], ["p2", "p5"], ["p3", "p4"]]
    for seed in range(20):
        rounds = knockout(players, 2, random.Random(seed))
        assert len(rounds) == 3 and knockout_pairing(players, rounds, 2) is None
        for before, after in zip(rounds, rounds[1:], strict=False):
            assert {p for t in after["tables"] for p in t["seats"]} == {
                w for t in before["tables"] for w in t["winners"]
            }
        (final,) = rounds[-1]["tables"]
        rows = standings(players, rounds, "knockout")
        assert [r["rank"] for r in rows] == list(range(1, 9))
        assert rows[0]["player"] == final["winners"][0]
        assert rows[1]["player"] == next(p for p in final["seats"] if p not in final["winners"])


def test_knockout_of_6_gives_the_top_2_seeds_byes_in_round_1_only():
    players = entrants(6)
    tables, byes = knockout_pairing(players, [], 2)
    assert byes == ["p0", "p1"] and tables == [["p2", "p5"], ["p3", "p4"]]
    rng = random.Random(1)
    rounds = [played(1, tables, byes, rng)]
    tables, byes = knockout_pairing(players, rounds, 2)
    assert byes == [] and len({p for t in tables for p in t}) == 4
    assert {"p0", "p1"} <= {p for t in tables for p in t}


def test_a_knockout_table_with_no_winner_or_a_tie_advances_the_best_seed():
    players = entrants(4)
    rounds = [
        {
            "round": 1,
            "tables": [
                {"seats": ["p3", "p0"], "winners": []},
                {"seats": ["p1", "p2"], "winners": ["p2", "p1"]},
            ],
            "byes": [],
        }
    ]
    assert knockout_pairing(players, rounds, 2) == ([["p0", "p1"]], [])
    # At 4: with no winners the partnership of the best seed (p0 with p3) goes on.
    players = entrants(6)
    seats = ["p2", "p0", "p5", "p3"]
    rounds = [{"round": 1, "tables": [{"seats": seats, "winners": []}], "byes": ["p1", "p4"]}]
    assert knockout_pairing(players, rounds, 4) == ([["p0", "p1", "p4", "p3"]], [])


def test_a_knockout_round_with_a_table_still_playing_cannot_be_followed():
    rounds = [{"round": 1, "tables": [{"seats": ["p0", "p1"], "winners": None}], "byes": []}]
    with pytest.raises(ValueError):
        knockout_pairing(entrants(2), rounds, 2)


def test_knockout_at_tables_of_4_with_8_then_6_players_and_not_an_odd_count():
    players = entrants(8)
    tables, byes = knockout_pairing(players, [], 4)
    assert byes == [] and tables == [["p0", "p1", "p7", "p6"], ["p2", "p3", "p5", "p4"]]
    rounds = knockout(players, 4, random.Random(3))
    assert [len(r["tables"]) for r in rounds] == [2, 1]
    assert knockout_pairing(players, rounds, 4) is None
    champions = set(rounds[-1]["tables"][0]["winners"])
    assert {r["player"] for r in standings(players, rounds, "knockout")[:2]} == champions

    players = entrants(6)
    tables, byes = knockout_pairing(players, [], 4)
    assert byes == ["p0", "p1"] and tables == [["p2", "p3", "p5", "p4"]]
    rounds = knockout(players, 4, random.Random(3))
    assert [len(r["tables"]) for r in rounds] == [1, 1] and rounds[1]["byes"] == []

    for n, size in [(7, 4), (8, 3), (1, 2), (2, 4)]:
        with pytest.raises(ValueError):
            knockout_pairing(entrants(n), [], size)


def test_swiss_standings_break_equal_points_by_buchholz_then_by_rating():
    # a beats b and c beats d; then a beats c and d beats b. a 2, c 1 (met a 2, d 1: Buchholz 3),
    # d 1 (met c 1, b 0: Buchholz 1), b 0: c ranks above d although d is rated higher.
    players = [
        {"player": "a", "rating": 10.0, "order": 0},
        {"player": "b", "rating": 20.0, "order": 1},
        {"player": "c", "rating": 30.0, "order": 2},
        {"player": "d", "rating": 40.0, "order": 3},
    ]
    one = {
        "round": 1,
        "tables": [{"seats": ["a", "b"], "winners": ["a"]}, {"seats": ["c", "d"], "winners": ["c"]}],
        "byes": [],
    }
    two = {
        "round": 2,
        "tables": [{"seats": ["a", "c"], "winners": ["a"]}, {"seats": ["d", "b"], "winners": ["d"]}],
        "byes": [],
    }
    rows = standings(players, [one, two], "swiss")
    assert [(r["player"], r["points"], r["buchholz"], r["rank"]) for r in rows] == [
        ("a", 2, 1, 1),
        ("c", 1, 3, 2),
        ("d", 1, 1, 3),
        ("b", 0, 3, 4),
    ]
    # After round 1: a and c have 1 point and Buchholz 0, b and d 0 and 1: the rating decides.
    rows = standings(players, [one], "swiss")
    assert [r["player"] for r in rows] == ["c", "a", "d", "b"]


def test_knockout_rounds_agrees_with_a_simulated_knockout():
    rng = random.Random(5)
    for n in range(2, 71):
        assert knockout_rounds(n, 2) == len(knockout(entrants(n, rng), 2, rng)), n
    for n in range(4, 71, 2):
        assert knockout_rounds(n, 4) == len(knockout(entrants(n, rng), 4, rng)), n
