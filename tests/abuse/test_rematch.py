"""Issue 39, finding 3, against a live `cardtable serve`: a rematch seats only those who asked.

Before, `POST …/rematch` seated every player of the old match at once, so after one shared
match a player could loop rematch + resign and fill the other's feed, match list and webhooks
(and, in a rated match with a clock, farm rating off the absent player's seat). Now the other
seats are reserved for their people, taken only by their own rematch call; a reserved seat left
untaken for CARDTABLE_REMATCH_SECONDS (3 s here) ends the rematch `declined`, unrated.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.serve_helpers import ROOT, cardtable_serve
from tests.test_serve import call

REMATCH_SECONDS = 3


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, app key) of a live serve whose rematches wait REMATCH_SECONDS for the others."""
    data = str(tmp_path_factory.mktemp("abuse-rematch"))
    env = {
        "CARDTABLE_REMATCH_SECONDS": str(REMATCH_SECONDS),
        "CARDTABLE_SWEEP_GRACE": "1",
        "CARDTABLE_RATE_LIMIT": "0",
        "CARDTABLE_LOG_LEVEL": "WARNING",
    }
    with cardtable_serve(data, **env) as (_, base):
        made = subprocess.run(
            [sys.executable, "-m", "service.cli", "apps", "create", "Abuse", "--json", "--data-dir", data],
            cwd=ROOT,
            env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        yield base, json.loads(made.stdout)["key"]


def players(base: str, key: str, *names: str) -> dict[str, str]:
    """Player tokens of new players of the app, by external id."""
    tokens = {}
    for name in names:
        status, body = call(base, "PUT", f"/v1/players/{name}", {"name": name.title()}, key)
        assert status == 200, body
        tokens[name] = body["token"]
    return tokens


def finished_zhol(base: str, key: str, tag: str, rated: bool = True) -> tuple[str, dict[str, str]]:
    """A rated two-player Zhol match of two new players, ended by the second's resignation."""
    cy, di = f"cy-{tag}", f"di-{tag}"
    tokens = players(base, key, cy, di)
    seats = [{"kind": "human", "player": cy}, {"kind": "human", "player": di}]
    body = {"game": "zhol", "seats": seats, "options": {"rated": rated}}
    status, made = call(base, "POST", "/v1/matches", body, key)
    assert status == 201, made
    status, _ = call(base, "POST", f"/v1/matches/{made['id']}/actions", {"type": "resign"}, tokens[di])
    assert status == 200
    return made["id"], {"cy": tokens[cy], "di": tokens[di]}


def finished_spades(base: str) -> tuple[str, str, str]:
    """An anonymous Spades match of Ana and Bo (and two bots), ended by Ana's resignation."""
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}, *[{"kind": "bot"}] * 2]
    status, made = call(base, "POST", "/v1/matches", {"game": "spades", "seats": seats})
    assert status == 201, made
    ana, bo = made["seats"][0]["token"], made["seats"][1]["token"]
    status, _ = call(base, "POST", f"/v1/matches/{made['id']}/actions", {"type": "resign"}, ana)
    assert status == 200
    return made["id"], ana, bo


def test_a_rematch_and_resign_loop_never_seats_the_other_player(served):
    base, key = served
    first, tokens = finished_zhol(base, key, "loop")
    current, made = first, []
    for _ in range(5):
        status, again = call(base, "POST", f"/v1/matches/{current}/rematch", token=tokens["di"])
        if status != 201:
            break
        current = again["id"]
        made.append(current)
        call(base, "POST", f"/v1/matches/{current}/actions", {"type": "resign"}, tokens["di"])
    assert len(made) == 1, "a rematch nobody else took is no match to resign and rematch again"
    # Cy never asked: none of it is in Cy's matches, and Cy's feed has one offer, nothing more.
    status, listed = call(base, "GET", "/v1/me/matches", token=tokens["cy"])
    assert status == 200 and [m["id"] for m in listed["matches"]] == [first]
    status, feed = call(base, "GET", "/v1/me/events?after=0", token=tokens["cy"])
    of_rematch = [e["type"] for e in feed["events"] if e["data"]["match"] in made]
    assert of_rematch == []
    offers = [e["data"] for e in feed["events"] if e["type"] == "rematch.offered"]
    assert offers == [{"match": first, "game": "zhol", "rematch": made[0], "by_seat": 1}]
    status, view = call(base, "GET", f"/v1/matches/{made[0]}", token=tokens["di"])
    assert view["status"] == "waiting" and view["players"][0]["kind"] == "open"
    assert view["players"][0]["reserved"] is True and "reserved" not in view["players"][1]


