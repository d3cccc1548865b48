"""Regenerate docs/play/*.png: the web table at /play in Debian's chromium, one game at a time.

    python -m scripts.screenshots      # from the repository root; starts its own `cardtable serve`

Look at the images before committing them (docs/play.md).
"""

from __future__ import annotations

import os

from tests.play_harness import (
    ROOT,
    browser_page,
    create,
    dom_cards,
    open_seat,
    served,
    wait_turn,
    wait_version_after,
)
from tests.test_play_zhol import stacked_deck as zhol_deck
from tests.test_play_zoliky import JUNK, OPENING
from tests.test_play_zoliky import stacked_deck as zoliky_deck

OUT = os.path.join(ROOT, "docs", "play")


def shot(page, name: str) -> None:
    page.wait_for_timeout(300)  # let the last event's refresh land
    page.screenshot(path=os.path.join(OUT, f"{name}.png"), full_page=True)
    print("wrote", os.path.join("docs", "play", f"{name}.png"))


def lobby_and_spades(base: str, page) -> None:
    page.goto(base + "/play")
    page.select_option("select[name=game]", "spades")
    page.wait_for_selector("select[data-seat='3']")
    page.select_option("select[data-seat='2']", "bot:pro")
    shot(page, "new-match")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=hand]")
    for _ in range(4):  # the bid, then three cards: a trick on the table
        wait_turn(page)
        version = int(page.get_attribute(".status", "data-version"))
        if page.locator(".bids button").count():
            page.click(".bids button:text-is('4')")
        else:
            page.locator("[data-testid=hand] button.card.legal").last.click()
        wait_version_after(page, version)
    wait_turn(page)
    shot(page, "spades")
    while "Your turn" in wait_turn(page):  # the rest of the hand, to its result
        version = int(page.get_attribute(".status", "data-version"))
        page.locator("[data-testid=hand] button.card.legal").first.click()
        wait_version_after(page, version)
    page.wait_for_selector("[data-testid=round-result]")
    shot(page, "spades-hand-over")


def zoliky(base: str, page) -> None:
    match_id, token = create(
        base,
        {
            "game": "zoliky",
            "options": {"first_cutter": 0, "target_wins": 3},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "hard"}],
            "deck": zoliky_deck(),
        },
    )
    open_seat(page, base, match_id, token)
    hand = "[data-testid=hand]"
    for turn in range(4):
        wait_turn(page)
        version = int(page.get_attribute(".status", "data-version"))
        before = dom_cards(page, hand)
        throw = JUNK
        if turn:  # draw, then throw the drawn card away (or keep it to discard after melding)
            page.click("[data-pile=stock] button.card")
            wait_version_after(page, version)
            version += 1
            after = dom_cards(page, hand)
            for code in before:
                after.remove(code)
            (throw,) = after
        if turn == 3:
            break
        page.click(f"{hand} button[data-card='{throw}']")
        page.click("button:has-text('Discard')")
        wait_version_after(page, version)
    for meld in OPENING[:2]:
        for code in meld:
            page.click(f"[data-testid=hand] button[data-card='{code}']:not(.selected)")
        page.click("button:has-text('New meld from selection')")
    for code in OPENING[2]:
        page.click(f"[data-testid=hand] button[data-card='{code}']:not(.selected)")
    shot(page, "zoliky-composing")
    page.click("button:has-text('New meld from selection')")
    page.click("button:has-text('Put down')")
    page.wait_for_selector(".melds .meld:not(.staged)")
    shot(page, "zoliky")


def zhol(base: str, page) -> None:
    match_id, token = create(
        base,
        {
            "game": "zhol",
            "options": {"variant": "small", "first_player": 0, "target_wins": 1},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "medium"}],
            "deck": zhol_deck(),
        },
    )
    open_seat(page, base, match_id, token)
    for discard in ("QC", "KD"):
        wait_turn(page)
        version = int(page.get_attribute(".status", "data-version"))
        page.click("[data-pile=stock] button.card")
        wait_version_after(page, version)
        if discard == "KD":
            shot(page, "zhol")
        page.click(f"[data-testid=hand] button.card[data-card='{discard}']")
        wait_version_after(page, version + 1)
    page.wait_for_selector("[data-testid=winner]")
    shot(page, "zhol-won")
    page.click("button:has-text('Replay the match')")
    for _ in range(6):
        page.click("[data-testid=replay] button:has-text('Next')")
    shot(page, "replay")


def three_thirteen(base: str, page) -> None:
    seats = [{"kind": "human", "name": "Ana"}] + [{"kind": "bot", "level": "easy"}] * 2
    match_id, token = create(base, {"game": "three-thirteen", "seats": seats, "seed": 7})
    open_seat(page, base, match_id, token)
    wait_turn(page)
    shot(page, "three-thirteen")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    with served() as base, browser_page(width=1280, height=820) as page:
        lobby_and_spades(base, page)
        zoliky(base, page)
        zhol(base, page)
        three_thirteen(base, page)


if __name__ == "__main__":
    main()
