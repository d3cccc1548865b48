"""Parts of the OpenAPI document made from what the server checks, so the two cannot drift
apart: the text patterns of names (and the lobby's cursor), and each game's seat counts and
options as its engine accepts them (docs/api.md, "API stability")."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

from engines.base import Game, Option
from engines.errors import EngineError
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


def tagged_union(names: dict[str, str], by: str = "type") -> dict[str, Any]:
    """One of the schemas `names` (tag -> schema name), told apart by the property `by`: a
    `oneOf` with its `discriminator`, which generators turn into a sealed type."""
    return {
        "oneOf": [ref(n) for n in names.values()],
        "discriminator": {"propertyName": by, "mapping": {k: ref(n)["$ref"] for k, n in names.items()}},
    }


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


# --- games: seat counts and options ------------------------------------------------------------
#
# Made by asking each engine (`Game.validate_options`) rather than from a copy of its rules: the
# seat counts it takes, each integer option's range at each seat count (a seat number is one of
# the match's seats), and which combinations of its boolean and choice options it refuses at
# each seat count. Integer options are taken to be ranges that depend on the seat count only;
# tests/test_contract_enforced.py compares the document with the engines on many option sets.

SEATS = range(1, 9)  # the seat counts a body may ask for at all (`seats`, `players`)
_MAX_COMBINATIONS = 4096  # finite option sets larger than this are not enumerated


def _pascal(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.replace("_", "-").split("-"))


def options_name(game: Game) -> str:
    return f"{_pascal(game.id)}Options"


def _takes(game: Game, options: dict[str, Any], seats: int) -> bool:
    try:
        game.validate_options(options, seats)
    except EngineError:
        return False
    return True


def seat_counts(game: Game) -> list[int]:
    """The seat counts the game is played with (its default options)."""
    return [n for n in SEATS if _takes(game, {}, n)]


def default_inside(value: Any, kind: str | list[str]) -> dict[str, Any]:
    """A request field's default, said one level down (with the field's `kind`, so a generator
    reads the level as that type): client generators (openapi-typescript) make a field with a
    `default` of its own required, though a client may leave it out."""
    return {"allOf": [{"type": kind, "default": value}]}


def _option_schema(option: Option) -> dict[str, Any]:
    kind = option.type
    types: str | list[str] = [kind, "null"] if option.default is None else kind
    out: dict[str, Any] = {"description": option.description, **default_inside(option.default, types)}
    if option.choices is not None:
        out["enum"] = list(option.choices)
    out["type"] = types
    if option.minimum is not None:
        out["minimum"] = option.minimum
    if option.maximum is not None:
        out["maximum"] = option.maximum
    return out


def _edge(game: Game, name: str, seats: int, inside: int, outside: int) -> int:
    """The value nearest `outside` the game takes for option `name`, `inside` being taken:
    a binary search, the values taken being one range."""
    while abs(outside - inside) > 1:
        middle = (inside + outside) // 2
        if _takes(game, {name: middle}, seats):
            inside = middle
        else:
            outside = middle
    return inside


def _int_bounds(game: Game, seats: int) -> dict[str, Any]:
    """Each integer option's bounds at this seat count, where tighter than its declared ones."""
    out: dict[str, Any] = {}
    for name, option in game.options.items():
        if option.type != "integer" or option.minimum is None or option.maximum is None:
            continue
        lo, hi = option.minimum, option.maximum
        if not _takes(game, {name: lo}, seats):
            lo = _edge(game, name, seats, hi, lo - 1) if _takes(game, {name: hi}, seats) else hi + 1
        if lo <= hi and not _takes(game, {name: hi}, seats):
            hi = _edge(game, name, seats, lo, hi + 1)
        bounds: dict[str, Any] = {
            k: v for k, v in (("minimum", lo), ("maximum", hi)) if v != getattr(option, k)
        }
        if bounds:
            # The type again: a generator reads a seat count's bounds apart from the option.
            out[name] = {"type": _option_schema(option)["type"], **bounds}
    return out


def _finite(game: Game) -> dict[str, list[Any]]:
    return {
        name: [False, True] if option.type == "boolean" else list(option.choices or ())
        for name, option in game.options.items()
        if option.type == "boolean" or option.choices is not None
    }


def _refused(game: Game, seats: int) -> list[dict[str, Any]]:
    """The combinations of finite option values the game refuses at this seat count, as few
    and as small as they come: each a partial assignment whose every completion is refused."""
    finite = _finite(game)
    names = list(finite)
    combos = list(itertools.product(*finite.values()))
    if not names or len(combos) > _MAX_COMBINATIONS:
        return []
    refused = {c for c in combos if not _takes(game, dict(zip(names, c, strict=True)), seats)}
    found: list[dict[int, Any]] = []
    for combo in sorted(refused, key=repr):
        if any(all(combo[i] == v for i, v in p.items()) for p in found):
            continue  # already covered
        for size in range(1, len(names) + 1):
            implicant = next(
                (
                    fixed
                    for at in itertools.combinations(range(len(names)), size)
                    if _all_refused(fixed := {i: combo[i] for i in at}, finite, names, refused)
                ),
                None,
            )
            if implicant is not None:
                found.append(implicant)
                break
    return [{names[i]: v for i, v in sorted(p.items())} for p in found]


