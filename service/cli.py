"""The `cardtable` command: serve, worker, openapi."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import time

from service.config import Config

log = logging.getLogger("cardtable")


def _default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "cardtable")


def cmd_serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    procs: list[subprocess.Popen] = []
    if not env.get("REDIS_URL"):
        from service.embedded import start_redis

        redis_proc, url = start_redis(os.path.join(args.data_dir, "redis"))
        procs.append(redis_proc)
        env["REDIS_URL"] = url
        log.info("embedded Redis at %s (data in %s)", url, args.data_dir)
        # Embedded mode runs its own worker; with REDIS_URL, run `cardtable worker` separately.
        procs.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env))
    gunicorn = [
        sys.executable, "-m", "gunicorn", "service.wsgi:app",
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--worker-class", "gthread",
        "--threads", str(args.threads),
        "--access-logfile", "-" if args.access_log else "/dev/null",
    ]  # fmt: skip
    procs.append(subprocess.Popen(gunicorn, env=env))
    print(f"cardtable serving on http://{args.host}:{args.port} (docs at /docs)", flush=True)

    stopping = False

    def stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    while not stopping:
        for p in procs:
            if p.poll() is not None:
                log.error(
                    "%s exited with %s; stopping",
                    p.args[0] if isinstance(p.args, list) else p.args,
                    p.returncode,
                )
                stopping, code = True, 1
        time.sleep(0.2)
    # Stop the web and worker processes before Redis so they can finish their writes.
    for p in reversed(procs):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    return code


def cmd_worker(args: argparse.Namespace) -> int:
    import redis
    from rq.worker import SimpleWorker

    from workers.queue import make_queue

    config = Config.from_env()
    client = redis.Redis.from_url(config.REDIS_URL)
    queue = make_queue(client, args.queue or config.QUEUE)
    # SimpleWorker runs jobs in-process: a bot turn is milliseconds of Python, and forking a
    # work horse per job would cost more than the job itself.
    worker = SimpleWorker([queue], connection=client, serializer=queue.serializer)
    worker.work(burst=args.burst, with_scheduler=not args.no_scheduler, logging_level=args.log_level)
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from service.app import create_app

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardtable", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the API (and, without REDIS_URL, Redis and a worker)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    serve.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    serve.add_argument("--data-dir", default=_default_data_dir(), help="embedded Redis data directory")
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.set_defaults(func=cmd_serve)

    worker = sub.add_parser("worker", help="run an RQ worker (with the scheduler) for bot turns and clocks")
    worker.add_argument("--queue", default=None, help="queue name (default CARDTABLE_QUEUE)")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument(
        "--no-scheduler", action="store_true", help="do not run RQ's scheduler in this worker"
    )
    worker.add_argument("--log-level", default="INFO")
    worker.set_defaults(func=cmd_worker)

    openapi = sub.add_parser("openapi", help="write the OpenAPI document the service generates")
    openapi.add_argument("--output", "-o", default="-")
    openapi.set_defaults(func=cmd_openapi)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("CARDTABLE_LOG_LEVEL", "INFO"))
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
