"""service/ratings/model.py: openskill's Weng-Lin (PlackettLuce) ratings from a match's standings."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from engines.registry import GAMES
from service.ratings.model import DISPLAY_DECIMALS, rate

ZOLIKY, SPADES, THREE_THIRTEEN = GAMES["zoliky"], GAMES["spades"], GAMES["three-thirteen"]
NEW = (25.0, 25 / 3)  # openskill's default rating


def moved(answer: dict, seat: int, field: str = "mu") -> float:
    return answer[seat]["after"][field] - answer[seat]["before"][field]


def test_a_two_player_match_moves_the_winner_up_and_the_loser_down():
    answer = rate(ZOLIKY, 2, {}, [1, 0], {0: None, 1: None})
    assert answer[0]["before"] == answer[1]["before"] == {"mu": NEW[0], "sigma": NEW[1], "rating": 0.0}
    assert moved(answer, 1) > 0 > moved(answer, 0)
    assert answer[1]["after"]["rating"] > 0 > answer[0]["after"]["rating"]
    assert moved(answer, 1) == pytest.approx(-moved(answer, 0))  # equal players: a zero-sum move
    assert answer[0]["after"]["sigma"] < NEW[1]  # a match played is something learnt


def test_partners_move_together_by_equal_amounts():
    answer = rate(SPADES, 4, {}, [0, 2, 0, 2], {s: NEW for s in range(4)})
    assert sorted(answer) == [0, 1, 2, 3]
    assert answer[0]["after"] == answer[2]["after"] and answer[1]["after"] == answer[3]["after"]
    assert moved(answer, 0) > 0 > moved(answer, 1)
    assert moved(answer, 0) == pytest.approx(-moved(answer, 1))


def test_partners_with_different_places_are_refused():
    with pytest.raises(ValueError):
        rate(SPADES, 4, {}, [0, 1, 2, 3], {})


def test_a_free_for_all_moves_each_seat_by_its_place():
    places = [2, 0, 3, 1]  # seat 1 first, seat 3 second, seat 0 third, seat 2 last
    answer = rate(THREE_THIRTEEN, 4, {}, places, {})
    by_place = sorted(range(4), key=places.__getitem__)
    for field in ("mu", "rating"):
        moves = [moved(answer, s, field) for s in by_place]
        assert moves == sorted(moves, reverse=True), (field, moves)
    assert moved(answer, by_place[0]) > 0 > moved(answer, by_place[-1])


def test_a_tie_between_equal_players_leaves_mu_where_it_was():
    answer = rate(ZOLIKY, 2, {}, [0, 0], {0: (31.0, 3.0), 1: (31.0, 3.0)})
    for seat in (0, 1):
        assert moved(answer, seat) == pytest.approx(0, abs=1e-9)
        assert answer[seat]["after"]["sigma"] < 3.0


def test_an_underdog_who_wins_gains_more_than_a_favourite_who_wins():
    underdog = rate(ZOLIKY, 2, {}, [0, 1], {0: (20.0, 3.0), 1: (30.0, 3.0)})
    favourite = rate(ZOLIKY, 2, {}, [0, 1], {0: (30.0, 3.0), 1: (20.0, 3.0)})
    assert moved(underdog, 0) > moved(favourite, 0) > 0


def test_the_answer_is_openskills_own_rate():
    before = {0: (27.0, 6.0), 1: None, 2: (22.5, 4.0), 3: (25.0, 8.0), 4: (30.0, 2.5)}
    places = [1, 0, 3, 1, 4]
    answer = rate(THREE_THIRTEEN, 5, {}, places, before)
    model = PlackettLuce()
    teams = [[model.rating(mu=b[0], sigma=b[1]) if b else model.rating()] for b in before.values()]
    expected = model.rate(teams, ranks=places)
    for seat, (new,) in enumerate(expected):
        assert answer[seat]["after"]["mu"] == pytest.approx(new.mu, rel=1e-12)
        assert answer[seat]["after"]["sigma"] == pytest.approx(new.sigma, rel=1e-12)
        assert answer[seat]["after"]["rating"] == round(new.ordinal(), DISPLAY_DECIMALS)


def test_spades_is_rated_as_openskills_teams_of_two():
    model = PlackettLuce()
    before = {0: (28.0, 5.0), 1: (25.0, 7.0), 2: (21.0, 3.0), 3: (26.0, 4.0)}
    answer = rate(SPADES, 4, {}, [2, 0, 2, 0], before)
    r = {s: model.rating(mu=mu, sigma=sigma) for s, (mu, sigma) in before.items()}
    (a0, a2), (b1, b3) = model.rate([[r[0], r[2]], [r[1], r[3]]], ranks=[2, 0])
    for seat, new in ((0, a0), (2, a2), (1, b1), (3, b3)):
        assert answer[seat]["after"]["mu"] == pytest.approx(new.mu, rel=1e-12)


@pytest.mark.parametrize("bad", [(25.0, 0.0), (float("nan"), 8.0), (25.0, float("inf"))])
def test_a_stored_rating_that_is_not_one_is_refused(bad):
    with pytest.raises(ValueError):
        rate(ZOLIKY, 2, {}, [0, 1], {0: bad, 1: None})


def test_standings_of_another_seat_count_are_refused():
    with pytest.raises(ValueError):
        rate(ZOLIKY, 2, {}, [0, 1, 2], {})
