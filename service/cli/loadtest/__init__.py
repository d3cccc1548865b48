"""The load kit: the locustfile of simulated players and `cardtable loadtest` (docs/loadtest.md)."""

from __future__ import annotations

import importlib.resources
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from service.infra.embedded import free_port


def locustfile(name: str = "locustfile.py") -> str:
    """Path of a shipped locust file (a module of service.cli.loadtest): the players of match
    after match, or `tournament.py`'s."""
    return str(importlib.resources.files("service.cli.loadtest") / name)


def new_service_log() -> str:
    """A new file in the temp dir for the embedded service's log, named after the time the run
    started; kept after the run, so the user can read it (docs/loadtest.md)."""
    fd, path = tempfile.mkstemp(prefix=time.strftime("cardtable-loadtest-%Y%m%d-%H%M%S-"), suffix=".log")
    os.close(fd)
    return path


def tail(path: str, lines: int = 20) -> list[str]:
    """The last `lines` lines of the file at `path` (none when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()[-lines:]
    except OSError:
        return []


@contextmanager
def embedded_service(
    data_dir: str, threads: int, log_path: str, settings: dict[str, str] | None = None
) -> Iterator[str]:
    """`cardtable serve` with its own Redis and worker on a free loopback port, its environment's
    `settings` changed; yields its URL once /readyz answers, and stops it (Ctrl-C, as a person
    would) on the way out.

    Its stdout and stderr, and so those of its workers and gunicorn, are appended to `log_path`:
    under load its workers write lines per job, which would bury the load test's own output."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # never someone's Redis
    env.update(settings or {})
    # 0600 as `cardtable serve`'s data directory: the log is this user's business only.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", data_dir,
             "--threads", str(threads)],
            env=env, start_new_session=True, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _ready(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the embedded cardtable service did not start")
            time.sleep(0.2)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def new_app_key(data_dir: str, log_path: str) -> str:
    """The key of a new app of the embedded service whose data directory is `data_dir`, made as
    an operator makes one (`cardtable apps create`, docs/integrating.md); its errors go to the log."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # the embedded one's Redis
    with open(log_path, "ab") as log:
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "apps", "create", "loadtest", "--json",
             "--data-dir", data_dir],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
        )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError("no app key could be made for the load test")
    return cast(str, json.loads(done.stdout)["key"])  # the command's JSON


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=5) as resp:
            return cast(bool, resp.status == 200)  # urlopen's answer is typed Any
    except OSError:
        return False
