"""The lobby (GET /v1/matches) and quick play (POST /v1/matches/quick) of docs/api.md."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.registry import GAMES
from service.matches.lobby_index import LobbyIndex
from tests.api_helpers import Api, auth
from tests.serve_helpers import cardtable_serve
from tests.test_fuzz import JSON
from tests.test_serve import call

OPEN = {"kind": "open"}


@pytest.fixture
def api(client):
    return Api(client)


def listed(api, seats, game="spades", **body):
    return api.create(game, seats, listed=True, **body)


def lobby_pages(api, query=""):
    """Every page of the lobby for `query`, following next_cursor to the end."""
    pages, cursor = [], None
    while True:
        url = "/v1/matches?" + query + (f"&cursor={cursor}" if cursor else "")
        r = api.c.get(url)
        assert r.status_code == 200, r.get_json()
        pages.append(r.get_json())
        cursor = pages[-1]["next_cursor"]
        if cursor is None:
            return pages


def lobby_ids(api, query=""):
    return [m["id"] for page in lobby_pages(api, query) for m in page["matches"]]


def test_lobby_shows_listed_waiting_matches_with_public_facts_only(api):
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "hard"}, OPEN, OPEN]
    shown = listed(api, seats, options={"target_score": 200})
    unlisted = api.create("spades", seats)
    full = listed(api, [{"kind": "human"}] + [{"kind": "bot"}] * 3)
    r = api.c.get("/v1/matches?game=spades&status=waiting")
    ids = [m["id"] for m in r.get_json()["matches"]]
    assert shown["id"] in ids
    assert unlisted["id"] not in ids and full["id"] not in ids
    entry = next(m for m in r.get_json()["matches"] if m["id"] == shown["id"])
    assert entry["game"] == "spades" and entry["options"]["target_score"] == 200
    assert entry["players"] == 4 and entry["open"] == 2
    assert entry["seats"] == [
        {"seat": 0, "kind": "human", "name": "Ana"},
        {"seat": 1, "kind": "bot", "name": "Hard bot", "level": "hard"},
        {"seat": 2, "kind": "open", "name": None},
        {"seat": 3, "kind": "open", "name": None},
    ]
    assert abs(entry["created"] - time.time()) < 60
    # Nothing private: no token, seed or deck of any match.
    body = r.get_data(as_text=True)
    assert "token" not in body and "seed" not in body and "deck" not in body
    assert shown["seats"][0]["token"] not in body


def test_lobby_pages_newest_first_with_an_opaque_cursor(api):
    mine = []
    for _ in range(5):
        mine.append(listed(api, [{"kind": "human"}, OPEN], game="zoliky")["id"])
        # The index orders by the creation millisecond (service/matches/lobby_index.py); matches created
        # within one millisecond have no order among them, so these are a few apart.
        time.sleep(0.003)
    pages = lobby_pages(api, "game=zoliky&limit=2")
    ids = [m["id"] for page in pages for m in page["matches"]]
    assert len(ids) == len(set(ids)), "a match appeared on two pages"
    assert [i for i in ids if i in mine] == mine[::-1]
    assert all(len(page["matches"]) <= 2 for page in pages) and len(pages) >= 3
    created = [int(m["created"] * 1000) for page in pages for m in page["matches"]]
    assert created == sorted(created, reverse=True)
    assert all(m["game"] == "zoliky" for page in pages for m in page["matches"])
    # Without a game filter every game's listed matches are there too.
    assert set(mine) <= set(lobby_ids(api, "limit=100"))


def test_started_and_aborted_matches_leave_the_lobby(api, redis_url):
    joined = listed(api, [{"kind": "human"}, OPEN], game="zoliky")
    abandoned = listed(api, [{"kind": "human"}, OPEN], game="zoliky")
    assert {joined["id"], abandoned["id"]} <= set(lobby_ids(api, "game=zoliky"))
    assert api.c.post(f"/v1/matches/{joined['id']}/join", json={"name": "Bo"}).status_code == 200
    token = abandoned["seats"][0]["token"]
    assert api.c.post(f"/v1/matches/{abandoned['id']}/leave", headers=auth(token)).status_code == 200
    assert not {joined["id"], abandoned["id"]} & set(lobby_ids(api, "game=zoliky"))
    # The reader dropped their entries from the index itself (from every set).
    members = redis.Redis.from_url(redis_url).zrange("ct:{lobby}:all", 0, -1)
    assert not [m for m in members if joined["id"].encode() in m or abandoned["id"].encode() in m]


def test_an_entry_whose_match_never_appeared_is_dropped_after_a_grace_time(api, redis_url):
    client = redis.Redis.from_url(redis_url)
    index = LobbyIndex(client)
    record = {"game": "zhol", "options": {}, "seats": [{}, {}], "created": time.time() - 120}
    index.add("0123456789abcdef", record)
    young = dict(record, created=time.time())
    index.add("fedcba9876543210", young)
    # Reading shows neither (no such match) and drops the old entry.
    assert not {"0123456789abcdef", "fedcba9876543210"} & set(lobby_ids(api, "game=zhol"))
    members = [m.decode() for m in client.zrange("ct:{lobby}:g:zhol", 0, -1)]
    assert not any("0123456789abcdef" in m for m in members)
    # A young entry may belong to a match whose creating commit is still on its way: it stays.
    young_entry = next(m for m in members if "fedcba9876543210" in m)
    index.drop(young_entry)


def test_lobby_never_scans_and_no_command_or_transaction_spans_two_hash_tags(api, redis_url):
    """Ready for Redis Cluster: a match's keys share {m:<id>}, the lobby's share {lobby}, and no
    command or MULTI block mixes the two (or scans keys)."""
    client = redis.Redis.from_url(redis_url)
    seen: list[dict] = []
    ready = threading.Event()

    def watch():
        with client.monitor() as monitor:
            ready.set()
            for command in monitor.listen():
                if "lobby-monitor-stop" in command["command"]:
                    return
                seen.append(command)

    watcher = threading.Thread(target=watch)
    watcher.start()
    assert ready.wait(10)
    host = listed(api, [{"kind": "human"}, OPEN, OPEN], game="three-thirteen")
    lobby_ids(api, "game=three-thirteen")
    for _ in range(3):  # joins the listed match twice (it starts), then hosts a new one
        api.c.post("/v1/matches/quick", json={"game": "three-thirteen", "players": 3})
    client.echo("lobby-monitor-stop")
    watcher.join(10)
    tag = re.compile(r"\{(m:[0-9a-f]{16}|lobby)\}")
    blocks: dict[str, set[str]] = {}
    assert any(host["id"] in c["command"] for c in seen) and any("{lobby}" in c["command"] for c in seen)
    for c in seen:
        name = c["command"].split(" ", 1)[0].upper()
        assert name not in ("KEYS", "SCAN"), c["command"]
        tags = set(tag.findall(c["command"]))
        assert len(tags) <= 1, c["command"]
        conn = f"{c.get('client_address')}:{c.get('client_port')}"
        if name == "MULTI":
            blocks[conn] = set()
        elif name == "EXEC":
            assert len(blocks.pop(conn, set())) <= 1
        elif conn in blocks:
            blocks[conn] |= tags


@pytest.mark.parametrize(
    "query, field",
    [
        ("status=playing", "status"),
        ("limit=0", "limit"),
        ("game=chess", "game"),
        ("cursor=bm9wZQ%21", "cursor"),
    ],
)
def test_bad_lobby_queries_are_422(api, query, field):
    r = api.c.get("/v1/matches?" + query)
    assert r.status_code == 422
    assert r.get_json()["error"] == "validation_error" and field in r.get_json()["errors"]


def test_quick_play_joins_the_oldest_listed_match_of_the_same_table(api):
    api.create("zhol", [{"kind": "human"}, OPEN], options={"target_wins": 2})  # unlisted: never joined
    older = listed(api, [{"kind": "human", "name": "Ana"}, OPEN], game="zhol", options={"target_wins": 2})
    newer = listed(api, [{"kind": "human"}, OPEN], game="zhol", options={"target_wins": 2})
    other_table = listed(api, [{"kind": "human"}, OPEN, OPEN, OPEN], game="zhol", options={"target_wins": 2})
    r = api.c.post("/v1/matches/quick", json={"game": "zhol", "options": {"target_wins": 2}, "name": "Bo"})
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert answer["id"] == older["id"] and answer["seat"] == 1 and answer["created"] is False
    view = api.view(older["id"], answer["token"])
    assert view["you"] == 1 and view["status"] == "active" and view["players"][1]["name"] == "Bo"
    # Defaults count as given: {} is the same table as the defaults spelled out.
    again = api.c.post("/v1/matches/quick", json={"game": "zhol", "options": {"target_wins": 2}}).get_json()
    assert again["id"] == newer["id"]
    # Four seats is another table; with none open there, the caller hosts a new listed match.
    three = api.c.post(
        "/v1/matches/quick", json={"game": "zhol", "options": {"target_wins": 2}, "players": 4}
    )
    assert three.get_json()["id"] == other_table["id"]
    fresh = api.c.post("/v1/matches/quick", json={"game": "zhol", "options": {"target_wins": 2}}).get_json()
    assert fresh["created"] is True and fresh["seat"] == 0 and fresh["version"] == 0
    host_view = api.view(fresh["id"], fresh["token"])
    assert host_view["status"] == "waiting" and host_view["host"] == 0
    assert fresh["id"] in lobby_ids(api, "game=zhol")


@pytest.mark.parametrize(
    "body, field",
    [
        ({"options": {}}, "game"),
        ({"game": "spades", "options": {"target_score": 1}}, None),
        ({"game": "spades", "players": 3}, None),
        ({"game": "zoliky", "name": ""}, "name"),
        # The name rules of create and join (docs/api.md, "Limits") hold for quick play too.
        ({"game": "zoliky", "name": "\u202eevil"}, "name"),
        ({"game": "zoliky", "name": "a\x00b"}, "name"),
        ({"game": "zoliky", "name": "Ana\nBo"}, "name"),
        ({"game": "zhol", "players": "4"}, "players"),
        ({"game": "zhol", "players": 4.5}, "players"),
        ({"game": "zhol", "players": True}, "players"),
    ],
)
def test_bad_quick_play_is_422_and_creates_nothing(api, body, field):
    before = lobby_ids(api, "limit=100")
    r = api.c.post("/v1/matches/quick", json=body)
    assert r.status_code == 422, r.get_json()
    if field:
        assert field in r.get_json()["errors"]
    assert lobby_ids(api, "limit=100") == before


def test_unreadable_quick_play_body_is_400_with_errors_as_an_object(api):
    r = api.c.post("/v1/matches/quick", data=b"\x00", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_request"
    assert isinstance(r.get_json()["errors"], dict)  # the Error schema's `errors` is an object


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.fixed_dictionaries(
        {"game": st.sampled_from(sorted(GAMES) + ["nope"])},
        optional={"options": JSON, "name": JSON, "players": JSON},
    ),
    st.text(max_size=40),
)
def test_random_quick_play_bodies_and_cursors_never_crash(client, body, cursor):
    resp = client.post("/v1/matches/quick", json=body)
    assert resp.status_code in (200, 422), (body, resp.get_data(as_text=True))
    listing = client.get("/v1/matches", query_string={"cursor": cursor, "limit": 3})
    assert listing.status_code in (200, 422), (cursor, listing.get_data(as_text=True))


def test_twenty_concurrent_quick_players_never_share_a_seat(tmp_path):
    """20 callers race over real HTTP for the last three seats of a listed Spades match."""
    with cardtable_serve(str(tmp_path)) as (_, base):
        seats = [{"kind": "human", "name": "Host"}, OPEN, OPEN, OPEN]
        status, first = call(base, "POST", "/v1/matches", {"game": "spades", "seats": seats, "listed": True})
        assert status == 201
        barrier = threading.Barrier(20)
        answers: list = [None] * 20

        def player(i):
            barrier.wait()
            answers[i] = call(base, "POST", "/v1/matches/quick", {"game": "spades", "name": f"P{i}"})

        threads = [threading.Thread(target=player, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert all(a is not None and a[0] == 200 for a in answers), answers
        placed = [a[1] for a in answers]
        assert len({(p["id"], p["seat"]) for p in placed}) == 20, "two callers got the same seat"
        on_first = sorted(p["seat"] for p in placed if p["id"] == first["id"])
        assert on_first == [1, 2, 3]
        per_match = Counter(p["id"] for p in placed)
        for p in placed:
            # Each token is its seat's, and each match holds exactly the callers placed there.
            status, view = call(base, "GET", f"/v1/matches/{p['id']}", token=p["token"])
            assert status == 200 and view["you"] == p["seat"]
            assert view["players"][p["seat"]]["name"] == f"P{placed.index(p)}"
            humans = sum(1 for pl in view["players"] if pl["kind"] == "human")
            assert humans == per_match[p["id"]] + (p["id"] == first["id"])
        assert sum(p["created"] for p in placed) == len(per_match) - 1
