"""A small client over Flask's test client that speaks the API of docs/api.md, for the service tests."""

from __future__ import annotations

import re
import time

CARD_RE = re.compile(r"\b(?:[A2-9TJQK][SHDC]|JK)\b")


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def playable(view: dict) -> list[dict]:
    """The view's legal actions a player picking at random should choose from: all but resign,
    which the view lists for every seat still playing, and but the templates (Žolíky's melds,
    marked `"template": true`), which must be filled in first."""
    return [a for a in view["legal_actions"] if a["type"] != "resign" and a.get("template") is not True]


def bot_input(view: dict) -> dict:
    """An HTTP view as an engine's bot reads it: the engine's view has no resign entry (its
    templates stay: a bot reads from them which meld-type actions it may take)."""
    return {**view, "legal_actions": [a for a in view["legal_actions"] if a["type"] != "resign"]}


class Api:
    def __init__(self, client):
        self.c = client

    def create(self, game: str, seats: list[dict], **body) -> dict:
        r = self.c.post("/v1/matches", json={"game": game, "seats": seats, **body})
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    def view(self, match_id: str, token: str | None = None) -> dict:
        r = self.c.get(f"/v1/matches/{match_id}", headers=auth(token))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def act(self, match_id: str, token: str | None, action: dict, **headers):
        return self.c.post(f"/v1/matches/{match_id}/actions", json=action, headers={**auth(token), **headers})

    def events(self, match_id: str, token: str | None = None, after: int = 0, wait: float = 0) -> dict:
        r = self.c.get(f"/v1/matches/{match_id}/events?after={after}&wait={wait}", headers=auth(token))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def wait_for(self, match_id: str, token: str | None, predicate, timeout: float = 30.0) -> dict:
        """Poll the view until predicate(view) holds (bots move in the workers)."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            events = self.events(match_id, token, after=seen)["events"]
            seen = events[-1]["seq"] if events else seen
            view = self.view(match_id, token)
            if predicate(view):
                return view
            assert time.monotonic() < deadline, f"timed out waiting; last view status {view['status']}"
            # Long-poll for the next event instead of spinning.
            self.events(match_id, token, after=seen, wait=1)


def cards_in(obj) -> set[str]:
    """Every card code that appears anywhere in a JSON-able value."""
    import json

    return set(CARD_RE.findall(json.dumps(obj)))
