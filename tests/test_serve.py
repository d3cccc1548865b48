"""`cardtable serve` as the README runs it: embedded Redis, the RQ workers, gunicorn, over real HTTP."""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
import urllib.error
import urllib.request

import redis
from rq import Worker

from service.cli import build_parser
from service.cli.supervisor import cores
from tests.api_helpers import playable
from tests.serve_helpers import ROOT, cardtable_serve

__all__ = ["ROOT", "call"]  # other service tests start from these


def call(base, method, path, body=None, token=None):
    """One request as a well-behaved client makes it: a 429 is retried after its Retry-After
    (with fast bots, polling the view and the events can pass the default 100 requests/s)."""
    for _ in range(10):
        status, answer = _call_once(base, method, path, body, token)
        if status != 429:
            return status, answer
        time.sleep(float(answer["retry_after"]))
    return status, answer


def _call_once(base, method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, data, timeout=40) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        answer = json.loads(e.read())
        answer["retry_after"] = e.headers.get("Retry-After")
        return e.code, answer


def test_serve_plays_a_hand_against_bots_and_stops_on_ctrl_c(tmp_path):
    with cardtable_serve(str(tmp_path)) as (proc, base):
        seats = [{"kind": "human", "name": "Ana"}] + [{"kind": "bot", "level": "easy"}] * 3
        status, created = call(base, "POST", "/v1/matches", {"game": "spades", "seats": seats, "seed": 4})
        assert status == 201
        match_id, token = created["id"], created["seats"][0]["token"]
        rng = random.Random(4)
        seq = 0
        while True:
            status, view = call(base, "GET", f"/v1/matches/{match_id}", token=token)
            if view["status"] != "active":
                break
            if view["turn"]["seat"] == 0:
                status, view = call(
                    base, "POST", f"/v1/matches/{match_id}/actions", rng.choice(playable(view)), token
                )
                assert status == 200, view
            else:
                status, events = call(
                    base, "GET", f"/v1/matches/{match_id}/events?after={seq}&wait=5", token=token
                )
                assert status == 200
                seq = events["events"][-1]["seq"] if events["events"] else seq
        assert view["status"] == "round_over"
        assert sum(p["tricks"] for p in view["players"]) == 13
    assert proc.returncode == 0
    # The embedded Redis kept an append-only file, and no child outlived Ctrl-C.
    assert any("appendonly" in name for name in os.listdir(tmp_path / "redis"))
    alive = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert alive == []


def test_serve_runs_one_bot_worker_a_core_unless_told_how_many(tmp_path):
    """A bot worker's jobs are CPU only (a pro's floor waits in a thread of it), so `serve` runs
    one a core by default; `--bot-workers` sets it, beside the one webhooks worker."""
    assert build_parser().parse_args(["serve"]).bot_workers == cores()
    with cardtable_serve(str(tmp_path), args=("--bot-workers", "3")):
        client = redis.Redis.from_url((tmp_path / "redis.url").read_text().strip())
        deadline = time.monotonic() + 60
        while True:
            queues = [w.queue_names() for w in Worker.all(connection=client)]
            if len(queues) == 4:
                break
            assert time.monotonic() < deadline, queues
            time.sleep(0.2)
        assert sorted(q[0] for q in queues) == ["cardtable"] * 3 + ["cardtable-webhooks"]
