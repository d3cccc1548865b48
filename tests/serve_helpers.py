"""`cardtable serve` as a reader starts it, for the tests that talk to a whole live service."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO

from service.infra.embedded import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextmanager
def cardtable_serve(
    data_dir: str, output: IO[str] | None = None, args: Sequence[str] = (), **env: str
) -> Iterator[tuple[subprocess.Popen, str]]:
    """Run `cardtable serve` (embedded Redis, its RQ workers, gunicorn) on a free port with its
    data in `data_dir`, `args` added to its command line and `env` to the environment, its
    output (all its processes' logs) into `output` when given; yield the process and its base
    URL once /readyz answers.
    On the way out it is stopped with Ctrl-C (SIGINT), and its whole
    process group killed if it has not exited 30 s later."""
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    full_env.update(PYTHONPATH=ROOT, **env)
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    proc = subprocess.Popen(
        [*command, *args],
        env=full_env,
        cwd=ROOT,
        start_new_session=True,
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, base, 60)
        yield proc, base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)


def wait_ready(proc: subprocess.Popen, base: str, timeout: float) -> None:
    """Wait until /readyz answers 200 (Redis and the queue reachable), failing if serve exits."""
    deadline = time.monotonic() + timeout
    while not _ready(base):
        assert proc.poll() is None, "cardtable serve exited"
        assert time.monotonic() < deadline, "cardtable serve did not become ready"
        time.sleep(0.2)


def _ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False
