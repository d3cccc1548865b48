"""Apps and players (docs/integrating.md): keys, player tokens, seats bound to players, a
player's matches on a second phone, quotas of an app, and one app never seeing another's."""

from __future__ import annotations

import pytest

from service.config import Config
from service.http.app import create_app
from service.identity.players import match_list_key
from service.infra.cursors import MAX_SKIPPED
from service.infra.embedded import start_redis
from service.matches.store import match_key
from tests.api_helpers import auth, playable
from tests.conftest import UNLIMITED_MATCHES

PLAYER_SEATS = [{"kind": "human", "player": "ana"}, {"kind": "human", "player": "bo"}]


@pytest.fixture
def svc(app):
    return app.extensions["cardtable"]


def new_app(svc, **quotas) -> str:
    _, key = svc.apps.create("test app", **quotas)
    return key


def put_player(client, key: str, external: str, name: str | None = None) -> str:
    r = client.put(f"/v1/players/{external}", json={"name": name or external.title()}, headers=auth(key))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["player"] == external
    return r.get_json()["token"]


def test_an_app_key_makes_players_whose_tokens_say_who_they_are(client, svc):
    key = new_app(svc)
    token = put_player(client, key, "user-4711", "Ana")
    assert token.startswith("ctp_")
    me = client.get("/v1/me", headers=auth(token)).get_json()
    assert me["player"] == "user-4711" and me["name"] == "Ana"
    shown = client.get("/v1/players/user-4711", headers=auth(key)).get_json()
    assert shown["name"] == "Ana" and shown["ratings"] == {}
    # Updating the name keeps the player; the earlier token still works (one per device).
    again = put_player(client, key, "user-4711", "Ana B.")
    assert client.get("/v1/me", headers=auth(token)).get_json()["name"] == "Ana B."
    assert client.get("/v1/me", headers=auth(again)).status_code == 200


def test_a_player_bound_seat_is_played_with_the_player_token(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ana", "bo")}
    created = client.post("/v1/matches", json={"game": "zhol", "seats": PLAYER_SEATS}, headers=auth(key))
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    # No seat token for a bound seat: the player's token acts in it.
    assert [s.get("player") for s in body["seats"]] == ["ana", "bo"]
    assert all("token" not in s for s in body["seats"])
    match_id = body["id"]
    view = client.get(f"/v1/matches/{match_id}", headers=auth(tokens["ana"])).get_json()
    assert view["you"] == 0 and view["hand"]
    seat = view["turn"]["seat"]
    mover = tokens["ana" if seat == 0 else "bo"]
    moved = client.post(
        f"/v1/matches/{match_id}/actions",
        json=playable(client.get(f"/v1/matches/{match_id}", headers=auth(mover)).get_json())[0],
        headers=auth(mover),
    )
    assert moved.status_code == 200, moved.get_json()
    # Another app's player token holds no seat here.
    other = put_player(client, new_app(svc), "ana")
    assert client.get(f"/v1/matches/{match_id}", headers=auth(other)).status_code == 401


def test_a_second_phone_gets_every_match_back_after_a_rotate(client, svc):
    key = new_app(svc)
    first_phone = put_player(client, key, "cleo")
    ids = []
    for _ in range(3):
        # Two people, nobody moving meanwhile: whose turn it is stays put while the test reads it
        # (a bot, with the workers running, could move between the list and the view).
        seats = [{"kind": "human"}, {"kind": "human"}]
        r = client.post(
            "/v1/matches", json={"game": "three-thirteen", "seats": seats}, headers=auth(first_phone)
        )
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["seats"][0] == {"seat": 0, "kind": "human", "player": "cleo"}
        ids.append(r.get_json()["id"])
    rotated = client.post("/v1/players/cleo/token", headers=auth(key))
    assert rotated.status_code == 200
    second_phone = rotated.get_json()["token"]
    assert client.get("/v1/me", headers=auth(first_phone)).status_code == 401
    assert client.get(f"/v1/matches/{ids[0]}", headers=auth(first_phone)).status_code == 401
    listed = client.get("/v1/me/matches?limit=2", headers=auth(second_phone)).get_json()
    page2 = client.get(
        f"/v1/me/matches?limit=2&cursor={listed['next']}", headers=auth(second_phone)
    ).get_json()
    found = [m["id"] for m in listed["matches"] + page2["matches"]]
    assert sorted(found) == sorted(ids) and page2["next"] is None
    # Newest first, and each says whether the match waits for the player.
    assert found == list(reversed(ids))
    for m in listed["matches"] + page2["matches"]:
        view = client.get(f"/v1/matches/{m['id']}", headers=auth(second_phone)).get_json()
        assert m["seat"] == 0 and m["your_turn"] == (view["turn"]["seat"] == 0)


def test_finished_matches_are_listed_after_the_live_ones(client, svc):
    key = new_app(svc)
    token = put_player(client, key, "dee")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    over = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).get_json()[
        "id"
    ]
    live = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).get_json()[
        "id"
    ]
    assert (
        client.post(f"/v1/matches/{over}/actions", json={"type": "resign"}, headers=auth(token)).status_code
        == 200
    )
    newest_first = client.post(
        "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)
    ).get_json()["id"]
    listed = client.get("/v1/me/matches", headers=auth(token)).get_json()["matches"]
    assert [m["id"] for m in listed] == [newest_first, live, over]
    assert listed[-1]["status"] == "finished" and listed[-1]["your_turn"] is False
    only_over = client.get("/v1/me/matches?status=finished", headers=auth(token)).get_json()["matches"]
    assert [m["id"] for m in only_over] == [over]


