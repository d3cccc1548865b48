"""The outbox: a process killed between its commit and the hand-off of what the commit caused
(a bot's turn, a turn clock) loses nothing; the relay on the workers hands it on.

Each test kills a real process (`kill -9` of itself, at the one moment between the commit and
the enqueue) and runs a real `cardtable worker` whose sweeper is held back for an hour, so
only the relay can save the match.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import redis

from service.config import Config
from service.http.app import create_app
from service.identity.callers import identify
from service.matches.outbox import OUTBOX_KEY
from tests.conftest import ROOT, worker_env
from tests.test_healing import (
    counters,
    private_redis,
    replay_all,
    service,
    spawn_worker,
    wait_finished,
    wait_for,
)

__all__ = ["private_redis"]  # the fixtures this module borrows

# The sweeper would recover a lost bot turn too, after its grace: an hour here, so it does not.
RELAY_ONLY = {
    "CARDTABLE_SWEEP_GRACE": "3600",
    "CARDTABLE_SWEEP_INTERVAL": "0.5",
    "CARDTABLE_OUTBOX_GRACE": "0.5",
}

# Run in a process of its own: make the change `CHANGE`, dying by SIGKILL the moment its
# commit is stored, before anything is handed to the workers.
DIES_AFTER_COMMIT = """
import os, signal, sys
from service.config import Config
from service.bootstrap import build_service
from service.matches.repository import MatchRepository

