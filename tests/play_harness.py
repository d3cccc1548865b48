"""A real `cardtable serve` and Debian's chromium driven by Playwright, for tests/test_play_*.py
and scripts/screenshots.py. No browser is downloaded: the system chromium is used."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from service.embedded import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = os.environ.get("CARDTABLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    """One API request; a 429 is retried after its Retry-After."""
    for _ in range(10):
        req = urllib.request.Request(base + path, method=method)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, data, timeout=40) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            if e.code != 429:
                return e.code, json.loads(e.read())
            time.sleep(float(e.headers.get("Retry-After") or 1))
    raise AssertionError(f"{method} {path}: still rate limited")


@contextmanager
def served(**env_extra: str) -> Iterator[str]:
    """`cardtable serve` (embedded Redis, its own RQ worker, gunicorn) on a free port; its base URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(
        PYTHONPATH=ROOT,
        CARDTABLE_BOT_DELAY="0",
        CARDTABLE_ALLOW_STACKED_DECK="1",
        CARDTABLE_LOG_LEVEL="WARNING",
        **env_extra,
    )
    data = tempfile.mkdtemp(prefix="cardtable-play-")
    cmd = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", data]
    proc = subprocess.Popen(cmd + ["--workers", "1"], env=env, cwd=ROOT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if call(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, "cardtable serve exited"
            assert time.monotonic() < deadline, "cardtable serve did not become ready"
            time.sleep(0.2)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)


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
