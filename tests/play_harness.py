"""A real `cardtable serve` and Debian's chromium driven by Playwright, for tests/test_play_*.py
and scripts/screenshots.py. No browser is downloaded: the system chromium is used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.serve_helpers import ROOT, cardtable_serve
from tests.test_serve import call  # one request, a 429 retried after its Retry-After

CHROMIUM = os.environ.get("CARDTABLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def served(**env_extra: str) -> Iterator[str]:
    """`cardtable serve` (embedded Redis, its own RQ worker, gunicorn) with instant bots and
    stacked decks allowed; its base URL."""
    with served_in_dir(**env_extra) as (base, _):
        yield base


@contextmanager
def served_in_dir(**env_extra: str) -> Iterator[tuple[str, str]]:
    """`served`, and its data directory (where `cardtable apps` finds its Redis: `new_app`)."""
    env = {
        "CARDTABLE_BOT_DELAY": "0",
        "CARDTABLE_ALLOW_STACKED_DECK": "1",
        "CARDTABLE_LOG_LEVEL": "WARNING",
        **env_extra,
    }
    data_dir = tempfile.mkdtemp(prefix="cardtable-play-")
    with cardtable_serve(data_dir, **env) as (_, base):
        yield base, data_dir


def new_app(data_dir: str, name: str = "play app") -> str:
    """A new app's key, made as an operator makes one: `cardtable apps create NAME --json`
    against the serve's embedded Redis (found through its data directory)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDTABLE_STATE_URL")}
    command = [sys.executable, "-m", "service.cli", "apps", "create", name, "--json", "--data-dir", data_dir]
    done = subprocess.run(
        command, env={**env, "PYTHONPATH": ROOT}, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)["key"]


@contextmanager
def browser_pages(count: int = 1, width: int = 1280, height: int = 900) -> Iterator[list[Any]]:
    """`count` pages of one chromium, each in its own context (its own sessionStorage: a person)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pages = []
            for _ in range(count):
                page = browser.new_context(viewport={"width": width, "height": height}).new_page()
                page.set_default_timeout(30_000)
                pages.append(page)
            yield pages
        finally:
            browser.close()


@contextmanager
def browser_page(width: int = 1280, height: int = 900) -> Iterator[Any]:
    with browser_pages(1, width, height) as (page,):
        yield page


def create(base: str, body: dict[str, Any]) -> tuple[str, str]:
    """A match created through the API; its id and seat 0's token."""
    status, created = call(base, "POST", "/v1/matches", body)
    assert status == 201, created
    return created["id"], created["seats"][0]["token"]


def create_spades_by_form(page: Any, base: str) -> tuple[str, str]:
    """Create Spades against an easy, a pro and a medium bot through the new-match form, as a
    person would; the match id and the page's seat token (from its sessionStorage)."""
    page.goto(base + "/play")
    page.select_option("select[name=game]", "spades")
    for seat, level in ((1, "easy"), (2, "pro"), (3, "medium")):
        page.select_option(f"select[data-seat='{seat}']", f"bot:{level}")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=hand]")
    match_id = page.url.split("match=")[1]
    return match_id, page.evaluate(f"JSON.parse(sessionStorage.getItem('cardtable:{match_id}')).token")


def page_errors(page: Any) -> list[str]:
    """A list that collects the page's uncaught JavaScript errors from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def open_seat(page: Any, base: str, match_id: str, token: str) -> list[str]:
    """Open the table as that seat (the token handed over in the fragment, as docs/play.md
    says); the page's JavaScript errors are collected in the list returned."""
    errors = page_errors(page)
    page.goto(f"{base}/play?match={match_id}#token={token}")
    page.wait_for_selector("[data-testid=hand]")
    return errors


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    from engines.cards import ALL_CODES

    found: set[str] = set()
    if isinstance(value, str):
        if value in ALL_CODES:
            found.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            found |= card_codes(v)
    elif isinstance(value, list):
        for v in value:
            found |= card_codes(v)
    return found


def dom_cards(page: Any, within: str = "") -> list[str]:
    """The codes of every card element in the page (or inside the `within` selector)."""
    return page.eval_on_selector_all(f"{within} [data-card]", "els => els.map(e => e.dataset.card)")


def assert_only_visible_cards(page: Any, base: str, match_id: str, token: str) -> dict[str, Any]:
    """Every card in the page is in the seat's own hand, or public: in the spectator view or
    the spectator's events. Returns the seat's view of that moment."""
    shown = set(dom_cards(page))
    _, view = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    _, public = call(base, "GET", f"/v1/matches/{match_id}")
    _, events = call(base, "GET", f"/v1/matches/{match_id}/events?after=0")
    allowed = set(view["hand"] or []) | card_codes(public) | card_codes(events["events"])
    assert shown <= allowed, f"the page shows {sorted(shown - allowed)}, neither in the hand nor public"
    return view


def wait_turn(page: Any, timeout: float = 30) -> str:
    """Wait until the page says it is our turn or the round is over; returns the status text."""
    page.wait_for_function(
        """() => { const t = document.querySelector('[data-testid=turn]');
                   return t && (t.classList.contains('you') || !t.textContent.includes(' to play')); }""",
        timeout=timeout * 1000,
    )
    return page.inner_text("[data-testid=turn]")


def shown_version(page: Any) -> int:
    """The version of the view the page shows."""
    return int(page.get_attribute(".status", "data-version"))


def wait_version_after(page: Any, version: int) -> None:
    """Wait until the page shows a view newer than `version` (our click was answered)."""
    page.wait_for_function("v => Number(document.querySelector('.status')?.dataset.version) > v", arg=version)
