"""Tournaments over HTTP (docs/api.md, "Tournaments"): an app creates and starts one, its players
join with their tokens and play their rounds' matches (here they resign, a seeded coin picking
who), each round opens when the last match of the one before ends, and every player hears of
each round and of the end in its feed and the app's webhook endpoint."""

from __future__ import annotations

import json
import random

import pytest
from standardwebhooks.webhooks import Webhook

from service.config import Config
from service.http.app import create_app
from tests.api_helpers import Api, auth
from tests.conftest import UNLIMITED_MATCHES
from tests.test_api_games import human_move
from tests.test_players import new_app, put_player
from tests.webhook_helpers import LOCAL, receiver, until, webhook_worker

TOURNAMENT_TYPES = ["tournament.round_started", "tournament.over"]
# The session's workers make each round's matches (workers/jobs.py, advance_tournament).
pytestmark = pytest.mark.usefixtures("worker")


@pytest.fixture(scope="module")
def local(config):
    return create_app(
        Config(
            **{
                **config.__dict__,
                "WEBHOOK_ALLOW_HTTP": True,
                "WEBHOOK_ALLOW_PRIVATE": True,
                **UNLIMITED_MATCHES,
            }
        )
    )


@pytest.fixture
def client(local):
    return local.test_client()


@pytest.fixture
def svc(local):
    return local.extensions["cardtable"]


def rated_players(client, svc, key: str, game: str, ratings: dict[str, float]) -> dict[str, str]:
    """The app's players with these shown ratings in `game` (sigma 1): their tokens."""
    app_id = key[4:16]
    tokens = {}
    for name, rating in ratings.items():
        tokens[name] = put_player(client, key, name)
        player = svc.players.find(app_id, name)
        stored = {"mu": rating + 3, "sigma": 1.0, "rating": rating, "matches": 5, "match": "earlier"}
        svc.trips.state.hset(f"ct:{{pl:{player.id}}}", f"rating:{game}", json.dumps(stored))
    return tokens


def settled(client, svc, key: str, tournament_id: str) -> dict:
    """The tournament once the worker has done what it waits for: its last round open and
    playing, or the end told (a worker makes a round's matches: workers/jobs.py)."""

    def done() -> bool:
        record, _ = svc.tournament_store.load(tournament_id)
        if record["status"] == "finished":
            return bool(record.get("told"))
        current = record["played"][-1]
        return current["open"] and not svc.tournament_store.ended(
            tournament_id, [t["match"] for t in current["tables"]]
        )

    until(done, 60, "the tournament's worker job")
    return ok(client.get(f"/v1/tournaments/{tournament_id}", headers=auth(key)))


def ok(r, status: int = 200) -> dict:
    assert r.status_code == status, r.get_json()
    return r.get_json()


def create(client, key: str, **fields) -> dict:
    body = {"game": "zhol", "options": {"rated": True}, "format": "swiss", "round_seconds": 600, **fields}
    return ok(client.post("/v1/tournaments", json=body, headers=auth(key)), 201)


def play_round(client, tokens: dict[str, str], tournament: dict, winner_of) -> dict[str, list[str]]:
    """Every match of the tournament's current round ends: at each table all but `winner_of`'s
    pick resign. The winners by match id."""
    current = tournament["rounds"][-1]
    won = {}
    for match in current["matches"]:
        winner = winner_of(match["players"])
        for seat, player in enumerate(match["players"]):
            if player != winner:
                r = client.post(
                    f"/v1/matches/{match['id']}/actions",
                    json={"type": "resign"},
                    headers=auth(tokens[player]),
                )
                assert r.status_code == 200, (seat, r.get_json())
        won[match["id"]] = [winner]
    return won


def feed(client, token: str) -> list[dict]:
    return ok(client.get("/v1/me/events?after=0&limit=100", headers=auth(token)))["events"]


