"""A Server-Sent Events answer (a match's `/stream`, a player's `/v1/me/stream`): its waiter,
counted on the client's address (the open-waits quota) from before the answer starts until the
server closes it, its frames, and the response that frees them when it closes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, stream_with_context

from service.bootstrap import MatchService
from service.infra.waiter import Waiter


def open_waiter(svc: MatchService, channel: str, kind: str, address: str, client: Any) -> Waiter:
    """A waiter of `channel`, taken on `address`'s open waits first: registered before the
    answer starts, so an unreachable Redis (or an address holding all its places) is still a
    JSON error. The place is given back when the waiter cannot be opened."""
    svc.wait_quota.take(address)
    try:
        return svc.waiters.open(channel, kind, client)
    except BaseException:
        svc.wait_quota.give(address)
        raise


def frame(entry: dict[str, Any]) -> str:
    """An event or a feed entry as one SSE frame: `id` its seq, `event` its type."""
    data = json.dumps(entry, separators=(",", ":"))
    return f"id: {entry['seq']}\nevent: {entry['type']}\ndata: {data}\n\n"


def response(frames: Iterator[str], closed: Callable[[], None]) -> Response:
    """The stream's answer; `closed` runs when the server closes it, however the stream ended."""
    answer = Response(stream_with_context(frames), mimetype="text/event-stream")
    answer.call_on_close(closed)
    return answer


def closer(svc: MatchService, waiter: Waiter, address: str) -> Callable[[], None]:
    """What frees a stream's waiter and its place on `address` once the server closes it."""

    def closed() -> None:
        svc.waiters.close(waiter)
        svc.wait_quota.give(address)

    return closed
