"""A Python client generated from openapi/openapi.json by openapi-python-client plays real matches.

The client is generated afresh into a temporary folder (never committed) from the committed
document, so anything the generator cannot express shows up here and is fixed in the document.
"""

from __future__ import annotations

import importlib
import os
import random
import shutil
import subprocess
import sys
import time

import pytest

from tests.api_helpers import cards_in
from tests.serve_helpers import ROOT, cardtable_serve


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    """The generated package `cardtable_client`, imported from a temporary folder."""
    out = tmp_path_factory.mktemp("generated")
    exe = (
        shutil.which("openapi-python-client", path=os.path.dirname(sys.executable)) or "openapi-python-client"
    )
    done = subprocess.run(
        [exe, "generate", "--path", f"{ROOT}/openapi/openapi.json", "--meta", "none",
         "--output-path", str(out / "cardtable_client")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    # Anything the generator skipped or could not type is a flaw of the document.
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("cardtable_client")
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.split(".")[0] == "cardtable_client"]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with cardtable_serve(str(tmp_path_factory.mktemp("serve"))) as (_, url):
        yield url


def typed_call(fn, **kwargs):
    """One generated call, waiting out a 429 as its Retry-After says."""
    for _ in range(20):
        resp = fn.sync_detailed(**kwargs)
        if resp.status_code != 429:
            return resp
        time.sleep(float(resp.headers.get("Retry-After", "1")))
    raise AssertionError("still rate limited")


def play_until(gen, client, match_id, seat, done, rng):
    """Play `seat` with random legal actions (typed Action models from the view) until
    done(view); wait for the bots by long-polling the events."""
    from cardtable_client.api.matches import get_events, get_match, play_action, start_round
    from cardtable_client.models import Action, Events, View, ViewStatus

    view = typed_call(get_match, match_id=match_id, client=client).parsed
    seen = 0
    for _ in range(5000):
        assert isinstance(view, View)
        if done(view):
            return view
        if view.status == ViewStatus.ACTIVE and view.turn.seat == seat:
            # The seat plays on to the end: resign (listed for every seat) is left alone.
            action = rng.choice([a for a in view.legal_actions if a.type_ != "resign"])
            assert isinstance(action, Action)
            resp = typed_call(play_action, match_id=match_id, client=client, body=action)
            assert resp.status_code == 200, resp.content
            view = resp.parsed
            continue
        if view.status == ViewStatus.ROUND_OVER and view.host == seat:
            view = typed_call(start_round, match_id=match_id, client=client).parsed
            continue
        events = typed_call(get_events, match_id=match_id, client=client, after=seen, wait=5.0).parsed
        assert isinstance(events, Events)
        seen = events.events[-1].seq if events.events else seen
        view = typed_call(get_match, match_id=match_id, client=client).parsed
    raise AssertionError("the match did not get there in 5000 steps")


def create(gen, base, game, seats, **options):
    from cardtable_client import AuthenticatedClient, Client
    from cardtable_client.api.matches import create_match
    from cardtable_client.models import (
        Created,
        CreateMatch,
        CreateMatchGame,
        CreateMatchOptions,
        SeatIn,
        SeatInKind,
        SeatInLevel,
    )

    body = CreateMatch(
        game=CreateMatchGame(game),
        seats=[
            SeatIn(kind=SeatInKind.HUMAN, name="Gen")
            if s == "human"
            else SeatIn(kind=SeatInKind.BOT, level=SeatInLevel(s))
            for s in seats
        ],
        options=CreateMatchOptions.from_dict(options),
    )
    resp = typed_call(create_match, client=Client(base_url=base), body=body)
    assert resp.status_code == 201 and isinstance(resp.parsed, Created), resp.content
    token = resp.parsed.seats[0].token
    return resp.parsed.id, AuthenticatedClient(base_url=base, token=token, timeout=_timeout())


def _timeout():
    import httpx

    return httpx.Timeout(40.0)


def test_generated_client_plays_a_whole_spades_match_against_three_bots(gen, base):
    from cardtable_client.api.matches import get_history, play_action
    from cardtable_client.models import Action, Error, History, ViewStatus

    match_id, me = create(gen, base, "spades", ["human", "medium", "medium", "medium"], target_score=100)
    view = play_until(gen, me, match_id, 0, lambda v: v.status == ViewStatus.FINISHED, random.Random(1))
    assert view.winners and set(view.winners) in ({0, 2}, {1, 3})
    assert view.round_ >= 1 and view.hand is not None
    # A refused move comes back as the documented Error model, not an untyped blob.
    resp = typed_call(play_action, match_id=match_id, client=me, body=Action(type_="play", card="2C"))
    assert resp.status_code == 409 and isinstance(resp.parsed, Error)
    assert resp.parsed.error == "match_not_active"
    history = typed_call(get_history, match_id=match_id, client=me).parsed
    assert isinstance(history, History) and history.events[-1].type_ == "match_over"
    # Every event keeps the fields of its type (the deals show all 52 cards, unredacted).
    assert len(cards_in([e.to_dict() for e in history.events])) == 52


def test_generated_client_plays_a_three_thirteen_round_against_bots(gen, base):
    from cardtable_client.models import ViewStatus

    match_id, me = create(gen, base, "three-thirteen", ["human", "easy", "hard"])
    view = play_until(gen, me, match_id, 0, lambda v: v.status == ViewStatus.ROUND_OVER, random.Random(2))
    assert view.round_ == 1 and view.round_result is not None
    assert view.round_result.to_dict() and len(view.players) == 3


def test_generated_client_finds_a_seat_through_the_lobby(gen, base):
    from cardtable_client import Client
    from cardtable_client.api.lobby import list_matches, quick_play
    from cardtable_client.models import ListMatchesGame, LobbyPage, QuickPlay, QuickPlayed, QuickPlayGame

    anon = Client(base_url=base)
    host = typed_call(quick_play, client=anon, body=QuickPlay(game=QuickPlayGame.ZOLIKY, name="Host")).parsed
    assert isinstance(host, QuickPlayed) and host.created
    page = typed_call(list_matches, client=anon, game=ListMatchesGame.ZOLIKY).parsed
    assert isinstance(page, LobbyPage) and host.id in [m.id for m in page.matches]
    guest = typed_call(
        quick_play, client=anon, body=QuickPlay(game=QuickPlayGame.ZOLIKY, name="Guest")
    ).parsed
    assert isinstance(guest, QuickPlayed) and (guest.id, guest.seat, guest.created) == (host.id, 1, False)
