"""An app's matches with its key (docs/integrating.md, "Data of players"): the list of them
with its filters and pages, aborting one, a player's export, and one app never seeing nor
aborting another's."""

from __future__ import annotations

import threading
import time

import pytest

from service.http import examples
from service.matches import app_index, app_matches
from service.matches.store import match_key
from tests.api_helpers import auth
from tests.test_contract_examples import shape
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows

TWO_PLAYERS = [{"kind": "human", "player": "ana"}, {"kind": "human", "player": "bo"}]


def create(client, credential: str, game: str, seats: list[dict], **body) -> str:
    r = client.post("/v1/matches", json={"game": game, "seats": seats, **body}, headers=auth(credential))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def listed(client, key: str, query: str = "") -> dict:
    r = client.get(f"/v1/admin/matches?{query}", headers=auth(key))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def ids(page: dict) -> list[str]:
    return [m["id"] for m in page["matches"]]


def resign(client, match_id: str, token: str) -> None:
    r = client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(token))
    assert r.status_code == 200, r.get_json()


@pytest.fixture
def table(client, svc):
    """An app with players ana and bo, and its matches: a live zhol of both (created with the
    key), a finished zhol of ana's against a bot (her token), and a waiting spades of bo's."""
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ana", "bo")}
    live = create(client, key, "zhol", TWO_PLAYERS)
    over = create(client, tokens["ana"], "zhol", [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
    resign(client, over, tokens["ana"])
    waiting = create(
        client, tokens["bo"], "spades", [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot"}] * 2
    )
    return {"key": key, "tokens": tokens, "live": live, "over": over, "waiting": waiting}


def test_the_list_holds_every_match_of_the_app_newest_first_with_its_seats(client, table):
    page = listed(client, table["key"])
    assert ids(page) == [table["waiting"], table["over"], table["live"]] and page["next_cursor"] is None
    live = page["matches"][2]
    assert live["game"] == "zhol" and live["status"] == "active" and live["own"] is True
    assert live["seats"] == [
        {"seat": 0, "kind": "human", "name": "Ana", "player": "ana"},
        {"seat": 1, "kind": "human", "name": "Bo", "player": "bo"},
    ]
    assert live["updated"] >= live["created"] and live["version"] >= 0
    waiting = page["matches"][0]
    assert waiting["seats"][1] == {"seat": 1, "kind": "open", "name": None}
    assert waiting["seats"][2] == {"seat": 2, "kind": "bot", "name": "Medium bot"}
    assert [m["status"] for m in page["matches"]] == ["waiting", "finished", "active"]


def test_the_list_filters_by_status_game_and_player(client, table):
    key = table["key"]
    assert ids(listed(client, key, "status=finished")) == [table["over"]]
    assert ids(listed(client, key, "status=aborted")) == []
    assert ids(listed(client, key, "game=zhol")) == [table["over"], table["live"]]
    assert ids(listed(client, key, "player=bo")) == [table["waiting"], table["live"]]
    assert ids(listed(client, key, "player=ana&game=zhol&status=active")) == [table["live"]]
    # A player the app does not have sits nowhere.
    assert listed(client, key, "player=nobody") == {"matches": [], "next_cursor": None}
    for bad in ("status=paused", "game=chess", "limit=0", "limit=51", "cursor=not-ours"):
        r = client.get(f"/v1/admin/matches?{bad}", headers=auth(key))
        assert r.status_code == 422 and r.get_json()["error"] == "validation_error", bad


def test_pages_read_in_turn_show_every_match_once_and_a_full_last_page_has_no_next(client, table):
    key = table["key"]
    first = listed(client, key, "limit=2")
    assert ids(first) == [table["waiting"], table["over"]] and first["next_cursor"]
    second = listed(client, key, f"limit=2&cursor={first['next_cursor']}")
    assert ids(second) == [table["live"]] and second["next_cursor"] is None
    # Exactly full: the last page says there is no next.
    full = listed(client, key, "limit=3")
    assert len(full["matches"]) == 3 and full["next_cursor"] is None
    one = listed(client, key, "limit=1&game=zhol")
    rest = listed(client, key, f"limit=1&game=zhol&cursor={one['next_cursor']}")
    assert ids(one) + ids(rest) == [table["over"], table["live"]] and rest["next_cursor"] is None


def test_a_page_that_looked_at_enough_matches_answers_short_with_a_cursor(client, table, monkeypatch):
    monkeypatch.setattr(app_matches, "MAX_SKIPPED", 1)
    key = table["key"]
    # A page of 1 looks at 2 matches at most: the two newest are no active zhol, so the page is
    # empty, and where it stopped is its cursor.
    short = listed(client, key, "game=zhol&status=active&limit=1")
    assert short["matches"] == [] and short["next_cursor"]
    rest = listed(client, key, f"game=zhol&status=active&limit=1&cursor={short['next_cursor']}")
    assert ids(rest) == [table["live"]] and rest["next_cursor"] is None


def test_matches_that_expired_leave_the_list(client, svc, table):
    svc.trips.state.delete(match_key(table["over"], "match"), match_key(table["over"], "events"))
    assert ids(listed(client, table["key"])) == [table["waiting"], table["live"]]
    app_id = svc.apps.authenticate(table["key"]).id
    index = svc.trips.state.zrange(app_index.matches_key(app_id), 0, -1)
    assert table["over"].encode() not in index


def test_a_match_a_player_joins_is_listed_but_only_its_creator_aborts_it(client, svc, table):
    # An anonymous match bo joins with his token: listed for his app, not the app's own.
    stranger = client.post(
        "/v1/matches", json={"game": "zhol", "seats": [{"kind": "human", "name": "Kim"}, {"kind": "open"}]}
    ).get_json()["id"]
    r = client.post(f"/v1/matches/{stranger}/join", json={}, headers=auth(table["tokens"]["bo"]))
    assert r.status_code == 200, r.get_json()
    page = listed(client, table["key"], "player=bo")
    assert ids(page)[0] == stranger and page["matches"][0]["own"] is False
    assert page["matches"][0]["seats"] == [
        {"seat": 0, "kind": "human", "name": "Kim"},
        {"seat": 1, "kind": "human", "name": "Bo", "player": "bo"},
    ]
    r = client.post(f"/v1/admin/matches/{stranger}/abort", headers=auth(table["key"]))
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_another_app_never_sees_nor_aborts_the_apps_matches(client, svc, table):
    other = new_app(svc)
    put_player(client, other, "ana")  # its own ana, another player
    assert listed(client, other) == {"matches": [], "next_cursor": None}
    assert listed(client, other, "player=ana")["matches"] == []
    for match_id in (table["live"], "0123456789abcdef"):
        r = client.post(f"/v1/admin/matches/{match_id}/abort", headers=auth(other))
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get(f"/v1/matches/{table['live']}").get_json()["status"] == "active"


def test_only_the_app_key_lists_and_aborts(client, table):
    for credential in (table["tokens"]["ana"], None, "ctk_0123456789ab.notakeynotakeynotakeynotakeynotake"):
        assert client.get("/v1/admin/matches", headers=auth(credential)).status_code == 401
        r = client.post(f"/v1/admin/matches/{table['live']}/abort", headers=auth(credential))
        assert r.status_code == 401 and r.get_json()["error"] == "invalid_token"


def test_aborting_a_live_match_ends_it_for_every_waiter(app, client, table):
    match_id, bo = table["live"], table["tokens"]["bo"]
    last = client.get(f"/v1/matches/{match_id}/events", headers=auth(bo)).get_json()["events"][-1]["seq"]
    got = {}

    def poll():
        started = time.monotonic()
        waiting = app.test_client().get(
            f"/v1/matches/{match_id}/events?after={last}&wait=10", headers=auth(bo)
        )
        got["events"], got["took"] = waiting.get_json()["events"], time.monotonic() - started

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.3)
    r = client.post(f"/v1/admin/matches/{match_id}/abort", headers=auth(table["key"]))
    waiter.join(15)
    assert r.status_code == 200, r.get_json()
    view = r.get_json()
    assert view["status"] == "aborted" and view["you"] is None and view["hand"] is None
    assert [p.get("player") for p in view["players"]] == ["ana", "bo"]  # as the app sees it
    # Bo's own app's players are named to him (match_over's `players`).
    players = {"0": "ana", "1": "bo"}
    assert got["events"] == [
        {"seq": last + 1, "type": "match_over", "winners": [], "reason": "aborted_by_app", "players": players}
    ]
    assert got["took"] < 9  # woken by the abort, not by the timeout
    assert client.get(f"/v1/matches/{match_id}", headers=auth(bo)).get_json()["legal_actions"] == []
    # Over: a second abort, or one of a finished match, is refused.
    for over in (match_id, table["over"]):
        r = client.post(f"/v1/admin/matches/{over}/abort", headers=auth(table["key"]))
        assert r.status_code == 409 and r.get_json()["error"] == "match_not_active"
    assert ids(listed(client, table["key"], "status=aborted")) == [match_id]


def test_the_export_holds_the_player_its_ratings_and_every_match_it_sits_in(client, svc, table):
    key, ana = table["key"], table["tokens"]["ana"]
    # A rated match she wins gives her a rating.
    rated = create(client, key, "zhol", TWO_PLAYERS, options={"rated": True})
    resign(client, rated, table["tokens"]["bo"])
    r = client.get("/v1/players/ana/export", headers=auth(key))
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    exported = r.get_json()
    assert exported["player"]["player"] == "ana" and exported["player"]["name"] == "Ana"
    assert exported["player"]["ratings"]["zhol"]["matches"] == 1
    by_id = {m["id"]: m for m in exported["matches"]}
    assert set(by_id) == {table["live"], table["over"], rated}  # not bo's waiting match
    live, over = by_id[table["live"]], by_id[table["over"]]
    assert live["seat"] == 0 and live["name"] == "Ana" and live["history"] is None
    assert live["view"]["id"] == table["live"] and live["view"]["hand"] is None  # the public view
    assert over["status"] == "finished" and over["view"] is None
    assert over["history"]["events"][-1]["type"] == "match_over"
    assert over["history"]["seats"][0] == {"seat": 0, "kind": "human", "name": "Ana"}
    # Another app's key, or a player it does not have: 404.
    assert client.get("/v1/players/ana/export", headers=auth(new_app(svc))).status_code == 404
    assert client.get("/v1/players/nobody/export", headers=auth(key)).status_code == 404
    assert client.get("/v1/players/ana/export", headers=auth(ana)).status_code == 401


def test_the_examples_have_the_fields_of_live_answers(client, table):
    key = table["key"]
    assert shape(listed(client, key, "limit=1")) == shape(examples.APP_MATCHES)
    exported = client.get("/v1/players/ana/export", headers=auth(key)).get_json()
    assert exported.keys() == examples.PLAYER_EXPORT.keys()
    assert exported["player"].keys() == examples.PLAYER_EXPORT["player"].keys()
    shown = {m["status"]: m for m in exported["matches"]}
    for example in examples.PLAYER_EXPORT["matches"]:
        live = shown["active" if example["view"] else "finished"]
        assert live.keys() == example.keys()
        part = "view" if example["view"] else "history"
        assert live[part].keys() == example[part].keys()
    aborted = client.post(f"/v1/admin/matches/{table['live']}/abort", headers=auth(key)).get_json()
    assert aborted.keys() == examples.ABORTED.keys()
    erased = client.delete("/v1/players/ana", headers=auth(key)).get_json()
    assert shape(erased) == shape(examples.ERASED)
