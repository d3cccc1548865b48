"""No input makes the service answer 5xx: random bodies against every game's actions and creation."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.registry import GAMES
from tests.api_helpers import Api

CARDS = st.sampled_from(["AS", "TD", "7H", "JK", "KC", "2S", "QH", "XX", "", "as"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.floats(allow_nan=False), CARDS)
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
