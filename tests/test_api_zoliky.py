"""Žolíky over HTTP on stacked decks: a joker on the table keeps the card it stands for."""

from __future__ import annotations

import pytest

from engines.cards import JOKER
from tests.api_helpers import Api
from tests.engines.test_zoliky import stacked

KEEPS = "a joker on the table keeps the card it stands for"
EARLY = ("3S", "5S", "7S", "9S", "JS")  # drawn and discarded on turns 2-6


@pytest.fixture
def api(client):
    return Api(client)


def two_people(
    api: Api, cutter: list[str], other: list[str], draws: tuple[str, ...]
) -> tuple[str, list[str]]:
    deck = stacked(cutter, other, cut=("5C", "6C", "7C"), draws=draws, early=EARLY)
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
    created = api.create("zoliky", seats, deck=deck, options={"first_cutter": 0})
    return created["id"], [s["token"] for s in created["seats"]]


def ok(api: Api, match_id: str, token: str, action: dict) -> dict:
    resp = api.act(match_id, token, action)
    assert resp.status_code == 200, (action, resp.get_json())
    return resp.get_json()


def to_turn_7(api: Api, match_id: str, tokens: list[str], spare: str) -> None:
    """Turn 1: the cutter discards `spare`; turns 2-6 draw and discard the EARLY cards."""
    ok(api, match_id, tokens[0], {"type": "discard", "card": spare})
    for turn, card in enumerate(EARLY, start=2):
        token = tokens[(turn - 1) % 2]
        ok(api, match_id, token, {"type": "draw"})
        ok(api, match_id, token, {"type": "discard", "card": card})


def snapshot(api: Api, match_id: str, tokens: list[str]) -> list:
    return [api.view(match_id, t) for t in tokens] + [api.events(match_id)["events"]]


def refused(api: Api, match_id: str, tokens: list[str], seat: int, action: dict) -> str:
    """The action is 422 illegal_action, its message names the rule, and nothing changed."""
    before = snapshot(api, match_id, tokens)
    resp = api.act(match_id, tokens[seat], action)
    body = resp.get_json()
    assert resp.status_code == 422 and body["error"] == "illegal_action", body
    assert KEEPS in body["message"], body["message"]
    assert snapshot(api, match_id, tokens) == before
    return body["message"]


def meld_of(view: dict, meld_id: str) -> dict:
    return next(m for m in view["table"]["melds"] if m["id"] == meld_id)


def test_an_opening_lay_off_cannot_put_in_a_jokers_card_and_move_the_joker(api):
    cutter = ["8D", "9D", "JD", "2C", "3C", "4C", JOKER, "QC", "2S", "4S", "6S", "8S", "TS"]
    other = ["KS", "KH", "KC", "5H", "6H", "7H", "TD", "QD", "AD", "2H", "9C", "JC"]
    match_id, tokens = two_people(api, cutter, other, draws=("QS", "8C"))
    to_turn_7(api, match_id, tokens, "QC")
    ok(api, match_id, tokens[0], {"type": "draw"})
    view = ok(
        api, match_id, tokens[0], {"type": "meld", "melds": [["8D", "9D", JOKER, "JD"], ["2C", "3C", "4C"]]}
    )
    assert meld_of(view, "m1")["stands_for"] == ["8D", "9D", "TD", "JD"]
    ok(api, match_id, tokens[0], {"type": "discard", "card": "QS"})
    ok(api, match_id, tokens[1], {"type": "draw"})
    opening = [["KS", "KH", "KC"], ["5H", "6H", "7H"]]
    # 8D 9D TD JD QD JK AD would read as a run with the joker as KD: refused.
    message = refused(
        api,
        match_id,
        tokens,
        1,
        {"type": "meld", "melds": opening, "lay_offs": [{"meld": "m1", "cards": ["TD", "QD", "AD"]}]},
    )
    assert "the joker there stands for TD; TD goes in only by a joker swap" in message
    view = ok(
        api,
        match_id,
        tokens[1],
        {"type": "meld", "melds": opening, "lay_offs": [{"meld": "m1", "cards": ["QD"]}]},
    )
    assert meld_of(view, "m1")["stands_for"] == ["8D", "9D", "TD", "JD", "QD"]
    view = ok(api, match_id, tokens[1], {"type": "swap_joker", "meld": "m1", "card": "TD"})
    assert meld_of(view, "m1")["cards"] == ["8D", "9D", "TD", "JD", "QD"]
    assert JOKER in view["hand"] and "TD" not in view["hand"]


def test_a_lay_off_extends_a_run_past_its_joker_and_the_jokers_card_swaps_it(api):
    cutter = ["5D", "7D", JOKER, "QS", "KS", "AS", "6D", "8D", "TD", "QC", "2C", "4C", "9C"]
    other = ["2S", "4S", "6S", "8S", "TS", "QS", "2H", "4H", "6H", "8C", "TC", "QD"]
    match_id, tokens = two_people(api, cutter, other, draws=("3H",))
    to_turn_7(api, match_id, tokens, "QC")
    ok(api, match_id, tokens[0], {"type": "draw"})
    ok(api, match_id, tokens[0], {"type": "meld", "melds": [["5D", JOKER, "7D"], ["QS", "KS", "AS"]]})
    # 5D 6D 7D 8D JK TD would read as a run with the joker as 9D: refused.
    refused(api, match_id, tokens, 0, {"type": "lay_off", "meld": "m1", "cards": ["6D", "8D", "TD"]})
    view = ok(api, match_id, tokens[0], {"type": "lay_off", "meld": "m1", "cards": ["8D"]})
    m1 = meld_of(view, "m1")
    assert m1["cards"] == ["5D", JOKER, "7D", "8D"] and m1["stands_for"] == ["5D", "6D", "7D", "8D"]
    view = ok(api, match_id, tokens[0], {"type": "swap_joker", "meld": "m1", "card": "6D"})
    assert meld_of(view, "m1")["cards"] == ["5D", "6D", "7D", "8D"]
    assert JOKER in view["hand"] and "6D" not in view["hand"]
    events = api.events(match_id)["events"]
    assert [e["type"] for e in events[-2:]] == ["lay_off", "swap_joker"]
