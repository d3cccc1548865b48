"""Issue 41's moves of service/'s modules into its packages, and a rewriter of the old names.

A branch started before the layout still imports `service.store`, `service.players`, ...; after
merging it, run

    python -m scripts.layout_moves FILE...          # rewrite those files
    python -m scripts.layout_moves --check          # list the old names left anywhere

In a .py file it rewrites imports (`from service.store import Store`, `from service import
admin, errors`) and dotted names inside quotes ("service.hints"); everywhere it rewrites cited
paths (`service/store.py`). A module that changed its name keeps its old one as an alias
(`from service.matches import app_matches as admin`), so the code under the import still reads.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# old module under service. -> new module under service. (docs/architecture.md, "The layout")
MOVES = {
    "cluster": "infra.cluster",
    "waiters": "infra.waiters",
    "waiter_counts": "infra.waiter",
    "jobqueue": "infra.jobqueue",
    "counters": "infra.counters",
    "rate_limit": "infra.rate_limit",
    "due_index": "infra.due_index",
    "cursors": "infra.cursors",
    "tracing": "infra.tracing",
    "logs": "infra.logs",
    "embedded": "infra.embedded",
    "wait_quota": "infra.wait_quota",
    "gunicorn_logging": "infra.gunicorn_logging",
    "apps": "identity.apps",
    "players": "identity.players",
    "callers": "identity.callers",
    "quotas": "identity.quotas",
    "tombstones": "identity.tombstones",
    "ratings": "ratings.model",
    "leaderboards": "ratings.leaderboards",
    "match": "matches.match",
    "repository": "matches.repository",
    "store": "matches.store",
    "store_scripts": "matches.store_scripts",
    "outbox": "matches.outbox",
    "notices": "matches.notices",
    "seats": "matches.seats",
    "acting": "matches.acting",
    "bots": "matches.bots",
    "clocks": "matches.clocks",
    "following": "matches.following",
    "hints": "matches.hints",
    "rematch": "matches.rematch",
    "options": "matches.options",
    "fair_seeds": "matches.fair_seeds",
    "lobby": "matches.lobby",
    "lobby_index": "matches.lobby_index",
    "my_matches": "matches.my_matches",
    "admin": "matches.app_matches",
    "invitations": "matches.invitations",
    "tenure": "matches.tenure",
    "membership": "matches.membership",
    "rated": "matches.rated_matches",
    "feeds": "notify.feeds",
    "player_feed": "notify.feed_following",
    "webhooks": "notify.webhooks",
    "deliveries": "notify.deliveries",
    "webhook_urls": "notify.url_guard",
    "webhook_notices": "notify.webhook_sink",
    "erasure": "privacy.erasure",
    "matches": "bootstrap",
    "app": "http.app",
    "extensions": "http.extensions",
    "cors": "http.cors",
    "pages": "http.pages",
    "metrics": "http.metrics",
    "contract": "http.contract",
    "contract_actions": "http.contract_actions",
    "game_events": "http.game_events",
    "game_parts": "http.game_parts",
    "game_schemas": "http.game_schemas",
    "examples": "http.examples",
    "resources": "http.resources",
    "supervisor": "cli.supervisor",
    "apps_cli": "cli.apps",
    "tournament_plot": "cli.tournament",
    "loadtest": "cli.loadtest",
}
PACKAGES = {"resources", "loadtest"}  # folders, not modules
# Moves inside the new tree. `hash_token` and `new_token` left matches/match.py for identity/tokens.py.
RENAMED_INSIDE = {
    "service.http.resources.matches.feed_schemas": "service.http.resources.matches.following_schemas",
    "service/http/resources/matches/feed_schemas.py": "service/http/resources/matches/following_schemas.py",
    "service.notify.player_feed": "service.notify.feed_following",
    "service/notify/player_feed.py": "service/notify/feed_following.py",
    "service.infra.waiter_counts": "service.infra.waiter",
    "service/infra/waiter_counts.py": "service/infra/waiter.py",
    "service/matches/rated.py": "service/matches/rated_matches.py",
}
# The same for a dotted name that a longer new one begins with (`service.matches.rated` is
# now `service.matches.rated_matches`): only where no name character follows.
RENAMED_NAMES = {"service.matches.rated": "service.matches.rated_matches"}
_RENAMED_NAME = re.compile(r"(" + "|".join(re.escape(n) for n in RENAMED_NAMES) + r")(?![\w])")

_ALT = "|".join(re.escape(n) for n in sorted(MOVES, key=len, reverse=True))
# An old module had no submodules (but the two folders): `service.matches.store` is already new.
_IMPORT = re.compile(r"^(\s*)(from|import)\s+service\.(" + _ALT + r")(?![\w])(\.?)(.*)$")
_FROM_SERVICE = re.compile(r"^(\s*)from service import ([\w, ]+)$")
_QUOTED = re.compile(r"(?<=[\"'`])service\.(" + _ALT + r")(?![\w.])")
_PATH = re.compile(r"(?<![\w/.])service/(" + _ALT + r")(\.py|/)")


def _path(match: re.Match[str]) -> str:
    old, tail = match.group(1), match.group(2)
    if (tail == "/") != (old in PACKAGES):
        return match.group(0)
    return "service/" + MOVES[old].replace(".", "/") + tail


def _from_service(match: re.Match[str]) -> str:
    """`from service import admin, errors` -> one import a package, old names kept as aliases."""
    indent, names = match.groups()
    groups: dict[str, list[str]] = {}
    for item in (n.strip() for n in names.split(",")):
        name, _, alias = item.partition(" as ")
        if name not in MOVES:
            groups.setdefault("service", []).append(item)
            continue
        parent, _, leaf = ("service." + MOVES[name]).rpartition(".")
        kept = alias or name
        groups.setdefault(parent, []).append(leaf if leaf == kept else f"{leaf} as {kept}")
    return "\n".join(f"{indent}from {parent} import {', '.join(items)}" for parent, items in groups.items())


# Two new packages have an old module's name: their imports of submodules are new already.
NEW_PACKAGES = {"matches": "service/matches", "ratings": "service/ratings"}


def _renamed_leaf(package: str, item: str) -> str:
    """`rated` imported from service.matches -> `rated_matches as rated` (RENAMED_NAMES)."""
    name, _, alias = item.partition(" as ")
    new = RENAMED_NAMES.get(f"{package}.{name}")
    if new is None:
        return item
    leaf = new.rpartition(".")[2]
    return f"{leaf} as {alias or name}"


def _import(match: re.Match[str]) -> str:
    indent, keyword, old, dot, rest = match.groups()
    if dot and old not in PACKAGES:
        return match.group(0)
    if old in NEW_PACKAGES and keyword == "from":
        items = [n.strip() for n in rest.replace("import", "", 1).split(",")]
        renamed = [_renamed_leaf(f"service.{old}", item) for item in items]
        names = {n.partition(" as ")[0] for n in renamed}
        if all(Path(NEW_PACKAGES[old], f"{n}.py").exists() for n in names if n.isidentifier()):
            if renamed == items:
                return match.group(0)
            return f"{indent}from service.{old} import {', '.join(renamed)}"
    return f"{indent}{keyword} service.{MOVES[old]}{dot}{rest}"


def rewrite_line(line: str, python: bool) -> str:
    if python:
        if _FROM_SERVICE.match(line):
            line = _FROM_SERVICE.sub(_from_service, line)
        else:
            line = _IMPORT.sub(_import, line)
            line = _QUOTED.sub(lambda m: f"service.{MOVES[m.group(1)]}", line)
    for old, new in RENAMED_INSIDE.items():
        line = line.replace(old, new)
    line = _RENAMED_NAME.sub(lambda m: RENAMED_NAMES[m.group(1)], line)
    return _PATH.sub(_path, line)


def rewrite(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    new = "\n".join(rewrite_line(line, path.suffix == ".py") for line in text.split("\n"))
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str]) -> int:
    if argv and argv[0] != "--check":
        changed = [name for name in argv if rewrite(Path(name))]
        print("\n".join(changed))
        return 0
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    left = []
    for name in tracked:
        path = Path(name)
        if path.suffix not in (".py", ".md") or name == "scripts/layout_moves.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if rewrite_line(line, path.suffix == ".py") != line:
                left.append(f"{name}:{number}: {line.strip()}")
    print("\n".join(left))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
