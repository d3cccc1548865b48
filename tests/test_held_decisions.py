"""A held decision holds no worker (docs/architecture.md, "Held decisions"): a pro's floor in a
match with a person is waited out in a thread of the worker, never in its job, and is still a
rule; and a worker killed while it holds decisions loses none of the tables it served.

Every test here runs its own redis-server and `cardtable worker` processes, since it kills them
or reads their logs.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

import pytest
import redis

from engines.registry import GAMES
from service.bootstrap import MatchService, build_service
from service.config import Config
from service.infra.counters import Counters
from service.infra.embedded import start_redis
from service.matches.bots import PRO_FLOOR
from tests.conftest import ROOT, UNLIMITED_MATCHES, worker_env
from tests.replay import replay
from tests.webhook_helpers import until

SPADES = GAMES["spades"]
TABLES = 16
# Floors stretched to 3 s (Spades' 0.1 s × 30): long enough to kill a worker under them. The
# sweeper looks often and forgives little, but more than a floor (as the defaults do: 5 s against
# 0.5 s at most), and the relay waits longer still, so the killed worker's decisions come back
# through the sweeper alone.
HELD = {"BOT_FLOOR_SCALE": 30.0, "SWEEP_GRACE": 4.0, "SWEEP_INTERVAL": 0.5, "OUTBOX_GRACE": 60.0}


@pytest.fixture
def redis_url(tmp_path, procs):
    proc, url = start_redis(str(tmp_path / "redis"), persist=False)
    procs.append(proc)
    return url


def spawn_worker(procs: list, url: str, log_path: str | None = None, **extra: str) -> subprocess.Popen:
    """`cardtable worker`; with `log_path`, its DEBUG lines as JSON into that file."""
    env = worker_env(url, **extra)
    if log_path is not None:
        env.update(CARDTABLE_LOG_LEVEL="DEBUG", CARDTABLE_LOG_FORMAT="json")
    out = open(log_path, "w") if log_path is not None else None  # noqa: SIM115 (the process owns it)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT, stderr=out, stdout=out
    )
    procs.append(proc)
    return proc


def wait_registered(url: str, n: int) -> None:
    from rq import Worker

    until(lambda: Worker.count(connection=redis.Redis.from_url(url)) >= n, 30, "the workers to start")


def pro_tables(svc: MatchService, n: int) -> dict[str, str]:
    """`n` Spades matches of one person (seat 0) against three pros, each with its person's
    token. Seat 1 bids first: every table starts on a pro's decision."""
    seats = [{"kind": "human"}, *({"kind": "bot", "level": "pro"} for _ in range(3))]
    tables = {}
    for seed in range(n):
        created = svc.create({"game": "spades", "seats": seats, "options": {"first_dealer": 0}, "seed": seed})
        tables[created["id"]] = created["seats"][0]["token"]
    return tables


def play_people(svc: MatchService, tables: dict[str, str]) -> None:
    """Every person whose turn it is makes their first legal move (or starts the next round)."""
    for match_id, token in tables.items():
        match = svc.load(match_id)
        status = match.status()
        if status == "round_over":
            svc.start_round(match_id, token)
        elif status == "active" and match.step is not None and match.step.to_move == 0:
            svc.act(match_id, token, SPADES.legal_actions(match.record["state"], 0)[0])


def floored_commits(log_path: str) -> list[dict[str, Any]]:
    with open(log_path) as f:
        lines = [json.loads(line) for line in f if line.startswith("{")]
    return [ln for ln in lines if ln["message"].startswith("pro decision committed")]


def test_no_pro_decision_is_committed_before_its_floor_with_16_tables_at_once(tmp_path, redis_url, procs):
    """Sixteen people play at once against three pros each, on two workers whose held decisions
    wait in a thread: every pro decision is committed no sooner than the Spades floor after RQ
    started its job (both times as stored: RQ's `started_at`, the moment the commit began)."""
    logs = [str(tmp_path / f"worker{i}.log") for i in range(2)]
    workers = [spawn_worker(procs, redis_url, path) for path in logs]
    wait_registered(redis_url, 2)
    svc = build_service(Config(REDIS_URL=redis_url, RATE_LIMIT=0, **UNLIMITED_MATCHES))
    tables = pro_tables(svc, TABLES)
    # Every table through its bidding and well into the first hand: 3 bids and 12 cards a pro.
    until(lambda: play_people(svc, tables) or all(svc.load(m).version >= 30 for m in tables), 300, "play")
    for w in workers:  # a stopped worker commits what it holds, then exits: every line is written
        w.send_signal(signal.SIGTERM)
    for w in workers:
        assert w.wait(30) == 0
    commits = [c for path in logs for c in floored_commits(path)]
    decided = Counters(redis.Redis.from_url(redis_url), 1).metrics()["bot_decision_seconds.pro_count"]
    assert len(commits) == decided >= TABLES * 20
    assert {c["match_id"] for c in commits} == set(tables)
    for c in commits:
        assert c["floor"] == PRO_FLOOR["spades"]
        assert c["committing"] - c["job_started"] >= c["floor"], c


def test_a_worker_killed_while_16_tables_decisions_wait_loses_no_table(tmp_path, redis_url, procs):
    """Sixteen tables each wait on a pro whose floor is stretched to 3 s. Both workers take
    every job at once and hold the decisions (no job waits in the queue while none is
    committed: a worker that slept its floors would take one job at a time). One worker is then
    killed with kill -9: the other's decisions are committed at their floor, the killed one's
    come back through the sweeper, and every table plays on to its person's turn; resigned, each
    match's history replays with every version made exactly once."""
    env = {f"CARDTABLE_{k}": str(v) for k, v in HELD.items()}
    first, _ = (spawn_worker(procs, redis_url, None, **env) for _ in range(2))
    wait_registered(redis_url, 2)
    client = redis.Redis.from_url(redis_url)
    svc = build_service(Config(REDIS_URL=redis_url, RATE_LIMIT=0, **HELD, **UNLIMITED_MATCHES))  # type: ignore[arg-type]
    tables = pro_tables(svc, TABLES)
    until(lambda: client.llen("rq:queue:cardtable") == 0, 60, "the workers to take every table's job")
    assert {m: svc.load(m).version for m in tables} == dict.fromkeys(tables, 0)  # all held, none committed
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    # Three pros bid (first_dealer 0: seats 1, 2, 3), then it is the person's turn.
    until(lambda: all(svc.load(m).step.to_move == 0 for m in tables), 120, "every table's pros to bid")
    assert Counters(client, 1).metrics().get("sweeper_requeues", 0) >= 1  # the killed worker's
    for match_id, token in tables.items():
        svc.act(match_id, token, {"type": "resign"})
        assert replay(svc.history(match_id, None)) == svc.load(match_id).version == 4