def test_joining_with_a_player_token_binds_the_seat(client, svc):
    key = new_app(svc)
    host, guest = put_player(client, key, "eve"), put_player(client, key, "fay")
    seats = [{"kind": "human"}, {"kind": "open"}]
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(host)
    ).get_json()["id"]
    joined = client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(guest)).get_json()
    assert joined == {"seat": 1, "player": "fay", "version": joined["version"]}
    assert client.get(f"/v1/matches/{match_id}", headers=auth(guest)).get_json()["you"] == 1
    # A player sits once in a match.
    seats3 = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    three = client.post(
        "/v1/matches", json={"game": "three-thirteen", "seats": seats3}, headers=auth(host)
    ).get_json()["id"]
    assert client.post(f"/v1/matches/{three}/join", json={}, headers=auth(host)).status_code == 409


def test_binding_a_seat_to_a_player_needs_the_app_key_and_a_known_player(client, svc):
    key = new_app(svc)
    put_player(client, key, "gil")
    anonymous = client.post(
        "/v1/matches", json={"game": "zhol", "seats": [{"kind": "human", "player": "gil"}, {"kind": "bot"}]}
    )
    assert anonymous.status_code == 403
    unknown = client.post(
        "/v1/matches",
        json={"game": "zhol", "seats": [{"kind": "human", "player": "nobody"}, {"kind": "bot"}]},
        headers=auth(key),
    )
    assert unknown.status_code == 422 and unknown.get_json()["error"] == "validation_error"
    twice = client.post(
        "/v1/matches",
        json={"game": "zhol", "seats": [{"kind": "human", "player": "gil"}] * 2},
        headers=auth(key),
    )
    assert twice.status_code == 422


def test_one_app_never_sees_another_apps_players(client, svc):
    mine, theirs = new_app(svc), new_app(svc)
    put_player(client, theirs, "hal")
    assert client.get("/v1/players/hal", headers=auth(mine)).status_code == 404
    assert client.post("/v1/players/hal/token", headers=auth(mine)).status_code == 404
    # The same external id in another app is another player.
    put_player(client, mine, "hal", "Mine")
    assert client.get("/v1/players/hal", headers=auth(theirs)).get_json()["name"] == "Hal"


def test_bad_keys_and_tokens_answer_401(client, svc):
    for token in ("ctk_000000000000.nope", "ctp_0000000000000000.nope", "ctk_garbage"):
        assert client.get("/v1/players/x", headers=auth(token)).status_code == 401
        assert client.get("/v1/me", headers=auth(token)).status_code == 401
    key = new_app(svc)
    player = put_player(client, key, "ivy")
    assert client.get("/v1/me", headers=auth(key)).status_code == 401  # an app key is not a player
    assert client.get("/v1/players/ivy", headers=auth(player)).status_code == 401  # nor the other way
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(player)
    ).get_json()["id"]
    app_id = key[4:16]
    svc.apps.revoke(app_id)
    assert client.get("/v1/players/ivy", headers=auth(key)).status_code == 401
    assert client.get("/v1/me", headers=auth(player)).status_code == 401
    # Its seats too: a revoked app's players act nowhere.
    assert client.get(f"/v1/matches/{match_id}", headers=auth(player)).status_code == 401


