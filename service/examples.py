"""Examples in the OpenAPI document, captured from real answers of the service.

The data is service/examples.json (data, not code: one Spades match with seed 7 gives the
views, the move, the events, the hint and the history). docs/api.md shows the same JSON
under each endpoint; tests/test_contract_examples.py checks that both agree, that each fits
its schema and that a live answer has the same fields.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

_DATA: dict[str, Any] = json.loads(
    (importlib.resources.files("service") / "examples.json").read_text(encoding="utf-8")
)

ACTION: dict[str, Any] = _DATA["ACTION"]
CREATED: dict[str, Any] = _DATA["CREATED"]
CREATE_MATCH: dict[str, Any] = _DATA["CREATE_MATCH"]
EVENTS: dict[str, Any] = _DATA["EVENTS"]
GAMES: dict[str, Any] = _DATA["GAMES"]
HEALTHY: dict[str, Any] = _DATA["HEALTHY"]
HINT: dict[str, Any] = _DATA["HINT"]
HISTORY: dict[str, Any] = _DATA["HISTORY"]
JOIN: dict[str, Any] = _DATA["JOIN"]
JOINED: dict[str, Any] = _DATA["JOINED"]
LEFT: dict[str, Any] = _DATA["LEFT"]
LOBBY_PAGE: dict[str, Any] = _DATA["LOBBY_PAGE"]
METRICS: str = _DATA["METRICS"]
NOT_READY: dict[str, Any] = _DATA["NOT_READY"]
PLAYED: dict[str, Any] = _DATA["PLAYED"]
QUICK_PLAY: dict[str, Any] = _DATA["QUICK_PLAY"]
QUICK_PLAYED: dict[str, Any] = _DATA["QUICK_PLAYED"]
READY: dict[str, Any] = _DATA["READY"]
STREAM: str = _DATA["STREAM"]
VIEW: dict[str, Any] = _DATA["VIEW"]
