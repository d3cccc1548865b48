"""Erasing a player (docs/integrating.md, "Data of players"): its tokens die and its external id
is free again, it leaves the app's leaderboards, and no view, event or history of a match it sat
in names it any more, while histories still replay; on one Redis and on a Redis Cluster."""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime

import pytest

from engines import bots
from engines.registry import GAMES
from service import codec
from service.config import Config
from service.http.app import create_app
from service.identity import tombstones
from service.identity.players import player_key
from service.matches import rated_matches
from service.matches.outbox import encode
from service.matches.store import match_key
from service.notify.feeds import feed_key
from service.privacy.erasure import ERASED_NAME, scrub_events
from tests.api_helpers import auth, bot_input, playable
from tests.conftest import UNLIMITED_MATCHES
from tests.replay import replay
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows

# A name and an external id no other text of a match contains by chance.
NAME, EXTERNAL = "Anastasia Q.", "user-4711"
BOTH = [{"kind": "human", "player": EXTERNAL}, {"kind": "human", "player": "bo"}]
ONE_HAND = {"variant": "small", "first_player": 0, "target_wins": 1}


def erase(client, key: str, external: str = EXTERNAL) -> dict:
    r = client.delete(f"/v1/players/{external}", headers=auth(key))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def create(client, credential: str, body: dict) -> str:
    r = client.post("/v1/matches", json=body, headers=auth(credential))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def named_nowhere(*answers) -> bool:
    text = json.dumps(answers)
    return NAME not in text and EXTERNAL not in text


def play_out(client, match_id: str, tokens: list[str]) -> None:
    """Both seats play with the medium bot's choices until the match is over."""
    rng = random.Random(7)
    for _ in range(500):
        view = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])).get_json()
        if view["status"] != "active":
            break
        mine = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[view["turn"]["seat"]])).get_json()
        action = bots.decide(GAMES[view["game"]], bot_input(mine), "medium", rng)
        r = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=auth(tokens[mine["you"]]))
        assert r.status_code == 200, r.get_json()
    assert view["status"] == "finished"


def everything_of(client, match_id: str, token: str, key: str) -> list:
    """What anyone reads of a match: the seat's view and events, the public and the app's views,
    and the history once over."""
    out = [
        client.get(f"/v1/matches/{match_id}", headers=auth(token)).get_json(),
        client.get(f"/v1/matches/{match_id}").get_json(),
        client.get(f"/v1/matches/{match_id}", headers=auth(key)).get_json(),
        client.get(f"/v1/matches/{match_id}/events?after=0", headers=auth(token)).get_json(),
    ]
    history = client.get(f"/v1/matches/{match_id}/history", headers=auth(token))
    return out + ([history.get_json()] if history.status_code == 200 else [])


def test_the_erased_players_tokens_die_and_its_external_id_is_free_again(client, svc):
    key = new_app(svc)
    phones = [put_player(client, key, EXTERNAL, NAME) for _ in range(2)]
    put_player(client, key, "bo")
    match_id = create(client, key, {"game": "zhol", "seats": BOTH})
    assert erase(client, key) == {"player": EXTERNAL, "matches": 1, "leaderboards": 0}
    assert client.get(f"/v1/players/{EXTERNAL}", headers=auth(key)).status_code == 404
    for phone in phones:
        assert client.get("/v1/me", headers=auth(phone)).status_code == 401
        assert client.get(f"/v1/matches/{match_id}", headers=auth(phone)).status_code == 401
    assert client.delete(f"/v1/players/{EXTERNAL}", headers=auth(key)).status_code == 404
    # The external id makes a new player: none of the old one's matches, data or tokens.
    again = put_player(client, key, EXTERNAL, "Someone Else")
    assert client.get(f"/v1/players/{EXTERNAL}", headers=auth(key)).get_json()["metadata"] == {}
    assert client.get("/v1/me/matches", headers=auth(again)).get_json()["matches"] == []
    assert client.get(f"/v1/matches/{match_id}", headers=auth(again)).status_code == 401
    assert all(client.get("/v1/me", headers=auth(phone)).status_code == 401 for phone in phones)


