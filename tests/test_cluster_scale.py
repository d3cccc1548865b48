"""Two API processes (real gunicorn) and two workers on the cluster, scripted clients that send
each request to either process: every match ends, every history replays through the engine,
no version is applied twice."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from engines import bots
from engines.registry import GAMES
from service.infra.embedded import free_port
from tests.api_helpers import bot_input
from tests.conftest import ROOT
from tests.replay import replay
from tests.serve_helpers import wait_ready
from tests.test_cluster import start_workers

pytestmark = pytest.mark.slow


def call(base: str, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def two_apis(queue_url, redis_cluster):
    env = dict(os.environ, REDIS_URL=queue_url, CARDTABLE_STATE_URL=redis_cluster.url, PYTHONPATH=ROOT)
    env.update(CARDTABLE_RATE_LIMIT="0", CARDTABLE_LOG_LEVEL="WARNING", CARDTABLE_BOT_DELAY="0")
    procs, bases = [], []
    for _ in range(2):
        port = free_port()
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        command += ["--workers", "1", "--threads", "4"]
        procs.append(subprocess.Popen(command, env=env, cwd=ROOT, start_new_session=True))
        bases.append(f"http://127.0.0.1:{port}")
    workers = start_workers(queue_url, redis_cluster.url)
    try:
        for proc, base in zip(procs, bases, strict=True):
            wait_ready(proc, base, 60)
        yield bases
    finally:
        for proc in [*procs, *workers]:
            proc.send_signal(signal.SIGINT if proc in procs else signal.SIGTERM)
        for proc in [*procs, *workers]:
            proc.wait(30)


def play(bases: list[str], seed: int, out: dict) -> None:
    """One person against three bots, to 50 points; each request goes to a random API process."""
    rng = random.Random(seed)
    seats = [{"kind": "human", "name": "P"}] + [{"kind": "bot", "level": "easy"}] * 3
    body = {"game": "spades", "seats": seats, "seed": seed, "options": {"target_score": 50}}
    status, created = call(rng.choice(bases), "POST", "/v1/matches", body)
    assert status == 201, created
    match_id, token = created["id"], created["seats"][0]["token"]
    deadline, seen = time.monotonic() + 240, 0
    while time.monotonic() < deadline:
        status, view = call(rng.choice(bases), "GET", f"/v1/matches/{match_id}", token=token)
        assert status == 200, view
        if view["status"] == "finished":
            out[match_id] = (view["version"], token)
            return
        if view["status"] == "round_over":
            status, answer = call(rng.choice(bases), "POST", f"/v1/matches/{match_id}/rounds", token=token)
        elif view["turn"]["seat"] == 0:
            action = bots.decide(GAMES["spades"], bot_input(view), "easy", rng)
            status, answer = call(rng.choice(bases), "POST", f"/v1/matches/{match_id}/actions", action, token)
        else:  # a bot's turn: wait for its move on the other process
            path = f"/v1/matches/{match_id}/events?after={seen}&wait=2"
            status, answer = call(rng.choice(bases), "GET", path, token=token)
            seen = answer["events"][-1]["seq"] if status == 200 and answer["events"] else seen
        assert status in (200, 409), answer  # 409: the round moved on between view and request
    raise AssertionError(f"match {match_id} did not finish")


def test_two_apis_and_two_workers_finish_every_match_and_histories_replay(two_apis):
    finished: dict[str, tuple[int, str]] = {}  # match id -> its final version, the seat's token
    errors: list[BaseException] = []

    def run(seed: int) -> None:
        try:
            play(two_apis, seed, finished)
        except BaseException as e:  # reported below, with the others
            errors.append(e)

    threads = [threading.Thread(target=run, args=(100 + i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(finished) == 4
    for i, (match_id, (version, token)) in enumerate(finished.items()):
        status, history = call(two_apis[i % 2], "GET", f"/v1/matches/{match_id}/history", token=token)
        assert status == 200 and history["version"] == version
        assert replay(history) == version  # every version applied exactly once
