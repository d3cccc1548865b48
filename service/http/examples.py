"""Examples in the OpenAPI document, captured from real answers of the service.

The data is service/http/examples.json (data, not code: one Spades match with seed 7 gives the
views, the move, the events, the hint and the history). docs/api.md shows the same JSON
under each endpoint; tests/test_contract_examples.py checks that both agree, that each fits
its schema and that a live answer has the same fields.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

_DATA: dict[str, Any] = json.loads(
    (importlib.resources.files("service.http") / "examples.json").read_text(encoding="utf-8")
)

NAMES = [
    "ABORTED",
    "ACTION",
    "APP_MATCHES",
    "CLAIM",
    "CLAIMED",
    "CREATED",
    "CREATE_MATCH",
    "CREATE_TOURNAMENT",
    "CREATE_WEBHOOK",
    "DELIVERIES",
    "DELIVERY",
    "ERASED",
    "EVENTS",
    "GAMES",
    "HEALTHY",
    "HINT",
    "HISTORY",
    "INVITED",
    "JOIN",
    "JOINED",
    "LEADERBOARD",
    "LEFT",
    "LOBBY_PAGE",
    "ME",
    "METRICS",
    "MY_EVENTS",
    "MY_MATCHES",
    "MY_STREAM",
    "NOT_READY",
    "PLAYED",
    "PLAYER",
    "PLAYER_EXPORT",
    "PLAYER_TOKEN",
    "PUT_PLAYER",
    "QUICK_PLAY",
    "QUICK_PLAYED",
    "READY",
    "REMATCHED",
    "STREAM",
    "TEST_WEBHOOK",
    "TOURNAMENT",
    "TOURNAMENTS",
    "TOURNAMENT_CREATED",
    "UPDATE_WEBHOOK",
    "VIEW",
    "WEBHOOK",
    "WEBHOOKS",
    "WEBHOOK_CREATED",
    "WEBHOOK_DELETED",
]


def __getattr__(name: str) -> Any:
    """`examples.VIEW` and the others: one entry of service/http/examples.json each (`NAMES`)."""
    if name in NAMES:
        return _DATA[name]
    raise AttributeError(name)
