"""The pages under their Content-Security-Policy in a real browser: /docs (Swagger UI) and /play
load, render and play with nothing refused (docs/api.md, "Pages and browsers")."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest

from tests.play_harness import (
    browser_page,
    create,
    create_spades_by_form,
    open_seat,
    page_errors,
    served,
    shown_version,
    wait_turn,
    wait_version_after,
)
from tests.test_serve import call

pytestmark = pytest.mark.slow

# Every violation the page reports, kept where the test can read it. Playwright adds this script
# through the DevTools protocol, beside the page's policy rather than under it.
WATCH = """document.addEventListener("securitypolicyviolation", (e) => {
  (window.__violations = window.__violations || []).push(`${e.violatedDirective} ${e.blockedURI}`);
});"""


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


def watch(page: Any) -> list[str]:
    """The page's console messages about its policy, from now on (chromium logs each refusal)."""
    page.add_init_script(WATCH)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text) if "Content Security Policy" in m.text else None)
    return messages


def violations(page: Any, console: list[str]) -> list[str]:
    return [*page.evaluate("window.__violations || []"), *console]


def screenshot(page: Any, name: str) -> str:
    path = os.path.join(tempfile.gettempdir(), f"cardtable-{name}.png")
    page.screenshot(path=path, full_page=False)
    return path


def test_swagger_ui_renders_every_operation_under_the_policy(base):
    _, spec = call(base, "GET", "/openapi.json")
    methods = {"get", "post", "put", "patch", "delete"}
    operations = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops if m in methods}
    with browser_page() as page:
        console, errors = watch(page), page_errors(page)
        resp = page.goto(base + "/docs")
        assert "script-src 'self'" in resp.headers["content-security-policy"]
        page.wait_for_selector(".opblock")
        page.wait_for_load_state("networkidle")
        shown = page.eval_on_selector_all(
            ".opblock-summary",
            """els => els.map(e => [e.querySelector('.opblock-summary-method').textContent,
                                    e.querySelector('.opblock-summary-path').dataset.path])""",
        )
        assert {(m, p) for m, p in shown} == operations
        # Opening an operation renders its parameters and its example answer.
        page.click(".opblock-get .opblock-summary-path[data-path='/v1/games']")
        page.wait_for_selector(".opblock.is-open .responses-wrapper")
        print(screenshot(page, "docs"))
        assert violations(page, console) == [] and errors == []


def test_the_table_plays_under_the_policy(base):
    """A new match from the form, a bid and a card by clicks, the events log: nothing refused."""
    with browser_page() as page:
        console, errors = watch(page), page_errors(page)
        resp = page.goto(base + "/play")
        assert "frame-ancestors 'none'" in resp.headers["content-security-policy"]
        assert resp.headers["referrer-policy"] == "no-referrer"
        match_id, token = create_spades_by_form(page, base)
        moves = 0
        while moves < 2:  # a bid, then a card
            wait_turn(page)
            view = call(base, "GET", f"/v1/matches/{match_id}", token=token)[1]
            if view["turn"]["seat"] != 0:
                continue  # the page said our turn a moment before the view moved on
            version = shown_version(page)
            if view["turn"]["phase"] == "bid":
                page.click(".bids button:text-is('3')")
            else:
                page.locator("[data-testid=hand] button.card.legal").first.click()
            wait_version_after(page, version)
            moves += 1
        page.wait_for_selector(".log li")
        print(screenshot(page, "play"))
        assert violations(page, console) == [] and errors == []


def test_a_seat_opened_from_its_link_keeps_its_token_out_of_every_request(base):
    """The token rides in the fragment (`#token=`), which browsers never send, and the policy
    sends no Referer at all: the requests the table makes carry the token only as its bearer."""
    match_id, token = create(
        base, {"game": "spades", "seats": [{"kind": "human"}, *[{"kind": "bot", "level": "easy"}] * 3]}
    )
    with browser_page() as page:
        console = watch(page)
        sent: list[Any] = []
        page.on("request", lambda r: sent.append(r))
        open_seat(page, base, match_id, token)  # the hand shown: the view and events were asked for
        assert len(sent) > 5  # the page, its modules and style, the view, the events
        for request in sent:
            headers = request.all_headers()
            assert token not in request.url and "referer" not in headers, (request.url, headers)
        assert violations(page, console) == []
