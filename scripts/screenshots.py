"""Regenerate docs/play/*.png: the web table at /play in Debian's chromium, one game at a time.

    python -m scripts.screenshots      # from the repository root; starts its own `cardtable serve`
    python -m scripts.screenshots tournament zhol   # only these (the functions named in SHOTS)

Look at the images before committing them (docs/play.md).
"""

from __future__ import annotations

import os
import sys

from tests.play_harness import (
    browser_page,
    create,
    new_app,
    open_seat,
    served_in_dir,
    shown_version,
    wait_turn,
    wait_version_after,
)
from tests.serve_helpers import ROOT
from tests.test_play_tournament import current_matches, new_tournament, wait_text, win
from tests.test_play_zhol import draw_and_discard
from tests.test_play_zhol import new_match as zhol_match
from tests.test_play_zoliky import JUNK, OPENING, discard, draw, select
from tests.test_play_zoliky import new_match as zoliky_match

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
        version = shown_version(page)
        if page.locator(".bids button").count():
            page.click(".bids button:text-is('4')")
        else:
            page.locator("[data-testid=hand] button.card.legal").last.click()
        wait_version_after(page, version)
    wait_turn(page)
    shot(page, "spades")
    while "Your turn" in wait_turn(page):  # the rest of the hand, to its result
        version = shown_version(page)
        page.locator("[data-testid=hand] button.card.legal").first.click()
        wait_version_after(page, version)
    page.wait_for_selector("[data-testid=round-result]")
    shot(page, "spades-hand-over")


def zoliky(base: str, page) -> None:
    match_id, token = zoliky_match(base)
    open_seat(page, base, match_id, token)
    wait_turn(page)
    discard(page, base, match_id, token, JUNK)
    for _ in range(2):
        discard(page, base, match_id, token, draw(page, base, match_id, token))
    draw(page, base, match_id, token)
    for meld in OPENING[:2]:
        select(page, meld)
        page.click("button:has-text('New meld from selection')")
    select(page, OPENING[2])
    shot(page, "zoliky-composing")
    page.click("button:has-text('New meld from selection')")
    page.click("button:has-text('Put down')")
    page.wait_for_selector(".melds .meld:not(.staged)")
    shot(page, "zoliky")


def zhol(base: str, page) -> None:
    match_id, token = zhol_match(base)
    open_seat(page, base, match_id, token)
    draw_and_discard(page, base, match_id, token, "QC")
    wait_turn(page)
    version = shown_version(page)
    page.click("[data-pile=stock] button.card")
    wait_version_after(page, version)
    shot(page, "zhol")
    page.click("[data-testid=hand] button.card[data-card='KD']")
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


def tournament(base: str, page, key: str) -> None:
    """Ana's screen of a Swiss Zhol of four in round 2 (the app `key`'s), round 1 played
    through the API."""
    tournament_id, tokens = new_tournament(base, key)
    for match, winner in zip(
        current_matches(base, tournament_id, tokens["ana"]), ("ana", "eve"), strict=True
    ):
        win(base, tokens, match, winner if winner in match["players"] else match["players"][0])
    page.goto(f"{base}/play?tournament={tournament_id}#player={tokens['ana']}")
    wait_text(page, "[data-testid=round]", "Round 2 of 2")
    page.wait_for_selector("[data-testid=your-match]")
    shot(page, "tournament")


SHOTS = {
    "spades": lobby_and_spades,
    "zoliky": zoliky,
    "zhol": zhol,
    "three-thirteen": three_thirteen,
}
NAMES = [*SHOTS, "tournament"]  # the tournament's also needs an app (`cardtable apps create`)


def main() -> None:
    names = sys.argv[1:] or NAMES
    unknown = set(names) - set(NAMES)
    if unknown:
        raise SystemExit(f"no such screenshots: {sorted(unknown)}; choose from {NAMES}")
    os.makedirs(OUT, exist_ok=True)
    with served_in_dir() as (base, data_dir), browser_page(width=1280, height=820) as page:
        for name in names:
            if name == "tournament":
                tournament(base, page, new_app(data_dir))
            else:
                SHOTS[name](base, page)


if __name__ == "__main__":
    main()
