"""The options of a match that are the service's, not a game's: `hints` (service/hints.py) and
`rated` (service/rated.py).

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


RATED_OPTION = Option(
    "boolean",
    False,
    "the players' ratings in this game move when it ends (every human seat a player of one app, no bots)",
)

# The service's options, the same in every game: GET /v1/games lists them with the game's own.
SERVICE_OPTIONS = {"hints": HINTS_OPTION, "rated": RATED_OPTION}


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool]]:
    """The game's own options and the service's flags (each refused unless a boolean)."""
    rest = dict(options)
    flags = {}
    for name, option in SERVICE_OPTIONS.items():
        value = rest.pop(name, option.default)
        if not isinstance(value, bool):
            raise errors.InvalidRequest(
                f"option {name} must be true or false", {"options": {name: ["must be true or false"]}}
            )
        flags[name] = value
    return rest, flags


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """A match's options as its engine knows them (without the service's)."""
    return {k: v for k, v in options.items() if k not in SERVICE_OPTIONS}
