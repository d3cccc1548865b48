"""Marshmallow fields and a hook of the match schemas: a strict boolean, a nested schema written
out as it is, and integers written with a fraction read as the integers they are."""

from typing import Any

import marshmallow as ma


class StrictBoolean(ma.fields.Boolean):
    """true or false, as the contract says: marshmallow's Boolean also takes 1, "yes", "on"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


class AsIs(ma.fields.Nested):
    """Documented as its named schema (a generated client gets a model), written out as the dict
    it is: events and actions carry more fields than the schema names, by type and game."""

    # marshmallow's Field and Nested name the first parameter differently: it is passed by position
    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return value


# How deep a body is read for such numbers: deeper than any integer these bodies hold (an
# action's fields are at most 4 levels deep), and far from Python's recursion limit (the parser
# takes 1,024 levels; the schemas refuse what is that deep).
_DEPTH = 8


def as_integers(value: Any, depth: int = 0) -> Any:
    """`value` with every integral number written with a fraction (`4.0`) made the integer it is.

    JSON Schema's `integer` takes `4.0`, and Swift's JSONEncoder writes a Double so; the fields,
    options and engines behind the bodies below take Python ints only. A real fraction (`4.5`)
    stays a float, which no integer field takes, and a boolean is no number (docs/api.md,
    "Limits")."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if depth >= _DEPTH:
        return value
    if kind is list:
        return [as_integers(v, depth + 1) for v in value]
    if kind is dict:
        return {k: as_integers(v, depth + 1) for k, v in value.items()}
    return value


class WholeNumbers:
    """A body schema whose every number is an integer (a move, a new match, quick play): integral
    numbers written with a fraction are read as integers before the fields see them. Not for a
    body with free-form values (a player's metadata is kept as sent)."""

    @ma.pre_load
    def _whole_numbers(self, data: Any, **kwargs: Any) -> Any:
        return as_integers(data)
