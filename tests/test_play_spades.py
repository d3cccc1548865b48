"""The web table at /play in a real browser: a whole Spades hand against three bots, by clicks."""

from __future__ import annotations

import pytest

from tests.api_helpers import playable
from tests.play_harness import (
    assert_only_visible_cards,
    browser_page,
    create,
    create_spades_by_form,
    dom_cards,
    open_seat,
    page_errors,
    served,
    wait_turn,
    wait_version_after,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


def test_a_whole_spades_hand_against_three_bots_by_clicks(base):
    with browser_page() as page:
        errors = page_errors(page)
        match_id, token = create_spades_by_form(page, base)

        snapshots: list[tuple[set[str], list[str]]] = []
        bids = plays = 0
        while True:
            text = wait_turn(page)
            shown = set(dom_cards(page))
            view = assert_only_visible_cards(page, base, match_id, token)
            snapshots.append((shown, [p["card"] for p in view["table"]["played"]]))
            if view["status"] != "active":
                break
            if view["turn"]["seat"] != 0:
                continue  # the page said our turn a moment before the view moved on; look again
            assert text.startswith("Your turn")
            if page.locator(".bids button").count():
                page.click(".bids button:text-is('3')")
                bids += 1
            else:
                legal = page.locator("[data-testid=hand] button.card.legal")
                assert legal.count() == len(playable(view))
                legal.first.click()
                plays += 1
            wait_version_after(page, view["version"])

        assert (bids, plays) == (1, 13)
        assert view["status"] == "round_over"
        result = page.locator("[data-testid=round-result]")
        result.wait_for()
        assert "won round 1" in result.inner_text() or "no winner" in result.inner_text()
        assert "Next round" in page.inner_text("body")  # the host starts the next hand
        # Exact hidden-information check: no card another seat still held ever showed.
        hands = view["round_result"]["hands"]
        for shown, played in snapshots:
            for seat in (1, 2, 3):
                held = set(hands[seat]) - set(played)
                assert not shown & held, f"seat {seat}'s unplayed {sorted(shown & held)} appeared in the page"
        assert errors == []


def test_the_page_follows_the_bots_by_long_poll_when_the_event_stream_is_cut(base):
    seats = [{"kind": "human", "name": "Ana"}] + [{"kind": "bot", "level": "easy"}] * 3
    match_id, token = create(base, {"game": "spades", "options": {"first_dealer": 0}, "seats": seats})
    with browser_page() as page:
        page.route("**/stream", lambda route: route.abort())  # a proxy that will not stream
        open_seat(page, base, match_id, token)
        page.wait_for_function("() => document.body.innerText.includes('events: long-poll')")
        for _ in range(3):  # bid, then two cards; the bots' moves in between reach us by long-poll
            assert wait_turn(page).startswith("Your turn")
            view = assert_only_visible_cards(page, base, match_id, token)
            if page.locator(".bids button").count():
                page.click(".bids button:text-is('2')")
            else:
                page.locator("[data-testid=hand] button.card.legal").first.click()
            wait_version_after(page, view["version"])
        wait_turn(page)
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["players"][0]["bid"] == 2 and len(view["hand"]) == 11
        assert len(dom_cards(page, "[data-testid=hand]")) == 11
