"""`cardtable apps`: an operator's commands for apps and their keys (docs/integrating.md).

They reach the Redis the service keeps its matches in: CARDTABLE_STATE_URL, else REDIS_URL,
else the embedded Redis of a `cardtable serve` running on this machine, whose URL (with its
password) that command wrote to `<data dir>/redis.url`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from service import errors
from service.identity.apps import (
    DEFAULT_BOT_MATCHES,
    DEFAULT_MATCHES,
    DEFAULT_RATE,
    DEFAULT_TOURNAMENTS,
    App,
    Apps,
)
from service.infra.cluster import state_client
from service.infra.embedded import REDIS_URL_FILE
from service.notify.feeds import Feeds


def state_url(data_dir: str) -> str:
    """Where the service keeps its matches, as the running service is configured."""
    url = os.environ.get("CARDTABLE_STATE_URL") or os.environ.get("REDIS_URL")
    if url:
        return url
    path = os.path.join(data_dir, REDIS_URL_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except FileNotFoundError:
        raise SystemExit(
            f"no Redis to reach: set REDIS_URL (or CARDTABLE_STATE_URL), or start `cardtable serve`"
            f" with --data-dir {data_dir}"
        ) from None


def _show(app: App, key: str | None, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"app": app.id, **({"key": key} if key else {}), **app.public()}))
        return
    print(f"app {app.id}  {app.name}{'  (revoked)' if app.revoked else ''}")
    print(
        f"  quotas: {app.rate} requests/s, {app.matches} live matches, {app.bot_matches} bot-only,"
        f" {app.tournaments} tournaments"
    )
    if app.origins:
        print(f"  web origins: {', '.join(app.origins)}")
    if key:
        print(f"  key (shown once, keep it secret): {key}")


def cmd_apps(args: argparse.Namespace) -> int:
    state = state_client(state_url(args.data_dir))
    # A revocation drops the app's players' tokens and wakes their open feeds, which then end.
    apps = Apps(state, wake=Feeds(state).wake)
    quotas: dict[str, Any] = {
        name: value
        for name, value in (
            ("rate", args.rate),
            ("matches", args.matches),
            ("bot_matches", args.bot_matches),
            ("tournaments", args.tournaments),
            ("origins", args.origin),
        )
        if value is not None
    }
    try:
        if args.action == "create":
            app, key = apps.create(args.name, **quotas)
            _show(app, key, args.json)
        elif args.action == "list":
            found = apps.list()
            if args.json:
                print(json.dumps([a.public() for a in found]))
            for app in [] if args.json else found:
                _show(app, None, False)
        elif args.action == "rotate":
            key = apps.rotate(args.name)
            _show(apps.update(args.name), key, args.json)
        elif args.action == "revoke":
            _show(apps.revoke(args.name), None, args.json)
        elif args.action == "set":
            _show(apps.update(args.name, **quotas), None, args.json)
    except (errors.NotFound, errors.InvalidRequest) as e:
        print(f"cardtable apps: {e.message}", file=sys.stderr)
        return 1
    return 0


def add_apps(sub: Any, default_data_dir: str) -> None:
    apps = sub.add_parser("apps", help="create and manage apps (their keys and quotas)")
    apps.add_argument(
        "action",
        choices=["create", "list", "rotate", "revoke", "set"],
        help="create NAME; list; rotate APP (a new key); revoke APP; set APP (quotas, origins)",
    )
    apps.add_argument("name", nargs="?", help="the new app's name (create), or an app id")
    apps.add_argument("--json", action="store_true", help="print JSON (create: {app, key, ...})")
    apps.add_argument("--rate", type=int, help=f"requests a second with its key (default {DEFAULT_RATE})")
    apps.add_argument("--matches", type=int, help=f"live matches it may hold (default {DEFAULT_MATCHES})")
    apps.add_argument(
        "--bot-matches", type=int, help=f"live matches with no human seat (default {DEFAULT_BOT_MATCHES})"
    )
    apps.add_argument(
        "--tournaments",
        type=int,
        help=f"tournaments registering or running it may hold (default {DEFAULT_TOURNAMENTS})",
    )
    apps.add_argument(
        "--origin", action="append", help="a web origin its browser clients run on (repeat for more)"
    )
    apps.add_argument(
        "--data-dir", default=default_data_dir, help="data directory of a running `cardtable serve`"
    )
    apps.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if args.action != "list" and not args.name:
        raise SystemExit(f"cardtable apps {args.action}: name the app")
    return cmd_apps(args)
