"""docs/integrating.md, run as its reader would: the operator's `cardtable apps create`, then the
app's backend and its players' phones with curl and jq, against a live `cardtable serve`.

The page's ```sh blocks run in one bash, each compared with the output block under it, exactly
as tests/test_docs_guides.py runs the walk-throughs. The reader's `cardtable serve` and
`cardtable apps` share their default data directory, `$XDG_DATA_HOME/cardtable`, through which
`apps` finds the serve's embedded Redis (its `redis.url`); so the test points XDG_DATA_HOME at a
directory of its own, starts the serve with that directory's `cardtable` as `--data-dir`, and
puts a `cardtable` command on the page's PATH that runs this checkout's CLI.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tests.serve_helpers import cardtable_serve
from tests.test_docs_guides import blocks, check_output, run_guide, steps

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "integrating.md"
OPERATIONS = [
    "putPlayer",
    "getPlayer",
    "rotatePlayerToken",
    "getMe",
    "listMyMatches",
    "getMyEvents",
    "streamMyEvents",
    "quickPlay",
    "createTournament",
    "listTournaments",
    "joinTournament",
    "startTournament",
    "getTournament",
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(XDG_DATA_HOME, base URL) of a `cardtable serve` whose data directory is the default
    one under that XDG_DATA_HOME."""
    xdg = tmp_path_factory.mktemp("integrating-xdg")
    with cardtable_serve(str(xdg / "cardtable"), CARDTABLE_LOG_LEVEL="WARNING") as (_, base):
        yield xdg, base


def cardtable_command(folder: Path) -> Path:
    """A `cardtable` executable in `folder` running this checkout's CLI with this Python, as the
    serve under test does (tests/serve_helpers.py)."""
    folder.mkdir(exist_ok=True)
    command = folder / "cardtable"
    command.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m service.cli "$@"\n')
    command.chmod(command.stat().st_mode | stat.S_IXUSR)
    return folder


def test_the_page_walks_through_every_step_and_names_its_endpoints():
    todo = steps(PAGE)
    assert len(todo) >= 12 and sum(expected is not None for _, expected in todo) >= 11
    text = PAGE.read_text(encoding="utf-8")
    for name in OPERATIONS:
        assert f"({name})" in text, f"docs/integrating.md does not name {name}"
    # Sections the code cites (service/identity/callers.py: "Credentials").
    assert "\n## Credentials\n" in text
    # The operator's step is the reader's command, as written; nothing test-only in the page.
    assert any('cardtable apps create "Ana\'s Cards" --json' in body for body, _ in todo)
    assert not any("XDG_DATA_HOME" in body or "REDIS_URL" in body for body, _ in todo)
    # Every block is one the runner knows: shell, its output, or a console line not run.
    assert {info for info, _ in blocks(PAGE)} <= {"sh", "json output", "text output", "console"}


def test_the_api_contract_and_readme_lead_to_the_page():
    for page in (ROOT / "docs" / "api.md", ROOT / "README.md"):
        assert re.search(r"\]\((docs/)?integrating\.md\)", page.read_text(encoding="utf-8")), page.name


@pytest.mark.slow
def test_the_integration_runs_as_written(served, monkeypatch, tmp_path):
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    assert not missing, f"the page needs {', '.join(missing)} (.ci/run installs them)"
    xdg, base = served
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    monkeypatch.setenv("PATH", f"{cardtable_command(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}")
    # `cardtable apps` would take these before the serve's data directory.
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("CARDTABLE_STATE_URL", raising=False)
    for body, actual, expected in run_guide(PAGE, base, tmp_path):
        if expected is not None:
            check_output("docs/integrating.md", body, actual, expected)
