"""Shared fixtures: a private real Redis server and real RQ workers for the test run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import pytest
import redis

from service.config import Config
from service.infra.embedded import start_redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The whole run creates its matches from one address: the per-address limits on live matches
# are tested with apps of their own (tests/test_caller_limits.py).
UNLIMITED_MATCHES = {
    "ANONYMOUS_LIVE_MATCHES": 100_000,
    "ANONYMOUS_BOT_MATCHES": 100_000,
    "ANONYMOUS_WAITING_MATCHES": 100_000,
}


@pytest.fixture(scope="session")
def redis_url():
    """A private redis-server on a free port: never the machine's own Redis on 6379."""
    data = tempfile.mkdtemp(prefix="cardtable-test-redis-")
    proc, url = start_redis(data, persist=False)
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="session")
def config(redis_url):
    return Config(
        REDIS_URL=redis_url, ALLOW_STACKED_DECK=True, BOT_DELAY=0.0, RATE_LIMIT=0, **UNLIMITED_MATCHES
    )


def worker_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a `cardtable` process on `redis_url`: without the per-address limits on
    live matches (UNLIMITED_MATCHES), since every test's matches come from one address, unless
    `extra` sets them."""
    env = dict(os.environ)
    unlimited = {f"CARDTABLE_{name}": str(n) for name, n in UNLIMITED_MATCHES.items()}
    env.update(REDIS_URL=redis_url, CARDTABLE_BOT_DELAY="0", CARDTABLE_LOG_LEVEL="WARNING", **unlimited)
    env.update(extra)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture
def procs():
    """Processes a test starts; whatever is still running at the end is killed."""
    started: list[subprocess.Popen] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
            p.wait(10)


@pytest.fixture(scope="session")
def worker(redis_url):
    """Two real RQ workers (with the scheduler) running `cardtable worker` against the private Redis."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"],
            env=worker_env(redis_url),
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    client = redis.Redis.from_url(redis_url)
    from rq import Worker

    deadline = time.monotonic() + 30
    while Worker.count(connection=client) < len(procs):
        assert time.monotonic() < deadline, "RQ workers did not start"
        assert all(p.poll() is None for p in procs), "an RQ worker exited"
        time.sleep(0.1)
    yield procs
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(10)


@pytest.fixture(scope="session")
def app(config):
    from service.http.app import create_app

    return create_app(config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def redis_cluster():
    """A real 6-node Redis Cluster (3 masters, 3 replicas) for the cluster tests."""
    from tests.cluster_helpers import running_cluster

    yield from running_cluster()


@pytest.fixture(scope="module")
def queue_url():
    """The queue's own Redis beside a state cluster: RQ and the due index never live there."""
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-queue-"), persist=False)
    yield url
    proc.terminate()
    proc.wait(10)
