"""Hooks of the project's schemathesis run (tests/test_schemathesis.py), loaded by schemathesis
itself through SCHEMATHESIS_HOOKS.

Integers are written as integers: the service refuses 3.0 where it takes 3 (docs/api.md,
"Limits"), which JSON Schema cannot say (to it 3.0 is the integer 3). schemathesis spells some
generated integers of a JSON body that way on purpose; they are written back as integers, so a
refusal of one is not reported as a schema-valid body refused. Nothing else is changed.
"""

from __future__ import annotations

from typing import Any

import schemathesis


def _as_integers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, list):
        return [_as_integers(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_integers(v) for k, v in value.items()}
    return value


@schemathesis.hook
def map_body(context, body):
    return _as_integers(body)
