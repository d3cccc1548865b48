"""The options of a match that are the service's, not a game's: `hints` (service/matches/hints.py),
`rated` (service/matches/rated_matches.py) and the turn clock's `turn_seconds` and `on_timeout`
(service/matches/clocks.py).

They are taken out of the options before the engine validates them and never reach the engine,
except an option a game declares itself: Zhol has always had `turn_seconds` (its default 60,
its table shows it), so there the game's own option stands in for the service's.
"""

from __future__ import annotations

from typing import Any

from engines.base import Game, Option
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

# The longest turn a clock gives: 14 days, for correspondence play.
MAX_TURN_SECONDS = 14 * 24 * 3600

TURN_SECONDS_OPTION = Option(
    "integer",
    None,
    "seconds per turn on the clock (up to 14 days), on every human's turn; null: no clock",
    minimum=5,
    maximum=MAX_TURN_SECONDS,
)

ON_TIMEOUT_OPTION = Option(
    "string",
    "auto",
    "when a turn's clock runs out: auto (the server plays the turn for the seat) or resign",
    choices=("auto", "resign"),
)

# The service's options, the same in every game: GET /v1/games lists them with the game's own.
SERVICE_OPTIONS = {
    "hints": HINTS_OPTION,
    "rated": RATED_OPTION,
    "turn_seconds": TURN_SECONDS_OPTION,
    "on_timeout": ON_TIMEOUT_OPTION,
}


def service_options(game: Game) -> dict[str, Option]:
    """The service's options of `game`: all but those the game declares itself."""
    return {name: o for name, o in SERVICE_OPTIONS.items() if name not in game.options}


def split_options(game: Game, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The game's own options and the service's, each of these checked (422 otherwise) and
    defaulted."""
    rest = dict(options)
    own = {}
    for name, option in service_options(game).items():
        value = rest.pop(name, option.default)
        problem = _problem(option, value)
        if problem is not None:
            raise errors.InvalidRequest(f"option {name} {problem}", {"options": {name: [problem]}})
        own[name] = value
    return rest, own


def _problem(option: Option, value: Any) -> str | None:
    """What is wrong with `value` for `option` (the words engines use), None when it is fine."""
    if option.type == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if value is None and option.default is None:
        return None
    if option.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            return "must be an integer"
        if option.minimum is not None and value < option.minimum:
            return f"must be at least {option.minimum}"
        if option.maximum is not None and value > option.maximum:
            return f"must be at most {option.maximum}"
        return None
    if option.choices is not None and value not in option.choices:
        return f"must be one of {', '.join(map(str, option.choices))}"
    return None if isinstance(value, str) else "must be a string"


def engine_options(game: Game, options: dict[str, Any]) -> dict[str, Any]:
    """A match's options as its engine knows them (without the service's)."""
    theirs = service_options(game)
    return {k: v for k, v in options.items() if k not in theirs}
