"""Fair deals over HTTP: who may choose a seed, and deal commitments a client verifies
with the snippet of docs/api.md ("Fair deals")."""

from __future__ import annotations

import json
import os
import random
import re

import pytest

from engines.registry import GAMES
from service.app import create_app
from service.config import Config
from tests.api_helpers import Api, auth

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
    api = Api(create_app(Config(REDIS_URL=redis_url, ALLOW_STACKED_DECK=False, RATE_LIMIT=0)).test_client())
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
    ("spades", {"target_score": 150, "first_dealer": 0}, 4),
    # All eleven rounds (Three Thirteen cannot be ended early): about 40 s on a loaded machine.
    pytest.param("three-thirteen", {}, 2, marks=pytest.mark.slow),
    ("zhol", {"target_wins": 2, "turn_seconds": 3600}, 2),
    ("zoliky", {"target_wins": 2}, 2),
]


def play_to_the_end(api, game_id, options, n, seed):
    """Every seat plays the easy bot's choice; returns the match id, tokens and each seat's events
    and views as received while playing."""
    created = api.create(game_id, [{"kind": "human", "name": f"P{i}"} for i in range(n)], options=options)
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    seen: dict = {seat: {"events": [], "views": []} for seat in [None, *range(n)]}
    rng = random.Random(seed)

    def catch_up(seat):
        got = seen[seat]["events"]
        got += api.events(match_id, tokens[seat] if seat is not None else None, after=len(got))["events"]

    while (view := api.view(match_id))["status"] != "finished":
        assert len(seen[None]["events"]) < 20_000
        if view["status"] == "round_over":
            resp = api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[view["host"]]))
            assert resp.status_code == 200
            continue
        seat = view["turn"]["seat"]
        mine = api.view(match_id, tokens[seat])
        seen[seat]["views"].append(mine)
        action = GAMES[game_id].bot_action(mine, "easy", rng)
        assert api.act(match_id, tokens[seat], action).status_code == 200
        catch_up(seat)
        # The view commits to the deal its seat was dealt from.
        deals = [e for e in seen[seat]["events"] if e["type"] == "deal"]
        assert mine["deal_commitment"] == deals[-1]["deal_commitment"]
    for seat in seen:
        catch_up(seat)
    return match_id, tokens, seen


@pytest.mark.parametrize(
    ("game_id", "options", "n"), MATCHES, ids=["spades", "three-thirteen", "zhol", "zoliky"]
)
def test_a_client_verifies_every_deal_with_the_docs_snippet(api, game_id, options, n):
    match_id, tokens, seen = play_to_the_end(api, game_id, options, n, seed=len(game_id))
    history = api.c.get(f"/v1/matches/{match_id}/history", headers=auth(tokens[0])).get_json()
    assert history["seeded_by_client"] is False
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
    match_id, tokens, seen = play_to_the_end(api, "zoliky", {"target_wins": 1}, 2, seed=3)
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