def test_a_swiss_of_eight_over_three_rounds_pairs_equal_points_never_twice_and_tells_everyone(
    client, svc, redis_url
):
    key = new_app(svc)
    ratings = {f"sw{i}": 100.0 - 10 * i for i in range(8)}  # sw0 the strongest
    tokens = rated_players(client, svc, key, "zhol", ratings)
    rng = random.Random(42)
    with receiver(200) as hook, webhook_worker(redis_url, **LOCAL):
        endpoint = ok(
            client.post(
                "/v1/webhooks", json={"url": hook.url, "events": TOURNAMENT_TYPES}, headers=auth(key)
            ),
            201,
        )
        t = create(client, key, rounds=3, max_players=8)
        assert t["status"] == "registering" and t["round"] == 0
        for name in rng.sample(sorted(tokens), 8):
            joined = ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens[name])))
        assert len(joined["players"]) == 8
        running = ok(client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key)))
        assert running["status"] == "running" and running["round"] == 1 and running["total_rounds"] == 3
        settled(client, svc, key, t["id"])
        met: set[frozenset[str]] = set()
        points = dict.fromkeys(tokens, 0)
        for number in (1, 2, 3):
            current = ok(client.get(f"/v1/tournaments/{t['id']}", headers=auth(key)))
            assert current["round"] == number
            tables = [m["players"] for m in current["rounds"][-1]["matches"]]
            assert len(tables) == 4 and not current["rounds"][-1]["byes"]
            for pair in tables:
                # Equal points meet: 8 players over 3 rounds always can.
                assert points[pair[0]] == points[pair[1]], (number, pair, points)
                assert frozenset(pair) not in met, f"{pair} met twice"
                met.add(frozenset(pair))
            if number == 1:
                # No points yet: by rating, the two strongest first.
                assert sorted(map(sorted, tables)) == [
                    ["sw0", "sw1"],
                    ["sw2", "sw3"],
                    ["sw4", "sw5"],
                    ["sw6", "sw7"],
                ]
            won = play_round(client, tokens, current, lambda pair: rng.choice(pair))
            for winners in won.values():
                points[winners[0]] += 1
            settled(client, svc, key, t["id"])
        final = ok(client.get(f"/v1/tournaments/{t['id']}", headers=auth(tokens["sw3"])))
        assert final["status"] == "finished"
        assert {p["player"]: p["points"] for p in final["players"]} == points
        assert [p["rank"] for p in final["players"]] == list(range(1, 9))
        assert [p["points"] for p in final["players"]] == sorted(points.values(), reverse=True)
        assert final["winners"] == [final["players"][0]["player"]] and points[final["winners"][0]] == 3
        # Every match was rated and ended with its winner.
        assert all(
            m["status"] == "finished" and len(m["winners"]) == 1
            for r in final["rounds"]
            for m in r["matches"]
        )

        # Feeds: three round starts with the player's match and seat, then the end.
        for name, token in tokens.items():
            mine = [e for e in feed(client, token) if e["type"].startswith("tournament.")]
            assert [e["type"] for e in mine] == ["tournament.round_started"] * 3 + ["tournament.over"], name
            for e, r in zip(mine, final["rounds"], strict=False):
                match = next(m for m in r["matches"] if name in m["players"])
                assert e["data"] == {
                    "tournament": t["id"],
                    "game": "zhol",
                    "round": r["round"],
                    "match": match["id"],
                    "seat": match["players"].index(name),
                    "bye": False,
                    "player": name,
                }
            assert mine[-1]["data"]["winners"] == final["winners"]
            assert mine[-1]["data"]["standings"][0] == {
                k: final["players"][0][k] for k in ("player", "name", "points", "rank")
            }
        # The webhook endpoint: 8 round starts a round and the end, each once, signed.
        until(lambda: len(hook.received) >= 25, 60, "the tournament's notices")
        bodies = [Webhook(endpoint["secret"]).verify(r.body, r.headers) for r in hook.received]
        assert sorted(b["type"] for b in bodies) == ["tournament.over"] + ["tournament.round_started"] * 24
        ids = [r.headers["webhook-id"] for r in hook.received]
        assert len(ids) == len(set(ids))


