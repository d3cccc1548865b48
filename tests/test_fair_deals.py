"""Fair deals over HTTP: who may choose a seed, and deal commitments a client verifies
with the snippet of docs/api.md ("Fair deals")."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets

import pytest

from engines import bots
from engines.registry import GAMES
from service.config import Config
from service.http.app import create_app
from tests.api_helpers import Api, auth, bot_input
from tests.conftest import UNLIMITED_MATCHES
from tests.replay import replay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}
OPEN = {"kind": "open"}


@pytest.fixture
def api(client):
    return Api(client)


def docs_snippet() -> dict:
    """The Python block of docs/api.md's "Fair deals" section, run as a client would run it."""
    with open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8") as f:
        section = f.read().split("## Fair deals", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block, "docs/api.md has no Python snippet under Fair deals"
    code = block.group(1)
    namespace: dict = {}
    exec(compile(code, "docs/api.md", "exec"), namespace)
    return namespace


def test_a_client_seed_is_refused_when_someone_could_join_an_open_seat(redis_url):
    config = Config(REDIS_URL=redis_url, ALLOW_STACKED_DECK=False, RATE_LIMIT=0, **UNLIMITED_MATCHES)
    api = Api(create_app(config).test_client())
    resp = api.c.post("/v1/matches", json={"game": "zoliky", "seats": [HUMAN, OPEN], "seed": 42})
    body = resp.get_json()
    assert resp.status_code == 422 and body["error"] == "validation_error", body
    assert "open seat" in body["message"] and "seed" in body["errors"], body
    # Without the seed the same match is fine, and says it was not seeded by its creator.
    created = api.create("zoliky", [HUMAN, OPEN])
    assert api.view(created["id"])["seeded_by_client"] is False
    # With every seat the creator's own (humans it holds the tokens of, and bots) a seed is fine.
    created = api.create("spades", [HUMAN, HUMAN, BOT, BOT], seed=42)
    view = api.view(created["id"], created["seats"][0]["token"])
    assert view["seeded_by_client"] is True and view["status"] == "active"


def test_a_client_seed_with_open_seats_is_accepted_where_stacked_decks_are(api):
    created = api.create("zoliky", [HUMAN, OPEN], seed=42)
    joined = api.c.post(f"/v1/matches/{created['id']}/join", json={"name": "Bo"}).get_json()
    assert api.view(created["id"], joined["token"])["seeded_by_client"] is True


# game, options, seats: short matches of several rounds between people only (no workers needed).
MATCHES = [
    # 250: no single hand scores that much (13 tricks bid and made + a made nil = 230), so the
    # match always deals at least twice.
    ("spades", {"target_score": 250, "first_dealer": 0}, 4),
    # All eleven rounds (Three Thirteen cannot be ended early): about 40 s on a loaded machine.
    pytest.param("three-thirteen", {}, 2, marks=pytest.mark.slow),
    ("zhol", {"target_wins": 2, "turn_seconds": 3600}, 2),
    ("zoliky", {"target_wins": 2}, 2),
]


def play_to_the_end(api, game_id, options, n, seed):
    """Every seat plays the easy bot's choice; returns the match id, tokens, each seat's events
    and views as received while playing, and the server_seed_hash the match showed at creation."""
    created = api.create(game_id, [{"kind": "human", "name": f"P{i}"} for i in range(n)], options=options)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    committed = api.view(match_id)["server_seed_hash"]
    return match_id, tokens, play_out(api, match_id, tokens, game_id, seed), committed


def play_out(api, match_id, tokens, game_id, seed):
    """Play a started match to its end, every seat the easy bot's choice; each seat's (and the
    public's, under None) events and views as received while playing."""
    n = len(tokens)
    seen: dict = {seat: {"events": [], "views": []} for seat in [None, *range(n)]}
    rng = random.Random(seed)

    def catch_up(seat):
        # Page by page: a long match has more events than one answer holds (docs/api.md).
        got = seen[seat]["events"]
        while True:
            page = api.events(match_id, tokens[seat] if seat is not None else None, after=len(got))
            got += page["events"]
            if page["next_after"] is None:
                break

    while (view := api.view(match_id))["status"] != "finished":
        assert len(seen[None]["events"]) < 20_000
        seen[None]["views"].append(view)
        if view["status"] == "round_over":
            resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[view["host"]]))
            assert resp.status_code == 200
            continue
        seat = view["turn"]["seat"]
        mine = api.view(match_id, tokens[seat])
        seen[seat]["views"].append(mine)
        action = bots.decide(GAMES[game_id], bot_input(mine), "easy", rng)
        assert api.act(match_id, tokens[seat], action).status_code == 200
        catch_up(seat)
        # The view commits to the deal its seat was dealt from.
        deals = [e for e in seen[seat]["events"] if e["type"] == "deal"]
        assert mine["deal_commitment"] == deals[-1]["deal_commitment"]
    for seat in seen:
        catch_up(seat)
    return seen


