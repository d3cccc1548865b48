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
