"""The benchmarks and scripts import what the service has: they are run by hand, not by the
suite, so a module moved or a name renamed (the layout of issue 41) would otherwise break them
silently until someone measures again. Every `import`/`from … import` of the project's own
packages in bench/ and scripts/, at module level or inside a function, must resolve."""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OWN = ("service", "engines", "workers")
FILES = sorted([*ROOT.glob("bench/*.py"), *ROOT.glob("scripts/*.py")])


def own_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name or None) for each import of the project's packages in `path`."""
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, None) for a in node.names if a.name.split(".")[0] in OWN]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in OWN:
                found += [(node.lineno, node.module, a.name) for a in node.names]
    return found


def unresolved(path: Path) -> list[str]:
    """The imports of `path` that name a module or a name the project does not have."""
    missing = []
    for line, module, name in own_imports(path):
        try:
            imported = importlib.import_module(module)
        except ImportError as e:
            missing.append(f"{path.name}:{line}: {module} ({e})")
            continue
        if name is not None and name != "*" and not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.name}:{line}: {module} has no {name}")
    return missing


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_import_of_the_project_in_bench_and_scripts_resolves(path):
    assert unresolved(path) == []


def test_an_import_inside_a_function_that_does_not_resolve_is_found(tmp_path):
    # bench/traced_wsgi.py's `from service import tracing`, broken by the layout unseen.
    planted = tmp_path / "planted.py"
    planted.write_text("def main():\n    from service import tracing\n    import service.player_feed\n")
    found = unresolved(planted)
    assert [f.split(":")[1] for f in found] == ["2", "3"]
    assert "service has no tracing" in found[0]
