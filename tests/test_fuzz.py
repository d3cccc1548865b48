"""No input makes the service answer 5xx, and the engines refuse near-legal moves by their rules.

Random bodies mostly stop at the request schema; the mutation test reaches the engines: it takes
the `legal_actions` of the seat to move and spoils them (a card not held, another seat's token,
an action of another phase, a stale If-Match), so each body has the right shape and only the
rules of the game can refuse it.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import bots
from engines.registry import GAMES
from tests.api_helpers import Api, auth, bot_input

CARDS = st.sampled_from(["AS", "TD", "7H", "JK", "KC", "2S", "QH", "XX", "", "as"])
# JSON holds no NaN or infinity (a body with them is a 400 of its own, tests/test_limits.py).
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.floats(allow_nan=False, allow_infinity=False), CARDS
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["tricks", "card", "pile", "melds", "lay_offs", "meld", "cards", "discard", "onto"]
TYPES = st.sampled_from(
    [
        "bid",
        "play",
        "draw",
        "discard",
        "meld",
        "lay_off",
        "swap_joker",
        "take_discard",
        "take_closing",
        "resign",
        "x",
    ]
)
ACTIONS = st.one_of(
    st.fixed_dictionaries(
        {"type": TYPES}, optional={f: st.one_of(JSON, CARDS, st.lists(CARDS)) for f in FIELDS}
    ),
    JSON,
)
SEATS = {"spades": 4, "zoliky": 2, "three-thirteen": 3, "zhol": 2}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_action_bodies_never_crash(client, game_id):
    api = Api(client)
    created = api.create(game_id, [{"kind": "human"}] * SEATS[game_id], seed=1)
    match_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ACTIONS, st.integers(0, len(tokens) - 1))
    def check(action, seat):
        resp = client.post(
            f"/v1/matches/{match_id}/actions",
            data=json.dumps(action),
            headers={"Authorization": f"Bearer {tokens[seat]}", "Content-Type": "application/json"},
        )
        assert resp.status_code < 500, (action, resp.get_data(as_text=True))
        body = resp.get_json()
        if resp.status_code >= 400:
            assert {"code", "status", "message", "error"} <= set(body), body

    check()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.fixed_dictionaries(
        {
            "game": st.sampled_from(sorted(GAMES) + ["nope"]),
            "seats": st.one_of(JSON, st.lists(JSON, max_size=8)),
        },
        optional={"options": JSON, "seed": JSON, "deck": st.one_of(JSON, st.lists(CARDS, max_size=60))},
    )
)
def test_random_match_bodies_never_crash(client, body):
    resp = client.post("/v1/matches", json=body)
    assert resp.status_code < 500, (body, resp.get_data(as_text=True))
    # 400: JSON that cannot be read back (a lone surrogate escaped in a string).
    assert resp.status_code in (201, 400, 403, 422), resp.get_json()


# Moves every game knows whose bodies hold nothing but a type and a card, a pile or a bid.
CONCRETE = ("bid", "play", "draw", "discard")
MUTATIONS = ("wrong_card", "wrong_seat", "wrong_phase", "stale_version")
# The errors an engine (or the version check) answers a well-formed move it refuses.
REFUSALS = {"wrong_card": ("illegal_action",), "wrong_phase": ("illegal_action",)}
REFUSALS |= {"wrong_seat": ("not_your_turn",), "stale_version": ("version_conflict",)}
# Options that keep the match still while examples run (no turn clock firing meanwhile).
QUIET = {"zhol": {"turn_seconds": 3600}}


def phase_bodies(game_id: str, hand: list[str]) -> list[dict]:
    """Every concrete body of the game's moves from this hand, in any phase."""
    if game_id == "spades":
        return [{"type": "bid", "tricks": n} for n in range(14)] + [{"type": "play", "card": c} for c in hand]
    draws = (
        [{"type": "draw"}]
        if game_id == "zoliky"
        else [{"type": "draw", "pile": p} for p in ("stock", "discard")]
    )
    return draws + [{"type": "discard", "card": c} for c in hand]


def advance(api: Api, match_id: str, tokens: list[str], game_id: str, moves: int) -> None:
    """Play `moves` moves (the easy bot's choice for the seat to move, rounds started by the host)."""
    rng = random.Random(moves)
    while moves > 0:
        view = api.view(match_id)
        if view["status"] == "round_over":
            api.c.post(f"/v1/matches/{match_id}/rounds", headers=auth(tokens[view["host"]]))
            continue
        token = tokens[view["turn"]["seat"]]
        action = bots.decide(GAMES[game_id], bot_input(api.view(match_id, token)), "easy", rng)
        assert api.act(match_id, token, action).status_code == 200
        moves -= 1


def spoil(kind: str, data, game_id: str, view: dict, tokens: list[str]) -> tuple[dict, str, dict]:
    """A refused body for `kind`: (action, token, headers)."""
    seat, hand = view["you"], view["hand"]
    legal = [a for a in view["legal_actions"] if a["type"] in CONCRETE]
    action = data.draw(st.sampled_from(legal))
    token, headers = tokens[seat], {}
    if kind == "wrong_seat":
        token = tokens[data.draw(st.sampled_from([s for s in range(len(tokens)) if s != seat]))]
    elif kind == "stale_version":
        version = view["version"]
        stale = data.draw(st.integers(0, version - 1)) if version else version + 1
        headers = {"If-Match": f'"{stale}"'}
    elif kind == "wrong_card":
        # A card of this game's deck that the seat does not hold.
        card = data.draw(st.sampled_from(sorted(set(GAMES[game_id].full_deck(view["options"])) - set(hand))))
        kinds = [a["type"] for a in legal if "card" in a] or (
            ["play"] if game_id == "spades" else ["discard"]
        )
        action = {"type": kinds[0], "card": card}
    else:
        action = data.draw(st.sampled_from([b for b in phase_bodies(game_id, hand) if b not in legal]))
    return action, token, headers


@pytest.mark.parametrize("moves", [0, 9, 30])
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_spoiled_legal_actions_are_refused_by_the_rules_and_change_nothing(client, game_id, moves):
    api = Api(client)
    seats = [{"kind": "human"}] * SEATS[game_id]
    created = api.create(game_id, seats, seed=moves + 1, options=QUIET.get(game_id, {}))
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    advance(api, match_id, tokens, game_id, moves)
    public = api.view(match_id)
    assert public["status"] == "active"
    view = api.view(match_id, tokens[public["turn"]["seat"]])

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(MUTATIONS), st.data())
    def check(kind, data):
        action, token, headers = spoil(kind, data, game_id, view, tokens)
        resp = api.act(match_id, token, action, **headers)
        body = resp.get_json()
        assert 400 <= resp.status_code < 500 and body is not None, (kind, action, resp.status_code)
        assert body["error"] in REFUSALS[kind], (kind, action, body)
        # The rule is named in words, not a schema path.
        assert len(body["message"].split()) >= 3 and "errors" not in body, body
        assert api.view(match_id)["version"] == public["version"]

    check()