svc = build_service(Config(REDIS_URL=sys.argv[1], RATE_LIMIT=0))
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
# Every effect of a commit is handed on through this one method: bot turns, clocks, ratings.
MatchRepository.hand_on = killed
{change}
raise SystemExit("the commit handed nothing on")
"""


def die_after_commit(url: str, change: str) -> None:
    code = DIES_AFTER_COMMIT.format(change=change)
    done = subprocess.run([sys.executable, "-c", code, url], env=worker_env(url), cwd=ROOT, timeout=60)
    assert done.returncode == -9, "the process was to be killed right after its commit"


def outbox_of(client: redis.Redis, match_id: str) -> list[bytes]:
    return client.lrange(f"ct:{{m:{match_id}}}:outbox", 0, -1)


def job_exists(client: redis.Redis, job_id: str) -> bool:
    return bool(client.exists(f"rq:job:{job_id}"))


@pytest.mark.slow
def test_a_bot_turn_committed_by_a_process_killed_before_its_enqueue_is_relayed(private_redis, procs):
    client = redis.Redis.from_url(private_redis)
    seats = "[{'kind': 'bot', 'level': 'hard'}] * 4"
    die_after_commit(
        private_redis,
        f"svc.create({{'game': 'spades', 'seats': {seats}, 'options': {{'target_score': 50}}, 'seed': 3}})",
    )
    # The commit stands, with its effect in the outbox and the outbox in the relay's index;
    # the job itself never reached RQ.
    (entry,) = client.zrange(OUTBOX_KEY, 0, -1)
    match_id, _, version = entry.decode().partition(":")
    svc = service(private_redis)
    assert version == "0" and svc.load(match_id).version == 0
    assert len(outbox_of(client, match_id)) == 1
    assert not job_exists(client, f"bot-{match_id}-0")

    spawn_worker(procs, private_redis, **RELAY_ONLY)
    wait_finished(svc, [match_id])
    replay_all(svc, [match_id])
    seen = counters(private_redis)
    # Exactly the lost turn was relayed: the worker's own commits handed theirs on themselves.
    assert seen.get("outbox_relayed") == 1 and seen.get("sweeper_requeues", 0) == 0
    wait_for(
        lambda: client.zcard(OUTBOX_KEY) == 0 and not outbox_of(client, match_id), 10, "the outbox to empty"
    )


@pytest.mark.slow
def test_a_turn_clock_started_by_a_process_killed_before_its_enqueue_still_runs_out(private_redis, procs):
    client = redis.Redis.from_url(private_redis)
    svc = service(private_redis)
    body = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}], "options": {"turn_seconds": 5}}
    match_id = svc.create(body)["id"]
    # The join that fills the table deals and starts the first turn's clock.
    die_after_commit(private_redis, f"svc.join({match_id!r}, 'Bo')")
    match = svc.load(match_id)
    clock = match.record["clock"]
    assert match.status() == "active" and clock is not None
    assert not job_exists(client, f"clock-{match_id}-{clock['turn']}")

    spawn_worker(procs, private_redis, **RELAY_ONLY)
    started = time.monotonic()
    wait_for(
        lambda: any(e.get("auto") for e in svc.store.events(match_id, 0)), 30, "the turn clock to run out"
    )
    # Not before its deadline: the relay hands the clock on, it does not play it.
    assert time.time() >= clock["deadline"]
    assert counters(private_redis).get("outbox_relayed") == 1
    metrics = create_app(Config(REDIS_URL=private_redis)).test_client().get("/metrics").get_data(as_text=True)
    assert "cardtable_outbox_relayed_total 1" in metrics.splitlines()
    print(f"clock played {time.monotonic() - started:.1f} s after the worker started")


def test_the_ratings_of_a_rated_match_ended_by_a_process_killed_before_storing_them_are_relayed(
    private_redis,
):
    from service.identity.apps import Apps
    from workers.relay import relay

    svc = service(private_redis)
    app, key = Apps(svc.trips.state).create("rated")
    tokens = {p: svc.players.put(app.id, p, p.title(), None)[1] for p in ("ana", "bo")}
    seats = [{"kind": "human", "player": p} for p in ("ana", "bo")]
    body = {"game": "zhol", "seats": seats, "options": {"rated": True}}
    match_id = svc.create(body, identify(svc.apps, svc.players, key, None))["id"]
    # Bo resigns in a process that dies right after the commit that ends the match.
    die_after_commit(private_redis, f"svc.act({match_id!r}, {tokens['bo']!r}, {{'type': 'resign'}})")
    over = [e for e in svc.store.events(match_id, 0) if e["type"] == "match_over"]
    assert over and over[0]["ratings"]["0"]["after"]["rating"] > 0
    assert svc.players.rating(svc.players.find(app.id, "ana").id, "zhol") == 0.0
    # The relay (here called as the housekeeper calls it, once its grace has passed) stores them.
    relay(svc, now=time.time() + 60)
    ana = svc.players.find(app.id, "ana")
    assert svc.players.rating(ana.id, "zhol") == over[0]["ratings"]["0"]["after"]["rating"]
    page = svc.leaderboards.page(app.id, "zhol", 10)
    assert [p["player"] for p in page["players"]] == ["ana", "bo"]
    assert not outbox_of(redis.Redis.from_url(private_redis), match_id)


@pytest.mark.slow
def test_the_notices_of_a_move_by_a_process_killed_before_handing_on_reach_each_feed_exactly_once(
    private_redis,
):
    from service.identity.apps import Apps
    from workers.relay import relay

    svc = service(private_redis)
    app, key = Apps(svc.trips.state).create("feeds")
    tokens = {p: svc.players.put(app.id, p, p.title(), None)[1] for p in ("ana", "bo")}
    seats = [{"kind": "human", "player": p} for p in ("ana", "bo")]
    match_id = svc.create({"game": "zhol", "seats": seats}, identify(svc.apps, svc.players, key, None))["id"]
    # Bo resigns in a process that dies right after its commit, handing nothing on.
    die_after_commit(private_redis, f"svc.act({match_id!r}, {tokens['bo']!r}, {{'type': 'resign'}})")
    feeds = {p: svc.players.find(app.id, p).id for p in ("ana", "bo")}

    def kinds(player: str) -> list[str]:
        entries, last = svc.feeds.since(feeds[player], 0, 100)
        assert [e["seq"] for e in entries] == list(range(1, last + 1))
        return [e["type"] for e in entries]

    # On one Redis the commit's own script wrote the feeds: nothing waited for the hand-off.
    told = ["match.created", "match.started", "match.over"]
    assert kinds("bo") == told and kinds("ana")[-1] == "match.over"
    before = kinds("ana")
    # The relay hands the notify effect on again (here as the housekeeper calls it, once its
    # grace has passed): every feed keeps each notice once, and the outbox is emptied.
    relay(svc, now=time.time() + 60)
    relay(svc, now=time.time() + 60)
    assert kinds("bo") == told and kinds("ana") == before
    assert not outbox_of(redis.Redis.from_url(private_redis), match_id)