def test_nobody_but_its_person_takes_a_reserved_seat(served):
    base, key = served
    old, _, bo = finished_spades(base)
    status, again = call(base, "POST", f"/v1/matches/{old}/rematch", token=bo)
    assert status == 201
    new = again["id"]
    # A stranger's join, with or without a player token, and quick play all keep off it.
    status, refused = call(base, "POST", f"/v1/matches/{new}/join", {"name": "Mallory"})
    assert status == 409 and refused["error"] == "match_not_active", refused
    stranger = players(base, key, "mallory")["mallory"]
    status, refused = call(base, "POST", f"/v1/matches/{new}/join", {}, stranger)
    assert status == 409, refused
    status, quick = call(base, "POST", "/v1/matches/quick", {"game": "spades", "name": "Eve"})
    assert status == 200 and quick["id"] != new
    status, lobby = call(base, "GET", "/v1/matches?game=spades")
    assert new not in [m["id"] for m in lobby["matches"]]
    assert again["seats"][0] == {"seat": 0, "kind": "open", "reserved": True}
    # The new match's own tokens cannot take it either: Bo's rematch again is refused.
    status, twice = call(base, "POST", f"/v1/matches/{old}/rematch", token=bo)
    assert status == 409 and new in twice["message"]
    status, view = call(base, "GET", f"/v1/matches/{new}", token=again["seats"][1]["token"])
    assert view["status"] == "waiting" and view["players"][0]["reserved"] is True


def test_the_second_asker_takes_its_seat_in_the_same_rematch_which_then_starts(served):
    base, key = served
    old, ana, bo = finished_spades(base)
    status, first = call(base, "POST", f"/v1/matches/{old}/rematch", token=bo)
    assert status == 201
    status, second = call(base, "POST", f"/v1/matches/{old}/rematch", token=ana)
    assert status == 201, second
    assert second["id"] == first["id"]
    mine = second["seats"][0]
    assert mine["kind"] == "human" and mine["token"] and "token" not in second["seats"][1]
    status, view = call(base, "GET", f"/v1/matches/{first['id']}", token=mine["token"])
    assert view["you"] == 0 and view["status"] == "active" and len(view["hand"]) == 13
    assert not any(p.get("reserved") for p in view["players"])
    # Players too: the second player's own token takes its seat, and the match starts.
    old, tokens = finished_zhol(base, key, "both")
    status, first = call(base, "POST", f"/v1/matches/{old}/rematch", token=tokens["di"])
    assert status == 201 and [s.get("player") for s in first["seats"]] == [None, "di-both"]
    status, second = call(base, "POST", f"/v1/matches/{old}/rematch", token=tokens["cy"])
    assert status == 201 and second["id"] == first["id"], second
    assert [s.get("player") for s in second["seats"]] == ["cy-both", "di-both"]
    status, view = call(base, "GET", f"/v1/matches/{first['id']}", token=tokens["cy"])
    assert view["you"] == 0 and view["status"] == "active" and view["options"]["rated"] is True
    status, listed = call(base, "GET", "/v1/me/matches", token=tokens["cy"])
    assert listed["matches"][0]["id"] == first["id"]


def test_an_untaken_reserved_seat_ends_the_rematch_declined_and_unrated(served):
    base, key = served
    old, tokens = finished_zhol(base, key, "late")
    status, before = call(base, "GET", "/v1/players/cy-late", token=key)
    status, again = call(base, "POST", f"/v1/matches/{old}/rematch", token=tokens["di"])
    assert status == 201
    new = again["id"]
    view: dict = {}
    for _ in range(300):  # the reservation lasts 3 s, and the sweeper's grace is 1 s
        status, view = call(base, "GET", f"/v1/matches/{new}", token=tokens["di"])
        if view["status"] != "waiting":
            break
        time.sleep(0.1)
    assert view["status"] == "aborted"
    status, events = call(base, "GET", f"/v1/matches/{new}/events?after=0", token=tokens["di"])
    (over,) = [e for e in events["events"] if e["type"] == "match_over"]
    assert over["reason"] == "declined" and over["winners"] == [] and "ratings" not in over
    for name in ("cy-late", "di-late"):
        status, player = call(base, "GET", f"/v1/players/{name}", token=key)
        assert player["ratings"]["zhol"]["matches"] == 1, "the declined rematch moved no rating"
    status, _ = call(base, "GET", "/v1/players/cy-late", token=key)
    assert before["ratings"] == _["ratings"]
    # Too late: Cy's rematch answers that it ended.
    status, late = call(base, "POST", f"/v1/matches/{old}/rematch", token=tokens["cy"])
    assert status == 409 and late["error"] == "match_not_active", late
