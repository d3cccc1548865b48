"""One webhook delivery's record (docs/webhooks.md, "Deliveries"): its keys in the app's slot,
its id, the body it sends and its fields as read back; `Deliveries` (service/notify/deliveries.py)
writes and lists them."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from service.identity.apps import app_key

STATUSES = ("pending", "delivered", "failed")
DELIVERY_ID = re.compile(r"dl_[0-9a-f]{24}")


def record_key(app_id: str, delivery_id: str) -> str:
    return f"{app_key(app_id)}:delivery:{delivery_id}"


def list_key(app_id: str, endpoint_id: str) -> str:
    return f"{app_key(app_id)}:deliveries:{endpoint_id}"


def pending_key(app_id: str) -> str:
    """The app's pending deliveries, scored by when each became pending (its creation or its
    manual retry): what CARDTABLE_WEBHOOK_PENDING bounds."""
    return f"{app_key(app_id)}:deliveries:pending"


def manual_key(app_id: str) -> str:
    """The times of the app's tests and manual retries in the last MANUAL_WINDOW seconds."""
    return f"{app_key(app_id)}:deliveries:manual"


def delivery_id_for(endpoint_id: str, message_id: str) -> str:
    """The one delivery of a notice to an endpoint."""
    return "dl_" + hashlib.sha256(f"{endpoint_id}\n{message_id}".encode()).hexdigest()[:24]


def body_of(notice: dict[str, Any]) -> str:
    """What is sent (and signed): the notice's type, timestamp and data, never its players."""
    body = {"type": notice["type"], "timestamp": notice["timestamp"], "data": notice["data"]}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def as_text(value: Any) -> str | None:
    """A Redis reply as text (a client without decode_responses answers bytes)."""
    return value.decode() if isinstance(value, bytes) else value


def _number(value: str | None) -> float | None:
    return float(value) if value not in (None, "") else None


@dataclass
class Delivery:
    id: str
    endpoint: str
    message: str  # the notice's id: the webhook-id header of every attempt
    type: str
    created: float
    status: str
    attempts: int
    seq: int
    step: int  # attempts failed since the schedule (re)started
    status_code: int | None
    latency_ms: int | None
    next_try: float | None
    response: str
    error: str | None
    payload: str

    @classmethod
    def of(cls, delivery_id: str, raw: dict[str, str]) -> Delivery:
        code, latency = _number(raw.get("status_code")), _number(raw.get("latency_ms"))
        return cls(
            id=delivery_id,
            endpoint=raw["endpoint"],
            message=raw["message"],
            type=raw["type"],
            created=float(raw["created"]),
            status=raw["status"],
            attempts=int(raw.get("attempts", 0)),
            seq=int(raw.get("seq", 0)),
            step=int(raw.get("step", 0)),
            status_code=None if code is None else int(code),
            latency_ms=None if latency is None else int(latency),
            next_try=_number(raw.get("next_try")),
            response=raw.get("response", ""),
            error=raw.get("error") or None,
            payload=raw["payload"],
        )

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "message": self.message,
            "type": self.type,
            "created": self.created,
            "status": self.status,
            "attempts": self.attempts,
            "status_code": self.status_code,
            "latency_ms": self.latency_ms,
            "next_try": self.next_try if self.status == "pending" else None,
            "response": self.response,
            "error": self.error,
        }
