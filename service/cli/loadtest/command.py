"""`cardtable loadtest`: a locust file of the load kit run headless, against an embedded service
or a given one (docs/loadtest.md)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from contextlib import ExitStack

from service.cli.loadtest import embedded_service, locustfile, new_app_key, new_service_log, tail

# By scenario: the locust file, and the defaults of --users, --run-time and --think.
SCENARIOS = {
    "matches": ("locustfile.py", 10, "1m", None),
    # --run-time only caps it (the run ends with the tournament); short thinks keep rounds short.
    "tournament": ("tournament.py", 64, "15m", "0.05,0.2"),
}


def cmd_loadtest(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("locust") is None:
        sys.exit("cardtable loadtest needs locust: pip install 'cardtable[load]'")
    if args.host is not None and args.service_log is not None:
        sys.exit("cardtable loadtest: --service-log is the embedded service's log; without --host")
    tournament = args.scenario == "tournament"
    app_key = args.app_key or os.environ.get("CARDTABLE_LOAD_APP_KEY")
    if tournament and args.host is not None and not app_key:
        sys.exit("cardtable loadtest: the tournament scenario against --host needs --app-key")
    file, users, run_time, think = SCENARIOS[args.scenario]
    users = args.users or users
    env = dict(os.environ)
    think = args.think or os.environ.get("CARDTABLE_LOAD_THINK") or think
    if think:
        env["CARDTABLE_LOAD_THINK"] = think
    env["CARDTABLE_LOAD_ROUNDS"] = str(args.rounds)
    # The locust files print the progress lines themselves, from their runner (docs/loadtest.md).
    env["CARDTABLE_LOAD_PROGRESS_EVERY"] = str(args.progress_every)
    service_log = None
    with ExitStack() as stack:
        host = args.host
        if host is None:
            service_log = args.service_log or new_service_log()
            host, app_key = _embedded(stack, args, service_log, app_key)
        env["CARDTABLE_LOAD_APP_KEY"] = app_key or ""
        # locust runs in its own process: it patches the standard library for gevent. Its INFO
        # lines (spawning, shutting down) stay out; its tables are logged apart and still show.
        locust = [
            sys.executable, "-m", "locust", "-f", locustfile(file), "--headless", "--only-summary",
            "--loglevel", "WARNING", "--users", str(users),
            # A tournament's players all start at once: they join together.
            "--spawn-rate", str(users if tournament else args.spawn_rate),
            "--run-time", args.run_time or run_time, "--host", host,
        ]  # fmt: skip
        if args.csv:
            locust += ["--csv", args.csv]
        # locust's own exit code: 1 when any request failed (or the tournament did not finish).
        code = subprocess.run(locust, env=env).returncode
    if service_log is not None:
        print(f"embedded cardtable service's log: {service_log}", flush=True)
    return code


def _embedded(
    stack: ExitStack, args: argparse.Namespace, service_log: str, app_key: str | None
) -> tuple[str, str | None]:
    """Start the embedded service (stopped when `stack` closes); its URL, and for a tournament
    the app key (a new app's, unless one was given)."""
    print(f"embedded cardtable service's log: {service_log}", flush=True)
    data = stack.enter_context(tempfile.TemporaryDirectory(prefix="cardtable-loadtest-"))
    tournament = args.scenario == "tournament"
    # The tournament's players all come from this one address: the per-address limit would pace
    # them as no real players are (docs/loadtest.md, "A tournament").
    served = {"CARDTABLE_RATE_LIMIT": os.environ.get("CARDTABLE_RATE_LIMIT", "0")} if tournament else {}
    try:
        host = stack.enter_context(embedded_service(data, args.serve_threads, service_log, served))
        if tournament and not app_key:
            app_key = new_app_key(data, service_log)
    except RuntimeError as e:
        # Its reason is in its log, which the user has not seen: show its end.
        lines = "\n".join("  " + line for line in tail(service_log))
        sys.exit(f"{e}; the end of {service_log}:\n{lines}")
    print(f"load test against an embedded cardtable service at {host}", flush=True)
    return host, app_key


def add_loadtest(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`cardtable loadtest`."""
    load = sub.add_parser(
        "loadtest", help="simulated players play whole matches against a service (locust, headless)"
    )
    load.add_argument(
        "--scenario",
        choices=tuple(SCENARIOS),
        default="matches",
        help="matches: players play match after match (vs bots and each other); tournament: "
        "--users players play a Swiss Zhol tournament of --rounds rounds and the run ends with it",
    )
    load.add_argument("--users", type=int, default=None, help="simulated players (10; tournament: 64)")
    load.add_argument(
        "--spawn-rate", type=float, default=2, help="players started per second (tournament: all at once)"
    )
    load.add_argument(
        "--run-time", default=None, help="how long, e.g. 30s, 5m, 1h (1m; tournament: at most, 15m)"
    )
    load.add_argument(
        "--host", default=None, help="base URL of the service; default: start an embedded one (like serve)"
    )
    load.add_argument(
        "--think",
        default=None,
        help="seconds a player thinks before a move, 'min,max' (0.5,2; tournament: 0.05,0.2)",
    )
    _add_tournament_options(load)
    load.add_argument("--csv", default=None, help="also write locust's CSV files with this prefix")
    load.add_argument(
        "--serve-threads",
        type=int,
        default=32,
        help="the embedded service's serve --threads (gthread workers only; it runs gevent's)",
    )
    load.add_argument(
        "--service-log",
        default=None,
        help="file the embedded service's output is appended to; default: a new "
        "cardtable-loadtest-<time>-*.log in the temp dir, kept after the run",
    )
    load.add_argument(
        "--progress-every",
        type=float,
        default=5,
        help="seconds between two progress lines (users, matches, requests, failures); 0: none",
    )
    load.set_defaults(func=cmd_loadtest)


def _add_tournament_options(load: argparse.ArgumentParser) -> None:
    load.add_argument("--rounds", type=int, default=3, help="the tournament's rounds")
    load.add_argument(
        "--app-key",
        default=None,
        help="tournament with --host: an app key of the service (default CARDTABLE_LOAD_APP_KEY); "
        "the embedded service gets a new app",
    )
