"""The size limits the production code keeps (engines/, service/, workers/): a file over 400 lines
or a function over 50 is one to split, by meaning, before it grows further. engines/ keeps the
older 500 and 60 for now: issue 41 (the service's layout) left the engines unchanged, and their
splits are the engines' own (docs/architecture.md, "Layout decisions (issue 41)")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "service", "workers")
# (lines a file, lines a function) by package.
LIMITS = {"engines": (500, 60), "service": (400, 50), "workers": (400, 50)}


def production_files() -> list[Path]:
    files = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert files, "no production files found"
    return files


def limits(path: Path) -> tuple[int, int]:
    return LIMITS[path.relative_to(ROOT).parts[0]]


def test_no_production_file_is_over_400_lines():
    long = {}
    for path in production_files():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limits(path)[0]:
            long[str(path.relative_to(ROOT))] = lines
    assert not long, long


def test_no_production_function_is_over_50_lines():
    """A function counts from its `def` line to its last line (docstring included, decorators not)."""
    long = {}
    for path in production_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limits(path)[1]:
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
    "tournaments": 6,  # beside notify: each stands on matches, neither on the other
    "privacy": 7,
    "bootstrap": 8,
    "http": 9,
    "workers": 9,
    "cli": 10,  # the `cardtable` command, and service/wsgi.py: gunicorn's entry
}
KERNEL = {"service", "service.errors", "service.config", "service.codec"}
# The imports against that order that today's code still makes, each named with why it stays and
# what removes it (docs/architecture.md, "Layout decisions (issue 41)"). The list only shrinks: an
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


# --- what each package says of itself ----------------------------------------------------------
# The packages of the layout that are folders (the kernel's modules and bootstrap.py are not).
PACKAGE_FOLDERS = {
    name: ROOT / ("workers" if name == "workers" else f"service/{name}")
    for name in PACKAGE_RANKS
    if name not in ("engines", "kernel", "bootstrap")
}


def may_import(folder: Path) -> str:
    """The first clause of the `May import:` paragraph of the package's docstring ('' if none)."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    owns, found, rest = doc.partition("May import:")
    assert owns.strip(), f"{folder.relative_to(ROOT)}: its docstring says first what it owns"
    return re.split(r"\.\s|;", rest, maxsplit=1)[0] if found else ""


def test_every_package_says_what_it_owns_and_names_what_it_imports():
    """Each package's __init__ opens with what it owns, then `May import: ...`, whose first clause
    names every package its modules import (but the named exceptions, UPWARD_EXCEPTIONS)."""
    graph = import_graph(entry_point=True)
    unnamed = {}
    for name, folder in PACKAGE_FOLDERS.items():
        clause = may_import(folder)
        imported = {
            package_of(target)
            for module, targets in graph.items()
            if package_of(module) == name
            for target in targets
            if f"{module} imports {target}" not in UPWARD_EXCEPTIONS
        } - {name}
        missing = sorted(p for p in imported if not re.search(rf"\b{p}\b", clause))
        if not clause or missing:
            unnamed[name] = missing or "no 'May import:'"
    assert not unnamed, unnamed


# --- who writes a match's record ---------------------------------------------------------------
# A match's record changes only through `Match` (service/matches/match.py): the use cases call
# its methods (docs/architecture.md, "Matches and versions").
RECORD_OWNER = "service/matches/match.py"
# The methods of a dict or list that change it.
MUTATING_METHODS = {
    "update", "pop", "popitem", "setdefault", "clear", "append", "extend", "insert", "remove",
    "sort", "reverse", "add", "discard", "__setitem__", "__delitem__",
}  # fmt: skip
# Calls whose items are those of the iterable they are given (a record's seats stay its seats).
ITERATING_CALLS = {"enumerate", "zip", "reversed", "sorted", "list", "tuple", "filter", "iter"}


