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

from engines.registry import GAMES
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


def typed_models(gen, game: str):
    """The generated models of `game`'s view and of each of its action types (SpadesBid,
    SpadesPlay, ...): the document's per-game schemas, named after the game and the type."""
    from service.http.contract import _pascal

    models = importlib.import_module("cardtable_client.models")
    p = _pascal(game)
    view = getattr(models, f"{p}View")
    actions = tuple(getattr(models, f"{p}{_pascal(kind)}") for kind in GAMES[game].actions)
    return view, actions


def play_until(gen, client, match_id, seat, done, rng, game):
    """Play `seat` with random legal actions (the game's typed action models, read from the
    view) until done(view); wait for the bots by long-polling the events."""
    from cardtable_client.api.matches import get_events, get_match, play_action, start_round
    from cardtable_client.models import Events, ViewBaseStatus

    view_model, action_models = typed_models(gen, game)
    view = typed_call(get_match, match_id=match_id, client=client).parsed
    seen = 0
    for _ in range(5000):
        # The view is parsed as the game's own model (chosen by `game`), its table typed.
        assert isinstance(view, view_model), type(view)
        if done(view):
            return view
        if view.status == ViewBaseStatus.ACTIVE and view.turn.seat == seat:
            # The seat plays on to the end: resign (listed for every seat) is left alone.
            action = rng.choice([a for a in view.legal_actions if a.type_ != "resign"])
            assert isinstance(action, action_models), type(action)
            resp = typed_call(play_action, match_id=match_id, client=client, body=action)
            assert resp.status_code == 200, resp.content
            view = resp.parsed
            continue
        if view.status == ViewBaseStatus.ROUND_OVER and view.host == seat:
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
    from cardtable_client.models import (
        Error,
        History,
        SpadesPlay,
        SpadesRoundResult,
        SpadesTable,
        StandardCardCode,
        ViewBaseStatus,
    )

    match_id, me = create(gen, base, "spades", ["human", "medium", "medium", "medium"], target_score=100)
    finished = lambda v: v.status == ViewBaseStatus.FINISHED  # noqa: E731
    view = play_until(gen, me, match_id, 0, finished, random.Random(1), "spades")
    assert view.winners and set(view.winners) in ({0, 2}, {1, 3})
    assert view.round_ >= 1 and view.hand is not None
    # The game's parts are typed models too: the table, the last hand's reckoning.
    assert isinstance(view.table, SpadesTable) and view.table.target_score == 100
    assert isinstance(view.round_result, SpadesRoundResult) and len(view.round_result.hands) == 4
    # A move built from the typed models; a refused one comes back as the documented Error.
    move = SpadesPlay(type_="play", card=StandardCardCode("2C"))
    resp = typed_call(play_action, match_id=match_id, client=me, body=move)
    assert resp.status_code == 409 and isinstance(resp.parsed, Error)
    assert resp.parsed.error == "match_not_active"
    history = typed_call(get_history, match_id=match_id, client=me).parsed
    assert isinstance(history, History) and history.events[-1].type_ == "match_over"
    # Every event keeps the fields of its type (the deals show all 52 cards, unredacted).
    assert len(cards_in([e.to_dict() for e in history.events])) == 52


def test_generated_client_plays_a_three_thirteen_round_against_bots(gen, base):
    from cardtable_client.models import ThreeThirteenRoundResult, ViewBaseStatus

    match_id, me = create(gen, base, "three-thirteen", ["human", "easy", "hard"])
    over = lambda v: v.status == ViewBaseStatus.ROUND_OVER  # noqa: E731
    view = play_until(gen, me, match_id, 0, over, random.Random(2), "three-thirteen")
    assert view.round_ == 1 and isinstance(view.round_result, ThreeThirteenRoundResult)
    assert len(view.round_result.players) == 3 and len(view.players) == 3


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