@pytest.mark.parametrize(
    ("game_id", "options", "n"), MATCHES, ids=["spades", "three-thirteen", "zhol", "zoliky"]
)
def test_a_client_verifies_every_deal_with_the_docs_snippet(api, game_id, options, n):
    match_id, tokens, seen, committed = play_to_the_end(api, game_id, options, n, seed=len(game_id))
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[0])).get_json()
    assert history["seeded_by_client"] is False
    # Nobody sent a seed: the chain is the server seed's alone, and ties it to the first deal.
    assert history["client_seeds"] == [None] * n
    assert docs_snippet()["verify_chain"](history, committed) == history["seed"]
    rounds = [d for d in history["deals"] if d["type"] == "deal"]
    assert len(rounds) >= 2 and [d["round"] for d in rounds] == list(range(1, len(rounds) + 1))
    salts = {d["salt"] for d in history["deals"]}
    verify_deals = docs_snippet()["verify_deals"]
    for seat, got in seen.items():
        # Before the history nothing of a salt or an order reached this seat.
        text = json.dumps(got)
        assert "sealed" not in text and '"salt"' not in text and not any(s in text for s in salts)
        commitments = {e["seq"]: e["deal_commitment"] for e in got["events"] if "deal_commitment" in e}
        hands = {e["seq"]: e["hand"] for e in got["events"] if e["type"] == "deal" and "hand" in e}
        assert len(hands) == (0 if seat is None else len(rounds))
        verify_deals(history, commitments, hands)


def test_the_docs_snippet_refuses_a_deck_other_than_the_one_committed_to(api):
    match_id, tokens, seen, _ = play_to_the_end(api, "zoliky", {"target_wins": 1}, 2, seed=3)
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[1])).get_json()
    verify_deals = docs_snippet()["verify_deals"]
    events = seen[1]["events"]
    commitments = {e["seq"]: e["deal_commitment"] for e in events if "deal_commitment" in e}
    hands = {e["seq"]: e["hand"] for e in events if e["type"] == "deal"}
    verify_deals(history, commitments, hands)
    first = history["deals"][0]
    swapped = dict(first, order=[first["order"][1], first["order"][0], *first["order"][2:]])
    if swapped["order"] != first["order"]:
        with pytest.raises(ValueError, match="not the one committed to"):
            verify_deals(dict(history, deals=[swapped, *history["deals"][1:]]), commitments, hands)
    with pytest.raises(ValueError, match="exactly the deals you saw"):
        verify_deals(history, {**commitments, 10**6: "0" * 64}, hands)
    # A hand the revealed deck could not have dealt is caught too.
    seq = next(iter(hands))
    stranger = {seq: [*hands[seq], "AS", "AS", "AS"]}
    with pytest.raises(ValueError, match="holds cards not in that deck"):
        verify_deals(history, commitments, stranger)


# --- the seed chain: server seed and client seeds (docs/api.md, "Fair deals") ---------------


