"""The size limits the production code keeps (engines/, service/, workers/): a file over 500 lines
or a function over 60 is one to split before it grows further."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "service", "workers")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60


def production_files() -> list[Path]:
    files = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert files, "no production files found"
    return files


def test_no_production_file_is_over_500_lines():
    long = {}
    for path in production_files():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_FILE_LINES:
            long[str(path.relative_to(ROOT))] = lines
    assert not long, long


def test_no_production_function_is_over_60_lines():
    """A function counts from its `def` line to its last line (docstring included, decorators not)."""
    long = {}
    for path in production_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = lines
    assert not long, long
