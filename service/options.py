"""The options of a match that are the service's, not a game's: `hints` (service/hints.py).

They are taken out of the options before the engine validates them and never reach the engine.
"""

from __future__ import annotations

from typing import Any

from engines.base import Option
from service import errors

HINTS_OPTION = Option(
    "boolean",
    False,
    "seats may ask GET /v1/matches/{id}/hint for the pro bot's move (counted in players[].hints_used)",
)


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
