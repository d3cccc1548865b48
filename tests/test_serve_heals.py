"""`cardtable serve` in embedded mode heals: its Redis and its worker are restarted when they die."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.serve_helpers import cardtable_serve, wait_ready
from tests.test_serve import call


def children(proc: subprocess.Popen) -> dict[int, str]:
    """The direct children of `serve`: pid -> command line."""
    pids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    out = {}
    for pid in map(int, pids):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                out[pid] = f.read().replace(b"\0", b" ").decode()
        except FileNotFoundError:
            pass
    return out


def child_pid(proc: subprocess.Popen, word: str, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while True:
        found = [pid for pid, cmd in children(proc).items() if word in cmd]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"serve runs no {word!r} child"
        time.sleep(0.1)


def play_bot_match(base: str, seed: int) -> str:
    seats = [{"kind": "bot", "level": "easy"}] * 4
    body = {"game": "spades", "seats": seats, "options": {"target_score": 50}, "seed": seed}
    status, created = call(base, "POST", "/v1/matches", body)
    assert status == 201, created
    return created["id"]


def wait_finished(base: str, match_id: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while call(base, "GET", f"/v1/matches/{match_id}")[1]["status"] != "finished":
        assert time.monotonic() < deadline, "the bots stopped playing"
        time.sleep(0.3)


@pytest.mark.slow
def test_serve_restarts_its_embedded_redis_and_worker_when_they_die(tmp_path):
    with cardtable_serve(str(tmp_path)) as (proc, base):
        before = play_bot_match(base, 1)
        wait_finished(base, before, 60)
        time.sleep(1.5)  # the append-only file is written to disk every second
        redis_pid = child_pid(proc, "redis-server")
        os.kill(redis_pid, signal.SIGKILL)
        wait_for_new = time.monotonic() + 30
        while child_pid(proc, "redis-server") == redis_pid:
            assert time.monotonic() < wait_for_new, "serve did not restart its Redis"
            time.sleep(0.1)
        wait_ready(proc, base, 30)
        # Same data directory: the match played before is still there.
        assert call(base, "GET", f"/v1/matches/{before}")[1]["status"] == "finished"
        worker_pid = child_pid(proc, "service.cli worker")
        os.kill(worker_pid, signal.SIGKILL)
        while child_pid(proc, "service.cli worker") == worker_pid:
            assert time.monotonic() < wait_for_new + 30, "serve did not restart its worker"
            time.sleep(0.1)
        after = play_bot_match(base, 2)
        wait_finished(base, after, 60)
        assert proc.poll() is None
    assert proc.returncode == 0
    alive = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert alive == [], "a child outlived Ctrl-C"
