"""The web table at /play in a real browser: the first Three Thirteen round against two bots."""

from __future__ import annotations

import pytest

from tests.play_harness import (
    assert_only_visible_cards,
    browser_page,
    create,
    open_seat,
    served,
    wait_turn,
    wait_version_after,
)

pytestmark = pytest.mark.slow


def test_a_three_thirteen_round_against_two_bots_by_clicks():
    seats = [{"kind": "human", "name": "Ana"}] + [{"kind": "bot", "level": "medium"}] * 2
    with served() as base, browser_page() as page:
        match_id, token = create(base, {"game": "three-thirteen", "seats": seats, "seed": 11})
        errors = open_seat(page, base, match_id, token)
        moves = 0
        while True:
            wait_turn(page)
            view = assert_only_visible_cards(page, base, match_id, token)
            if view["status"] != "active":
                break
            if view["turn"]["seat"] != 0:
                continue
            if view["turn"]["phase"] == "draw":
                page.click("[data-pile=stock] button.card")
            else:  # throw away the highest highlighted card
                page.locator("[data-testid=hand] button.card.legal").last.click()
            wait_version_after(page, view["version"])
            moves += 1
        assert view["status"] == "round_over" and moves >= 2
        page.locator("[data-testid=round-result]").wait_for()
        assert "won round 1" in page.inner_text("[data-testid=round-result]")
        # Every player's points for the round are shown, and the host may start round 2.
        for p in view["round_result"]["players"]:
            assert f"{p['points']} this round, total {p['total']}" in page.inner_text(
                "[data-testid=round-result]"
            )
        page.click("button:has-text('Next round')")
        page.wait_for_function("() => document.querySelector('.status').textContent.includes('round 2')")
        assert len(assert_only_visible_cards(page, base, match_id, token)["hand"]) == 4
        assert errors == []