def test_an_apps_live_match_quotas_refuse_at_their_edge(config, svc):
    app = create_app(Config(**{**config.__dict__, "ANONYMOUS_BOT_MATCHES": 0})).test_client()
    key = new_app(svc, matches=3, bot_matches=1)
    bots = {"game": "zhol", "seats": [{"kind": "bot"}, {"kind": "bot"}]}
    assert app.post("/v1/matches", json=bots, headers=auth(key)).status_code == 201
    refused = app.post("/v1/matches", json=bots, headers=auth(key))
    assert refused.status_code == 429 and refused.get_json()["quota"] == "bot_matches"
    assert refused.headers["Retry-After"]
    humans = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}
    assert app.post("/v1/matches", json=humans, headers=auth(key)).status_code == 201
    assert app.post("/v1/matches", json=humans, headers=auth(key)).status_code == 201
    over = app.post("/v1/matches", json=humans, headers=auth(key))
    assert over.status_code == 429 and over.get_json()["quota"] == "matches"
    # The anonymous limit is not the app's: without the key, bot-only matches are refused here.
    assert app.post("/v1/matches", json=bots).get_json()["quota"] == "bot_matches"


def test_only_callers_of_the_same_app_see_which_player_sits_where(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ana", "bo")}
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": PLAYER_SEATS}, headers=auth(key)
    ).get_json()["id"]
    for who in (tokens["bo"], key):
        shown = client.get(f"/v1/matches/{match_id}", headers=auth(who)).get_json()["players"]
        assert [p.get("player") for p in shown] == ["ana", "bo"]
    for who in (None, new_app(svc)):
        shown = client.get(f"/v1/matches/{match_id}", headers=auth(who)).get_json()["players"]
        assert [p.get("player") for p in shown] == [None, None]
    # Another app's player sits nowhere here: its token opens nothing, not even the public view.
    stranger = put_player(client, new_app(svc), "cy")
    assert client.get(f"/v1/matches/{match_id}", headers=auth(stranger)).status_code == 401


def ana_hands_her_seat_to_dee(client, svc) -> tuple[str, dict[str, str], dict]:
    """A Zhol match of players ana and bo whose seat 0 ana hands on by invitation to "Dee":
    the match id, the players' tokens and the claim's answer."""
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ana", "bo")}
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": PLAYER_SEATS}, headers=auth(key)
    ).get_json()["id"]
    code = client.post(f"/v1/matches/{match_id}/invite", headers=auth(tokens["ana"])).get_json()["code"]
    claimed = client.post(f"/v1/matches/{match_id}/claim", json={"code": code, "name": "Dee"}).get_json()
    return match_id, tokens, claimed


def test_a_players_seat_handed_over_by_invitation_is_no_longer_the_players(client, svc):
    match_id, tokens, claimed = ana_hands_her_seat_to_dee(client, svc)
    assert claimed["seat"] == 0
    assert client.get(f"/v1/matches/{match_id}", headers=auth(tokens["ana"])).status_code == 401
    assert client.get(f"/v1/matches/{match_id}", headers=auth(claimed["token"])).get_json()["you"] == 0
    assert [
        m["id"] for m in client.get("/v1/me/matches", headers=auth(tokens["ana"])).get_json()["matches"]
    ] == []


def test_a_full_last_page_of_my_matches_says_there_is_no_next(client, svc):
    token = put_player(client, new_app(svc), "eve")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    for _ in range(2):
        assert (
            client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).status_code
            == 201
        )
    page = client.get("/v1/me/matches?limit=2", headers=auth(token)).get_json()
    assert len(page["matches"]) == 2 and page["next"] is None


def hmgets(svc) -> int:
    """HMGETs the match state's Redis has served: one a match record read (Store.load)."""
    stats = svc.trips.state.info("commandstats")
    return int(stats.get("cmdstat_hmget", {}).get("calls", 0))


