"""Turn clocks in every game (docs/api.md, "Turn clocks"): the options, a human who does not move
timed out through real workers (`auto` and `resign`), what is refused, and a correspondence
clock of two days that survives a killed worker and a restarted Redis.

The clocks here run on CARDTABLE_CLOCK_SCALE: the seconds a match asks for, shortened, so that a
test waits a second for a clock of five and seconds for one of two days.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import tempfile
import time

import pytest
import redis

from engines.registry import GAMES
from service.config import Config
from service.http.app import create_app
from service.infra.embedded import start_redis
from service.matches.options import MAX_TURN_SECONDS
from tests.api_helpers import Api, auth, playable
from tests.conftest import ROOT, UNLIMITED_MATCHES, worker_env
from tests.replay import replay, replay_timeout
from tests.test_healing import spawn_worker, wait_for
from tests.test_players import new_app, svc

__all__ = ["svc"]  # the fixtures this module borrows

# 5 s clocks run out after one second here.
SCALE = 0.2
EASY = {"kind": "bot", "level": "easy"}
# Each game with its one human in seat 0, to move first: (seats, options, whether the match
# ends by its rules when that seat resigns). Spades' and Žolíky's do; Three Thirteen and Zhol
# with three or more players would play on, a bot in the resigned seat: with no person left in
# it, the match ends `abandoned` instead (docs/api.md, "Turn clocks").
TABLES = {
    "spades": ([{"kind": "human"}, EASY, EASY, EASY], {"first_dealer": 3}, True),
    "zoliky": ([{"kind": "human"}, EASY], {"first_cutter": 0}, True),
    "three-thirteen": ([{"kind": "human"}, EASY, EASY], {"first_dealer": 2}, False),
    "zhol": ([{"kind": "human"}, EASY, EASY, EASY], {"first_player": 0}, False),
}


def clock_config(url: str, scale: float) -> Config:
    return Config(REDIS_URL=url, RATE_LIMIT=0, CLOCK_SCALE=scale, **UNLIMITED_MATCHES)


@pytest.fixture(scope="module")
def clocked():
    """A Redis, two real workers and an app of this module, all with clocks scaled by SCALE."""
    redis_proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-clocks-"), persist=False)
    env = worker_env(url, CARDTABLE_CLOCK_SCALE=str(SCALE))
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"], env=env, cwd=ROOT
        )
        for _ in range(2)
    ]
    from rq import Worker

    client = redis.Redis.from_url(url)
    wait_for(lambda: Worker.count(connection=client) == len(workers), 30, "the RQ workers to start")
    app = create_app(clock_config(url, SCALE))
    yield Api(app.test_client()), app.extensions["cardtable"]
    for p in workers:
        p.terminate()
    for p in workers:
        p.wait(10)
    redis_proc.terminate()
    redis_proc.wait(10)


def timed_out_index(events: list[dict]) -> int | None:
    return next((i for i, e in enumerate(events) if e["type"] == "timed_out"), None)


def wait_timed_out(api: Api, match_id: str, deadline: float, timeout: float = 60) -> tuple[list[dict], float]:
    """The match's events once its first timeout is in, and when it was first seen. Read every
    50 ms: a timeout seen before its deadline fails the test."""
    give_up = time.monotonic() + timeout
    while True:
        events = api.events(match_id)["events"]
        seen = time.time()
        if timed_out_index(events) is not None:
            assert seen >= deadline, f"the clock ran out {deadline - seen:.3f} s before its deadline"
            return events, seen
        assert time.monotonic() < give_up, "the clock never ran out"
        time.sleep(0.05)


@pytest.mark.parametrize("on_timeout", ["auto", "resign"])
@pytest.mark.parametrize("game_id", sorted(TABLES))
def test_a_human_who_does_not_move_is_timed_out_by_the_workers_as_on_timeout_says(
    clocked, game_id, on_timeout
):
    api, service = clocked
    game = GAMES[game_id]
    seats, options, ends = TABLES[game_id]
    options = {**options, "turn_seconds": 5, "on_timeout": on_timeout}
    created = api.create(game_id, seats, options=options, seed=11)
    match_id, token = created["id"], created["seats"][0]["token"]
    view = api.view(match_id, token)
    # An asked clock runs even for a lone human against bots.
    assert view["turn"]["seat"] == 0 and view["turn"]["deadline"] is not None
    assert view["options"]["turn_seconds"] == 5 and view["options"]["on_timeout"] == on_timeout
    before = service.store.load(match_id)
    assert before.version == view["version"]

    events, seen = wait_timed_out(api, match_id, view["turn"]["deadline"])
    print(f"{game_id} {on_timeout}: timed out {seen - view['turn']['deadline']:.3f} s after its deadline")
    i = timed_out_index(events)
    assert i is not None
    # Public: a spectator's events carry it as it is, before what the clock did for the seat.
    assert {k: v for k, v in events[i].items() if k != "seq"} == {
        "type": "timed_out",
        "seat": 0,
        "on_timeout": on_timeout,
    }
    caused = events[i + 1 :]
    assert caused and caused[0]["auto"] is True and caused[0]["seat"] == 0
    # What the clock did is what the seat could have done: replayed through the engine from the
    # state it timed out in, each run of its events is one legal action (or resign) of seat 0.
    stored = service.store.events(match_id, 0)
    state, _ = replay_timeout(game, before.record["state"], stored, i)
    if on_timeout == "auto":
        assert all(e["type"] != "resign" for e in stored[i:] if e.get("auto"))
        assert game.to_move(state) != 0, "the seat's turn was played to its end"
        return
    assert state["resigned"][0]
    if ends:
        view = api.wait_for(match_id, token, lambda v: v["status"] == "finished", timeout=10)
        assert 0 not in view["winners"] and view["players"][0]["resigned"]
        assert replay(service.history(match_id, None)) == service.load(match_id).version
    else:
        # The clock resigned the match's only person: nobody plays it any more, so it ends there,
        # in the timeout's own change, and no bot plays the seat (or the others) for nobody.
        view = api.view(match_id, token)
        assert view["players"][0]["resigned"] and view["status"] == "aborted"
        assert stored[-1]["type"] == "match_over" and stored[-1]["reason"] == "abandoned"
        assert not any(e.get("bot") for e in stored[i:])
        assert view["legal_actions"] == []


@pytest.fixture
def api(client):
    return Api(client)


BAD = [
    {"turn_seconds": 4},
    {"turn_seconds": MAX_TURN_SECONDS + 1},
    {"turn_seconds": "60"},
    {"turn_seconds": True},
    {"turn_seconds": -60},
    {"on_timeout": "sometimes"},
    {"on_timeout": "AUTO"},
    {"on_timeout": 1},
    {"on_timeout": None},
    {"on_timeout": ["auto"]},
]


@pytest.mark.parametrize("bad", BAD, ids=lambda b: f"{next(iter(b))}={next(iter(b.values()))!r}")
def test_a_bad_clock_option_is_422_at_create_and_quick_play_in_every_game_and_stores_nothing(api, svc, bad):
    key = new_app(svc)
    name = next(iter(bad))
    for game_id, (seats, _, _) in TABLES.items():
        humans = [{"kind": "human"} for _ in seats]
        for path, body in (
            ("/v1/matches", {"game": game_id, "seats": humans, "options": bad, "listed": True}),
            ("/v1/matches/quick", {"game": game_id, "options": bad, "players": len(seats)}),
        ):
            resp = api.c.post(path, json=body, headers=auth(key))
            answer = resp.get_json()
            assert resp.status_code == 422 and answer["error"] == "validation_error", (game_id, path, answer)
            assert name in answer["message"] or name in str(answer.get("errors")), answer
    assert api.c.get("/v1/admin/matches", headers=auth(key)).get_json()["matches"] == []


def test_the_clock_options_take_their_bounds_and_are_listed_for_every_game(api):
    listed = {g["id"]: g["options"] for g in api.c.get("/v1/games").get_json()["games"]}
    for game_id, (seats, options, _) in TABLES.items():
        humans = [{"kind": "human"} for _ in seats]
        assert listed[game_id]["turn_seconds"]["maximum"] == MAX_TURN_SECONDS
        assert listed[game_id]["on_timeout"]["choices"] == ["auto", "resign"]
        for seconds, how in ((5, "resign"), (MAX_TURN_SECONDS, "auto")):
            created = api.create(
                game_id, humans, options={**options, "turn_seconds": seconds, "on_timeout": how}
            )
            view = api.view(created["id"])
            assert (view["options"]["turn_seconds"], view["options"]["on_timeout"]) == (seconds, how)
            assert view["turn"]["deadline"] == pytest.approx(time.time() + seconds, abs=5)
    # Zhol keeps its own default: 60 s, with two or more humans.
    assert listed["zhol"]["turn_seconds"]["default"] == 60
    assert [listed[g]["turn_seconds"]["default"] for g in ("spades", "zoliky", "three-thirteen")] == [
        None
    ] * 3


@pytest.mark.parametrize("game_id", ["spades", "zoliky", "three-thirteen"])
def test_without_the_option_a_match_of_two_humans_has_no_clock(api, svc, game_id):
    seats, options, _ = TABLES[game_id]
    humans = [{"kind": "human"}, {"kind": "human"}, *seats[2:]]
    created = api.create(game_id, humans, options=options)
    view = api.view(created["id"], created["seats"][0]["token"])
    assert view["turn"]["seat"] == 0 and view["turn"]["deadline"] is None
    assert (view["options"]["turn_seconds"], view["options"]["on_timeout"]) == (None, "auto")
    assert svc.store.load(created["id"]).record["clock"] is None


def test_quick_play_meets_only_a_table_with_the_same_clock(api):
    clock = {"turn_seconds": 300, "on_timeout": "resign"}
    host = api.c.post("/v1/matches/quick", json={"game": "zoliky", "options": clock}).get_json()
    assert host["created"] is True
    other = api.c.post(
        "/v1/matches/quick", json={"game": "zoliky", "options": {"turn_seconds": 300}}
    ).get_json()
    assert other["created"] is True and other["id"] != host["id"]  # on_timeout differs
    joined = api.c.post("/v1/matches/quick", json={"game": "zoliky", "options": {**clock, "first_cutter": 0}})
    assert joined.get_json()["id"] == host["id"]
    view = api.view(host["id"], host["token"])
    assert view["turn"]["deadline"] == pytest.approx(time.time() + 300, abs=5)


def test_the_deadline_is_in_the_players_list_of_matches(api, svc):
    key = new_app(svc)
    tokens = {}
    for name in ("ana", "bo"):
        r = api.c.put(f"/v1/players/{name}", json={"name": name.title()}, headers=auth(key))
        tokens[name] = r.get_json()["token"]
    seats = [{"kind": "human", "player": "ana"}, {"kind": "human", "player": "bo"}, EASY, EASY]
    r = api.c.post(
        "/v1/matches",
        json={"game": "spades", "seats": seats, "options": {"first_dealer": 3, "turn_seconds": 86400}},
        headers=auth(key),
    )
    match_id = r.get_json()["id"]
    deadline = api.view(match_id, tokens["ana"])["turn"]["deadline"]
    assert deadline == pytest.approx(time.time() + 86400, abs=5)
    mine = api.c.get("/v1/me/matches", headers=auth(tokens["ana"])).get_json()["matches"]
    assert [(m["id"], m["your_turn"], m["deadline"]) for m in mine] == [(match_id, True, deadline)]
    theirs = api.c.get("/v1/me/matches", headers=auth(tokens["bo"])).get_json()["matches"]
    assert [(m["id"], m["your_turn"], m["deadline"]) for m in theirs] == [(match_id, False, None)]


def test_a_spades_trick_winner_who_leads_again_gets_a_new_turn_on_the_clock(api, svc):
    created = api.create("spades", [{"kind": "human"}] * 4, options={"turn_seconds": 600}, seed=3)
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    rng = random.Random(3)
    restarted = 0
    for _ in range(60):  # the bids, then tricks until one is won by its last player
        view = api.view(match_id)
        seat = view["turn"]["seat"]
        clock = svc.store.load(match_id).record["clock"]
        assert clock["seat"] == seat
        action = rng.choice(playable(api.view(match_id, tokens[seat])))
        resp = api.act(match_id, tokens[seat], action)
        assert resp.status_code == 200, resp.get_json()
        after = svc.store.load(match_id).record["clock"]
        # Every Spades move is a whole turn: the next clock is a new one, even for the same seat.
        assert after["turn"] == clock["turn"] + 1
        if after["seat"] == seat:
            restarted += 1
            assert after["deadline"] >= clock["deadline"]
            break
    assert restarted == 1, "no trick in 60 moves was won by the seat that played last"


@pytest.mark.parametrize("asked", [False, True])
def test_a_rematch_of_zhol_against_a_bot_keeps_the_clock_as_it_was(api, asked):
    options = {"turn_seconds": 60} if asked else {}
    created = api.create("zhol", [{"kind": "human"}, EASY], options=options)
    match_id, token = created["id"], created["seats"][0]["token"]
    assert (api.view(match_id, token)["turn"]["deadline"] is not None) is asked
    assert api.act(match_id, token, {"type": "resign"}).status_code == 200
    again = api.c.post(f"/v1/matches/{match_id}/rematch", headers=auth(token)).get_json()
    view = api.view(again["id"], again["seats"][0]["token"])
    assert view["turn"]["seat"] == 0 and (view["turn"]["deadline"] is not None) is asked


@pytest.mark.slow
def test_a_correspondence_clock_of_two_days_survives_a_killed_worker_and_a_redis_restart(tmp_path, procs):
    # Two days become 12 s: long enough to kill the worker and restart Redis before it runs out.
    days = 2 * 24 * 3600
    scale = 12 / days
    data = str(tmp_path / "redis")
    redis_proc, url = start_redis(data, persist=True)
    procs.append(redis_proc)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    extra = {
        "CARDTABLE_CLOCK_SCALE": repr(scale),
        "CARDTABLE_SWEEP_GRACE": "2",
        "CARDTABLE_SWEEP_INTERVAL": "0.5",
    }
    first = spawn_worker(procs, url, **extra)
    api = Api(create_app(clock_config(url, scale)).test_client())
    options = {"turn_seconds": days, "first_dealer": 1}
    created = api.create("three-thirteen", [{"kind": "human"}] * 2, options=options, seed=5)
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    view = api.view(match_id, tokens[0])
    seat, deadline = view["turn"]["seat"], view["turn"]["deadline"]
    assert view["options"]["turn_seconds"] == days and deadline is not None
    assert api.view(match_id)["turn"]["deadline"] == deadline  # everyone sees it

    first.send_signal(signal.SIGKILL)
    first.wait(10)
    redis_proc.terminate()  # a clean shutdown: the append-only file keeps every write
    redis_proc.wait(10)
    redis_proc, _ = start_redis(data, port=port, persist=True)
    procs.append(redis_proc)
    spawn_worker(procs, url, **extra)
    assert time.time() < deadline, "the restart took longer than the clock"

    events, seen = wait_timed_out(api, match_id, deadline)
    print(f"correspondence clock: timed out {seen - deadline:.3f} s after its deadline (seen by polling)")
    timed = events[timed_out_index(events) or 0]
    assert (timed["seat"], timed["on_timeout"]) == (seat, "auto")
    # The match goes on: the other person's turn, on a clock of two days (scaled) of its own.
    view = api.view(match_id, tokens[1 - seat])
    assert view["status"] == "active" and view["turn"]["seat"] == 1 - seat
    assert view["turn"]["deadline"] > deadline


def test_a_turn_played_in_time_leaves_no_clock_job_waiting_for_its_deadline(api, svc):
    # A correspondence clock's job would otherwise wait days to find nothing to do: one job
    # for every move of the last 14 days. Each match keeps the job of its running turn only.
    created = api.create(
        "spades", [{"kind": "human"}] * 4, options={"turn_seconds": 86400, "first_dealer": 3}
    )
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    rq = svc.queue.queue.connection
    scheduled = svc.queue.scheduled_key

    def waiting() -> list[str]:
        return sorted(j.decode() for j in rq.zrange(scheduled, 0, -1) if match_id.encode() in j)

    first = svc.store.load(match_id).record["clock"]["turn"]
    assert waiting() == [f"clock-{match_id}-{first}"]
    for seat in range(3):
        assert api.act(match_id, tokens[seat], {"type": "bid", "tricks": 3}).status_code == 200
    assert waiting() == [f"clock-{match_id}-{first + 3}"]
    assert not rq.exists(f"rq:job:clock-{match_id}-{first}")
