"""The load kit: the locustfile of simulated players and `cardtable loadtest` (docs/loadtest.md)."""

from __future__ import annotations

import importlib.resources
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from service.embedded import free_port


def locustfile() -> str:
    """Path of the shipped locustfile (package data of service.loadtest)."""
    return str(importlib.resources.files("service.loadtest") / "locustfile.py")


@contextmanager
def embedded_service(data_dir: str, threads: int) -> Iterator[str]:
    """`cardtable serve` with its own Redis and worker on a free loopback port; yields its URL
    once /readyz answers, and stops it (Ctrl-C, as a person would) on the way out."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # never someone's Redis
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data-dir", data_dir,
         "--threads", str(threads)],
        env=env, start_new_session=True,
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


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False
