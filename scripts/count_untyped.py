"""Count the fields a generated TypeScript client leaves untyped (issue #33; docs/api.md,
"Generated clients").

    npx openapi-typescript openapi/openapi.json -o schema.d.ts
    python -m scripts.count_untyped schema.d.ts [--max 3]

Reads the .d.ts that openapi-typescript writes and lists every property or index signature
(`[key: string]: …`) whose type is or holds `unknown` or `any`, with where it stands
(`components.schemas.Error.errors`). Two things the generator writes for every operation are
not fields of the contract and are left out: the open map of a response's headers
(`headers: {[name: string]: unknown}`) and an `& unknown` joined to a type (a JSON Schema
`if`/`then` it does not translate, which TypeScript reads as the type itself). With `--max N`
the exit status is 1 when more than N fields are untyped.
"""

from __future__ import annotations

import argparse
import re
import sys

_FIELD = re.compile(r'^\s*(?:readonly\s+)?(\[[A-Za-z_]+: string\]|"[^"]+"|[\w$]+)\??:\s*(.*)$')
_UNTYPED = re.compile(r"\b(?:unknown|any)\b")
_NOISE = re.compile(r"&\s*\(?\s*unknown(?:\s*&\s*unknown)*\s*\)?")


def untyped_fields(text: str) -> list[str]:
    """Where each untyped field stands, dotted from the top of the file."""
    found: list[str] = []
    stack: list[str] = []
    in_comment = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_comment:
            in_comment = "*/" not in line
            continue
        if line.startswith("/*"):
            in_comment = "*/" not in line
            continue
        if not line or line.startswith("//") or line.startswith("*"):
            continue
        match = _FIELD.match(line)
        closes = line.count("}") - line.count("{")
        if match:
            name, kind = match.group(1), _NOISE.sub("", match.group(2))
            opens = kind.count("{") - kind.count("}")
            untyped_here = _UNTYPED.search(kind.split("{", 1)[0] if opens > 0 else kind)
            if untyped_here and not (name.startswith("[") and stack and stack[-1] == "headers"):
                found.append(".".join([*stack, name.strip('"')]))
            if opens > 0:
                stack.append(name.strip('"'))
            elif opens < 0:
                del stack[len(stack) + opens :]
            continue
        if closes > 0:
            del stack[max(0, len(stack) - closes) :]
        elif closes < 0 and line.endswith("{"):  # `export interface components {`
            stack.append(line[:-1].split()[-1] if len(line) > 1 else "{")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dts", help="the .d.ts openapi-typescript wrote")
    parser.add_argument("--max", type=int, default=None, help="fail when more fields than this are untyped")
    args = parser.parse_args(argv)
    with open(args.dts, encoding="utf-8") as f:
        found = untyped_fields(f.read())
    for where in found:
        print(where)
    print(f"{len(found)} untyped field(s)")
    return 1 if args.max is not None and len(found) > args.max else 0


if __name__ == "__main__":
    sys.exit(main())
