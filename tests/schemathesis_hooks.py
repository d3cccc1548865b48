"""Hooks of the project's schemathesis run (tests/test_schemathesis.py), loaded by schemathesis
itself through SCHEMATHESIS_HOOKS.

Integers are sent as schemathesis writes them: it spells some generated integers of a JSON body
with a fraction (3.0) on purpose, which JSON Schema calls an integer and the service takes as one
(docs/api.md, "Limits", "Numbers").

A new match's `client_seed` belongs to a human seat of the creator's (docs/api.md, "Fair
deals"): JSON Schema says it only with `contains` under an `if` (a string client_seed, then
some seat is human), from which schemathesis cannot generate at all beside the per-game rules,
so the document says it in words and the bodies the generator makes are held to it here
(`filter_body`). So is a rated match (option `rated: true`): it seats players of one app only,
bound with the app's key or joined with a player token (docs/integrating.md, "Ratings"),
credentials the generator does not have (and schemathesis cannot generate from its rule, no
bot seat when rated, beside the per-game ones either). Nothing else is changed.

A move the document admits may still be refused by the match it is sent to: the rules forbid
it now (422 `illegal_action`), it is another game's move (Action is any game's; 422
`validation_error` from the engine), or it names a seat the match does not have.
tests/test_schemathesis.py accepts 422 for playAction's schema-valid moves, and
`move_refused_by_the_match_only` holds each to those reasons: a move of the match's own game's
schema is never refused as malformed.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from typing import Any

import jsonschema_rs
import schemathesis

_SPEC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "openapi", "openapi.json")
_VALIDATORS: dict[str, Any] = {}


@schemathesis.hook("filter_body").apply_to(operation_id=["createMatch", "quickPlay"])
def filter_body(context, body):
    if not isinstance(body, dict):
        return True
    options = body.get("options")
    if isinstance(options, dict) and options.get("rated") is True:
        return False
    if isinstance(body.get("client_seed"), str) and "seats" in body:
        seats = body["seats"]
        return isinstance(seats, list) and any(
            isinstance(s, dict) and s.get("kind") == "human" for s in seats
        )
    return True


def _fits(name: str, value: Any) -> bool:
    if name not in _VALIDATORS:
        with open(_SPEC, encoding="utf-8") as f:
            components = json.load(f)["components"]
        schema = {"$ref": f"#/components/schemas/{name}", "components": components}
        _VALIDATORS[name] = jsonschema_rs.Draft202012Validator(schema)
    return _VALIDATORS[name].is_valid(value)


def _match_of(url: str) -> dict | None:
    """The public view of the match a move was sent to, None when there is none."""
    found = re.match(r"^(https?://[^/]+)(/v1/matches/[0-9a-f]{16})/actions", url)
    if found is None:
        return None
    try:
        with urllib.request.urlopen(found.group(1) + found.group(2), timeout=10) as resp:
            return json.load(resp)
    except OSError:
        return None


@schemathesis.check
def move_refused_by_the_match_only(ctx, response, case) -> bool | None:
    """A schema-valid move refused with 422 is refused by the rules, or is not of the match's game."""
    if not case.operation.label.endswith("/actions") or response.status_code != 422:
        return None
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    if response.json().get("error") == "illegal_action":
        return None
    match = _match_of(response.request.url)
    if match is None:
        return None
    # A seat the move names (Three Thirteen's `onto`) must be one of the match's: the document
    # bounds it by the game's most seats, the match by its own.
    onto = case.body.get("onto") if isinstance(case.body, dict) else None
    if isinstance(onto, int) and onto >= len(match.get("players", [])):
        return None
    name = "".join(part.capitalize() for part in match["game"].split("-")) + "Action"
    if _fits(name, case.body):
        raise AssertionError(f"a {name} was refused as malformed: {response.text[:300]}")
    return None
