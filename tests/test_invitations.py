"""Handing a seat over: an invitation code, claimed once, gives the seat a fresh token and kills
the old one, so whoever made the invitation can no longer read the hand or act for the seat."""

from __future__ import annotations

import threading

import pytest

from service import errors
from service.identity.tokens import hash_token
from service.matches import invitations
from tests.api_helpers import Api, auth

HUMANS = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]


@pytest.fixture
def api(client):
    return Api(client)


def _invite(api: Api, match_id: str, token: str) -> str:
    r = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()["code"]


def test_a_claimed_invitation_gives_a_fresh_token_and_the_old_one_is_401(api):
    created = api.create("spades", HUMANS, seed=5)
    match_id, old = created["id"], created["seats"][1]["token"]
    hand = api.view(match_id, old)["hand"]
    code = _invite(api, match_id, old)
    r = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code, "name": "Friend"})
    assert r.status_code == 200, r.get_json()
    claimed = r.get_json()
    assert claimed["seat"] == 1 and claimed["name"] == "Friend" and claimed["token"] != old
    # The friend sees the seat's hand; the old token reads nothing and acts for nobody.
    assert api.view(match_id, claimed["token"])["hand"] == hand
    assert api.c.get(f"/v1/matches/{match_id}", headers=auth(old)).status_code == 401
    assert api.act(match_id, old, {"type": "resign"}).status_code == 401
    assert api.c.get(f"/v1/matches/{match_id}/events", headers=auth(old)).status_code == 401
    # Everyone sees the seat changed hands, under its new name.
    last = api.events(match_id)["events"][-1]
    assert {k: last[k] for k in ("type", "seat", "name")} == {"type": "claim", "seat": 1, "name": "Friend"}
    assert api.view(match_id)["players"][1]["name"] == "Friend"


def test_a_code_is_good_once_and_a_new_invitation_replaces_the_last(api):
    created = api.create("spades", HUMANS, seed=5)
    match_id, token = created["id"], created["seats"][2]["token"]
    first = _invite(api, match_id, token)
    second = _invite(api, match_id, token)
    refused = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": first})
    assert refused.status_code == 403 and refused.get_json()["error"] == "forbidden"
    version = api.view(match_id)["version"]
    taken = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": second})
    assert taken.status_code == 200 and taken.get_json()["name"] == "Cy"  # no name: the seat keeps its own
    again = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": second})
    assert again.status_code == 403
    assert api.view(match_id)["version"] == version + 1  # the refusals changed nothing


def test_an_invitation_is_refused_once_the_seat_left_or_the_match_is_over(api):
    created = api.create("spades", HUMANS, seed=5)
    match_id, token = created["id"], created["seats"][0]["token"]
    assert api.c.post(f"/v1/matches/{match_id}/invite").status_code == 401
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(token)).status_code == 200
    r = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(token))
    assert r.status_code == 409 and r.get_json()["error"] == "match_not_active"


def test_the_feed_of_the_inviter_ends_at_the_claim(api):
    created = api.create("spades", HUMANS, seed=5)
    match_id, old = created["id"], created["seats"][3]["token"]
    after = api.events(match_id)["events"][-1]["seq"]
    code = _invite(api, match_id, old)
    resp = api.c.get(f"/v1/matches/{match_id}/stream?after={after}", headers=auth(old), buffered=False)
    stream = iter(resp.response)
    next(stream)  # the retry line: the stream is open
    claimed = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()
    new_token = claimed["token"]
    # The new holder plays; the old feed has ended with the claim and saw none of it.
    view = api.view(match_id, new_token)
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in stream)
    resp.close()
    kinds = [line[7:] for line in text.splitlines() if line.startswith("event: ")]
    assert kinds[-1] == "claim", kinds  # the stream closed right after it
    assert view["you"] == 3


def test_an_invitation_dies_with_a_seat_freed_by_its_leave_and_never_takes_the_next_occupants(api):
    """A seat left while the match waits is open again: the code its leaver made before going
    must not hand the seat, once someone else sits in it, back to whoever holds the code."""
    created = api.create("spades", [HUMANS[0], {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    match_id = created["id"]
    leaver = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Spy"}).get_json()
    code = _invite(api, match_id, leaver["token"])
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(leaver["token"])).status_code == 200
    joined = [
        api.c.post(f"/v1/matches/{match_id}/join", json={"name": n}).get_json() for n in ("Bo", "Cy", "Di")
    ]
    assert joined[0]["seat"] == leaver["seat"]
    hand = api.view(match_id, joined[0]["token"])["hand"]
    r = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code})
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden", r.get_json()
    assert api.view(match_id, joined[0]["token"])["hand"] == hand  # the seat is still Bo's


