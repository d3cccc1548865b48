"""The web table at /play in a real browser: a Žolíky round against a bot played by clicks,
with an opening meld, a lay-off, a second meld and the closing card taken to close, each
composed by selecting cards (a stacked deck makes the round's cards known)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engines.cards import deck
from tests.play_harness import (
    assert_only_visible_cards,
    browser_page,
    call,
    create,
    dom_cards,
    open_seat,
    wait_turn,
    wait_version_after,
)

pytestmark = pytest.mark.slow

# Seat 0 cuts and is dealt 13: a pure run worth 49 (an opening on its own), a set, a run to
# break up later, and a king to throw away. Seat 1 gets cards that meld with nothing.
OPENING = [["9H", "TH", "JH", "QH", "KH"], ["7S", "7D", "7C"], ["2C", "3C", "4C", "5C"]]
JUNK = "KD"
THEIRS = ["2D", "5H", "9C", "KS", "3H", "8D", "QC", "6S", "JD", "4S", "TC", "AH"]
CLOSING = "AC"  # the bottom card: the cut makes it the closing card
LAY_OFF = "8H"  # both copies 7th and 8th in the stock: our draw on turn 9 whatever the bot does


def stacked_deck() -> list[str]:
    """Seat 0 gets deck[0], deck[2], … deck[24], seat 1 the odd places up to 23; the stock
    follows, top first; the cut reveals the last three cards (no joker among them)."""
    mine = [c for meld in OPENING for c in meld] + [JUNK]
    rest = deck(copies=2, jokers=4)
    for c in mine + THEIRS + [LAY_OFF, LAY_OFF, CLOSING]:
        rest.remove(c)
    normal = [c for c in rest if c != "JK"]
    stock = normal[:6] + [LAY_OFF, LAY_OFF] + normal[6:] + [CLOSING]
    stock[30:30] = ["JK"] * 4  # jokers deep in the stock, nowhere near the cut
    dealt = [card for pair in zip(mine[:12], THEIRS, strict=True) for card in pair] + [mine[12]]
    return dealt + stock


def select(page, codes: list[str]) -> None:
    for code in codes:
        page.click(f"[data-testid=hand] button[data-card='{code}']:not(.selected)")


def new_match(base: str) -> tuple[str, str]:
    """The stacked match against a hard bot; its id and our token."""
    return create(
        base,
        {
            "game": "zoliky",
            "options": {"first_cutter": 0, "target_wins": 3},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "hard"}],
            "deck": stacked_deck(),
        },
    )


def test_a_zoliky_round_by_clicks_opening_meld_lay_off_and_closing_card_composed_by_selecting_cards(base):
    match_id, token = new_match(base)
    with browser_page() as page:
        errors = open_seat(page, base, match_id, token)
        # Turn 1: the cutter only discards.
        assert wait_turn(page).startswith("Your turn: discard")
        discard(page, base, match_id, token, JUNK)
        # Turns 3 and 5: draw from the stock, throw the drawn card away.
        for _ in range(2):
            discard(page, base, match_id, token, draw(page, base, match_id, token))
        # Turn 7: draw; a set alone is refused in words; the run alone opens; throw the drawn card.
        drawn = draw(page, base, match_id, token)
        select(page, OPENING[1])
        page.click("button:has-text('New meld from selection')")
        page.click("button:has-text('Put down')")
        error = page.locator("[data-testid=error]")
        error.wait_for()
        assert "42 points" in error.inner_text()
        page.click("button:has-text('Clear')")
        put_down(page, base, match_id, token, melds=[OPENING[0]])
        view = discard(page, base, match_id, token, drawn)
        assert view["table"]["opened"] == [True, False]
        # Turn 9: draw 8H, lay it off on our run (one lay_off action), then meld the set and a
        # lay-off-free meld action in the same turn; throw 4C away.
        assert draw(page, base, match_id, token) == LAY_OFF
        select(page, [LAY_OFF])
        page.click(".melds .meld.target[data-meld=m1]")
        view = put_down(page, base, match_id, token)
        assert view["table"]["melds"][0]["cards"] == ["8H", *OPENING[0]]
        view = put_down(page, base, match_id, token, melds=[OPENING[1]])
        assert [m["cards"] for m in view["table"]["melds"]][1] == OPENING[1]
        discard(page, base, match_id, token, "4C")
        # Turn 11: take the closing card, meld it with 2C 3C, discard 5C: the round is over.
        assert wait_turn(page).startswith("Your turn: draw")
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["table"]["closing_card"] == CLOSING
        page.click("[data-pile=closing] button.card")
        select(page, ["2C", "3C", CLOSING])
        page.click("button:has-text('New meld from selection')")
        select(page, ["5C"])
        page.click("button:has-text('Take the closing card')")
        result = page.locator("[data-testid=round-result]")
        result.wait_for()
        assert "You won round 1" in result.inner_text()
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["status"] == "round_over" and view["scores"] == {"0": 1, "1": 0}
        assert view["round_result"]["hands"]["0"] == [] and view["round_result"]["winner"] == 0
        # The host starts the next round.
        page.click("button:has-text('Next round')")
        wait_version_after(page, view["version"])
        page.wait_for_function("() => document.querySelector('.status').textContent.includes('round 2')")
        assert_only_visible_cards(page, base, match_id, token)
        assert errors == []


def draw(page, base: str, match_id: str, token: str) -> str:
    """Click the stock on our turn; the card drawn."""
    assert wait_turn(page).startswith("Your turn: draw")
    view = assert_only_visible_cards(page, base, match_id, token)
    page.click("[data-pile=stock] button.card")
    wait_version_after(page, view["version"])
    _, after = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    hand = list(after["hand"])
    for c in view["hand"]:
        hand.remove(c)
    (card,) = hand
    return card


def put_down(page, base: str, match_id: str, token: str, melds: Sequence[list[str]] = ()) -> dict:
    """Stage `melds` by selecting their cards, then click Put down; the view after it."""
    for meld in melds:
        select(page, meld)
        page.click("button:has-text('New meld from selection')")
    assert page.locator(".meld.staged").count() == len(melds)
    view = assert_only_visible_cards(page, base, match_id, token)
    page.click("button:has-text('Put down')")
    wait_version_after(page, view["version"])
    return assert_only_visible_cards(page, base, match_id, token)


def discard(page, base: str, match_id: str, token: str, card: str) -> dict:
    """Select `card`, click Discard; the view after it."""
    view = assert_only_visible_cards(page, base, match_id, token)
    select(page, [card])
    page.click("button:has-text('Discard')")
    wait_version_after(page, view["version"])
    return assert_only_visible_cards(page, base, match_id, token)


@pytest.fixture(scope="module")
def base():
    from tests.play_harness import served

    with served() as url:
        yield url


# A second table with two people: seat 1 is played through the API so that its discard is
# known, and seat 0 (in the browser) takes it and swaps a joker.
MINE_2 = ["9H", "TH", "JH", "QH", "KH", "7S", "7D", "JK", "7C", "2S", "4D", "6C", "9C"]
THEIRS_2 = ["8H", "2D", "5H", "9D", "KS", "3H", "8D", "QC", "6S", "JD", "4S", "TC"]


def two_player_deck() -> list[str]:
    rest = deck(copies=2, jokers=4)
    for c in MINE_2 + THEIRS_2:
        rest.remove(c)
    normal = [c for c in rest if c != "JK"]
    stock = normal[:30] + ["JK"] * 3 + normal[30:]
    dealt = [card for pair in zip(MINE_2[:12], THEIRS_2, strict=True) for card in pair] + [MINE_2[12]]
    return dealt + stock


def _their_turn(base: str, match_id: str, token: str, discard_card: str | None = None) -> None:
    """Seat 1 draws, then discards the card drawn (or `discard_card`), through the API."""
    status, view = call(base, "POST", f"/v1/matches/{match_id}/actions", {"type": "draw"}, token)
    assert status == 200, view
    card = discard_card
    if card is None:  # the card drawn, from our own (unredacted for us) draw event
        _, events = call(base, "GET", f"/v1/matches/{match_id}/events?after=0", token=token)
        card = [e for e in events["events"] if e["type"] == "draw"][-1]["card"]
    status, view = call(
        base, "POST", f"/v1/matches/{match_id}/actions", {"type": "discard", "card": card}, token
    )
    assert status == 200, view


def test_zoliky_taking_the_discard_onto_a_meld_and_swapping_a_joker_by_clicks(base):
    status, created = call(
        base,
        "POST",
        "/v1/matches",
        {
            "game": "zoliky",
            "options": {"first_cutter": 0},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Ben"}],
            "deck": two_player_deck(),
        },
    )
    assert status == 201, created
    match_id = created["id"]
    token, theirs = (s["token"] for s in created["seats"])
    with browser_page() as page:
        errors = open_seat(page, base, match_id, token)
        assert wait_turn(page).startswith("Your turn: discard")
        discard(page, base, match_id, token, "2S")
        for _ in range(2):  # turns 2–5
            _their_turn(base, match_id, theirs)
            discard(page, base, match_id, token, draw(page, base, match_id, token))
        _their_turn(base, match_id, theirs)
        # Turn 7: open with the pure run and a set holding a joker.
        drawn = draw(page, base, match_id, token)
        view = put_down(page, base, match_id, token, melds=[MINE_2[:5], ["7S", "7D", "JK"]])
        assert [m["id"] for m in view["table"]["melds"]] == ["m1", "m2"]
        discard(page, base, match_id, token, drawn)
        _their_turn(base, match_id, theirs, discard_card="8H")
        # Turn 9: take their 8H from the pile straight onto our run.
        assert wait_turn(page).startswith("Your turn: draw")
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["discard"]["top"] == "8H"
        page.click("[data-pile=discard] button.card")
        select(page, ["8H"])  # the taken card, shown in the hand
        page.click(".melds .meld.target[data-meld=m1]")
        page.click("button:has-text('Take the discard and put down')")
        wait_version_after(page, view["version"])
        view = assert_only_visible_cards(page, base, match_id, token)
        assert view["table"]["melds"][0]["cards"] == ["8H", *MINE_2[:5]] and view["turn"]["phase"] == "play"
        # Swap the joker in our set for 7C: the joker comes to the hand.
        select(page, ["7C"])
        page.click("[data-meld=m2] button:has-text('swap joker')")
        wait_version_after(page, view["version"])
        view = assert_only_visible_cards(page, base, match_id, token)
        assert sorted(view["table"]["melds"][1]["cards"]) == ["7C", "7D", "7S"] and "JK" in view["hand"]
        assert "JK" in dom_cards(page, "[data-testid=hand]")
        discard(page, base, match_id, token, "4D")
        assert page.inner_text("[data-testid=turn]").startswith("Ben to play")
        assert errors == []
