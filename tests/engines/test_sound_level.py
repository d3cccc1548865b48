"""The `sound` rung, the top of the ladder: a measuring level in every game, above `hard`."""

from __future__ import annotations

import pytest

from engines import tournament
from engines.base import BOT_LEVELS
from engines.registry import GAMES


def test_sound_is_a_tournament_level_but_not_one_clients_may_seat():
    assert "sound" in tournament.LEVELS
    assert "sound" not in BOT_LEVELS


@pytest.mark.parametrize(
    ("game_id", "options", "seats"),
    [
        ("zhol", {"target_wins": 1}, 4),
        ("three-thirteen", {"jokers_wild": True, "joker_dump": True, "false_out_penalty": True}, 3),
        ("spades", {"target_score": 100}, 4),
    ],
)
def test_sound_plays_whole_matches_with_legal_moves_only(game_id, options, seats):
    """Sound against medium under other options: every decision is accepted, the match ends."""
    game = GAMES[game_id]
    levels = ["sound", "medium"] * (seats // 2) + ["sound"] * (seats % 2)
    state = tournament.play_match(game, levels, seed=3, options=options)
    assert state["status"] == "finished"


# The ladder kept honest: sound beats hard on fixed paired deals (each deal played twice, the seats
# swapped), one hand a match. The rates measured on hundreds of deals are in docs/bots.md; these
# few deals only guard against a sound rung that fell below hard.
@pytest.mark.parametrize(
    ("game_id", "options", "deals", "least"),
    [
        ("zhol", {"target_wins": 1}, 20, 0.55),
        ("zhol", {"target_wins": 1, "variant": "large"}, 4, 0.55),
        ("zoliky", {"target_wins": 1}, 10, 0.55),
    ],
)
def test_sound_beats_hard_on_fixed_paired_deals(game_id, options, deals, least):
    result = tournament.run_paired(GAMES[game_id], ["sound", "hard"], deals, seed=1000, options=options)
    sound, hard = result.sides
    assert sound.matches == hard.matches == 2 * deals
    assert sound.rate >= least, (sound.wins, sound.matches)


def test_paired_deals_give_each_side_each_seat_of_every_deal():
    result = tournament.run_paired(GAMES["zhol"], ["easy", "random"], 3, seed=5, options={"target_wins": 1})
    assert [s.matches for s in result.sides] == [6, 6]
    assert sum(s.wins for s in result.sides) == pytest.approx(6)


def test_paired_spades_deals_give_each_partnership_both_pairs_of_seats():
    spades = GAMES["spades"]
    assert tournament.seat_levels(spades, ["pro", "sound"], 0)[0] == ["pro", "sound", "pro", "sound"]
    assert tournament.seat_levels(spades, ["pro", "sound"], 1)[0] == ["sound", "pro", "sound", "pro"]
    result = tournament.run_paired(spades, ["easy", "random"], 1, seed=5, options={"target_score": 100})
    assert [s.matches for s in result.sides] == [2, 2]
    assert sum(s.wins for s in result.sides) == pytest.approx(2)
