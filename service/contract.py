"""Parts of the OpenAPI document made from what the server checks, so the two cannot drift
apart: the text patterns of names (and the lobby's cursor), and each game's seat counts and
options as its engine accepts them (docs/api.md, "API stability")."""

from __future__ import annotations

Ranges = list[tuple[int, int]]


def char_class(ranges: Ranges) -> str:
    """The inside of a regular expression character class for these code point ranges, written
    with \\uXXXX escapes that Python, ECMA-262 (JSON Schema's dialect) and Rust's regex read alike."""
    return "".join(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges)


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
