"""Rated matches through the API: who may sit in one, ratings moving the right way when one
ends (a pair, a partnership, a table of four), `match_over` carrying them, the players' ratings
and the app's leaderboard; unrated matches moving nothing."""

from __future__ import annotations

import json
import random

from engines import bots
from engines.registry import GAMES
from tests.api_helpers import auth, bot_input
from tests.test_contract_examples import validator
from tests.test_players import new_app, put_player, svc

__all__ = ["svc"]  # the fixture this module borrows


def rated_match(client, key: str, game: str, externals: list[str], **options) -> str:
    seats = [{"kind": "human", "player": p} for p in externals]
    body = {"game": game, "seats": seats, "options": {"rated": True, **options}}
    r = client.post("/v1/matches", json=body, headers=auth(key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def match_over(client, match_id: str, token: str) -> dict:
    events = client.get(f"/v1/matches/{match_id}/events?after=0&limit=1000", headers=auth(token)).get_json()
    (over,) = [e for e in events["events"] if e["type"] == "match_over"]
    return over


def rating(client, key: str, external: str, game: str) -> float | None:
    shown = client.get(f"/v1/players/{external}", headers=auth(key)).get_json()["ratings"]
    return shown[game]["rating"] if game in shown else None


def test_a_rated_pair_moves_the_winner_up_and_the_loser_down(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ana", "bo")}
    match_id = rated_match(client, key, "zhol", ["ana", "bo"])
    assert (
        client.post(
            f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens["bo"])
        ).status_code
        == 200
    )
    over = match_over(client, match_id, tokens["ana"])
    moved = over["ratings"]
    assert moved["0"]["after"]["rating"] > moved["0"]["before"]["rating"] == 0
    assert moved["1"]["after"]["rating"] < moved["1"]["before"]["rating"]
    assert rating(client, key, "ana", "zhol") == moved["0"]["after"]["rating"]
    board = client.get("/v1/leaderboards/zhol", headers=auth(tokens["bo"])).get_json()
    assert [(p["rank"], p["player"]) for p in board["players"]] == [(1, "ana"), (2, "bo")]
    # Dumped without marshmallow: the answer still fits the documented schema.
    assert validator({"$ref": "#/components/schemas/Leaderboard"}).is_valid(board)
    # A second win starts from the first one's rating.
    again = rated_match(client, key, "zhol", ["ana", "bo"])
    client.post(f"/v1/matches/{again}/actions", json={"type": "resign"}, headers=auth(tokens["bo"]))
    second = match_over(client, again, tokens["ana"])["ratings"]["0"]
    assert second["before"] == moved["0"]["after"] and second["after"]["rating"] > second["before"]["rating"]


def test_partners_move_together(client, svc):
    key = new_app(svc)
    names = ["cy", "di", "ed", "fi"]
    tokens = {p: put_player(client, key, p) for p in names}
    match_id = rated_match(client, key, "spades", names)
    # Seat 1 resigns: seats 0 and 2 win as a partnership.
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens["di"]))
    moved = match_over(client, match_id, tokens["cy"])["ratings"]
    up = [moved[s]["after"]["rating"] - moved[s]["before"]["rating"] for s in ("0", "1", "2", "3")]
    assert up[0] > 0 and up[2] > 0 and up[1] < 0 and up[3] < 0
    assert up[0] == up[2] and up[1] == up[3]