def test_a_knockout_of_eight_seeds_by_rating_and_the_loser_leaves(client, svc):
    key = new_app(svc)
    ratings = {f"ko{i}": 200.0 - 10 * i for i in range(8)}  # ko0 the top seed
    tokens = rated_players(client, svc, key, "zhol", ratings)
    t = create(client, key, format="knockout", max_players=8)
    for name in tokens:
        ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens[name])))
    ok(client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key)))
    started = settled(client, svc, key, t["id"])
    assert started["total_rounds"] == 3
    seeds = {f"ko{i}": i for i in range(8)}
    # Round 1: 1 v 8, 2 v 7, 3 v 6, 4 v 5. The better seed wins, but 4 v 5 goes to 5.
    first = [sorted(m["players"], key=seeds.get) for m in started["rounds"][0]["matches"]]
    assert sorted(first) == [["ko0", "ko7"], ["ko1", "ko6"], ["ko2", "ko5"], ["ko3", "ko4"]]
    upset = {"ko3", "ko4"}
    play_round(
        client, tokens, started, lambda pair: "ko4" if set(pair) == upset else min(pair, key=seeds.get)
    )
    second = settled(client, svc, key, t["id"])
    pairs = [sorted(m["players"], key=seeds.get) for m in second["rounds"][1]["matches"]]
    # Re-seeded: the best left against the worst left.
    assert sorted(pairs) == [["ko0", "ko4"], ["ko1", "ko2"]]
    play_round(client, tokens, second, lambda pair: min(pair, key=seeds.get))
    third = settled(client, svc, key, t["id"])
    assert [sorted(m["players"]) for m in third["rounds"][2]["matches"]] == [["ko0", "ko1"]]
    play_round(client, tokens, third, lambda pair: "ko1")
    final = settled(client, svc, key, t["id"])
    assert final["status"] == "finished" and final["winners"] == ["ko1"]
    order = [p["player"] for p in final["players"]]
    assert order[:2] == ["ko1", "ko0"] and set(order[2:4]) == {"ko2", "ko4"}
    # The champion's feed: three rounds started, then the end naming it.
    mine = [e for e in feed(client, tokens["ko1"]) if e["type"].startswith("tournament.")]
    assert [e["type"] for e in mine][-1] == "tournament.over" and mine[-1]["data"]["winners"] == ["ko1"]
    assert [e["data"]["round"] for e in mine[:-1]] == [1, 2, 3]
    # A player knocked out in round 1 heard of round 1 and of the end only.
    out = [e["type"] for e in feed(client, tokens["ko7"]) if e["type"].startswith("tournament.")]
    assert out == ["tournament.round_started", "tournament.over"]


def test_a_tournament_is_not_found_by_another_apps_key_or_players(client, svc):
    key, other = new_app(svc), new_app(svc)
    mine = put_player(client, key, "mine")
    theirs = put_player(client, other, "theirs")
    t = create(client, key)
    for r in (
        client.get(f"/v1/tournaments/{t['id']}", headers=auth(other)),
        client.get(f"/v1/tournaments/{t['id']}", headers=auth(theirs)),
        client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(theirs)),
        client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(other)),
    ):
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert t["id"] not in [
        x["id"] for x in ok(client.get("/v1/tournaments", headers=auth(other)))["tournaments"]
    ]
    assert t["id"] in [x["id"] for x in ok(client.get("/v1/tournaments", headers=auth(mine)))["tournaments"]]
    # Nothing changed: the app's own player still joins, and is its only player.
    joined = ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(mine)))
    assert [p["player"] for p in joined["players"]] == ["mine"]


def test_joining_a_started_or_full_tournament_is_refused_and_changes_nothing(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("fa", "fb", "fc")}
    t = create(client, key, max_players=2)
    ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens["fa"])))
    again = ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens["fa"])))
    assert [p["player"] for p in again["players"]] == ["fa"]  # joining twice is joining once
    too_few = client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key))
    assert too_few.status_code == 409
    ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens["fb"])))
    full = client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens["fc"]))
    assert full.status_code == 409 and "full" in full.get_json()["message"]
    ok(client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key)))
    settled(client, svc, key, t["id"])
    late = client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens["fc"]))
    assert late.status_code == 409
    shown = ok(client.get(f"/v1/tournaments/{t['id']}", headers=auth(tokens["fa"])))
    assert sorted(p["player"] for p in shown["players"]) == ["fa", "fb"]
    assert shown["you"]["match"] == shown["rounds"][0]["matches"][0]["id"]


def test_an_app_holds_at_most_its_quota_of_live_tournaments(client, svc):
    key = new_app(svc, tournaments=1)
    create(client, key)
    refused = client.post("/v1/tournaments", json={"game": "zhol", "format": "swiss"}, headers=auth(key))
    assert refused.status_code == 429 and refused.get_json()["quota"] == "tournaments"


@pytest.mark.parametrize(
    "body",
    [
        {"game": "zhol", "format": "arena"},
        {"game": "chess", "format": "swiss"},
        {"game": "zhol", "format": "swiss", "max_players": 1025},
        {"game": "spades", "format": "swiss", "max_players": 3},
        {"game": "zhol", "format": "swiss", "options": {"target_wins": "many"}},
        {"game": "zhol", "format": "swiss", "rounds": 0},
    ],
)
def test_a_tournament_the_rules_refuse_is_a_422_and_nothing_is_created(client, svc, body):
    key = new_app(svc)
    r = client.post("/v1/tournaments", json=body, headers=auth(key))
    assert r.status_code == 422, r.get_json()
    assert ok(client.get("/v1/tournaments", headers=auth(key)))["tournaments"] == []