def history_of(api, match_id, token):
    resp = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(token))
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def join(api, match_id, **body):
    resp = api.c.post(f"/v1/matches/{match_id}/join", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_two_client_seeds_chain_into_every_deal_and_the_history_proves_it(api):
    # The creator holds seats 0 and 3 and sends no seed; two people join seats 1 and 2 with theirs.
    created = api.create(
        "spades", [HUMAN, OPEN, OPEN, HUMAN], options={"target_score": 250, "first_dealer": 0}
    )
    match_id = created["id"]
    committed = api.view(match_id)["server_seed_hash"]
    assert re.fullmatch("[0-9a-f]{64}", committed)
    assert api.view(match_id, created["seats"][0]["token"])["server_seed_hash"] == committed
    # Any text: the chain is over UTF-8, so a seed beyond ASCII must chain as the docs say.
    seeds = {1: "ana-" + secrets.token_hex(8), 2: "Bén \U0001f0a1 " + secrets.token_hex(4)}
    tokens = {0: created["seats"][0]["token"], 3: created["seats"][3]["token"]}
    answers: list = [created]
    for seat, client_seed in seeds.items():
        joined = join(api, match_id, name=f"P{seat}", client_seed=client_seed)
        assert joined["seat"] == seat
        tokens[seat] = joined["token"]
        answers += [joined, api.view(match_id), api.events(match_id, joined["token"])]
    assert answers[-2]["status"] == "active" and answers[-2]["server_seed_hash"] == committed
    seen = play_out(api, match_id, [tokens[i] for i in range(4)], "spades", seed=9)
    history = history_of(api, match_id, tokens[2])

    # Before the end no seed reached anyone: not the server's, not another seat's.
    text = json.dumps([answers, seen], ensure_ascii=False)
    assert history["server_seed"] not in text and not any(s in text for s in seeds.values())
    assert {v["server_seed_hash"] for got in seen.values() for v in got["views"]} == {committed}

    assert history["client_seeds"] == [None, seeds[1], seeds[2], None]
    assert hashlib.sha256(history["server_seed"].encode("utf-8")).hexdigest() == committed
    assert len(history["server_seed"]) >= 32 and int(history["server_seed"], 16) >= 0
    snippet = docs_snippet()
    verify_chain, verify_deals = snippet["verify_chain"], snippet["verify_deals"]
    assert verify_chain(history, committed, {1: seeds[1], 2: seeds[2]}) == history["seed"]
    rounds = [d for d in history["deals"] if d["type"] == "deal"]
    assert len(rounds) >= 2
    for got in seen.values():
        commitments = {e["seq"]: e["deal_commitment"] for e in got["events"] if "deal_commitment" in e}
        hands = {e["seq"]: e["hand"] for e in got["events"] if e["type"] == "deal" and "hand" in e}
        verify_deals(history, commitments, hands)

    # Either client seed, changed, deals another deck: neither joiner could be left out.
    for seat in (1, 2):
        other = list(history["client_seeds"])
        other[seat] += "x"
        seed = snippet["chained_seed"](history["server_seed"], other)
        assert snippet["first_deck"]("spades", seed, history["deck"]) != history["deck"]
        with pytest.raises(ValueError, match="not the chain"):
            verify_chain(dict(history, client_seeds=other), committed)
    # A server seed other than the committed one, or a seat's seed not the one it sent, is caught.
    with pytest.raises(ValueError, match="not the one committed to"):
        verify_chain(history, hashlib.sha256(b"another server seed").hexdigest())
    with pytest.raises(ValueError, match="not the one it sent"):
        verify_chain(history, committed, {1: seeds[2]})
    # Later hands come from the chained seed too: the engines, replayed from the history's seed
    # and first deck, deal every later hand exactly as the match did.
    assert replay(history) == history["version"]
    with pytest.raises(AssertionError, match="no legal action|departs"):
        replay(dict(history, seed=history["seed"] ^ 1))  # the first deal is the deck; the next differ


def test_a_seat_freed_while_waiting_drops_its_seed_a_handed_over_one_keeps_it(api):
    # A create's seed is its first human seat's: seat 1 here.
    created = api.create("spades", [OPEN, HUMAN, OPEN, HUMAN], client_seed="creator's")
    match_id, host = created["id"], created["seats"][1]["token"]
    committed = api.view(match_id)["server_seed_hash"]
    leaver = join(api, match_id, client_seed="leaver's")
    assert leaver["seat"] == 0
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(leaver["token"])).status_code == 200
    assert join(api, match_id)["seat"] == 0  # the next occupant of seat 0 brings no seed
    assert join(api, match_id, client_seed="stayer's")["seat"] == 2
    # A seat handed over by an invitation keeps its seed: the creator's stays in seat 1.
    code = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(host)).get_json()["code"]
    claimed = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()
    assert claimed["seat"] == 1
    host = claimed["token"]
    assert api.act(match_id, host, {"type": "resign"}).status_code == 200
    history = history_of(api, match_id, host)
    assert history["client_seeds"] == [None, "creator's", "stayer's", None]
    assert (
        docs_snippet()["verify_chain"](history, committed, {1: "creator's", 2: "stayer's"}) == history["seed"]
    )


