"""What the load kit's simulated players share (locustfile.py, tournament.py): one request as a
well-behaved client sends it, and the moves a random player may pick (docs/loadtest.md)."""

from __future__ import annotations

import os
import time
from typing import Any

from locust import FastHttpUser


def env_pair(name: str, default: str) -> tuple[float, float]:
    """A "min,max" pair of seconds from the environment ("x" alone: x,x)."""
    low, _, high = os.environ.get(name, default).partition(",")
    return float(low), float(high or low)


def complete(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal actions that can be sent as they are: all but those marked `"template": true`
    (Žolíky's meld templates, whose cards are the player's to choose; docs/api.md, "Views"),
    which a random player leaves alone."""
    return [a for a in actions if a.get("template") is not True]


class Refused(Exception):
    """An answer a well-behaved client does not expect: counted as a failure by locust."""


class Client(FastHttpUser):
    abstract = True  # locust runs its subclasses only

    def call(
        self, method: str, path: str, name: str, token: str | None = None, resend: bool = False, **kwargs: Any
    ) -> Any:
        """One request; a 429 is waited out (Retry-After) and sent again, shown as a RETRY row.
        A 409 (the match moved on: a turn clock played for us, a seat was taken) is expected and
        answered with None; any other error is a failure. A request that may be sent twice
        (`resend`: a GET, a move with its Idempotency-Key, a round's start) and got no answer
        is sent once more, as a client would: a kept-alive connection the server closed just
        as the request went out is no failure of the service."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kwargs.pop("headers", {}))
        resend = resend or method == "GET"
        for _ in range(30):
            with self.client.request(
                method, path, name=name, headers=headers, catch_response=True, **kwargs
            ) as resp:
                if resp.status_code == 429:
                    # Its own row in the table, and not a failure: the client did as told.
                    resp.request_meta["name"] = f"{name} (429)"
                    resp.success()
                    time.sleep(float(resp.headers.get("Retry-After") or 1))
                    continue
                if resp.status_code == 409:
                    resp.success()
                    return None
                if resp.status_code == 0 and resend:
                    resp.request_meta["name"] = f"{name} (no answer, sent again)"
                    resp.success()
                    resend = False
                    continue
                if resp.status_code == 0:
                    # No answer (connection refused, reset or timed out): a failure, shown in
                    # the Error report, rather than a traceback from reading a missing body.
                    resp.failure(f"no answer: {resp.error!r}")
                    raise Refused(name)
                if resp.status_code >= 400:
                    resp.failure(f"{resp.status_code}: {resp.text[:200]}")
                    raise Refused(name)
                return resp.json()
        raise Refused(f"still rate limited on {name}")
