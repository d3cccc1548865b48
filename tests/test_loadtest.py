"""The load kit: `cardtable loadtest` runs the shipped locustfile headless (docs/loadtest.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from service.loadtest import locustfile
from tests.serve_helpers import ROOT


@pytest.mark.slow
def test_loadtest_smoke_run_plays_with_zero_failures_and_waits_out_429():
    """A CI-sized run (4 players, 30 s) against the embedded service, whose rate limit is set so
    low that the players meet 429s: they wait as Retry-After says, so nothing fails."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PYTHONPATH=ROOT, CARDTABLE_RATE_LIMIT="4", CARDTABLE_LOAD_SEAT_WAIT="10")
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "loadtest", "--users", "4", "--spawn-rate", "4",
         "--run-time", "30s", "--think", "0.02,0.1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    aggregated = re.search(r"^\s+Aggregated\s+(\d+)\s+(\d+)\(", out, re.M)
    assert aggregated, out[-4000:]
    assert int(aggregated.group(1)) > 50 and aggregated.group(2) == "0"
    # The players sat down, moved and followed the match by long-polling its events.
    for row in ("POST     /v1/matches/{id}/actions", "GET      /v1/matches/{id}/events (long-poll)"):
        assert row in out, row
    assert re.search(r"^GET\s+/v1/matches/\{id\}(/events \(long-poll\))? \(429\)", out, re.M), out[-4000:]
    assert "Matches played" in out and re.search(r"^Total\s+\d+", out, re.M)


def test_locustfile_ships_inside_the_package():
    path = locustfile()
    assert path.endswith(os.path.join("service", "loadtest", "locustfile.py")) and os.path.isfile(path)
    with open(path, encoding="utf-8") as f:
        assert "FastHttpUser" in f.read()
