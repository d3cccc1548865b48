"""The web table's tournament screen in a real browser (docs/play.md, "Tournaments"): an app's
Swiss Zhol tournament of four players over two rounds, made and started through the API; one
player follows it at /play?tournament=ID#player=TOKEN, opens its match at the table with its
player token, and sees each round and the end arrive by its feed, without a reload."""

from __future__ import annotations

from typing import Any

import pytest

from tests.play_harness import browser_page, call, new_app, page_errors, served_in_dir
from tests.test_play_security import violations, watch

pytestmark = pytest.mark.slow

# External id -> name; one name is HTML, which the page must show as typed.
PLAYERS = {"ana": "Ana", "bo": "Bo", "cy": "Cy", "eve": "<b>Eve</b>"}


@pytest.fixture(scope="module")
def served_app():
    with served_in_dir() as (base, data_dir):
        yield base, new_app(data_dir)


def ok(answer: tuple[int, Any], status: int = 200) -> Any:
    assert answer[0] == status, answer
    return answer[1]


def new_tournament(base: str, key: str) -> tuple[str, dict[str, str]]:
    """The four players (their tokens by external id), in a Swiss Zhol of two rounds, started.
    Turns of 6 minutes (round_seconds / 20): no one is resigned by the clock during the test."""
    tokens = {
        external: ok(call(base, "PUT", f"/v1/players/{external}", {"name": name}, token=key))["token"]
        for external, name in PLAYERS.items()
    }
    created = ok(
        call(
            base,
            "POST",
            "/v1/tournaments",
            {"game": "zhol", "format": "swiss", "rounds": 2, "round_seconds": 7200},
            token=key,
        ),
        201,
    )
    for token in tokens.values():
        ok(call(base, "POST", f"/v1/tournaments/{created['id']}/join", token=token))
    started = ok(call(base, "POST", f"/v1/tournaments/{created['id']}/start", token=key))
    assert started["status"] == "running" and started["round"] == 1
    return created["id"], tokens


def read(base: str, tournament_id: str, token: str) -> dict[str, Any]:
    return ok(call(base, "GET", f"/v1/tournaments/{tournament_id}", token=token))


def win(base: str, tokens: dict[str, str], match: dict[str, Any], winner: str) -> None:
    """Every other player of the match resigns through the API (its player token as bearer)."""
    for player in match["players"]:
        if player != winner:
            ok(
                call(
                    base,
                    "POST",
                    f"/v1/matches/{match['id']}/actions",
                    {"type": "resign"},
                    token=tokens[player],
                )
            )


def current_matches(base: str, tournament_id: str, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The current round's match of `token`'s player and the other one."""
    t = read(base, tournament_id, token)
    matches = t["rounds"][-1]["matches"]
    mine = next(m for m in matches if m["id"] == t["you"]["match"])
    return mine, next(m for m in matches if m is not mine)


def wait_text(page: Any, selector: str, text: str, timeout: float = 40) -> None:
    """Wait until the element's text includes `text` (the feed long-polls: no reload)."""
    page.wait_for_function(
        "([s, t]) => (document.querySelector(s)?.textContent || '').includes(t)",
        arg=[selector, text],
        timeout=timeout * 1000,
    )


def test_a_player_follows_a_swiss_tournament_and_opens_its_match_from_the_page(served_app):
    base, key = served_app
    tournament_id, tokens = new_tournament(base, key)
    mine, other = current_matches(base, tournament_id, tokens["ana"])
    with browser_page() as page:
        errors, console = page_errors(page), watch(page)  # and the page's policy: nothing refused
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url))
        page.goto(f"{base}/play?tournament={tournament_id}#player={tokens['ana']}")
        page.wait_for_selector("[data-testid=your-match]")
        # The token moved into sessionStorage, out of the address bar, and never into a URL.
        assert page.url == f"{base}/play?tournament={tournament_id}"
        assert (
            page.evaluate(f"sessionStorage.getItem('cardtable:tournament:{tournament_id}')") == tokens["ana"]
        )
        assert page.inner_text("[data-testid=round]") == "Round 1 of 2"
        assert page.inner_text("[data-testid=status]") == "running"
        assert "Swiss tournament of Zhol" in page.inner_text("[data-testid=tournament]")
        rows = page.locator("[data-testid=standings] tbody tr")
        assert rows.count() == 4
        # A name with HTML in it is text: shown as typed, no element made of it.
        assert "<b>Eve</b>" in page.inner_text("[data-testid=standings]")
        assert page.locator("[data-testid=standings] b, [data-testid=rounds] b").count() == 0
        assert (
            page.locator(f"[data-testid=rounds] li[data-match='{other['id']}']").inner_text().count(" – ")
            == 1
        )

        # "Your match" opens the table, seated by the player token, with a way back.
        page.click("[data-testid=your-match]")
        page.wait_for_selector("[data-testid=hand]")
        assert page.url == f"{base}/play?match={mine['id']}&tournament={tournament_id}"
        seat = mine["players"].index("ana")
        held = page.evaluate(f"JSON.parse(sessionStorage.getItem('cardtable:{mine['id']}'))")
        assert held == {"seat": seat, "token": tokens["ana"]}
        assert page.locator("[data-testid=back-to-tournament]").is_visible()
        # Ana wins round 1: her opponent resigns; the table hears it over its event feed.
        win(base, tokens, mine, "ana")
        wait_text(page, "[data-testid=winner]", "You won the match")

        page.click("[data-testid=back-to-tournament]")
        wait_text(page, "[data-testid=you]", "Waiting for the other matches of this round")
        page.evaluate("window.__notReloaded = true")
        # The other table ends (Eve wins it if she sits there): round 2 opens, heard by the feed.
        win(base, tokens, other, "eve" if "eve" in other["players"] else other["players"][0])
        wait_text(page, "[data-testid=round]", "Round 2 of 2")
        mine, other = current_matches(base, tournament_id, tokens["ana"])
        page.wait_for_selector(
            f"[data-testid=your-match][href='/play?match={mine['id']}&tournament={tournament_id}']"
        )
        round1 = page.inner_text("[data-round='1']")
        assert "Ana won" in round1 and round1.count("won") == 2
        assert page.locator("[data-testid=standings] tbody tr.you td").first.inner_text() == "1"

        # Round 2 ends: Ana wins again, and the tournament is over.
        win(base, tokens, mine, "ana")
        win(base, tokens, other, other["players"][0])
        wait_text(page, "[data-testid=you]", "Finished — winner: Ana")
        assert page.inner_text("[data-testid=status]") == "finished"
        assert page.evaluate("window.__notReloaded") is True
        assert page.locator("[data-testid=standings] b, [data-testid=rounds] b").count() == 0
        assert read(base, tournament_id, tokens["ana"])["winners"] == ["ana"]
        assert not any(token in url for url in sent for token in tokens.values())
        assert errors == [] and violations(page, console) == []
