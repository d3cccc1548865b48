"""Hints for people (docs/api.md "Hints"): the match option `hints` and `GET /v1/matches/{id}/hint`.

The option is the service's, not a game's: it is taken out of the options before the engine
validates them and never reaches the engine. A hint is the pro bot's action for the seat to move,
computed from that seat's own view only (`engines.hints`), with a short reason; every hint given
raises the seat's public `players[].hints_used` and is an event (`{"type": "hint", "seat", "hints_used"}`),
so the match's version moves on like for any other change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import hints as engine_hints
from engines.base import Option

# A module import: service.match_core imports this module for the option (a cycle).
from service import errors
from service import match_core as m
from service.store import Loaded

HINTS_OPTION = Option(
    "boolean",
    False,
    "seats may ask GET /v1/matches/{id}/hint for the pro bot's move (counted in players[].hints_used)",
)

# How often a hint is computed again when the match changed while it was being computed.
_RETRIES = 4


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The game's own options and the `hints` flag (refused unless a boolean)."""
    rest = dict(options)
    hints = rest.pop("hints", HINTS_OPTION.default)
    if not isinstance(hints, bool):
        raise errors.InvalidRequest(
            "option hints must be true or false",
            {"options": {"hints": ["must be true or false"]}},
        )
    return rest, hints


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """A match's options as its engine knows them (without the service's `hints`)."""
    return {k: v for k, v in options.items() if k != "hints"}


def hints_used(record: dict[str, Any], seat: int) -> int:
    used = record.get("hints_used") or []
    return used[seat] if seat < len(used) else 0


def compute(game_id: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """The hint for a seat's game view, off the event loop when the process runs gevent.

    A hint is tens of milliseconds of Python. In a gevent worker the loop would stall for all
    that time; run in gevent's thread pool, the interpreter still switches to the loop's thread
    every few milliseconds (the GIL's switch interval), so other requests keep being served.
    """
    try:
        from gevent import monkey

        patched = monkey.is_module_patched("threading")
    except ImportError:
        patched = False
    if patched:
        from gevent import get_hub

        return get_hub().threadpool.apply(engine_hints.hint, (game_id, view))
    return engine_hints.hint(game_id, view)


def give_hint(svc: m.MatchCore, match_id: str, token: str | None) -> dict[str, Any]:
    """The hint for the token's seat; counts it. Errors as docs/api.md "Hints" lists them."""

    def change(loaded: Loaded) -> m.Write:
        record = loaded.record
        seat = svc.authenticate(record, token)
        assert seat is not None  # a token is required: authenticate raises without one
        if not record["options"].get("hints"):
            raise errors.Forbidden("hints are off in this match (create it with options.hints = true)")
        status = m.match_status(record)
        if status != "active":
            raise errors.MatchNotActive(f"the match is {status}: there is no move to hint")
        game = m.game_of(record)
        if game.to_move(record["state"]) != seat:
            raise errors.NotYourTurn("it is not your turn: a hint is for the seat to move")
        found = compute(game.id, game.view(record["state"], seat))
        used = list(record.get("hints_used") or [0] * len(record["seats"]))
        used[seat] += 1
        record["hints_used"] = used
        events: list[dict[str, Any]] = [{"type": "hint", "seat": seat, "hints_used": used[seat]}]
        return m.Write(
            events, {**found, "seat": seat, "hints_used": used[seat], "version": loaded.version + 1}
        )

    return svc._update(match_id, None, change, retries=_RETRIES)