def long_history(client, svc, external: str, cloned: int) -> tuple[str, str, str, list[str]]:
    """A player with one live match, one finished match and `cloned` older finished matches
    (copies of the finished one's record under new ids, as many matches as a loop of
    create-and-resign leaves): its token, player id, live match and done matches newest first."""
    token = put_player(client, new_app(svc), external)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    over = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).get_json()[
        "id"
    ]
    resign = client.post(f"/v1/matches/{over}/actions", json={"type": "resign"}, headers=auth(token))
    assert resign.status_code == 200
    live = client.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).get_json()[
        "id"
    ]
    player_id = token[4:20]
    state = svc.trips.state
    done_key = match_list_key(player_id, "done")
    # The commit that ended the match moved it to the done part: no list read was needed.
    assert state.zscore(match_list_key(player_id, "live"), over) is None
    newest = state.zscore(done_key, over)
    assert newest is not None
    record = state.dump(match_key(over, "match"))
    clones = [f"{n:016x}" for n in range(1, cloned + 1)]
    with state.pipeline(transaction=False) as p:
        for n, clone in enumerate(clones, 1):
            p.restore(match_key(clone, "match"), 3_600_000, record, replace=True)
            p.zadd(done_key, {clone: newest - n})
        p.execute()
    return token, player_id, live, [over, *clones]


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """(client, service) on a Redis of their own: the pages' reads are counted by the server's
    command counts, which another test's requests on a shared Redis would add to."""
    proc, url = start_redis(str(tmp_path_factory.mktemp("players-alone")), persist=False)
    app = create_app(Config(REDIS_URL=url, RATE_LIMIT=0, **UNLIMITED_MATCHES))
    yield app.test_client(), app.extensions["cardtable"]
    proc.terminate()
    proc.wait(10)


def test_a_page_of_my_matches_reads_what_it_shows_whatever_the_history(alone):
    client, svc = alone
    token, _, live, done = long_history(client, svc, "looper", 3000)
    seen: list[str] = []
    cursor = ""
    while True:
        before = hmgets(svc)
        page = client.get(f"/v1/me/matches?limit=50{cursor}", headers=auth(token)).get_json()
        # The page's own matches, the one that says a next page exists, and the caller's token
        # check (one HMGET of the player's hash).
        assert hmgets(svc) - before <= 50 + 2
        seen += [m["id"] for m in page["matches"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    # Every match once: the live one first, then those over, newest first.
    assert seen == [live, *done]
    # A filter that no match passes reads at most `limit` + MAX_SKIPPED matches a page, and says
    # where to go on.
    before = hmgets(svc)
    page = client.get("/v1/me/matches?limit=1&status=aborted", headers=auth(token)).get_json()
    assert page["matches"] == [] and page["next"] is not None
    assert hmgets(svc) - before <= 1 + MAX_SKIPPED + 1
    # A live status never reads the matches that are over.
    before = hmgets(svc)
    page = client.get("/v1/me/matches?status=active", headers=auth(token)).get_json()
    assert [m["id"] for m in page["matches"]] == [live] and page["next"] is None
    assert hmgets(svc) - before <= 1 + 1


def test_matches_over_still_in_an_old_live_list_are_listed_once_among_those_over(client, svc):
    token, player_id, live, done = long_history(client, svc, "old-timer", 120)
    # As lists were stored before a match's end moved it: every match in the live part.
    state = svc.trips.state
    done_key, live_key = match_list_key(player_id, "done"), match_list_key(player_id, "live")
    state.zadd(live_key, {m: s for m, s in state.zrange(done_key, 0, -1, withscores=True)})
    state.delete(done_key)
    seen: list[str] = []
    cursor = ""
    while True:
        page = client.get(f"/v1/me/matches?limit=20{cursor}", headers=auth(token)).get_json()
        seen += [m["id"] for m in page["matches"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert seen == [live, *done]
    assert state.zcard(live_key) == 1 and state.zcard(done_key) == len(done)


def test_a_match_whose_seat_the_player_no_longer_holds_stays_among_all_its_matches(client, svc):
    match_id, tokens, claimed = ana_hands_her_seat_to_dee(client, svc)
    assert claimed["seat"] == 0
    assert client.get("/v1/me/matches", headers=auth(tokens["ana"])).get_json()["matches"] == []
    # Her list dropped it, and erasure still finds it: her name is in its events.
    assert svc.players.match_ids(tokens["ana"][4:20]) == [match_id]
