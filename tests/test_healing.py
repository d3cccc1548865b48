"""No match stalls: real workers are killed, Redis goes away, enqueues are lost, bots raise.

Every test here runs its own redis-server and `cardtable worker` processes, since it kills them.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time

import pytest
import redis

from engines import bots as engine_bots
from engines.registry import GAMES
from service.bootstrap import MatchService, build_service
from service.config import Config
from service.http.app import create_app
from service.infra.counters import Counters
from service.infra.embedded import start_redis
from service.infra.jobqueue import JobQueue, make_queue
from service.infra.roundtrips import RoundTrips
from tests.conftest import ROOT, worker_env
from tests.replay import replay
from tests.webhook_helpers import until as wait_for  # poll until true (tests/test_outbox.py too)

LOCK_KEY = "rq:scheduler-lock:cardtable"
# A sweeper that looks often and forgives little, so that the tests are short.
FAST_SWEEP = {"CARDTABLE_SWEEP_GRACE": "2", "CARDTABLE_SWEEP_INTERVAL": "0.5"}


@pytest.fixture
def private_redis(tmp_path, procs):
    """A redis-server of this test alone, with an append-only file so it can be restarted."""
    proc, url = start_redis(str(tmp_path / "redis"), persist=True)
    procs.append(proc)
    return url


def spawn_worker(procs: list, url: str, **extra: str) -> subprocess.Popen:
    env = worker_env(url)
    env.update(extra)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"], env=env, cwd=ROOT
    )
    procs.append(proc)
    return proc


def service(url: str, **config) -> MatchService:
    return build_service(Config(REDIS_URL=url, RATE_LIMIT=0, **config))


def bot_match(svc: MatchService, seed: int) -> str:
    """Four hard bots to 50 points: one hand of Spades (about 56 changes) in most deals, rarely
    more than three. Easy bots fail their bids too often: their matches can run to 12 hands."""
    seats = [{"kind": "bot", "level": "hard"}] * 4
    return svc.create({"game": "spades", "seats": seats, "options": {"target_score": 50}, "seed": seed})["id"]


def wait_finished(svc: MatchService, match_ids: list[str], stall: float = 30, cap: float = 300) -> None:
    """Wait until every match has finished; fail as soon as one has not moved for `stall` seconds.

    A stall is what these tests look for; a slow but moving match (a loaded CI machine, a long
    deal) is not one, so the overall `cap` is only there to end a test that never converges.
    """
    start = time.monotonic()
    last_seen: dict[str, tuple[int, float]] = {}
    left = set(match_ids)
    while left:
        now = time.monotonic()
        for m in list(left):
            match = svc.load(m)
            if match.record["state"]["status"] == "finished":
                left.discard(m)
            elif last_seen.get(m, (None, 0.0))[0] != match.version:
                last_seen[m] = (match.version, now)
        stalled = {m: last_seen[m][0] for m in left if now - last_seen[m][1] > stall}
        assert not stalled, f"matches stalled for {stall} s at versions {stalled}"
        assert now - start < cap, f"matches still moving after {cap} s: {[last_seen[m] for m in left]}"
        time.sleep(0.2)


def replay_all(svc: MatchService, match_ids: list[str]) -> None:
    for m in match_ids:
        assert replay(svc.history(m, None)) == svc.load(m).version


def counters(url: str) -> dict[str, float]:
    return Counters(redis.Redis.from_url(url), 1).metrics()


def lock_holder(client: redis.Redis) -> int | None:
    value = client.get(LOCK_KEY)
    return int(value.decode().split(":")[1]) if value else None


@pytest.mark.slow
def test_matches_finish_exactly_once_after_a_worker_is_killed_mid_bot_play(private_redis, procs):
    svc = service(private_redis, BOT_DELAY=0.1, SWEEP_GRACE=2)
    first = spawn_worker(procs, private_redis, CARDTABLE_BOT_DELAY="0.1", **FAST_SWEEP)
    match_ids = [bot_match(svc, seed) for seed in range(4)]
    # Kill the worker while bot turns are queued, scheduled and running.
    wait_for(lambda: all(svc.load(m).version >= 3 for m in match_ids), 30, "bot play to start")
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    stalled = {m: svc.load(m).version for m in match_ids}
    # The new worker's own bot moves are not delayed, to keep the test short; the jobs the dead
    # one left scheduled are still released by the scheduler the new one runs.
    spawn_worker(procs, private_redis, **FAST_SWEEP)
    wait_finished(svc, match_ids)
    assert all(svc.load(m).version > stalled[m] for m in match_ids)
    replay_all(svc, match_ids)
    assert counters(private_redis).get("bot_fallbacks", 0) == 0
    # Finished matches leave the sweeper's index once it has looked at them.
    wait_for(lambda: svc.due.counts(time.time()) == (0, 0), 15, "the due index to empty")


@pytest.mark.slow
def test_scheduler_killed_is_replaced_and_delayed_moves_and_clocks_go_on(private_redis, procs):
    # The sweeper waits a minute here: only a new scheduler can keep these matches moving.
    slow_sweep = {"CARDTABLE_SWEEP_GRACE": "60", "CARDTABLE_BOT_DELAY": "1"}
    workers = [spawn_worker(procs, private_redis, **slow_sweep) for _ in range(2)]
    client = redis.Redis.from_url(private_redis)
    holder = wait_for(lambda: lock_holder(client), 20, "a worker to take the scheduler lock")
    (scheduler,) = [w for w in workers if w.pid == holder]
    (other,) = [w for w in workers if w.pid != holder]
    svc = service(private_redis, BOT_DELAY=1.0, SWEEP_GRACE=60)
    bots = bot_match(svc, 1)
    humans = [{"kind": "human"}] * 2
    clocked = svc.create({"game": "zhol", "seats": humans, "options": {"turn_seconds": 5}, "seed": 2})["id"]
    # Kill it between two bot moves, so that no bot job dies with it (that is the sweeper's
    # case, the test above): the next one waits in the scheduled registry.
    version = svc.load(bots).version
    wait_for(lambda: svc.load(bots).version > version, 10, "a delayed bot move")
    time.sleep(0.3)
    scheduler.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    version = svc.load(bots).version
    wait_for(lambda: lock_holder(client) == other.pid, 15, "another worker to take the scheduler over")
    print(f"scheduler replaced after {time.monotonic() - killed_at:.1f} s")
    left = 20 - (time.monotonic() - killed_at)
    wait_for(lambda: svc.load(bots).version >= version + 3, left, "delayed bot moves after the kill")
    left = 20 - (time.monotonic() - killed_at)
    wait_for(lambda: any(e.get("auto") for e in svc.store.events(clocked, 0)), left, "the turn clock")
    assert other.poll() is None


@pytest.mark.slow
def test_workers_ride_out_a_redis_restart_and_matches_continue(tmp_path, procs):
    data = str(tmp_path / "redis")
    redis_proc, url = start_redis(data, persist=True)
    procs.append(redis_proc)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    workers = [spawn_worker(procs, url, CARDTABLE_BOT_DELAY="0.1", **FAST_SWEEP) for _ in range(2)]
    svc = service(url, BOT_DELAY=0.1, SWEEP_GRACE=2)
    wait_for(lambda: lock_holder(svc.trips.queue), 20, "the workers to start")
    match_ids = [bot_match(svc, seed) for seed in range(10, 14)]
    wait_for(lambda: all(svc.load(m).version >= 2 for m in match_ids), 30, "bot play to start")
    redis_proc.terminate()  # a clean shutdown: the append-only file keeps every write
    redis_proc.wait(10)
    time.sleep(5)
    assert all(w.poll() is None for w in workers), "a worker exited while Redis was away"
    redis_proc, _ = start_redis(data, port=port, persist=True)
    procs.append(redis_proc)
    wait_finished(svc, match_ids)
    replay_all(svc, match_ids)
    assert all(w.poll() is None for w in workers)


def test_sweeper_enqueues_a_lost_bot_turn_again(private_redis, procs):
    spawn_worker(procs, private_redis, **FAST_SWEEP)
    config = Config(REDIS_URL=private_redis, RATE_LIMIT=0, SWEEP_GRACE=2)
    client = redis.Redis.from_url(private_redis)
    # The match's first bot turn goes to a queue no worker reads: as good as lost.
    lost = MatchService(RoundTrips(client), config, JobQueue(make_queue(client, "nobody-reads-this")))
    match_id = bot_match(lost, 7)
    assert lost.load(match_id).version == 0
    wait_finished(lost, [match_id])
    replay_all(lost, [match_id])
    assert counters(private_redis)["sweeper_requeues"] >= 1
    text = create_app(config).test_client().get("/metrics").get_data(as_text=True)
    requeues = [line for line in text.splitlines() if line.startswith("cardtable_sweeper_requeues_total ")]
    assert requeues and int(requeues[0].split()[1]) >= 1


def test_a_bot_that_raises_plays_a_random_legal_move_logged_and_counted(private_redis, monkeypatch, caplog):
    svc = service(private_redis)
    match_id = bot_match(svc, 3)
    state = svc.load(match_id).record["state"]
    game = GAMES["spades"]
    seat = game.to_move(state)
    secret = game.view(state, seat)["hand"][0]

    def broken_bot(game, view, level, rng):
        raise RuntimeError(f"cannot decide with {secret} in hand")

    monkeypatch.setattr(engine_bots, "decide", broken_bot)
    with caplog.at_level(logging.ERROR, logger="cardtable.matches"):
        assert svc.play_bot(match_id, 0) == "moved"
    loaded = svc.load(match_id)
    assert loaded.version == 1
    move = svc.store.events(match_id, 0)[-1]
    assert move["bot"] is True and move.get("seat") == seat
    assert counters(private_redis)["bot_fallbacks"] == 1
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    text = record.getMessage()
    assert "RuntimeError" in text and match_id in text
    assert secret not in text, "the log shows the bot's card"


def test_normal_play_has_no_fallbacks_and_times_every_bot_turn_and_decision(client, worker, redis_url):
    before = counters(redis_url)
    games = [
        ("zhol", 2, {"target_wins": 1}),
        ("zoliky", 2, {"target_wins": 1}),
        ("spades", 4, {"target_score": 50}),
        ("three-thirteen", 2, {}),
    ]
    svc = service(redis_url)
    match_ids = []
    for game, seats, options in games:
        body = {"game": game, "seats": [{"kind": "bot"}] * seats, "options": options, "seed": 9}
        resp = client.post("/v1/matches", json=body)
        assert resp.status_code == 201, resp.get_json()
        match_ids.append(resp.get_json()["id"])
    wait_finished(svc, match_ids)
    after = counters(redis_url)
    assert after.get("bot_fallbacks", 0) == before.get("bot_fallbacks", 0) == 0
    # Every match here takes dozens of bot moves, each timed once.
    timed = after["bot_turn_seconds_count"] - before.get("bot_turn_seconds_count", 0)
    assert timed >= 20 * len(match_ids)
    text = client.get("/metrics").get_data(as_text=True)
    lines = text.splitlines()
    buckets = [float(x.split()[1]) for x in lines if x.startswith("cardtable_bot_turn_seconds_bucket")]
    assert buckets == sorted(buckets) and buckets[-1] == after["bot_turn_seconds_count"]
    assert "cardtable_bot_fallbacks_total 0" in text
    # Each of those moves' thinking time, by the level that thought (the default level here).
    decided = {
        k: v - before.get(k, 0)
        for k, v in after.items()
        if k.startswith("bot_decision_seconds.") and k.endswith("_count")
    }
    assert sum(decided.values()) == timed
    levels = [line for line in lines if line.startswith("cardtable_bot_decision_seconds_count{level=")]
    shown = {line.split('"')[1]: float(line.split()[1]) for line in levels}
    assert {k.removeprefix("bot_decision_seconds.").removesuffix("_count") for k in decided} <= set(shown)
    for level, n in shown.items():
        steps = [
            float(x.split()[1])
            for x in lines
            if x.startswith(f'cardtable_bot_decision_seconds_bucket{{level="{level}"')
        ]
        assert steps == sorted(steps) and steps[-1] == n == after[f"bot_decision_seconds.{level}_count"]


def test_sweeper_leaves_a_backlog_alone_and_recovers_a_job_a_dead_worker_fetched(private_redis):
    from workers.sweeper import sweep

    svc = service(private_redis, SWEEP_GRACE=0.2)
    queue = svc.queue.low  # a bot-only match's turns wait behind those of matches with people
    match_id = bot_match(svc, 4)  # no worker runs: the first bot turn waits in the queue
    job_id = f"bot-{match_id}-0"
    time.sleep(0.3)
    assert sweep(svc) == 0, "a job still waiting in the queue is a backlog, not a loss"
    assert queue.get_job_ids() == [job_id]
    # A worker fetches it (RQ moves it to its intermediate list) and dies before running it.
    client = svc.trips.queue
    assert client.lmove(queue.key, queue.intermediate_queue_key, "RIGHT", "LEFT") == job_id.encode()
    time.sleep(0.3)
    assert sweep(svc) == 1
    assert queue.get_job_ids() == [job_id]
    assert counters(private_redis)["sweeper_requeues"] == 1
    # Looked at again within the grace: nothing more.
    assert sweep(svc) == 0


def test_only_matches_waiting_for_a_worker_enter_the_due_index(config):
    svc = service(config.REDIS_URL)
    game = GAMES["spades"]

    def move(match_id: str, tokens: list[str]) -> None:
        state = svc.load(match_id).record["state"]
        seat = game.to_move(state)
        svc.act(match_id, tokens[seat], game.legal_actions(state, seat)[0])

    def indexed(match_id: str) -> bool:
        return svc.trips.queue.zscore("ct:due", match_id) is not None

    created = svc.create({"game": "spades", "seats": [{"kind": "human"}] * 4, "seed": 5})
    humans = [s["token"] for s in created["seats"]]
    move(created["id"], humans)
    assert not indexed(created["id"]), "people playing without a clock cost the index nothing"
    assert indexed(bot_match(svc, 6))