def test_a_table_of_four_ranks_the_round_winner_above_the_rest(client, svc):
    key = new_app(svc)
    names = ["gu", "ha", "io", "ju"]
    tokens = [put_player(client, key, p) for p in names]
    match_id = rated_match(client, key, "zhol", names, variant="large")
    rng = random.Random(4)
    for _ in range(2000):
        view = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])).get_json()
        if view["status"] != "active":
            break
        seat = view["turn"]["seat"]
        mine = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[seat])).get_json()
        r = client.post(
            f"/v1/matches/{match_id}/actions",
            json=bots.decide(GAMES["zhol"], bot_input(mine), "medium", rng),
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.get_json()
    assert view["status"] == "round_over"
    host = view["host"]
    assert client.post(f"/v1/matches/{match_id}/end", headers=auth(tokens[host])).status_code == 200
    over = match_over(client, match_id, tokens[0])
    moved = {int(s): m["after"]["rating"] - m["before"]["rating"] for s, m in over["ratings"].items()}
    winners = set(over["winners"])
    assert winners and all(moved[s] > 0 for s in winners)
    assert all(moved[s] < 0 for s in moved if s not in winners)


def test_only_one_apps_players_and_no_bots_sit_in_a_rated_match(client, svc):
    key = new_app(svc)
    put_player(client, key, "ko")
    with_bot = {
        "game": "zhol",
        "seats": [{"kind": "human", "player": "ko"}, {"kind": "bot"}],
        "options": {"rated": True},
    }
    assert client.post("/v1/matches", json=with_bot, headers=auth(key)).status_code == 422
    anonymous = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "human"}], "options": {"rated": True}}
    assert client.post("/v1/matches", json=anonymous).status_code == 422
    # Open seats take players of the same app only.
    host = put_player(client, key, "lu")
    waiting = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}], "options": {"rated": True}}
    match_id = client.post("/v1/matches", json=waiting, headers=auth(host)).get_json()["id"]
    assert client.post(f"/v1/matches/{match_id}/join", json={}).status_code == 403
    stranger = put_player(client, new_app(svc), "mo")
    assert client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(stranger)).status_code == 403
    friend = put_player(client, key, "nu")
    assert client.post(f"/v1/matches/{match_id}/join", json={}, headers=auth(friend)).status_code == 200


def test_an_unrated_match_moves_no_rating(client, svc):
    key = new_app(svc)
    tokens = [put_player(client, key, p) for p in ("oz", "pi")]
    seats = [{"kind": "human", "player": p} for p in ("oz", "pi")]
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key)
    ).get_json()["id"]
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens[1]))
    assert "ratings" not in match_over(client, match_id, tokens[0])
    assert rating(client, key, "oz", "zhol") is None
    assert client.get("/v1/leaderboards/zhol", headers=auth(key)).get_json()["players"] == []


def set_rating(svc, app_id: str, external: str, game: str, shown: float) -> None:
    player = svc.players.find(app_id, external)
    stored = {"mu": 25.0, "sigma": 1.0, "rating": shown, "matches": 9, "match": "earlier"}
    svc.trips.state.hset(f"ct:{{pl:{player.id}}}", f"rating:{game}", json.dumps(stored))


def test_quick_play_with_a_player_token_joins_the_table_of_the_nearest_rating(client, svc):
    key = new_app(svc)
    app_id = key[4:16]
    tokens = {p: put_player(client, key, p) for p in ("strong", "newbie", "rookie")}
    for name, shown in (("strong", 20.0), ("newbie", 1.0), ("rookie", 2.0)):
        set_rating(svc, app_id, name, "zoliky", shown)
    # Options of their own: no other test's table waits in this part of the lobby.
    options = {"target_wins": 7, "first_cutter": 1}
    table = {
        "game": "zoliky",
        "seats": [{"kind": "human"}, {"kind": "open"}],
        "listed": True,
        "options": options,
    }
    older = client.post("/v1/matches", json=table, headers=auth(tokens["strong"])).get_json()["id"]
    nearer = client.post("/v1/matches", json=table, headers=auth(tokens["newbie"])).get_json()["id"]
    joined = client.post(
        "/v1/matches/quick", json={"game": "zoliky", "options": options}, headers=auth(tokens["rookie"])
    ).get_json()
    assert joined["id"] == nearer and joined["player"] == "rookie"
    # Without a player token quick play keeps taking the oldest table.
    anonymous = client.post("/v1/matches/quick", json={"game": "zoliky", "options": options}).get_json()
    assert anonymous["id"] == older


def test_match_over_and_history_name_the_players_for_their_own_app_only(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("qu", "ra")}
    seats = [{"kind": "human", "player": "qu"}, {"kind": "human", "player": "ra"}]
    match_id = client.post(
        "/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(key)
    ).get_json()["id"]
    anonymous = client.post("/v1/matches", json={"game": "zhol", "seats": [{"kind": "human"}] * 2}).get_json()
    client.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(tokens["ra"]))
    assert match_over(client, match_id, tokens["qu"])["players"] == {"0": "qu", "1": "ra"}
    history = client.get(f"/v1/matches/{match_id}/history", headers=auth(tokens["qu"])).get_json()
    assert [s["player"] for s in history["seats"]] == ["qu", "ra"]
    # A seat token of an anonymous match sees no player ids anywhere.
    token = anonymous["seats"][0]["token"]
    client.post(f"/v1/matches/{anonymous['id']}/actions", json={"type": "resign"}, headers=auth(token))
    assert "players" not in match_over(client, anonymous["id"], token)