def test_only_the_apps_own_key_erases_its_player(client, svc):
    key = new_app(svc)
    token = put_player(client, key, EXTERNAL, NAME)
    assert client.delete(f"/v1/players/{EXTERNAL}", headers=auth(new_app(svc))).status_code == 404
    assert client.delete(f"/v1/players/{EXTERNAL}", headers=auth(token)).status_code == 401
    assert client.delete("/v1/players/nobody", headers=auth(key)).status_code == 404
    assert client.get("/v1/me", headers=auth(token)).status_code == 200


def test_a_finished_match_names_the_erased_player_nowhere_and_still_replays(client, svc):
    key = new_app(svc)
    ana, bo = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    # Bo's phone creates the match; Ana joins it with hers: her name is in the join event.
    seats = [{"kind": "human"}, {"kind": "open"}]
    body = {"game": "zhol", "options": ONE_HAND, "seats": seats}
    match_id = create(client, bo, body)
    assert client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(ana)).status_code == 200
    play_out(client, match_id, [bo, ana])
    before = client.get(f"/v1/matches/{match_id}/history", headers=auth(bo)).get_json()
    assert not named_nowhere(before) and replay(before) == before["version"]

    assert erase(client, key)["matches"] == 1
    seen = everything_of(client, match_id, bo, key)
    assert named_nowhere(seen)
    history = seen[-1]
    assert history["seats"][1] == {"seat": 1, "kind": "human", "name": ERASED_NAME}
    assert [e["name"] for e in history["events"] if e["type"] == "join"] == [ERASED_NAME]
    # The match keeps its version: the erasure is no move, and the history replays to it.
    assert history["version"] == before["version"] and replay(history) == history["version"]
    assert history["events"] == [
        {**e, "name": ERASED_NAME} if e["type"] == "join" else e for e in before["events"]
    ]


def test_a_live_match_moves_on_one_version_and_plays_on_without_the_erased_player(client, svc):
    key = new_app(svc)
    ana, bo = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    body = {"game": "zhol", "options": {**ONE_HAND, "first_player": 1}, "seats": BOTH}
    match_id = create(client, key, body)
    seen = client.get(f"/v1/matches/{match_id}", headers=auth(bo)).get_json()
    erase(client, key)
    now = everything_of(client, match_id, bo, key)
    assert named_nowhere(now)
    view = now[0]
    assert view["version"] == seen["version"] + 1
    # Her seat shows the neutral name and no player any more (Bo's view named her: same app).
    was = {k: v for k, v in seen["players"][0].items() if k != "player"}
    assert seen["players"][0]["player"] == EXTERNAL and view["players"][0] == {**was, "name": ERASED_NAME}
    assert "player" not in now[2]["players"][0] and now[2]["players"][1]["player"] == "bo"
    assert client.get(f"/v1/matches/{match_id}", headers=auth(ana)).status_code == 401
    # A move decided on the version before the erasure is refused; on the new one it is taken.
    draw = playable(view)[0]
    stale = client.post(
        f"/v1/matches/{match_id}/actions", json=draw, headers={**auth(bo), "If-Match": str(seen["version"])}
    )
    assert stale.status_code == 412
    assert client.post(f"/v1/matches/{match_id}/actions", json=draw, headers=auth(bo)).status_code == 200


def test_a_match_the_player_joined_and_left_keeps_no_name_of_it(client, svc):
    key = new_app(svc)
    ana, bo = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}, {"kind": "bot"}]
    match_id = create(client, bo, {"game": "spades", "seats": seats})
    assert client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(ana)).status_code == 200
    assert client.post(f"/v1/matches/{match_id}/leave", headers=auth(ana)).status_code == 200
    client.get("/v1/me/matches", headers=auth(ana))  # her list forgets a match she left
    assert not named_nowhere(everything_of(client, match_id, bo, key))
    assert erase(client, key)["matches"] == 1
    seen = everything_of(client, match_id, bo, key)
    assert named_nowhere(seen)
    assert [(e["type"], e.get("name")) for e in seen[3]["events"]] == [
        ("match_created", None),
        ("join", ERASED_NAME),
        ("leave", None),
    ]


