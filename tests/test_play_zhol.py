"""The web table at /play in a real browser: a small Zhol round against a bot by clicks, the
finished match replayed step by step, and a second player joining through the join link."""

from __future__ import annotations

import pytest

from engines.cards import deck
from tests.api_helpers import playable
from tests.play_harness import (
    assert_only_visible_cards,
    browser_page,
    browser_pages,
    create,
    dom_cards,
    open_seat,
    served,
    wait_turn,
    wait_version_after,
)

pytestmark = pytest.mark.slow

MINE = ["7S", "8S", "9S", "4H", "4D", "4C", "KD"]  # 4S, 6S or TS (and throwing KD) makes a Zhol
THEIRS = ["2H", "5C", "8D", "JC", "3S", "6D", "TC"]  # nothing near a Zhol
STOCK_TOP = ["QC", "6S", "TS"]  # we draw QC, the bot QC or 6S, then we draw 6S or TS


def stacked_deck() -> list[str]:
    rest = deck(copies=1, jokers=2)
    for c in MINE + THEIRS + STOCK_TOP:
        rest.remove(c)
    dealt = [card for pair in zip(MINE, THEIRS, strict=True) for card in pair]
    return dealt + STOCK_TOP + rest


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


def draw_and_discard(page, base, match_id, token, discard: str) -> dict:
    assert wait_turn(page).startswith("Your turn: draw")
    view = assert_only_visible_cards(page, base, match_id, token)
    assert page.locator("[data-pile=stock] button.card").count() == 1
    page.click("[data-pile=stock] button.card")
    wait_version_after(page, view["version"])
    view = assert_only_visible_cards(page, base, match_id, token)
    assert page.locator("[data-testid=hand] button.card.legal").count() == len(playable(view))
    page.click(f"[data-testid=hand] button.card[data-card='{discard}']")
    wait_version_after(page, view["version"])
    return assert_only_visible_cards(page, base, match_id, token)


def new_match(base: str) -> tuple[str, str]:
    """The stacked match against a medium bot, played to one crown; its id and our token."""
    return create(
        base,
        {
            "game": "zhol",
            "options": {"variant": "small", "first_player": 0, "target_wins": 1},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "medium"}],
            "deck": stacked_deck(),
        },
    )


def test_a_small_zhol_round_against_a_bot_by_clicks_then_its_replay(base):
    match_id, token = new_match(base)
    with browser_page() as page:
        errors = open_seat(page, base, match_id, token)
        draw_and_discard(page, base, match_id, token, "QC")
        view = draw_and_discard(page, base, match_id, token, "KD")
        assert view["status"] == "finished" and view["winners"] == [0]
        page.locator("[data-testid=winner]").wait_for()
        assert "You won the match" in page.inner_text("[data-testid=winner]")
        assert "You won round 1" in page.inner_text("[data-testid=round-result]")

        page.click("button:has-text('Replay the match')")
        replay = page.locator("[data-testid=replay]")
        replay.wait_for()
        assert "event 1 of" in replay.inner_text()
        while "deal" not in page.inner_text("[data-testid=replay] .log"):
            page.click("[data-testid=replay] button:has-text('Next')")
        # After the deal the replay shows both hands (the history is public once the match is over).
        assert sorted(MINE + THEIRS) == sorted(dom_cards(page, "[data-testid=replay] .hands"))
        page.click("[data-testid=replay] button:has-text('End')")
        assert "match over" in page.inner_text("[data-testid=replay] .log")
        page.click("[data-testid=replay] button:has-text('Back')")
        assert "round over" in page.inner_text("[data-testid=replay] .log")
        page.click("[data-testid=replay] button:has-text('Back')")
        assert "zhol" in page.inner_text("[data-testid=replay] .log")  # the winning discard's event
        page.click("button:has-text('Back to the table')")
        page.locator("[data-testid=winner]").wait_for()
        assert errors == []


def test_an_open_seat_is_taken_through_the_join_link(base):
    with browser_pages(2) as (host, guest):
        host.goto(base + "/play")
        host.select_option("select[name=game]", "zhol")
        host.select_option("select[data-seat='1']", "open")
        host.click("button[type=submit]")
        link = host.locator("code.link")
        link.wait_for()
        url = link.inner_text()
        match_id = url.split("match=")[1]
        assert "Waiting for players" in host.inner_text("body")

        guest.goto(url)
        guest.fill("input[name=name]", "Ben")
        guest.click("button:has-text('Take a seat')")
        guest.wait_for_selector("[data-testid=hand] .card")
        host.wait_for_selector("[data-testid=hand] .card")
        host.wait_for_function("() => document.body.innerText.includes('Ben')")
        for page, seat in ((host, 0), (guest, 1)):
            token = page.evaluate(f"JSON.parse(sessionStorage.getItem('cardtable:{match_id}')).token")
            view = assert_only_visible_cards(page, base, match_id, token)
            assert view["you"] == seat and view["status"] == "active"
            # Two people at a Zhol table: the turn runs on a clock, shown as a countdown.
            assert view["turn"]["deadline"] is not None
            clock = "() => /\\d:\\d\\d left/.test(document.querySelector('.clock').textContent)"
            page.wait_for_function(clock)
            assert sorted(dom_cards(page, "[data-testid=hand]")) == sorted(view["hand"])
