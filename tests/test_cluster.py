"""The service with its matches on a real Redis Cluster (3 masters, 3 replicas) and its queue on
a Redis of its own: the API tests that matter re-run here, plus what only a cluster can break."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
import redis

from service.config import Config
from service.http.app import create_app
from tests.api_helpers import Api
from tests.conftest import ROOT, UNLIMITED_MATCHES, worker_env

# The API's tests, collected again in this module, so against this module's fixtures: the store
# on the cluster and workers that read CARDTABLE_STATE_URL.
from tests.test_api import (  # noqa: F401
    new_spades,
    test_a_scripted_client_plays_a_whole_match_against_three_bots,
    test_create_returns_tokens_only_for_humans,
    test_events_long_poll_wakes_on_a_move,
    test_events_wait_returns_empty_after_timeout,
    test_idempotency_key_in_progress_is_409,
    test_idempotency_key_replays_the_first_answer,
    test_if_match_accepts_the_current_version,
    test_join_open_seats_then_match_starts,
    test_no_view_or_event_shows_a_card_its_seat_may_not_see,
    test_rejected_requests_change_nothing,
    test_resign_action_and_history_after_the_end,
    test_stream_sends_server_sent_events,
    to_move,
)
from tests.test_api_games import (  # noqa: F401
    test_bots_of_every_level_play_a_whole_round_with_no_client,
    test_zhol_clock_plays_for_a_slow_player,
)
from tests.test_player_feed import (  # noqa: F401
    test_a_feed_keeps_its_last_entries_for_thirty_days,
    test_a_long_poll_wakes_on_a_publish_made_while_it_waits,
    test_a_notice_handed_on_again_is_stored_once,
    test_a_player_that_is_gone_gets_no_feed,
    test_a_stream_resumes_after_last_event_id,
    test_a_waiting_stream_ends_at_once_when_its_token_stops_holding,
    test_another_players_entries_are_never_served,
    test_one_feed_tells_a_player_of_each_turn_in_two_matches_to_their_ends,
    test_publish_numbers_a_players_entries_and_since_answers_those_after_a_seq,
)
from tests.test_players import (  # noqa: F401
    svc,
    test_a_player_bound_seat_is_played_with_the_player_token,
    test_a_second_phone_gets_every_match_back_after_a_rotate,
    test_finished_matches_are_listed_after_the_live_ones,
    test_one_app_never_sees_another_apps_players,
)
from tests.test_rated_matches import (  # noqa: F401
    test_a_rated_pair_moves_the_winner_up_and_the_loser_down,
    test_partners_move_together,
)
from tests.test_rematch import test_a_rematch_of_players_seats_the_asker_and_the_other_when_it_asks  # noqa: F401
from tests.test_store import test_threads_never_read_each_others_replies  # noqa: F401

pytestmark = pytest.mark.slow

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]


@pytest.fixture(scope="module")
def config(queue_url, redis_cluster):
    return Config(
        REDIS_URL=queue_url,
        STATE_URL=redis_cluster.url,
        ALLOW_STACKED_DECK=True,
        BOT_DELAY=0.0,
        RATE_LIMIT=0,
        **UNLIMITED_MATCHES,
    )


@pytest.fixture(scope="module")
def app(config):
    return create_app(config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def api(client):
    return Api(client)


def start_workers(queue_url: str, state_url: str, count: int = 2, **extra: str) -> list[subprocess.Popen]:
    env = worker_env(queue_url, CARDTABLE_STATE_URL=state_url, **extra)
    command = [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"]
    procs = [subprocess.Popen(command, env=env, cwd=ROOT) for _ in range(count)]
    from rq import Worker

    client = redis.Redis.from_url(queue_url)
    deadline = time.monotonic() + 30
    while Worker.count(connection=client) < count:
        assert time.monotonic() < deadline, "RQ workers did not start"
        assert all(p.poll() is None for p in procs), "an RQ worker exited"
        time.sleep(0.1)
    return procs


@pytest.fixture(scope="module")
def worker(queue_url, redis_cluster):
    procs = start_workers(queue_url, redis_cluster.url)
    yield procs
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(10)


def test_a_match_lives_in_one_slot_of_the_cluster_none_on_the_queue_redis(api, redis_cluster, queue_url):
    match_id, tokens = new_spades(api)
    seat, token = to_move(api, match_id, tokens)
    assert api.act(match_id, token, {"type": "bid", "tricks": 3}).status_code == 200
    port = redis_cluster.master_of(f"ct:{{m:{match_id}}}:match")
    keys = redis.Redis(port=port).keys(f"ct:{{m:{match_id}}}:*")
    assert {k.decode().rsplit(":", 1)[-1] for k in keys} >= {"match", "events"}
    assert not redis.Redis.from_url(queue_url).keys(f"*{match_id}*:match")


def test_same_version_moves_from_many_threads_apply_once(api, app):
    """Eight clients send a move for the same version at once: one wins, the rest get 412."""
    match_id, tokens = new_spades(api)
    seat, token = to_move(api, match_id, tokens)
    statuses: list[int] = []

    def send():
        mine = Api(app.test_client())
        resp = mine.act(match_id, token, {"type": "bid", "tricks": 2}, **{"If-Match": '"0"'})
        statuses.append(resp.status_code)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [412] * 7
    assert api.view(match_id)["version"] == 1
    assert [e["type"] for e in api.events(match_id)["events"]].count("bid") == 1


def test_concurrent_joins_fill_each_open_seat_once(api, app):
    seats = [{"kind": "human", "name": "Host"}] + [{"kind": "open"}] * 3
    match_id = api.create("spades", seats, seed=3)["id"]
    answers: list[tuple[int, int | None]] = []

    def join(i):
        resp = app.test_client().post(f"/v1/matches/{match_id}/join", json={"name": f"P{i}"})
        answers.append((resp.status_code, (resp.get_json() or {}).get("seat")))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    joined = sorted(seat for status, seat in answers if status in (200, 201))
    assert joined == [1, 2, 3]
    assert all(status == 409 for status, _ in answers if status not in (200, 201))
    view = api.view(match_id)
    assert view["status"] == "active" and [p["name"] for p in view["players"]][0] == "Host"


def test_request_counters_spread_over_every_master(app, redis_cluster):
    """The per-request metrics counter is sharded: requests from many clients bump counters on
    every master, not all on one node."""
    config = Config(**{**app.extensions["cardtable"].config.__dict__, "RATE_LIMIT": 1000})
    limited = create_app(config).test_client()

    def counted_per_master() -> dict[int, int]:
        counts = {}
        for port in redis_cluster.alive():
            node = redis.Redis(port=port)
            if node.info("replication")["role"] == "master":
                keys = node.keys("ct:metrics:*")
                counts[port] = sum(int(node.hget(k, "requests:games.Games") or 0) for k in keys)
        return counts

    before = counted_per_master()
    for i in range(60):
        # Each request from an address of its own: a client's counter lives on its shard.
        limited.get("/v1/games", environ_base={"REMOTE_ADDR": f"10.9.{i // 250}.{i % 250}"})
    after = counted_per_master()
    assert len(after) == 3, after
    grew = {port: after[port] - before.get(port, 0) for port in after}
    assert sum(grew.values()) >= 60 and all(n > 0 for n in grew.values()), grew
    text = limited.get("/metrics").get_data(as_text=True)
    assert 'cardtable_requests_total{endpoint="games.Games"}' in text