def test_an_invitation_changes_nothing_another_seat_sees(api):
    created = api.create("spades", HUMANS, seed=5, options={"first_dealer": 3})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    before, events = api.view(match_id), api.events(match_id)["events"]
    for _ in range(5):
        r = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(tokens[1]))
        assert r.status_code == 200 and r.get_json()["version"] == before["version"]
    assert api.view(match_id) == before and api.events(match_id)["events"] == events
    # Seat 0's If-Match, read before the invitations, is still the match's version.
    moved = api.act(match_id, tokens[0], {"type": "bid", "tricks": 3}, **{"If-Match": str(before["version"])})
    assert moved.status_code == 200, moved.get_json()
    # The last invitation still hands the seat on after the move.
    code = _invite(api, match_id, tokens[1])
    assert api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).status_code == 200


def test_a_seat_is_handed_on_at_most_ten_times_and_its_last_holder_keeps_it(api):
    created = api.create("spades", HUMANS, seed=5)
    match_id, token = created["id"], created["seats"][2]["token"]
    for _ in range(10):
        code = _invite(api, match_id, token)
        token = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()["token"]
    version = api.view(match_id)["version"]
    r = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(token))
    assert r.status_code == 409 and r.get_json()["error"] == "match_not_active", r.get_json()
    assert api.view(match_id, token)["you"] == 2 and api.view(match_id)["version"] == version
    # Another seat's count is its own.
    other = _invite(api, match_id, created["seats"][0]["token"])
    assert api.c.post(f"/v1/matches/{match_id}/claim", json={"code": other}).status_code == 200


def test_an_invitation_made_by_a_holder_who_lost_the_seat_hands_on_nothing(api, app):
    """An invitation written just after a claim took the seat (the invite had read the match
    before it) names a holder who holds the seat no more: claiming it is 403."""
    svc = app.extensions["cardtable"]
    created = api.create("spades", HUMANS, seed=5)
    match_id, old = created["id"], created["seats"][1]["token"]
    held_before = invitations.holder(svc.load(match_id).record["seats"][1])
    code = _invite(api, match_id, old)
    new = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()["token"]
    late = "late-invitation-code"
    assert svc.invitations.put(match_id, 1, hash_token(late), held_before)
    refused = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": late})
    assert refused.status_code == 403 and refused.get_json()["error"] == "forbidden"
    assert api.view(match_id, new)["you"] == 1


def test_an_invitation_of_a_waiting_seat_dies_when_its_maker_leaves(api):
    created = api.create("spades", [HUMANS[0], HUMANS[1], {"kind": "open"}, {"kind": "open"}])
    match_id, token = created["id"], created["seats"][1]["token"]
    code = _invite(api, match_id, token)
    assert api.c.post(f"/v1/matches/{match_id}/leave", headers=auth(token)).status_code == 200
    joined = api.c.post(f"/v1/matches/{match_id}/join", json={"name": "Eve"}).get_json()
    assert joined["seat"] == 1
    refused = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code})
    assert refused.status_code == 403
    assert api.view(match_id, joined["token"])["you"] == 1


def test_of_two_claims_of_one_code_at_once_one_gets_the_seat(app):
    svc = app.extensions["cardtable"]
    for _ in range(20):
        created = svc.create({"game": "spades", "seats": HUMANS})
        match_id = created["id"]
        code = svc.invite(match_id, created["seats"][3]["token"])["code"]
        won, refused = _claim_at_once(svc, match_id, code, ["Eve", "Flo"])
        assert len(won) == 1 and len(refused) == 1
        assert svc.authenticate(svc.load(match_id), won[0]["token"]) == 3


def _claim_at_once(svc, match_id: str, code: str, names: list[str]) -> tuple[list[dict], list[Exception]]:
    start = threading.Barrier(len(names))
    won: list[dict] = []
    refused: list[Exception] = []

    def claim(name: str) -> None:
        start.wait()
        try:
            won.append(svc.claim(match_id, code, name))
        except errors.Forbidden as e:
            refused.append(e)

    threads = [threading.Thread(target=claim, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return won, refused
