"""The `cardtable` command: serve, worker, tournament, openapi, loadtest.

The program's entry point (`python -m service.cli`, the `cardtable` script; `cardtable apps`
too), and nothing imports it. Beside it: serve's supervisor (supervisor), the operator's `apps`
commands (apps), the load kit (loadtest/) and the bots' tournament (tournament); gunicorn's
entry, service/wsgi.py, is of the same layer.

May import: every package below it (engines, the kernel, infra, identity, ratings, matches,
notify, privacy, bootstrap, http and workers): it is the top layer (tests/test_code_shape.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from typing import cast

from service.cli.apps import add_apps
from service.cli.loadtest.command import add_loadtest
from service.cli.supervisor import Child, cores, supervise
from service.cli.tournament import add_tournament
from service.config import Config
from service.infra import logs
from service.infra.embedded import REDIS_URL_FILE

log = logging.getLogger("cardtable")

# Bytes of the request line (method, path with query, version); number of header fields; bytes
# of one header field. No call of the API comes near them.
LIMIT_REQUEST_LINE = 4096
LIMIT_REQUEST_FIELDS = 50
LIMIT_REQUEST_FIELD_SIZE = 8190
LOG_LEVELS = logs.LEVELS


def _default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "cardtable")


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (children inherit it):
    every waiting long-poll or stream is an open socket, and 1,024, a common default, is few."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # An unlimited hard limit is not a value the soft one may take: Linux caps at nr_open.
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError) as e:
        log.warning("could not raise the open-file limit from %s to %s: %s", soft, target, e)
        return soft
    return target


def _at_least_one(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {value!r}")
    return int(value)


def _embedded(data_dir: str, env: dict[str, str], bot_workers: int) -> list[Child]:
    """Redis (same data directory, append-only file, same port, same password), `bot_workers`
    workers for bot turns and clocks (a pro's decision is CPU: one a core, docs/deployment.md)
    and one for webhook deliveries (a slow receiver never delays a bot), all restarted by
    `serve` when they die; a worker also waits out Redis being away.

    The Redis asks for a password drawn for this run: its port on loopback is open to every
    local user. The worker and gunicorn get the URL with it in their environment (readable by
    this user only), and `<data_dir>/redis.url` (0600) holds it for this user's other commands."""
    from service.infra.embedded import start_redis, write_private

    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    redis_dir = os.path.join(data_dir, "redis")
    password = secrets.token_hex(32)
    first, url = start_redis(redis_dir, password=password)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    env["REDIS_URL"] = url
    write_private(os.path.join(data_dir, REDIS_URL_FILE), url + "\n")
    log.info("embedded Redis on 127.0.0.1:%d (data and URL in %s)", port, data_dir)

    def redis_proc() -> subprocess.Popen[bytes]:
        return start_redis(redis_dir, port=port, password=password)[0]

    def worker_proc(*options: str) -> Callable[[], subprocess.Popen[bytes]]:
        # Embedded mode runs its own workers; with REDIS_URL, run `cardtable worker` separately.
        return lambda: subprocess.Popen([sys.executable, "-m", "service.cli", "worker", *options], env=env)

    return [
        Child("embedded Redis", redis_proc, True, first),
        *(Child(f"worker {i + 1}", worker_proc(), True) for i in range(bot_workers)),
        Child("webhooks worker", worker_proc("--webhooks"), True),
    ]


def _forget_url(path: str, url: str) -> None:
    """Remove the URL file once its Redis is stopped, unless a later `serve` wrote its own."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read().strip() == url:
                os.remove(path)
    except OSError:
        pass


def checked_config() -> Config:
    """The configuration from the environment, or the command stops with one line saying which
    setting is wrong (not a traceback from each process it would start)."""
    try:
        return Config.from_env()
    except ValueError as e:
        sys.exit(f"cardtable: {e}")


def cmd_serve(args: argparse.Namespace) -> int:
    checked_config()
    log.info("open-file limit %s", raise_open_file_limit())
    env = dict(os.environ)
    children: list[Child] = []
    embedded = not env.get("REDIS_URL")
    if embedded:
        children = _embedded(args.data_dir, env, args.bot_workers)
    gunicorn = [
        sys.executable, "-m", "gunicorn", "service.wsgi:app",
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--worker-class", args.worker_class,
        # One listening socket per worker so the kernel spreads connections over them:
        # with a shared socket the first worker to wake keeps nearly every keep-alive client.
        "--reuse-port",
        # Request line and header limits (docs/api.md "Limits"). Gunicorn answers beyond them
        # itself, 414 or 431 with a plain-text body, before Flask sees the request.
        "--limit-request-line", str(LIMIT_REQUEST_LINE),
        "--limit-request-fields", str(LIMIT_REQUEST_FIELDS),
        "--limit-request-field_size", str(LIMIT_REQUEST_FIELD_SIZE),
    ]  # fmt: skip
    if args.worker_class == "gevent":
        # Every open connection is a greenlet; a waiting long-poll or stream is one of them.
        gunicorn += ["--worker-connections", str(args.worker_connections)]
    else:
        gunicorn += ["--threads", str(args.threads)]
    gunicorn += [
        # gunicorn's own lines in the service's format, at its level (service/infra/logs.py).
        "--logger-class", "service.infra.gunicorn_logging.Logger",
        # gunicorn 27's control socket is one path per user (~/.gunicorn/gunicorn.ctl), shared
        # by every serve of the machine; nothing here uses it.
        "--no-control-socket",
        "--log-level", logs.Settings().level.lower(),
    ]  # fmt: skip
    if args.access_log:
        # Only when asked: even into /dev/null gunicorn formats a line per request.
        gunicorn += ["--access-logfile", "-"]
    # gunicorn's master restarts its own workers; if the master itself dies, serve stops.
    children.append(Child("gunicorn", lambda: subprocess.Popen(gunicorn, env=env), False))
    log.info("cardtable serving on http://%s:%d (docs at /docs)", args.host, args.port)
    try:
        return supervise(children)
    finally:
        if embedded:
            _forget_url(os.path.join(args.data_dir, REDIS_URL_FILE), env["REDIS_URL"])


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.worker import run

    checked_config()
    return run(args.queue, args.burst, not args.no_scheduler, args.log_level, args.webhooks)


def cmd_openapi(args: argparse.Namespace) -> int:
    from service.http.app import create_app

    app = create_app(Config())
    with app.app_context():
        spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    text = json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def _add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`cardtable serve`."""
    serve = sub.add_parser("serve", help="run the API (and, without REDIS_URL, Redis and workers)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    serve.add_argument(
        "--worker-class",
        choices=("gevent", "gthread"),
        default="gevent",
        help="gevent: requests are greenlets, so waiting long-polls and streams cost no thread "
        "(docs/architecture.md); gthread: a fixed number of threads per worker",
    )
    serve.add_argument(
        "--worker-connections",
        type=int,
        default=10000,
        help="open connections per worker with gevent, waiting long-polls and streams included",
    )
    serve.add_argument(
        "--threads", type=int, default=8, help="threads per worker with --worker-class gthread"
    )
    serve.add_argument("--data-dir", default=_default_data_dir(), help="embedded Redis data directory")
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.add_argument(
        "--bot-workers",
        type=_at_least_one,
        default=cores(),
        help="bot workers without REDIS_URL (50 MB each, 320 with Zhol); default one a core: %(default)s",
    )
    serve.set_defaults(func=cmd_serve)


def _add_worker(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`cardtable worker`."""
    worker = sub.add_parser("worker", help="run an RQ worker (with the scheduler) for bot turns and clocks")
    worker.add_argument("--queue", default=None, help="queue name (default CARDTABLE_QUEUE)")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument(
        "--no-scheduler",
        action="store_true",
        help="never run RQ's scheduler and the sweeper in this worker (one worker runs them at a time)",
    )
    worker.add_argument(
        "--webhooks",
        action="store_true",
        help="take only webhook deliveries (docs/webhooks.md), never bot turns or clocks",
    )
    worker.add_argument(
        "--log-level",
        default=None,
        choices=LOG_LEVELS,
        type=str.upper,
        help="default CARDTABLE_LOG_LEVEL, else INFO; DEBUG adds a line per job (RQ's own too)",
    )
    worker.set_defaults(func=cmd_worker)


def _add_openapi(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`cardtable openapi`."""
    openapi = sub.add_parser("openapi", help="write the OpenAPI document the service generates")
    openapi.add_argument("--output", "-o", default="-")
    openapi.set_defaults(func=cmd_openapi)


def build_parser() -> argparse.ArgumentParser:
    # The first paragraph: the rest is for the code's reader.
    parser = argparse.ArgumentParser(prog="cardtable", description=(__doc__ or "").partition("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_serve, _add_worker, add_tournament, add_loadtest, _add_openapi):
        add(sub)
    add_apps(sub, _default_data_dir())
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        logs.configure()
    except ValueError as e:  # CARDTABLE_LOG_LEVEL or _FORMAT mistyped
        sys.exit(f"cardtable: {e}")
    args = build_parser().parse_args(argv)
    return cast(int, args.func(args))  # each command's function returns its exit code


if __name__ == "__main__":
    sys.exit(main())
