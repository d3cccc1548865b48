"""The one error hierarchy every engine raises; the service maps it to HTTP (service/http/app.py)."""


class EngineError(Exception):
    """Base of every rule or request error an engine raises.

    `error` is the machine id; the HTTP status is the service's business (service/http/app.py).
    The message is for people: it names the broken rule in a player's words.
    """

    error = "illegal_action"


class IllegalAction(EngineError):
    """The action fits the schema but the match's state forbids it."""


class InvalidAction(EngineError):
    """The action does not fit the game's static limits (unknown type, bid 14, bad card code)."""

    error = "validation_error"


class InvalidOptions(EngineError):
    """Match options, seat count or stacked deck that the game cannot start with."""

    error = "validation_error"


class NotYourTurn(EngineError):
    error = "not_your_turn"


class MatchNotActive(EngineError):
    error = "match_not_active"
