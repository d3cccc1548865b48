"""JSON encoding on the hot path: every move dumps the match record, its events and the view.

orjson encodes several times faster than the standard library; it refuses integers beyond
64 bits, which JSON itself allows, so those (never produced by the engines) fall back to the
standard library rather than fail. Decoding stays with the standard library: orjson would
read such an integer back as a float.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # int keys become strings, as with json.dumps


def dumps(obj: Any) -> bytes:
    """Compact JSON as UTF-8 bytes."""
    try:
        return orjson.dumps(obj, option=_OPTIONS)
    except TypeError:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


loads = json.loads