def test_a_seat_handed_over_keeps_no_name_of_the_erased_player(client, svc):
    key = new_app(svc)
    ana, _ = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    match_id = create(client, key, {"game": "zhol", "seats": BOTH})
    code = client.post(f"/v1/matches/{match_id}/invite", headers=auth(ana)).get_json()["code"]
    # The claimant gives no name: the seat keeps hers.
    claimed = client.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()
    assert claimed["name"] == NAME
    erase(client, key)
    seen = everything_of(client, match_id, claimed["token"], key)
    assert named_nowhere(seen)
    assert seen[0]["you"] == 0 and seen[0]["players"][0]["name"] == ERASED_NAME  # the claimant plays on
    assert [e["name"] for e in seen[3]["events"] if e["type"] == "claim"] == [ERASED_NAME]


def test_the_erased_player_leaves_every_leaderboard_of_the_app(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    bo = put_player(client, key, "bo")
    body = {"game": "zhol", "seats": BOTH, "options": {"rated": True}}
    match_id = create(client, key, body)
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(bo))
    board = client.get("/v1/leaderboards/zhol", headers=auth(key)).get_json()
    assert [p["player"] for p in board["players"]] == [EXTERNAL, "bo"]
    assert erase(client, key) == {"player": EXTERNAL, "matches": 1, "leaderboards": 1}
    board = client.get("/v1/leaderboards/zhol", headers=auth(key)).get_json()
    assert [p["player"] for p in board["players"]] == ["bo"] and named_nowhere(board)
    put_player(client, key, EXTERNAL, NAME)
    assert client.get(f"/v1/players/{EXTERNAL}", headers=auth(key)).get_json()["ratings"] == {}


def test_a_ratings_effect_not_yet_applied_forgets_the_erased_player(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    bo = put_player(client, key, "bo")
    app_id = svc.apps.authenticate(key).id
    ids = {p: svc.players.find(app_id, p).id for p in (EXTERNAL, "bo")}
    match_id = create(client, key, {"game": "zhol", "seats": BOTH})
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(bo))
    # The effect a rated finish leaves when its committer dies before applying it.
    moved = {"mu": 27.0, "sigma": 8.0, "rating": 3.0}
    players = {
        ids[EXTERNAL]: {**moved, "external": EXTERNAL, "name": NAME},
        ids["bo"]: {**moved, "external": "bo", "name": "Bo"},
    }
    effect = {"kind": "ratings", "v": 2, "match": match_id, "game": "zhol", "app": app_id, "players": players}
    svc.trips.state.rpush(match_key(match_id, "outbox"), encode(effect))
    erase(client, key)
    stored = [codec.loads(r) for r in svc.trips.state.lrange(match_key(match_id, "outbox"), 0, -1)]
    (left,) = [e for e in stored if e["kind"] == "ratings"]
    assert left == {**effect, "players": {ids["bo"]: players[ids["bo"]]}}


