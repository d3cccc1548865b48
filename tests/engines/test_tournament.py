"""Tournaments: seat rotation, win accounting and confidence intervals."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engines import tournament
from engines.registry import GAMES


def test_wilson_interval_matches_known_values():
    lo, hi = tournament.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = tournament.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    assert tournament.wilson(0, 0) == (0.0, 1.0)


def test_spades_partnerships_alternate_between_matches():
    game = GAMES["spades"]
    first, sides0 = tournament.seat_levels(game, ["pro", "hard"], 0)
    second, sides1 = tournament.seat_levels(game, ["pro", "hard"], 1)
    assert first == ["pro", "hard", "pro", "hard"] and second == ["hard", "pro", "hard", "pro"]
    assert sides0 == [0, 1, 0, 1] and sides1 == [1, 0, 1, 0]


def test_run_counts_every_match_once():
    result = tournament.run(GAMES["spades"], ["easy", "hard"], 4, seed=3, options={"target_score": 100})
    assert [s.matches for s in result.sides] == [4, 4]
    assert sum(s.wins for s in result.sides) == pytest.approx(4)
    assert set(result.decision_seconds) == {"easy", "hard"}
    assert result.decisions == sum(map(len, result.decision_seconds.values())) > 4 * 56


def test_cli_prints_win_rates_and_draws_the_plot(tmp_path):
    png = tmp_path / "ladder.png"
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "tournament", "--game", "spades", "--seats", "easy,medium",
         "--matches", "2", "--seed", "5", "--options", '{"target_score": 100}',
         "--plot", str(png), "--quiet"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "easy: win rate" in out.stdout and "95% CI" in out.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run(
        [sys.executable, "-m", "service.cli", "tournament", "--game", "chess", "--seats", "easy,pro"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode != 0 and "unknown game" in bad.stderr


def test_cli_refuses_bad_options_in_one_line_before_any_match():
    not_json, not_an_option = '{"variant": "huge"', '{"variant": "huge"}'
    cases = (
        (not_json, "--options:"),
        ("[1]", "a JSON object is expected"),
        (not_an_option, "variant must be one of"),
    )
    for options, words in cases:
        bad = subprocess.run(
            [sys.executable, "-m", "service.cli", "tournament", "--game", "zhol", "--seats", "easy,hard",
             "--options", options, "--quiet"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert bad.returncode == 1 and words in bad.stderr and "Traceback" not in bad.stderr
        assert bad.stdout == ""  # no match was played


def test_cli_stops_a_match_that_exceeds_the_decision_cap_and_names_its_seed():
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "tournament", "--game", "three-thirteen", "--seats",
         "easy,random", "--matches", "3", "--seed", "7", "--max-decisions", "50", "--quiet"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "tournament stopped: match with seed 7 did not finish within 50 decisions" in out.stderr
