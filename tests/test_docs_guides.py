"""The walk-throughs of docs/guide/*.md, run against a live service exactly as a reader would.

One `cardtable serve` (embedded private Redis, a real RQ worker, gunicorn) with stacked decks
allowed serves all four guides. Each guide's ```sh blocks run in order in one bash (so
variables and functions carry over), with the guide's address `http://localhost:8000` replaced
by the test service's. The output of a block is compared with the ```json output``` or
```text output``` block that follows it: `…` stands for what the bots decide (or ids and
tokens), everything else must be equal.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.serve_helpers import cardtable_serve

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ROOT / "docs" / "guide"
GUIDE_BASE = "http://localhost:8000"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)
MARK = "@@cardtable-guide-block-"
ANY = "…"


def blocks(page: Path) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block, in page order."""
    return [(info.strip(), body) for info, body in FENCE.findall(page.read_text())]


def steps(page: Path) -> list[tuple[str, tuple[str, str] | None]]:
    """Each shell block with the expected-output block that follows it, if any."""
    out: list[tuple[str, tuple[str, str] | None]] = []
    for info, body in blocks(page):
        if info == "sh":
            out.append((body, None))
        elif info.endswith(" output"):
            assert out and out[-1][1] is None, f"{page.name}: an output block with no shell block before it"
            out[-1] = (out[-1][0], (info.split()[0], body))
    return out


def run_guide(page: Path, base: str, workdir: Path) -> list[tuple[str, str, tuple[str, str] | None]]:
    """Run every shell block of `page`; (block, its stdout, expected) for each."""
    todo = steps(page)
    script = ["set -eo pipefail"]
    for i, (body, _) in enumerate(todo):
        script += [body.replace(GUIDE_BASE, base), f'echo "{MARK}{i}"']
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=workdir, capture_output=True, text=True, timeout=600
    )
    parts = re.split(rf"^{re.escape(MARK)}\d+\n", done.stdout, flags=re.M)
    assert done.returncode == 0 and len(parts) == len(todo) + 1, (
        f"{page.name} stopped in block {len(parts)} (exit {done.returncode}):\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return [(body, parts[i], expected) for i, (body, expected) in enumerate(todo)]


def json_values(text: str) -> list:
    decoder, values, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        values.append(value)


def matches(expected, actual) -> bool:
    """JSON equality where the string "…" stands for any value."""
    if expected == ANY:
        return True
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(matches(v, actual[k]) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return expected == actual


def line_matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split(ANY))
    return re.fullmatch(pattern, actual) is not None


def check_output(page: str, body: str, actual: str, expected: tuple[str, str]) -> None:
    kind, text = expected
    where = f"{page}, the block\n{body}\nprinted\n{actual}\nnot as the guide shows\n{text}"
    if kind == "json":
        assert matches(json_values(text), json_values(actual)), where
    else:
        want, got = text.rstrip("\n").split("\n"), actual.rstrip("\n").split("\n")
        assert len(want) == len(got) and all(map(line_matches, want, got)), where


@pytest.fixture(scope="module")
def live_service(tmp_path_factory):
    """`cardtable serve` as the guides start it, with stacked decks allowed."""
    data = tmp_path_factory.mktemp("guide-serve")
    env = {"CARDTABLE_ALLOW_STACKED_DECK": "1", "CARDTABLE_LOG_LEVEL": "WARNING"}
    with cardtable_serve(str(data), **env) as (_, base):
        yield base


GAMES = ["zoliky", "three-thirteen", "zhol", "spades"]


def test_every_game_has_a_guide_whose_shell_blocks_show_their_output():
    # Besides one page per game, the generated Python client's (tests/test_docs_python_client.py)
    # and the TypeScript client's (tests/test_typescript_client.py).
    assert sorted(p.stem for p in GUIDES.glob("*.md")) == sorted(
        [*GAMES, "python-client", "typescript-client"]
    )
    for game in GAMES:
        todo = steps(GUIDES / f"{game}.md")
        assert len(todo) >= 6 and sum(expected is not None for _, expected in todo) >= 5, game


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_guide_walks_through_a_match_against_bots_as_written(game, live_service, tmp_path):
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    assert not missing, f"the guides need {', '.join(missing)} (.ci/run installs them)"
    for body, actual, expected in run_guide(GUIDES / f"{game}.md", live_service, tmp_path):
        if expected is not None:
            check_output(f"docs/guide/{game}.md", body, actual, expected)