def bound_names(target: ast.expr) -> list[str]:
    """The names an assignment's target binds (`a`, `a, (b, *c)`; not `a[k]` nor `a.b`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for t in target.elts for name in bound_names(t)]
    return []


class RecordWrites:
    """The writes into a record in one module's source (`check`): see
    `test_no_module_but_match_py_writes_a_match_record` for the rule."""

    def __init__(self, writers: dict[str, set[int]]):
        # Function name -> the positions (self not counted) of the parameters it writes into.
        self.writers = writers

    @staticmethod
    def is_part(node: ast.expr, names: set[str], attribute: bool = True) -> bool:
        """Whether `node` is a record or a part of one: `<x>.record` (with `attribute`), a name
        bound to one, a subscript or `.get()` of one, `a or b` / `a if c else b` of one, or
        `next(...)` over one."""
        part = RecordWrites.is_part
        if isinstance(node, ast.Attribute):
            return attribute and node.attr == "record"
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Subscript):
            return part(node.value, names, attribute)
        if isinstance(node, ast.BoolOp):
            return any(part(v, names, attribute) for v in node.values)
        if isinstance(node, ast.IfExp):
            return part(node.body, names, attribute) or part(node.orelse, names, attribute)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get":
                return part(func.value, names, attribute)
            if isinstance(func, ast.Name) and func.id == "next" and node.args:
                gen = node.args[0]
                return isinstance(gen, ast.GeneratorExp) and part(gen.generators[0].iter, names, attribute)
        return False

    @staticmethod
    def iterates_part(node: ast.expr, names: set[str], attribute: bool) -> bool:
        if RecordWrites.is_part(node, names, attribute):
            return True
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ITERATING_CALLS
            and any(RecordWrites.is_part(a, names, attribute) for a in node.args)
        )

    @staticmethod
    def scope_nodes(scope: ast.AST) -> list[ast.AST]:
        """The nodes of a function's (or module's) own body: not those of a function inside it."""
        found: list[ast.AST] = []
        todo = list(ast.iter_child_nodes(scope))
        while todo:
            node = todo.pop()
            found.append(node)
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                todo.extend(ast.iter_child_nodes(node))
        return found

    def bound(self, nodes: list[ast.AST], names: set[str], attribute: bool) -> set[str]:
        """`names` and every name the scope binds to a record or a part of one: by assignment,
        `:=`, or as the target of a loop or comprehension over one."""
        names = set(names)
        while True:
            before = len(names)
            for node in nodes:
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign) and self.is_part(node.value, names, attribute):
                    targets = node.targets
                elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                    targets = [node.target] if self.is_part(node.value, names, attribute) else []
                elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                    targets = [node.target] if self.iterates_part(node.iter, names, attribute) else []
                for target in targets:
                    names.update(bound_names(target))
            if len(names) == before:
                return names

    def writes(self, nodes: list[ast.AST], names: set[str], attribute: bool = True) -> list[ast.AST]:
        """The nodes of a scope that write into a record or a part of one (`names`: bound to one)."""
        part = self.is_part
        found: list[ast.AST] = []
        for node in nodes:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                for t in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                    if isinstance(t, ast.Subscript | ast.Attribute) and (
                        part(t.value, names, attribute) or (attribute and getattr(t, "attr", "") == "record")
                    ):
                        found.append(node)
            if isinstance(node, ast.Call):
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in MUTATING_METHODS
                    and part(func.value, names, attribute)
                ):
                    found.append(node)
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                written = self.writers.get(called or "", set())
                if any(i in written and part(a, names, attribute) for i, a in enumerate(node.args)):
                    found.append(node)
        return found

    def check(self, tree: ast.AST) -> list[int]:
        """The lines of the module that write into a record."""
        lines: list[int] = []

        def visit(scope: ast.AST, outer: set[str]) -> None:
            nodes = self.scope_nodes(scope)
            names = self.bound(nodes, outer, attribute=True)
            lines.extend(n.lineno for n in self.writes(nodes, names))  # type: ignore[attr-defined]
            for node in nodes:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                    visit(node, names)

        visit(tree, set())
        return sorted(set(lines))

    def written_parameters(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
        """The positions (self and cls not counted) of the parameters a function writes into."""
        params = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        nodes = self.scope_nodes(function)
        return {
            i
            for i, p in enumerate(params)
            if self.writes(nodes, self.bound(nodes, {p}, attribute=False), attribute=False)
        }


def record_writes(sources: dict[str, str]) -> list[str]:
    """`file:line` of every write into a record in `sources` (path -> text) outside RECORD_OWNER."""
    trees = {path: ast.parse(text, filename=path) for path, text in sources.items()}
    finder = RecordWrites({})
    writers: dict[str, set[int]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                writers.setdefault(node.name, set()).update(finder.written_parameters(node))
    finder.writers = {name: found for name, found in writers.items() if found}
    return [
        f"{path}:{line}"
        for path, tree in trees.items()
        if path != RECORD_OWNER
        for line in finder.check(tree)
    ]


def test_no_module_but_match_py_writes_a_match_record():
    """No module of service/ or workers/ but service/matches/match.py writes into a match record.

    A record is `<x>.record` (any expression's attribute `record`) and every part of one: a
    subscript or `.get()` of it, and a name bound to one in the same function or a function
    around it (by `=`, `:=`, or as the target of a `for` or a comprehension over one, or over
    `enumerate`, `zip`, `sorted`... of one; `next(...)` over one). A write into it is an
    assignment (`=`, `+=`, annotated) to a subscript or attribute of a record or its part, or to
    `<x>.record` itself; a `del` of one; a call of a dict's or list's changing method on one
    (`update`, `pop`, `setdefault`, `append`, ...); or a record or its part handed, by position,
    to a function of service/ or workers/ that writes into that parameter by these same rules
    (a function known by its name, any function of that name: `tenure.hand_on(seat)` counts).
    A copy (`list(...)`, `dict(...)`) is no longer the record: writing it is free."""
    files = sorted(p for package in ("service", "workers") for p in (ROOT / package).rglob("*.py"))
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files}
    assert RECORD_OWNER in sources
    assert record_writes(sources) == []


def test_the_record_check_sees_every_kind_of_write():
    planted = """
def change(match, player):
    match.record["status"] = "aborted"              # 3: a subscript of <x>.record
    record = match.record
    record["joins"] += 1                            # 5: an augmented one, through a name
    entry = record["seats"][0]
    entry.update(kind="human")                      # 7: a changing method of a part
    del record["rematch"]                           # 8: del
    for s in record["seats"]:
        s.pop("reserved", None)                     # 10: a loop's target
    seat = next((s for s in record["seats"] if s["kind"] == "open"), None)
    seat["name"] = "x"                              # 12: next(...) over one
    hand_on(entry)                                  # 13: handed to a function that writes it
    match.record = {}                               # 14: the record replaced
    copy = list(record["seats"])
    copy.append({})                                 # a copy: free
    shown = {"seat": entry["seat"]}
    shown["name"] = entry["name"]                   # a new dict: free

    def inner(match):
        entry["left"] = True                        # 21: a name of the function around it

def hand_on(seat):
    seat["tenure"] = seat.get("tenure", 0) + 1
"""
    found = record_writes({"service/x.py": planted, RECORD_OWNER: "def f(m):\n    m.record['a'] = 1\n"})
    assert found == [f"service/x.py:{n}" for n in (3, 5, 7, 8, 10, 12, 13, 14, 21)]
