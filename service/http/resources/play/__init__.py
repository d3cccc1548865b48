"""GET /play: the web table, static files shipped inside the package (docs/play.md).

A plain Flask blueprint rather than a flask-smorest one: the page is not part of the API
contract, so it stays out of openapi.json.
"""

from __future__ import annotations

import importlib.resources
import os

from flask import Blueprint, Response, send_from_directory

from service.errors import ApiError

blp = Blueprint("play", __name__)


def _folder() -> str:
    return str(importlib.resources.files("service") / "static" / "play")


# Only the page's own files are served: no directory listing, no path tricks.
FILES = frozenset(n for n in os.listdir(_folder()) if n.endswith((".html", ".css", ".js")))


@blp.get("/play")
def page() -> Response:
    # Short cache: the page is tiny, and a redeploy should reach players on their next visit.
    return send_from_directory(_folder(), "index.html", max_age=60)


@blp.get("/play/<name>")
def asset(name: str) -> Response:
    if name not in FILES:
        raise ApiError(404, "not_found", f"no file {name!r} in the web table")
    return send_from_directory(_folder(), name, max_age=60)
