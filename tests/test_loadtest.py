"""The load kit: `cardtable loadtest` runs the shipped locustfile headless (docs/loadtest.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from service.cli.loadtest import locustfile
from tests.serve_helpers import ROOT

PROGRESS = re.compile(
    r"^progress +\d+s: \d+ users, \d+ matches finished \(\d+ ended otherwise\), "
    r"\d+ requests, \d+ failed$",
    re.M,
)


def loadtest(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`cardtable loadtest` as a user runs it (its own embedded service, unless --host)."""
    full_env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    full_env.update(PYTHONPATH=ROOT, **env)
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "loadtest", *args],
        cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


@pytest.mark.slow
def test_loadtest_smoke_run_plays_with_zero_failures_waits_out_429_and_prints_only_its_own_lines(
    tmp_path,
):
    """A CI-sized run (4 players, 20 s) against the embedded service, whose rate limit is set so
    low that the players meet 429s: they wait as Retry-After says, so nothing fails. The terminal
    shows progress lines and the summary, at most 100 lines in all; the service's own output
    (RQ's lines per job among it) goes to the log file the command names."""
    service_log = tmp_path / "service.log"
    done = loadtest(
        "--users", "4", "--spawn-rate", "4", "--run-time", "20s", "--think", "0.02,0.1",
        "--progress-every", "2", "--service-log", str(service_log),
        CARDTABLE_RATE_LIMIT="4", CARDTABLE_LOAD_SEAT_WAIT="10",
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

    # Quiet: its own progress and summary only, nothing from the service or locust's INFO log.
    assert len(out.splitlines()) <= 100, out
    assert len(PROGRESS.findall(out)) >= 2, out
    assert "Job OK" not in out and "rq.worker" not in out and "/INFO/" not in out, out
    # The log's path is shown at the start and at the end, and the log is the service's.
    assert out.count(f"embedded cardtable service's log: {service_log}") == 2, out
    host = re.search(r"^load test against an embedded cardtable service at (\S+)$", out, re.M)
    assert host, out
    assert f"cardtable serving on {host.group(1)}" in service_log.read_text(), out


def test_loadtest_shows_the_end_of_the_service_log_when_the_service_does_not_start(tmp_path):
    """A setting the service refuses stops it at start: the command says so and shows the end
    of the service's log, where the reason is."""
    service_log = tmp_path / "service.log"
    done = loadtest("--run-time", "5s", "--service-log", str(service_log), CARDTABLE_RATE_LIMIT="many")
    assert done.returncode != 0
    assert "did not start" in done.stderr and str(service_log) in done.stderr, done.stderr
    assert "cardtable: CARDTABLE_RATE_LIMIT must be an integer, not 'many'" in done.stderr, done.stderr
    assert "Aggregated" not in done.stdout + done.stderr


def test_loadtest_refuses_a_service_log_with_a_host(tmp_path):
    """--service-log names the embedded service's log: with --host there is none to write."""
    done = loadtest("--host", "http://127.0.0.1:9", "--service-log", str(tmp_path / "service.log"))
    assert done.returncode != 0 and "--service-log" in done.stderr, done.stderr
    assert not (tmp_path / "service.log").exists()


@pytest.mark.slow
def test_loadtest_tournament_64_players_play_3_swiss_rounds_and_every_feed_hears_of_each(tmp_path):
    """The tournament scenario against the embedded service (its own Redis and workers): 64
    players made with a new app's key, joined at once, 3 Swiss rounds of Zhol played through their
    feeds. Every round has 32 matches, every feed delivered 3 round starts and the end, no request
    failed, and the report gives the round-to-notice percentiles (measured, not asserted)."""
    done = loadtest(
        "--scenario", "tournament", "--users", "64", "--rounds", "3", "--run-time", "150s",
        "--progress-every", "2", "--service-log", str(tmp_path / "service.log"),
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert re.search(r"^Tournament t[0-9a-f]{15} \(zhol, swiss, 64 players, 3 rounds\)$", out, re.M), out
    assert "tournament finished: total wall time" in out, out[-4000:]
    for number in (1, 2, 3):
        assert re.search(rf"^round {number}: 32 matches, 0 byes, last match over", out, re.M), out[-4000:]
    assert "feeds: 64 of 64 got 3 round starts and 1 tournament.over" in out, out[-4000:]
    # Rounds 2 and 3 to each of the 64 players; the end to each of them.
    assert re.search(r"^round-to-notice \(128 notices\): p50 \d+ ms, p95 \d+ ms, max \d+ ms$", out, re.M), out
    assert re.search(r"^over-to-notice \(64 notices\): p50 \d+ ms, p95 \d+ ms, max \d+ ms$", out, re.M), out
    requests = re.search(r"^requests (\d+), failed (\d+)$", out, re.M)
    assert requests and int(requests.group(1)) > 64 * 3 and requests.group(2) == "0", out[-4000:]
    aggregated = re.search(r"^\s+Aggregated\s+(\d+)\s+(\d+)\(", out, re.M)
    assert aggregated and aggregated.group(2) == "0", out[-4000:]
    # Each player joined with its own token and played its matches through the feed.
    for row in ("POST     /v1/tournaments/{id}/join", "GET      /v1/me/events (long-poll)"):
        assert row in out, row


def test_loadtest_tournament_against_a_host_needs_an_app_key():
    done = loadtest("--scenario", "tournament", "--host", "http://127.0.0.1:9", CARDTABLE_LOAD_APP_KEY="")
    assert done.returncode != 0 and "--app-key" in done.stderr, done.stderr


def test_locust_files_ship_inside_the_package():
    for name, user in (
        ("locustfile.py", "class Player(Client)"),
        ("tournament.py", "class TournamentPlayer(Client)"),
    ):
        path = locustfile(name)
        assert path.endswith(os.path.join("service", "cli", "loadtest", name)) and os.path.isfile(path)
        with open(path, encoding="utf-8") as f:
            assert user in f.read()
    assert os.path.isfile(os.path.join(os.path.dirname(locustfile()), "client.py"))  # what both import
