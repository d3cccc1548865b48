"""A feed (/stream, /events?wait=) serves a token only while the token holds its seat: after a
`leave` frees the seat, the next occupant's cards never reach a feed the leaver opened."""

from __future__ import annotations

import json

import pytest

from service.matches.following import Holder
from tests.api_helpers import Api, auth

OPEN3 = [{"kind": "open"}] * 3


@pytest.fixture
def api(client):
    return Api(client)


def _waiting_spades(api: Api) -> str:
    created = api.create("spades", [{"kind": "human", "name": "Ana"}, *OPEN3])
    return created["id"]


def _join(api: Api, match_id: str, name: str) -> dict:
    r = api.c.post(f"/v1/matches/{match_id}/join", json={"name": name})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _sse_events(chunks) -> list[dict]:
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_a_stream_opened_by_a_seat_that_left_ends_at_the_leave_and_never_sees_the_next_hand(api):
    match_id = _waiting_spades(api)
    leaver = _join(api, match_id, "Bo")
    assert leaver["seat"] == 1
    resp = api.c.get(f"/v1/matches/{match_id}/stream", headers=auth(leaver["token"]), buffered=False)
    assert resp.status_code == 200
    stream = iter(resp.response)
    chunks = []
    while not any(e["type"] == "join" for e in _sse_events(chunks)):
        chunks.append(next(stream))
    # The seat is freed and taken again; the match starts and deals seat 1 a new hand.
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(leaver["token"])).status_code == 200
    newcomer = _join(api, match_id, "Cy")
    assert newcomer["seat"] == 1
    _join(api, match_id, "Di")
    _join(api, match_id, "Ed")
    new_hand = api.view(match_id, newcomer["token"])["hand"]
    assert len(new_hand) == 13
    for chunk in stream:  # the stream must end by itself, right after the leave
        chunks.append(chunk)
        if any(e["type"] == "deal" for e in _sse_events(chunks)):
            break
    resp.close()
    seen = _sse_events(chunks)
    assert seen[-1] == {"type": "leave", "seat": 1, "seq": seen[-1]["seq"]}
    assert not any(e["type"] == "deal" for e in seen)
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    assert not any(card in text for card in new_hand)
    # Reconnecting with the dead token is refused.
    again = api.c.get(f"/v1/matches/{match_id}/stream", headers=auth(leaver["token"]))
    assert again.status_code == 401


def test_a_long_poll_woken_after_its_seat_changed_hands_answers_up_to_the_leave(api, app):
    svc = app.extensions["cardtable"]
    match_id = _waiting_spades(api)
    leaver = _join(api, match_id, "Bo")
    after = api.events(match_id)["events"][-1]["seq"]
    # The long-poll's request authenticated the token and found no event after `after`...
    loaded = svc.load(match_id, events_after=after)
    holder = Holder.of(svc.repo, loaded, leaver["token"])
    assert holder.seat == 1 and loaded.events_after == []
    # ...then, before its wait began, the seat was left, taken again and the match dealt.
    api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(leaver["token"]))
    newcomer = _join(api, match_id, "Cy")
    _join(api, match_id, "Di")
    _join(api, match_id, "Ed")
    new_hand = api.view(match_id, newcomer["token"])["hand"]
    events, _, next_after = svc.events(match_id, holder, after, 5.0, None, loaded)
    assert [e["type"] for e in events] == ["leave"] and holder.lost and next_after is None
    assert not any(card in json.dumps(events) for card in new_hand)


def test_a_seat_that_leaves_a_started_match_keeps_following_it(api):
    created = api.create("spades", [{"kind": "human", "name": n} for n in ("A", "B", "C", "D")], seed=3)
    match_id, token = created["id"], created["seats"][1]["token"]
    after = api.events(match_id)["events"][-1]["seq"]
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(token)).status_code == 200
    # Resigning is not losing the seat: the token still reads the match and its own events.
    events = api.events(match_id, token, after=after)["events"]
    assert [e["type"] for e in events][-1] in ("leave", "match_over")
    assert api.view(match_id, token)["you"] == 1


def test_a_feed_opened_with_a_player_token_ends_when_the_players_tokens_are_rotated(api, app):
    """A long-poll that authenticated a player's token before its wait serves nothing once the
    app rotated that player's tokens: the feed holds the token no longer."""
    from tests.test_players import new_app, put_player

    svc = app.extensions["cardtable"]
    key = new_app(svc)
    token = put_player(api.c, key, "feed-ana")
    seats = [{"kind": "human"}, {"kind": "human", "name": "Bo"}]
    created = api.c.post("/v1/matches", json={"game": "zhol", "seats": seats}, headers=auth(token)).get_json()
    match_id, bo = created["id"], created["seats"][1]["token"]
    after = api.events(match_id)["events"][-1]["seq"]
    loaded = svc.load(match_id, events_after=after, token=token)
    holder = Holder.of(svc.repo, loaded, token)
    assert holder.seat == 0 and loaded.events_after == []
    # Before its wait began, the player's tokens were rotated and the match moved on.
    assert api.c.post("/v1/players/feed-ana/token", headers=auth(key)).status_code == 200
    assert (
        api.c.post(f"/v1/matches/{match_id}/actions", json={"type": "resign"}, headers=auth(bo)).status_code
        == 200
    )
    events, _, next_after = svc.events(match_id, holder, after, 5.0, None, loaded)
    assert events == [] and holder.lost and next_after is None
