"""Code and docs cite only pages that are in the repository.

The product specifications the project started from are not shipped; a reader of the code must
find every rule and contract it cites in docs/ (docs/rules/<game>.md, docs/api.md,
docs/architecture.md). This is the repository-wide grep of issue 18, as a test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Spelled in parts so that this file does not match itself.
OUTSIDE = re.compile(
    "|".join(re.escape(name) for name in ("RULES" + ".md", "API" + ".md", "STYLE" + ".md", "../" + "shared"))
)
SKIP_DIRS = {"__pycache__", "node_modules", "build", "dist"}
CITING = re.compile(r"docs/(?:rules/[a-z-]+|api|architecture|bots|performance|rules)\.md")


def repo_files() -> list[Path]:
    """Every file of the working tree except hidden directories (.git, .venv) and build output."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [
            d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS and not d.endswith(".egg-info")
        ]
        out += [Path(folder) / name for name in files]
    return out


def test_no_file_cites_a_specification_outside_the_repository():
    found = []
    for path in repo_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "cite docs/ instead:\n" + "\n".join(found)


def test_every_docs_page_cited_from_code_exists():
    missing = set()
    for path in repo_files():
        if path.suffix not in (".py", ".md", ".json"):
            continue
        for cited in CITING.findall(path.read_text(encoding="utf-8")):
            if not (ROOT / cited).is_file():
                missing.add(f"{path.relative_to(ROOT)} cites {cited}")
    assert not missing, sorted(missing)


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_every_relative_link_of_the_docs_leads_to_a_file_of_the_repository():
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


CODE_PATH = re.compile(r"(?<![\w/.-])((?:service|workers|engines|tests|bench|scripts)/[\w/.*<>-]*[\w/])")


def test_every_code_path_the_docs_cite_exists():
    """A page that names a module (`service/matches/store.py`, `workers/`) names one that is there:
    the tree moves (docs/architecture.md, "The layout") and the pages move with it."""
    missing = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for cited in CODE_PATH.findall(line):
                if not any(c in cited for c in "*<>") and not (ROOT / cited).exists():
                    missing.append(f"{page.relative_to(ROOT)}:{number}: {cited}")
    assert missing == []
