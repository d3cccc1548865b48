"""The web table at /play in a real browser: a Žolíky round against a bot, opened and closed
by a meld composed by clicking cards (a stacked deck makes the round's cards known)."""

from __future__ import annotations

import pytest

from engines.cards import deck
from tests.play_harness import (
    assert_only_visible_cards,
    browser_page,
    call,
    create,
    open_seat,
    wait_turn,
    wait_version_after,
)

pytestmark = pytest.mark.slow

# Seat 0 cuts and is dealt 13: three melds worth 84 with a pure run, and a king to throw away.
OPENING = [["9H", "TH", "JH", "QH", "KH"], ["7S", "7D", "7C"], ["2C", "3C", "4C", "5C"]]
JUNK = "KD"


def stacked_deck() -> list[str]:
    """Seat 0 gets deck[0], deck[2], … deck[24]; seat 1 the odd places; the cut is the last three
    cards (no joker among them, so the last card is the closing card)."""
    mine = [c for meld in OPENING for c in meld] + [JUNK]
    rest = deck(copies=2, jokers=4)
    for c in mine:
        rest.remove(c)
    normal = [c for c in rest if c != "JK"]
    theirs, stock = normal[:12], normal[12:]
    stock[30:30] = ["JK"] * 4  # jokers deep in the stock, nowhere near the cut
    dealt = [card for pair in zip(mine[:12], theirs, strict=True) for card in pair] + [mine[12]]
    return dealt + stock


def select(page, codes: list[str]) -> None:
    for code in codes:
        page.click(f"[data-testid=hand] button[data-card='{code}']:not(.selected)")


def test_a_zoliky_round_against_a_bot_with_an_opening_meld_composed_by_clicks(base):
    match_id, token = create(
        base,
        {
            "game": "zoliky",
            "options": {"first_cutter": 0, "target_wins": 3},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "hard"}],
            "deck": stacked_deck(),
        },
    )
    with browser_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_seat(page, base, match_id, token)
        # Turn 1: the cutter only discards.
        assert wait_turn(page).startswith("Your turn: discard")
        view = assert_only_visible_cards(page, base, match_id, token)
        select(page, [JUNK])
        page.click("button:has-text('Discard')")
        wait_version_after(page, view["version"])
        # Turns 3 and 5: draw from the stock, throw the drawn card away.
        for _ in range(2):
            assert wait_turn(page).startswith("Your turn: draw")
            view = assert_only_visible_cards(page, base, match_id, token)
            page.click("[data-pile=stock] button.card")
            wait_version_after(page, view["version"])
            drawn = _drawn(base, match_id, token, view["hand"])
            select(page, [drawn])
            view = assert_only_visible_cards(page, base, match_id, token)
            page.click("button:has-text('Discard')")
            wait_version_after(page, view["version"])
        # Turn 7: draw, compose the opening (three melds) by clicks, put it down, discard: out.
        assert wait_turn(page).startswith("Your turn: draw")
        view = assert_only_visible_cards(page, base, match_id, token)
        page.click("[data-pile=stock] button.card")
        wait_version_after(page, view["version"])
        drawn = _drawn(base, match_id, token, view["hand"])
        # A meld the rules refuse comes back from the API in words, and changes nothing.
        select(page, ["7S", "7D", "7C"])
        page.click("button:has-text('New meld from selection')")
        page.click("button:has-text('Put down')")
        error = page.locator("[data-testid=error]")
        error.wait_for()
        assert "42 points" in error.inner_text()
        page.click("button:has-text('Clear')")
        for meld in OPENING:
            select(page, meld)
            page.click("button:has-text('New meld from selection')")
        assert page.locator(".meld.staged").count() == 3
        view = assert_only_visible_cards(page, base, match_id, token)
        page.click("button:has-text('Put down')")
        wait_version_after(page, view["version"])
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["table"]["opened"] == [True, False] and len(view["table"]["melds"]) == 3
        assert page.locator(".melds .meld").count() == 3
        select(page, [drawn])
        page.click("button:has-text('Discard')")
        result = page.locator("[data-testid=round-result]")
        result.wait_for()
        assert "You won round 1" in result.inner_text()
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["status"] == "round_over" and view["scores"] == {"0": 1, "1": 0}
        # The host starts the next round.
        page.click("button:has-text('Next round')")
        wait_version_after(page, view["version"])
        page.wait_for_function("() => document.querySelector('.status').textContent.includes('round 2')")
        assert_only_visible_cards(page, base, match_id, token)
        assert errors == []


def _drawn(base: str, match_id: str, token: str, before: list[str]) -> str:
    _, view = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    hand = list(view["hand"])
    for c in before:
        hand.remove(c)
    (card,) = hand
    return card


@pytest.fixture(scope="module")
def base():
    from tests.play_harness import served

    with served() as url:
        yield url