def test_an_erasure_cut_short_is_finished_by_the_next_one(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    app_id = svc.apps.authenticate(key).id
    # Stopped after the player was deleted, before its directory entry was.
    svc.trips.state.delete(player_key(svc.players.find(app_id, EXTERNAL).id))
    assert erase(client, key) == {"player": EXTERNAL, "matches": 0, "leaderboards": 0}
    put_player(client, key, EXTERNAL, NAME)


def test_only_the_event_that_seated_another_player_keeps_a_name_the_erased_one_had():
    events = [
        {"type": "match_created", "game": "zhol"},
        {"type": "join", "seat": 1, "name": NAME},  # the erased player, who left again
        {"type": "leave", "seat": 1},
        {"type": "join", "seat": 1, "name": NAME},  # another player of that name, seated now
        {"type": "join", "seat": 2, "name": "Al"},  # the erased player, as it joined
        {"type": "claim", "seat": 3, "name": NAME},  # a seat handed over with the name kept
    ]
    changed = scrub_events(events, bound=2, protected={1}, names={NAME})
    assert changed == {1, 4, 5}
    assert [e.get("name") for e in events] == [None, ERASED_NAME, None, NAME, ERASED_NAME, ERASED_NAME]
    assert scrub_events(events, bound=2, protected={1}, names={NAME}) == set()  # once is enough


@pytest.fixture(scope="module")
def cluster_client(queue_url, redis_cluster):
    config = Config(
        REDIS_URL=queue_url, STATE_URL=redis_cluster.url, BOT_DELAY=0.0, RATE_LIMIT=0, **UNLIMITED_MATCHES
    )
    return create_app(config).test_client()


def test_the_admin_calls_and_an_erasure_work_on_a_redis_cluster(cluster_client):
    client = cluster_client
    svc = client.application.extensions["cardtable"]
    key = new_app(svc)
    ana, bo = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    body = {"game": "zhol", "options": ONE_HAND, "seats": [{"kind": "human"}, {"kind": "open"}]}
    over = create(client, bo, body)
    assert client.post(f"/v1/matches/{over}/join", json={}, headers=auth(ana)).status_code == 200
    play_out(client, over, [bo, ana])
    live = create(client, key, {"game": "zhol", "seats": BOTH})
    listed = client.get(f"/v1/admin/matches?player={EXTERNAL}", headers=auth(key)).get_json()
    assert [m["id"] for m in listed["matches"]] == [live, over]
    exported = client.get(f"/v1/players/{EXTERNAL}/export", headers=auth(key)).get_json()
    assert {m["id"] for m in exported["matches"]} == {live, over}
    assert erase(client, key)["matches"] == 2
    for match_id in (over, live):
        assert named_nowhere(everything_of(client, match_id, bo, key))
    history = client.get(f"/v1/matches/{over}/history", headers=auth(bo)).get_json()
    assert replay(history) == history["version"]
    aborted = client.post(f"/v1/admin/matches/{live}/abort", headers=auth(key))
    assert aborted.status_code == 200 and aborted.get_json()["status"] == "aborted"


def test_a_seat_handed_on_keeps_no_name_of_the_player_once_its_list_forgot_it(client, svc):
    key = new_app(svc)
    ana, bo = put_player(client, key, EXTERNAL, NAME), put_player(client, key, "bo")
    match_id = create(client, key, {"game": "zhol", "seats": BOTH})
    code = client.post(f"/v1/matches/{match_id}/invite", headers=auth(ana)).get_json()["code"]
    claimed = client.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()
    # Her list drops the match her seat left, and she takes another name: the seat keeps hers.
    assert client.get("/v1/me/matches", headers=auth(ana)).get_json()["matches"] == []
    put_player(client, key, EXTERNAL, "Someone Else")
    assert erase(client, key)["matches"] == 1
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(bo))
    seen = everything_of(client, match_id, bo, key) + everything_of(client, match_id, claimed["token"], key)
    assert named_nowhere(seen) and seen[-1]["seats"][0]["name"] == ERASED_NAME


def feed_of(client, token: str) -> list[dict]:
    return client.get("/v1/me/events?after=0", headers=auth(token)).get_json()["events"]


