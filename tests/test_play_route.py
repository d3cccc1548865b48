"""GET /play serves the web table's own files from the package, and nothing else (docs/play.md)."""

from __future__ import annotations

import os
import re

import service

STATIC = os.path.join(os.path.dirname(service.__file__), "static", "play")


def test_play_serves_the_page_which_loads_its_modules_from_play(client):
    resp = client.get("/play")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert b'<script type="module" src="/play/main.js">' in resp.data


def test_every_file_of_the_page_is_served_with_its_type(client):
    types = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
    names = sorted(os.listdir(STATIC))
    assert {"main.js", "api.js", "play.css", "index.html"} <= set(names)
    for name in names:
        resp = client.get(f"/play/{name}")
        assert resp.status_code == 200, name
        assert resp.mimetype == types[os.path.splitext(name)[1]], name
        with open(os.path.join(STATIC, name), "rb") as f:
            assert resp.data == f.read()


def test_other_paths_under_play_are_a_json_404(client):
    for path in ("/play/app.py", "/play/..%2Fapp.py", "/play/missing.js", "/play/"):
        resp = client.get(path)
        assert resp.status_code == 404, path
        assert resp.is_json and resp.json["error"] == "not_found", path


def test_the_page_is_not_part_of_the_api_contract(client):
    spec = client.get("/openapi.json").json
    assert not [path for path in spec["paths"] if path.startswith("/play")]


def test_the_page_loads_nothing_from_elsewhere():
    # No CDN, no framework: every import is a relative path to one of the page's own files,
    # and no file names another host.
    names = set(os.listdir(STATIC))
    for name in names:
        with open(os.path.join(STATIC, name), encoding="utf-8") as f:
            text = f.read()
        assert "http://" not in text and "https://" not in text, name
        for target in re.findall(r'^import .* from "([^"]+)";', text, re.M):
            assert target.startswith("./") and target[2:] in names, (name, target)


POLICY_PAGES = ("/play", "/play/main.js", "/play/play.css", "/docs", "/docs/assets/swagger-ui-bundle.js")


def test_pages_forbid_inline_scripts_and_framing(client):
    """The pages and their files run only this server's scripts, may be framed by no other site,
    are never sniffed, and send no referrer (the table's address names its match)."""
    for path in POLICY_PAGES:
        resp = client.get(path)
        assert resp.status_code == 200, path
        policy = dict(
            d.strip().split(" ", 1) for d in resp.headers["Content-Security-Policy"].split(";") if d.strip()
        )
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'", path
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'", path
        assert resp.headers["X-Content-Type-Options"] == "nosniff", path
        assert resp.headers["Referrer-Policy"] == "no-referrer", path
        assert resp.headers["X-Frame-Options"] == "DENY", path


def test_json_answers_are_never_sniffed(client):
    for path in ("/v1/games", "/openapi.json", "/v1/matches/0000000000000000", "/healthz"):
        resp = client.get(path)
        assert resp.is_json, path
        assert resp.headers["X-Content-Type-Options"] == "nosniff", path
        assert resp.headers["Referrer-Policy"] == "no-referrer", path


def test_the_page_sets_no_inline_style_either():
    """An element's `style` attribute, in the HTML or set from a script, is inline style, which the
    policy refuses (tests/test_play_security.py watches a real browser for that)."""
    for name in os.listdir(STATIC):
        with open(os.path.join(STATIC, name), encoding="utf-8") as f:
            text = f.read()
        assert not re.search(r"""\bstyle\s*[:=]\s*["'{]|<style|setAttribute\(["']style""", text), name
        if name.endswith(".html"):
            assert not re.search(r"<script(?![^>]*\bsrc=)", text), name
