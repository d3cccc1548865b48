"""The TypeScript client of clients/typescript/, as docs/guide/typescript-client.md builds and runs it.

`npm ci` installs the pinned tools (openapi-typescript, openapi-fetch, typescript) from the
committed package-lock.json, `openapi-typescript` generates the types from the committed
openapi/openapi.json, `tsc --noEmit` checks the client strictly, and the client plays a match of
each game against bots on a live `cardtable serve`. Each test works on a copy of the client and
of the document laid out as in the repository, in a temporary folder: node_modules, the
generated types and the build never land in the checkout, and two tests never share a folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from scripts.count_untyped import untyped_fields
from tests.serve_helpers import cardtable_serve
from tests.test_docs_guides import GUIDE_BASE, blocks, check_output, run_guide

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "clients" / "typescript"
PAGE = ROOT / "docs" / "guide" / "typescript-client.md"
# Issue 33: the generated TypeScript types leave at most 3 fields untyped, the free-form maps the
# contract means to be free (scripts/count_untyped.py says which).
MOST_UNTYPED = 3


def node_and_npm() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"the TypeScript client needs {', '.join(missing)} (.ci/run installs them)"


def laid_out(where: Path) -> Path:
    """Copy the client's committed files and the document into `where` as the repository lays
    them out (the npm scripts find the document at ../../openapi/openapi.json); the client folder."""
    client = where / "clients" / "typescript"
    shutil.copytree(CLIENT, client, ignore=shutil.ignore_patterns("node_modules", "dist", "schema.d.ts"))
    (where / "openapi").mkdir()
    shutil.copy(ROOT / "openapi" / "openapi.json", where / "openapi" / "openapi.json")
    return client


def npm(client: Path, *args: str) -> str:
    done = subprocess.run(["npm", *args], cwd=client, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"npm {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_generated_types_leave_at_most_3_fields_untyped(tmp_path):
    node_and_npm()
    client = laid_out(tmp_path)
    npm(client, "ci", "--no-audit", "--no-fund")
    npm(client, "run", "generate")
    found = untyped_fields((client / "src" / "schema.d.ts").read_text())
    print(f"\n{len(found)} untyped fields in the generated TypeScript types")
    assert len(found) <= MOST_UNTYPED, "\n".join(found)


def test_the_client_has_no_any_and_no_casts():
    # tsc --strict checks the types; this keeps the client from opting out of them.
    for source in sorted((CLIENT / "src").glob("*.ts")):
        if source.name.endswith(".d.ts"):
            continue
        code = re.sub(r"//[^\n]*", "", source.read_text())
        assert not re.search(r"\bany\b|\bunknown\b", code), f"{source.name}: an `any` or `unknown`"
        # `x as T`, or `<T>x` after an operator: a cast (`as const` only fixes a literal's type).
        cast = re.search(r"\bas (?!const\b)|(?:[=(,:?]|\breturn)\s*<[\w\[\]\"., |]+>\s*[\w(\[{]", code)
        assert not cast, f"{source.name}: a cast: {cast.group(0) if cast else ''}"
        assert "@ts-" not in code and "eslint-disable" not in code, f"{source.name}: a checker switched off"
    config = (CLIENT / "tsconfig.json").read_text()
    assert re.search(r'"strict":\s*true', config) and '"skipLibCheck"' not in config


def test_the_guide_shows_the_client_as_it_stands():
    shown = [body for info, body in blocks(PAGE) if info == "ts"]
    assert shown == [(CLIENT / "src" / "play.ts").read_text()]


def test_typescript_client_type_checks_strictly_and_plays_every_game_to_the_end(tmp_path):
    node_and_npm()
    laid_out(tmp_path)
    with cardtable_serve(str(tmp_path / "serve"), CARDTABLE_LOG_LEVEL="WARNING") as (_, base):
        ran = run_guide(PAGE, base, tmp_path)
    assert len(ran) == 3 and GUIDE_BASE in ran[-1][0]
    for body, printed, expected in ran:
        if expected is not None:
            check_output("docs/guide/typescript-client.md", body, printed, expected)
    assert ran[-1][2] is not None, "the guide shows what the client prints"