def test_quick_play_brings_the_seat_its_seed_whether_it_hosts_or_joins(api):
    table = {"game": "zoliky", "options": {"target_wins": 97}}
    host = api.c.post("/v1/matches/quick", json={**table, "client_seed": "host"}).get_json()
    assert host["created"] is True
    guest = api.c.post("/v1/matches/quick", json={**table, "client_seed": "guest"}).get_json()
    assert guest["id"] == host["id"] and guest["seat"] == 1
    committed = api.view(host["id"])["server_seed_hash"]
    assert api.act(host["id"], guest["token"], {"type": "resign"}).status_code == 200
    history = history_of(api, host["id"], host["token"])
    assert history["client_seeds"] == ["host", "guest"]
    docs_snippet()["verify_chain"](history, committed, {0: "host", 1: "guest"})


def lobby(api):
    return api.c.get("/v1/matches?limit=100").get_json()["matches"]


def test_a_client_seed_over_64_characters_is_422_and_changes_nothing(api):
    too_long, longest = "s" * 65, "\u00e9" * 64
    before = lobby(api)
    for url, body in [
        ("/v1/matches", {"game": "zoliky", "seats": [HUMAN, OPEN], "listed": True, "client_seed": too_long}),
        ("/v1/matches/quick", {"game": "zoliky", "client_seed": too_long}),
        # A create's seed belongs to a human seat of the creator's: with none it is refused too.
        ("/v1/matches", {"game": "zoliky", "seats": [OPEN, OPEN], "listed": True, "client_seed": "mine"}),
    ]:
        resp = api.c.post(url, json=body)
        assert resp.status_code == 422, resp.get_json()
        assert resp.get_json()["error"] == "validation_error" and "client_seed" in resp.get_json()["errors"]
    assert lobby(api) == before

    created = api.create("zoliky", [HUMAN, OPEN])
    match_id, token = created["id"], created["seats"][0]["token"]
    waiting = api.view(match_id)
    resp = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Bo", "client_seed": too_long})
    assert resp.status_code == 422 and "client_seed" in resp.get_json()["errors"], resp.get_json()
    assert api.view(match_id) == waiting
    # 64 characters (not bytes: these are two bytes each in UTF-8) are taken.
    assert join(api, match_id, client_seed=longest)["seat"] == 1
    assert api.act(match_id, token, {"type": "resign"}).status_code == 200
    assert history_of(api, match_id, token)["client_seeds"] == [None, longest]


def test_a_creators_seed_bypasses_the_chain_and_the_docs_snippet_says_so(api):
    firsts = []
    for client_seed in ("one", "two"):
        created = api.create("zoliky", [HUMAN, HUMAN], seed=42, client_seed=client_seed)
        match_id, token = created["id"], created["seats"][0]["token"]
        view = api.view(match_id, token)
        assert view["seeded_by_client"] is True and view["server_seed_hash"]
        assert api.act(match_id, token, {"type": "resign"}).status_code == 200
        history = history_of(api, match_id, token)
        assert history["seed"] == 42 and history["client_seeds"] == [client_seed, None]
        assert hashlib.sha256(history["server_seed"].encode()).hexdigest() == view["server_seed_hash"]
        with pytest.raises(ValueError, match="creator chose the seed"):
            docs_snippet()["verify_chain"](history, view["server_seed_hash"])
        firsts.append(history["deck"])
    # The creator's seed alone decides: other client and server seeds, the same deck.
    assert firsts[0] == firsts[1]
