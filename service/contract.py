"""Parts of the OpenAPI document made from what the server checks, so the two cannot drift
apart: the text patterns of names (and the lobby's cursor), and each game's seat counts and
options as its engine accepts them (docs/api.md, "API stability")."""

from __future__ import annotations

from typing import Any

from engines.registry import GAMES

Ranges = list[tuple[int, int]]


def char_class(ranges: Ranges) -> str:
    """The inside of a regular expression character class for these code point ranges, written
    with \\uXXXX escapes that Python, ECMA-262 (JSON Schema's dialect) and Rust's regex read alike."""
    return "".join(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges)


def _literal(text: str) -> str:
    """`text` as a pattern matching only itself, in the dialects `char_class` writes for."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else f"\\u{ord(c):04x}" for c in text)


def _ranges(points: list[int]) -> Ranges:
    out: Ranges = []
    for p in sorted(points):
        if out and out[-1][1] == p - 1:
            out[-1] = (out[-1][0], p)
        else:
            out.append((p, p))
    return out


def _inside(ranges: Ranges, point: int) -> bool:
    return any(lo <= point <= hi for lo, hi in ranges)


# Every character str.strip() takes for whitespace: Unicode has none outside the Basic
# Multilingual Plane (tests/test_contract_enforced.py checks every code point).
_SPACES = [p for p in range(0x10000) if chr(p).isspace()]


def name_pattern(forbidden: Ranges) -> str:
    """A name as a pattern: no `forbidden` character, and at least one character that is not
    whitespace."""
    banned = char_class(forbidden)
    spaces = char_class(_ranges([p for p in _SPACES if not _inside(forbidden, p)]))
    return f"^[^{banned}]*[^{banned}{spaces}][^{banned}]*$"


# --- actions ----------------------------------------------------------------------------------

ACTION_VALUE = "ActionValue"


def _value_name(depth: int) -> str:
    return ACTION_VALUE if depth == 0 else f"{ACTION_VALUE}{depth}"


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def action_value_components(maximum: int, depth: int) -> dict[str, dict[str, Any]]:
    """What an action field may hold, as the service checks it before the engine does:
    strings, booleans, whole numbers from 0 to `maximum`, and lists and objects of those,
    `depth` levels deep at most; null only inside a list or object. `ActionValue` is the field
    itself, `ActionValue<d>` a value d levels inside it (the last level holds no list or object
    with anything in it).

    Written with keywords that each apply to one JSON type only (`maximum` to numbers, `items`
    to lists, ...) and no `type`: client generators read such a schema as "any value" rather
    than failing on a union of nested lists (openapi-python-client does), and validators apply
    every bound."""
    out = {}
    for d in range(depth + 1):
        value: dict[str, Any] = {"minimum": 0, "maximum": maximum, "multipleOf": 1}
        if d < depth:
            value |= {"items": ref(_value_name(d + 1)), "additionalProperties": ref(_value_name(d + 1))}
        else:
            value |= {"maxItems": 0, "maxProperties": 0}
        if d == 0:
            value["not"] = {"type": "null"}
        where = "an action field" if d == 0 else f"a value {d} level{'s' * (d > 1)} inside an action field"
        out[_value_name(d)] = {"description": f'What {where} may hold (docs/api.md, "Limits")', **value}
    return out


def action_schema_extra(named: set[str]) -> dict[str, Any]:
    """The Action schema's keywords from the games' declared actions (`Game.actions`): `type`
    is one of their types, and no field besides theirs is taken (an engine refuses any other).
    `named`: the fields the Action schema describes itself; every other declared field is
    described here as an action value. A game that declares no actions leaves Action open.

    The types are a pattern, not an enum: views list Actions too, and a client generated with
    an enum could not read a view whose legal actions hold a type a new game adds."""
    games = list(GAMES.values())
    if not all(g.actions for g in games):
        return {}
    types = sorted({t for g in games for t in g.actions})
    by_game = "; ".join(f"{g.id}: {', '.join(g.actions)}" for g in games)
    pattern = f"^(?:{'|'.join(_literal(t) for t in types)})$"
    properties: dict[str, Any] = {"type": {"pattern": pattern, "description": f"by game: {by_game}"}}
    for name in sorted({f for g in games for fields in g.actions.values() for f in fields} - named):
        users = "; ".join(
            f"{g.id} {', '.join(t for t, fields in g.actions.items() if name in fields)}"
            for g in games
            if any(name in fields for fields in g.actions.values())
        )
        properties[name] = {"description": f"{users} (docs/rules/<game>.md)", "allOf": [ref(ACTION_VALUE)]}
    return {"properties": properties, "additionalProperties": False}