def test_the_other_players_feed_names_the_erased_player_no_more(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    bo = put_player(client, key, "bo")
    app_id = svc.apps.authenticate(key).id
    bo_id = svc.players.find(app_id, "bo").id
    match_id = create(client, key, {"game": "zhol", "seats": BOTH})
    assert {"0": EXTERNAL, "1": "bo"} in [e["data"].get("players") for e in feed_of(client, bo)]
    before = feed_of(client, bo)[-1]["timestamp"]
    erase(client, key)
    entries = feed_of(client, bo)
    assert named_nowhere(entries)
    # Her seat shows as a seat of nobody's, as a notice made after the erasure would; so it is
    # stored.
    assert {"1": "bo"} in [e["data"].get("players") for e in entries]
    assert EXTERNAL.encode() not in b"".join(svc.trips.state.lrange(feed_key(bo_id), 0, -1))
    # A notice its commit made before the erasure, handed on after it (by the relay).
    late = {"id": f"{match_id}-9-match.over", "type": "match.over", "timestamp": before}
    late["data"] = {"match": match_id, "players": {"0": EXTERNAL, "1": "bo"}, "winners": [1]}
    svc.feeds.publish(bo_id, [late])
    assert feed_of(client, bo)[-1]["data"]["players"] == {"1": "bo"}


def test_notices_made_after_the_erasure_name_the_new_player_of_that_external_id():
    data = {"players": {"0": EXTERNAL}, "player": EXTERNAL}
    notice = {"timestamp": "2030-01-01T00:00:10.000Z", "data": data}
    ended_at = datetime(2030, 1, 1, 0, 0, 5, tzinfo=UTC).timestamp()
    assert tombstones.without(notice, {EXTERNAL: ended_at}) is notice
    assert tombstones.without(notice, {EXTERNAL: ended_at + 10})["data"] == {"players": {}, "player": None}
    assert tombstones.without(notice, {"someone": ended_at + 10}) is notice


def test_a_rating_handed_on_after_the_erasure_is_dropped(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    put_player(client, key, "bo")
    app_id = svc.apps.authenticate(key).id
    ids = {p: svc.players.find(app_id, p).id for p in (EXTERNAL, "bo")}
    erase(client, key)
    # The finish of a commit that read its match before the erasure, handed on after it.
    moved = {"mu": 30.0, "sigma": 7.0, "rating": 9.0}
    players = {ids[EXTERNAL]: {**moved, "external": EXTERNAL, "name": NAME}}
    players[ids["bo"]] = {**moved, "external": "bo", "name": "Bo"}
    effect = {"kind": "ratings", "v": 5, "match": "m1", "game": "zhol", "app": app_id, "players": players}
    rated_matches.apply(effect, svc.ratings, svc.leaderboards)
    board = client.get("/v1/leaderboards/zhol", headers=auth(key)).get_json()
    assert [p["player"] for p in board["players"]] == ["bo"] and named_nowhere(board)
    assert not svc.trips.state.exists(player_key(ids[EXTERNAL]))  # nothing of hers stored again


def test_stored_webhook_deliveries_name_the_erased_player_no_more(client, svc):
    key = new_app(svc)
    put_player(client, key, EXTERNAL, NAME)
    put_player(client, key, "bo")
    app_id = svc.apps.authenticate(key).id
    endpoint = svc.webhooks.create(app_id, "https://hooks.example/cards", ["match.started"])
    notice = {"id": "m1-1-match.started", "type": "match.started", "timestamp": "2030-01-01T00:00:00.000Z"}
    notice["data"] = {"match": "m1", "game": "zhol", "players": {"0": EXTERNAL, "1": "bo"}}
    deliveries = svc.deliveries
    (made,) = deliveries.create(app_id, [(endpoint.id, notice)], time.time() + 60)
    stored = deliveries.get(app_id, made[0])
    deliveries.finish(app_id, stored, status="failed", response=f'{{"unknown": "{EXTERNAL}"}}')
    erase(client, key)
    after = deliveries.get(app_id, made[0])
    assert EXTERNAL not in after.payload and EXTERNAL not in after.response
    assert json.loads(after.payload)["data"]["players"] == {"1": "bo"} and after.status == "failed"
    listed = client.get(f"/v1/webhooks/{endpoint.id}/deliveries", headers=auth(key))
    assert listed.status_code == 200 and named_nowhere(listed.get_json())
