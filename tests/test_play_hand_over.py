"""The web table hands a seat over with an invitation link, never with its own token: the page
that opens the link holds the seat, and the page that made it watches as a spectator."""

from __future__ import annotations

import pytest

from tests.play_harness import browser_pages, create, dom_cards, open_seat, page_errors, served
from tests.test_serve import call

pytestmark = pytest.mark.slow

HUMANS = [{"kind": "human", "name": n} for n in ("Ana", "Bo")]


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


def test_a_hand_over_link_moves_the_seat_to_the_page_that_opens_it(base):
    body = {"game": "zhol", "options": {"variant": "small"}, "seats": HUMANS}
    match_id, token = create(base, body)
    with browser_pages(2) as (mine, friend):
        errors = open_seat(mine, base, match_id, token)
        hand = sorted(dom_cards(mine, "[data-testid=hand]"))
        mine.click("button:text-is('Hand over seat')")
        link = mine.locator("code.link").inner_text()
        assert f"/play?match={match_id}#invite=" in link and token not in link
        friend_errors = page_errors(friend)
        friend.goto(link)
        friend.wait_for_selector("[data-testid=hand]")
        assert sorted(dom_cards(friend, "[data-testid=hand]")) == hand
        # The fragment is gone from the address bar, and the old token is dead.
        assert "invite" not in friend.url
        status, _ = call(base, "GET", f"/v1/matches/{match_id}", token=token)
        assert status == 401
        # The first page notices on its next read and watches on without a hand.
        mine.reload()
        mine.wait_for_selector(".status")
        assert mine.locator("[data-testid=hand] [data-card]").count() == 0
        assert errors == [] and friend_errors == []


def test_a_match_whose_creator_chose_the_seed_says_so(base):
    body = {"game": "spades", "seats": [*HUMANS, *HUMANS], "seed": 42}
    match_id, token = create(base, body)
    with browser_pages(1) as (page,):
        open_seat(page, base, match_id, token)
        notice = page.locator("[data-testid=seeded]").inner_text()
        assert "chose its seed" in notice