def _all_refused(
    fixed: dict[int, Any], finite: dict[str, list[Any]], names: list[str], refused: set[tuple[Any, ...]]
) -> bool:
    free = [finite[n] if i not in fixed else [fixed[i]] for i, n in enumerate(names)]
    return all(c in refused for c in itertools.product(*free))


def _matches(pattern: dict[str, Any], options: dict[str, Option]) -> dict[str, Any]:
    """A schema admitting exactly the option sets that hold `pattern` (a value left out is the
    option's default)."""
    required = sorted(k for k, v in pattern.items() if v != options[k].default)
    return {
        **({"required": required} if required else {}),
        "properties": {k: {"const": v} for k, v in pattern.items()},
    }


def _at_seats(game: Game, seats: int) -> dict[str, Any]:
    """What the game's options must hold at this seat count besides their own bounds."""
    return _rule(game.id, seats)


@functools.cache
def _rule(game_id: str, seats: int) -> dict[str, Any]:
    game = GAMES[game_id]
    out: dict[str, Any] = {}
    bounds = _int_bounds(game, seats)
    if bounds:
        out["properties"] = bounds
    refused = _refused(game, seats)
    if refused:
        out["not"] = {"anyOf": [_matches(p, game.options) for p in refused]}
    return out


def tables(game: Game) -> tuple[tuple[int, int, str], ...]:
    """(fewest seats, most seats, options schema name) of each run of seat counts whose
    options have the same rules."""
    return _tables(game.id)


@functools.cache
def _tables(game_id: str) -> tuple[tuple[int, int, str], ...]:
    game = GAMES[game_id]
    runs: list[list[Any]] = []
    for n in seat_counts(game):
        rule = _at_seats(game, n)
        if runs and runs[-1][1] == n - 1 and runs[-1][2] == rule:
            runs[-1][1] = n
        else:
            runs.append([n, n, rule])
    base = options_name(game)
    out = []
    for lo, hi, rule in runs:
        # Seat counts whose options have no rule of their own take the game's options as they are.
        name = f"{base}{lo}" + (f"to{hi}" if hi > lo else "") if rule else base
        out.append((lo, hi, name))
    return tuple(out)


def game_components(service_options: dict[str, Option]) -> dict[str, dict[str, Any]]:
    """The components `create_match_extra` and `quick_play_extra` refer to: each game's
    options, and those of the seat counts with rules of their own."""
    out: dict[str, dict[str, Any]] = {}
    for game in GAMES.values():
        base = options_name(game)
        # A game's own option of a service option's name (Zhol's turn_seconds) stands for it.
        options = {**game.options, **{k: o for k, o in service_options.items() if k not in game.options}}
        out[base] = {
            "description": f"The options of a {game.name} match (GET /v1/games lists them)",
            "type": "object",
            "properties": {name: _option_schema(o) for name, o in options.items()},
            "additionalProperties": False,
        }
        for lo, hi, name in tables(game):
            if name != base:
                seats = f"{lo}" if lo == hi else f"{lo} to {hi}"
                out[name] = {
                    "description": f"The options of a {game.name} match of {seats} seats",
                    "allOf": [ref(base), _at_seats(game, lo)],
                }
    return out


def _per_game(table_rule: Callable[[Game, int, int, dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """One branch a game, each with a branch a run of seat counts.

    Under `if`/`then`: client generators leave those out and keep one model for the body (a
    bare `anyOf` would make it a union), validators apply them. One `if` for all the games,
    not one a game: schemathesis cannot generate from four of them beside another rule."""
    branches = [
        {
            "properties": {"game": {"const": game.id}},
            "anyOf": [table_rule(game, lo, hi, ref(name)) for lo, hi, name in tables(game)],
        }
        for game in GAMES.values()
    ]
    return {"allOf": [{"if": {"required": ["game"]}, "then": {"anyOf": branches}}]}


def create_match_extra() -> dict[str, Any]:
    """CreateMatch's rules by game: a seat count the game is played with, and its options."""
    return _per_game(
        lambda game, lo, hi, options: {
            "properties": {"seats": {"minItems": lo, "maxItems": hi}, "options": options}
        }
    )


def quick_play_extra() -> dict[str, Any]:
    """QuickPlay's rules by game: `players` (by default the game's fewest) a seat count the
    game is played with, and its options."""

    def rule(game: Game, lo: int, hi: int, options: dict[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {"properties": {"players": {"minimum": lo, "maximum": hi}, "options": options}}
        if not lo <= game.min_seats <= hi:
            out["required"] = ["players"]
        return out

    return _per_game(rule)
