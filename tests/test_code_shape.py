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


# --- the direction of imports ----------------------------------------------------------------
# engines/ (the rules and the bots) knows nothing of service/ (the HTTP API and the store), and
# service/ nothing of workers/ (the RQ processes that run it): each layer may import only the
# ones below it. Within engines/ the rules never import their bots, and no module imports itself
# through others (a cycle makes the import order matter and the modules one unit).
LAYERS = ("engines", "service", "workers")  # each may import the ones before it only
# The one import against that direction: the `cardtable` command (service/cli/__init__.py), the
# program's entry point, starts the workers (`cardtable worker`). Nothing imports the command.
ENTRY_POINT = ("service.cli", "workers.worker")

# Inside service/, one package per capability, in this order (docs/architecture.md, "The
# layout"): a module may import its own package and the packages of lower rank, never one of its
# rank or above. http and workers/ share a rank: both stand on bootstrap, neither on the other.
PACKAGE_RANKS = {
    "engines": 0,
    "kernel": 1,  # service/__init__.py, errors.py, config.py, codec.py
    "infra": 2,
    "identity": 3,
    "ratings": 4,
    "matches": 5,
    "notify": 6,
    "privacy": 7,
    "bootstrap": 8,
    "http": 9,
    "workers": 9,
    "cli": 10,  # the `cardtable` command, and service/wsgi.py: gunicorn's entry
}
KERNEL = {"service", "service.errors", "service.config", "service.codec"}
# The imports against that order that today's code still makes, each named with why it stays and
# what removes it (docs/architecture.md, "What remains of issue 41"). The list only shrinks: an
# upward import not in it fails the test, and so does an entry no longer made. None today.
UPWARD_EXCEPTIONS: set[str] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The project modules `path` imports anywhere in it (at module level, in a function, under
    `if TYPE_CHECKING`): `from x import y` is module x.y when that is a module, else module x."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in found if m in known and m != name}


def import_graph(entry_point: bool = False) -> dict[str, set[str]]:
    """Module to the project modules it imports; `entry_point`: with `ENTRY_POINT`'s edge."""
    paths = sorted(p for package in LAYERS for p in (ROOT / package).rglob("*.py"))
    known = {module_name(p) for p in paths}
    graph = {module_name(p): imported_modules(p, known) for p in paths}
    if not entry_point:
        graph[ENTRY_POINT[0]].discard(ENTRY_POINT[1])
    return graph


def layer_of(module: str) -> int:
    return LAYERS.index(module.partition(".")[0])


def upward_imports(graph: dict[str, set[str]], layer: str) -> list[str]:
    """Imports from a module of `layer` into a layer above it."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.partition(".")[0] == layer
        for target in targets
        if layer_of(target) > layer_of(module)
    )


def cycles(graph: dict[str, set[str]], modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module among `modules` (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module] & modules):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_the_import_graph_sees_every_kind_of_import():
    graph = import_graph(entry_point=True)
    assert "engines.spades.rules" in graph["engines.spades.game"]  # from x.y import name
    assert "engines.spades.view" in graph["engines.spades.game"]  # from x import module
    assert "engines.spades.bots.search" in graph["engines.spades.bots"]  # from package import module
    assert ENTRY_POINT[1] in graph[ENTRY_POINT[0]]  # an import inside a function
    assert "engines.base" in graph["engines.bots"]  # an import under `if TYPE_CHECKING`


def test_engines_import_nothing_from_service_or_workers_and_have_no_cycle():
    graph = import_graph()
    assert upward_imports(graph, "engines") == []
    assert cycles(graph, {m for m in graph if m.startswith("engines.") or m == "engines"}) == []


def test_no_rules_module_imports_the_bots():
    """A game's rules (engines/base.py, each game's package but its bots/) never import the bot
    registry or any bot: bots depend on the rules, not the other way."""
    graph = import_graph()
    rules = {m for m in graph if m.startswith("engines.") and ".bots" not in m and m != "engines.bots"}
    rules -= {"engines.hints", "engines.tournament"}  # the bots' own callers
    found = sorted(
        f"{m} imports {t}"
        for m in rules
        for t in graph[m]
        if t == "engines.bots" or ".bots." in t or t.endswith(".bots")
    )
    assert found == []


def test_service_imports_nothing_from_workers_and_no_package_has_a_cycle():
    """engines ← service ← workers, with no circle inside any of them (docs/architecture.md)."""
    graph = import_graph()
    assert upward_imports(graph, "service") == []
    for layer in LAYERS:
        assert cycles(graph, {m for m in graph if m.partition(".")[0] == layer}) == [], layer


def package_of(module: str) -> str:
    """The layer of PACKAGE_RANKS a project module belongs to."""
    top, _, rest = module.partition(".")
    if top != "service":
        return top
    if module in KERNEL:
        return "kernel"
    if module == "service.wsgi":
        return "cli"
    return rest.partition(".")[0]


def upward_package_imports(graph: dict[str, set[str]]) -> set[str]:
    """Imports from a module into another package of its rank or above."""
    return {
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if package_of(target) != package_of(module)
        and PACKAGE_RANKS[package_of(target)] >= PACKAGE_RANKS[package_of(module)]
    }


def test_every_module_of_service_and_workers_belongs_to_a_package_of_the_layout():
    graph = import_graph(entry_point=True)
    assert sorted(m for m in graph if package_of(m) not in PACKAGE_RANKS) == []
    assert {package_of(m) for m in graph} == set(PACKAGE_RANKS)  # and no package of it is empty


def test_the_packages_of_service_import_only_the_packages_below_them():
    """engines <- kernel <- infra <- identity <- ratings <- matches <- notify <- privacy <- bootstrap
    <- http, workers <- cli, but for the named exceptions (UPWARD_EXCEPTIONS)."""
    upward = upward_package_imports(import_graph(entry_point=True))
    assert sorted(upward - UPWARD_EXCEPTIONS) == [], "an import against the layout's order"
    assert sorted(UPWARD_EXCEPTIONS - upward) == [], "an exception no longer needed: remove it"


def test_matches_reach_notify_only_through_the_notice_sinks():
    """Publishers never import subscribers: no module of service/matches/ imports service/notify/
    (but named exceptions); bootstrap appends the sinks to the repository."""
    graph = import_graph()
    found = {
        f"{m} imports {t}"
        for m, targets in graph.items()
        if package_of(m) == "matches"
        for t in targets
        if package_of(t) == "notify"
    }
    assert sorted(found - UPWARD_EXCEPTIONS) == []