def test_every_match_of_a_tournament_has_a_clock_that_resigns_an_absent_player(client, svc):
    key = new_app(svc)
    made = create(client, key, round_seconds=300, options={"rated": True, "turn_seconds": None})
    assert made["turn_seconds"] == 15  # a twentieth of the round
    tokens = {p: put_player(client, key, p) for p in ("ca", "cb")}
    for token in tokens.values():
        ok(client.post(f"/v1/tournaments/{made['id']}/join", headers=auth(token)))
    ok(client.post(f"/v1/tournaments/{made['id']}/start", headers=auth(key)))
    match_id = settled(client, svc, key, made["id"])["rounds"][0]["matches"][0]["id"]
    options = svc.repo.load(match_id).record["options"]
    assert options["turn_seconds"] == 15 and options["on_timeout"] == "resign" and options["rated"] is True


def test_only_an_app_key_creates_and_starts_and_only_a_player_joins(client, svc):
    key = new_app(svc)
    token = put_player(client, key, "who")
    t = create(client, key)
    assert (
        client.post(
            "/v1/tournaments", json={"game": "zhol", "format": "swiss"}, headers=auth(token)
        ).status_code
        == 401
    )
    assert client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(token)).status_code == 401
    assert client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(key)).status_code == 401
    assert client.get(f"/v1/tournaments/{t['id']}").status_code == 401


def test_a_spades_swiss_seats_partnerships_of_four_with_byes_and_both_partners_score(client, svc):
    key = new_app(svc)
    ratings = {f"sp{i}": 60.0 - 5 * i for i in range(6)}
    tokens = rated_players(client, svc, key, "spades", ratings)
    t = create(client, key, game="spades", rounds=2, max_players=6)
    for name in tokens:
        ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(tokens[name])))
    ok(client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key)))
    first = settled(client, svc, key, t["id"])["rounds"][0]
    # Six players, tables of four: one table, the two lowest-ranked sit out with a bye.
    assert len(first["matches"]) == 1 and sorted(first["byes"]) == ["sp4", "sp5"]
    # Ranked s1..s4 they sit s1, s2, s4, s3: the best and the fourth partners (seats 0 and 2).
    assert first["matches"][0]["players"] == ["sp0", "sp1", "sp3", "sp2"]
    match = first["matches"][0]
    # Seat 1 resigns: the partnership of seats 0 and 2 wins, both partners a point.
    r = client.post(
        f"/v1/matches/{match['id']}/actions", json={"type": "resign"}, headers=auth(tokens["sp1"])
    )
    assert r.status_code == 200, r.get_json()
    after = settled(client, svc, key, t["id"])
    assert sorted(after["rounds"][0]["matches"][0]["winners"]) == ["sp0", "sp3"]
    # Round 2 opened at once: the byes go to the lowest-ranked who have had none, the losers.
    assert after["round"] == 2 and sorted(after["rounds"][1]["byes"]) == ["sp1", "sp2"]
    assert sorted(after["rounds"][1]["matches"][0]["players"]) == ["sp0", "sp3", "sp4", "sp5"]
    # A win (both partners) or a bye is a point: everyone has one.
    assert {p["player"]: p["points"] for p in after["players"]} == dict.fromkeys(tokens, 1)


def test_the_next_hand_of_a_tournament_match_is_dealt_without_its_host(client, svc):
    key = new_app(svc)
    tokens = {p: put_player(client, key, p) for p in ("ha", "hb")}
    t = create(client, key, options={"target_wins": 2}, round_seconds=7200)
    for token in tokens.values():
        ok(client.post(f"/v1/tournaments/{t['id']}/join", headers=auth(token)))
    ok(client.post(f"/v1/tournaments/{t['id']}/start", headers=auth(key)))
    match = settled(client, svc, key, t["id"])["rounds"][0]["matches"][0]
    by_seat = {seat: tokens[p] for seat, p in enumerate(match["players"])}
    api = Api(client)
    # Nobody asks for the next hand (POST …/rounds): the service deals it, and play goes on.
    rng = random.Random(5)
    view = api.view(match["id"], by_seat[0])
    for _ in range(3000):
        if view["round"] == 2:
            break
        if view["status"] == "round_over":
            view = api.wait_for(match["id"], by_seat[0], lambda v: v["status"] != "round_over")
            continue
        human_move(api, "zhol", match["id"], by_seat[view["turn"]["seat"]], rng)
        view = api.view(match["id"], by_seat[0])
    assert view["round"] == 2 and view["status"] == "active"
    kinds = [e["type"] for e in api.events(match["id"], by_seat[0], after=0)["events"]]
    assert kinds.count("deal") == 2 and kinds.index("round_over") < len(kinds) - 1 - kinds[::-1].index("deal")
