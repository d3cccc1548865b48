"""Writes outside a match's slot (docs/architecture.md, "Writes outside a match's slot"): a
process killed between a match's commit and such a write (an outbox effect, written after it)
loses nothing, and one killed between such a write and the commit (an index, written before
it) leaves an entry its reader repairs.

As tests/test_outbox.py does, each test kills a real process (`kill -9` of itself) at the
moment the method that makes that write is called, then looks at the state on a real Redis
with what the workers run (the relay, called as the housekeeper calls it once its grace has
passed) and with the readers that repair an index (the lobby's listing, a creation at a quota's
limit).
"""

from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from service import errors
from service.identity.apps import Apps
from service.identity.callers import identify
from service.identity.players import match_list_key
from service.matches import app_index, app_matches, lobby
from service.matches import rematch as rematches
from service.matches.lobby import Lobby
from service.matches.my_matches import my_matches
from service.matches.rematch import rematch
from tests.conftest import ROOT, worker_env
from tests.test_healing import private_redis, service, spawn_worker, wait_for
from tests.test_outbox import RELAY_ONLY

__all__ = ["private_redis"]  # the fixtures this module borrows

MATCH = "0123456789abcdef"  # the id the killed process creates its match under

# Run in a process of its own: `{target}` (a method or function of `{module}`) kills the process
# the moment it is called, then the change `{change}` runs (`svc`, `caller` and `key` given).
DIES_AT = """
import os, signal, sys
from service.config import Config
from service.bootstrap import build_service
from service.identity.callers import identify
import {module} as patched

svc = build_service(Config(REDIS_URL=sys.argv[1], RATE_LIMIT=0))
key = sys.argv[2]
caller = identify(svc.apps, svc.players, key, None) if key else None
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
patched.{target} = killed
{change}
raise SystemExit("the change never reached {target}")
"""


def die_at(url: str, module: str, target: str, change: str, key: str = "") -> None:
    """Make `change` in a process killed by SIGKILL the moment it calls `module`'s `target`."""
    code = DIES_AT.format(module=module, target=target, change=change)
    done = subprocess.run([sys.executable, "-c", code, url, key], env=worker_env(url), cwd=ROOT, timeout=60)
    assert done.returncode == -9, f"the process was to be killed as it called {target}"


def relay_now(svc) -> None:
    """The relay's pass, as the housekeeper runs it once CARDTABLE_OUTBOX_GRACE has passed."""
    from workers.relay import relay

    relay(svc, now=time.time() + 60)


def later(module: Any, monkeypatch, seconds: float) -> None:
    """`module`'s clock `seconds` ahead: a reader's grace for an entry made before its commit
    has passed."""
    monkeypatch.setattr(module, "time", SimpleNamespace(time=lambda: time.time() + seconds, sleep=time.sleep))


def app_with_players(svc, name: str, *externals: str, **quotas: Any) -> tuple[Any, str, dict[str, str]]:
    """A new app, its key and a player token of each of its players `externals`."""
    app, key = Apps(svc.trips.state).create(name, **quotas)
    tokens = {p: svc.players.put(app.id, p, p.title(), None)[1] for p in externals}
    return app, key, tokens


# A Zhol match between the app's players Ana and Bo, their seats bound to them.
ANA_AND_BO = {"game": "zhol", "seats": [{"kind": "human", "player": p} for p in ("ana", "bo")]}


def ana_and_bo_match(svc, app_name: str) -> tuple[Any, str, dict[str, str], str]:
    """An app with the players Ana and Bo, its key, their tokens, and a match between them that
    the app's key created."""
    app, key, tokens = app_with_players(svc, app_name, "ana", "bo")
    match_id = svc.create(ANA_AND_BO, identify(svc.apps, svc.players, key, None))["id"]
    return app, key, tokens, match_id


def listed_ids(svc, player_token: str) -> list[str]:
    """The match ids of a player's `GET /v1/me/matches`, every part."""
    player = svc.players.authenticate(player_token)
    return [m["id"] for m in my_matches(svc.repo, player, None, 50, None)["matches"]]


def app_listed(svc, app_id: str) -> dict[str, bool]:
    """The app's `GET /v1/admin/matches`: match id → whether the app created it."""
    return {m["id"]: m["own"] for m in app_matches.app_matches(svc.repo, app_id, {}, 50, None)["matches"]}


def lobby_entries(client: redis.Redis) -> list[bytes]:
    return client.zrange("ct:{lobby}:all", 0, -1)


# --- indexes written before the commit, repaired by their readers -----------------------------
def test_a_listed_match_whose_creator_is_killed_before_its_commit_leaves_the_lobby_after_a_minute(
    private_redis, monkeypatch
):
    svc = service(private_redis)
    client = redis.Redis.from_url(private_redis)
    body = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}], "listed": True}
    # The entry is written just before the creating commit, which never happens.
    die_at(
        private_redis,
        "service.matches.repository",
        "MatchRepository.add",
        f"svc.create({body!r}, match_id={MATCH!r})",
    )
    assert svc.repo.find(MATCH) is None and len(lobby_entries(client)) == 1
    listing = Lobby(svc.repo, svc.seats)
    # Younger than a minute, its commit might still be on its way: listed nowhere, kept.
    assert listing.list_matches(None, 10, None)["matches"] == []
    assert len(lobby_entries(client)) == 1
    later(lobby, monkeypatch, 61)
    assert listing.list_matches(None, 10, None)["matches"] == []
    assert client.keys("ct:{lobby}:*") == []  # gone from all three sets


def test_a_quota_place_taken_by_a_creator_killed_before_its_commit_is_given_back_after_a_minute(
    private_redis, monkeypatch
):
    from service.identity import quotas

    svc = service(private_redis)
    app, key, _ = app_with_players(svc, "one-match", matches=1)
    body = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}
    die_at(
        private_redis,
        "service.matches.repository",
        "MatchRepository.add",
        f"svc.create({body!r}, caller, match_id={MATCH!r})",
        key,
    )
    assert svc.repo.find(MATCH) is None
    caller = identify(svc.apps, svc.players, key, None)
    # Within a minute the place may be a creation still on its way to its commit: it holds.
    with pytest.raises(errors.QuotaExceeded):
        svc.create(body, caller)
    # Later, the creation that finds the set full asks the match, finds none, and takes the place.
    later(quotas, monkeypatch, 61)
    svc.create(body, caller)


def test_the_quota_place_of_a_match_ended_by_a_process_killed_after_its_commit_is_taken_by_the_next(
    private_redis,
):
    svc = service(private_redis)
    app, key, _ = app_with_players(svc, "one-match", matches=1)
    caller = identify(svc.apps, svc.players, key, None)
    body = {"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]}
    first = svc.create(body, caller)
    with pytest.raises(errors.QuotaExceeded):
        svc.create(body, caller)
    # Its only person leaves: the commit aborts the match, and the process dies after it.
    token = first["seats"][0]["token"]
    die_at(
        private_redis,
        "service.matches.repository",
        "MatchRepository.hand_on",
        f"svc.leave({first['id']!r}, {token!r})",
    )
    assert svc.load(first["id"]).status() == "aborted"
    # Nobody gave the place back; the next creation asks the match, finds it over, takes it.
    svc.create(body, caller)


# --- players' lists and the app's index: effects in the outbox --------------------------------
def _created_by_app(private_redis: str, target: tuple[str, str]) -> tuple[Any, Any, dict[str, str]]:
    """A match of an app's key with its players ana and bo seated, made by a process killed as it
    calls `target` (module, name), after its commit."""
    svc = service(private_redis)
    app, key, tokens = app_with_players(svc, "lists", "ana", "bo")
    die_at(private_redis, *target, f"svc.create({ANA_AND_BO!r}, caller, match_id={MATCH!r})", key)
    assert svc.load(MATCH).version == 0  # the commit stands
    return svc, app, tokens


def _indexed_everywhere(svc, app, tokens: dict[str, str], own: bool) -> None:
    for p, token in tokens.items():
        assert listed_ids(svc, token) == [MATCH]
        # What its erasure walks, and the export.
        assert MATCH in svc.players.match_ids(svc.players.find(app.id, p).id)
    assert app_listed(svc, app.id) == {MATCH: own}
    assert svc.app_index.owns(app.id, MATCH) is own


def test_a_match_created_by_a_process_killed_before_listing_it_reaches_its_players_lists_by_the_relay(
    private_redis,
):
    svc, app, tokens = _created_by_app(private_redis, ("service.identity.players", "Players.sat_down"))
    relay_now(svc)
    _indexed_everywhere(svc, app, tokens, own=True)
    # The app may abort it: it knows it created it.
    assert app_matches.abort(svc.repo, app.id, MATCH)["status"] == "aborted"


@pytest.mark.slow
def test_a_real_workers_relay_lists_a_match_whose_creator_was_killed_before_listing_it(private_redis, procs):
    svc, app, tokens = _created_by_app(private_redis, ("service.identity.players", "Players.sat_down"))
    assert listed_ids(svc, tokens["ana"]) == [] and app_listed(svc, app.id) == {}
    spawn_worker(procs, private_redis, **RELAY_ONLY)
    wait_for(lambda: app_listed(svc, app.id) == {MATCH: True}, 30, "the relay to list the match")
    _indexed_everywhere(svc, app, tokens, own=True)
    wait_for(lambda: svc.outbox.pending() == 0, 10, "the outbox to empty")


def test_a_match_created_by_a_process_killed_before_the_apps_index_reaches_the_index_by_the_relay(
    private_redis,
):
    svc, app, tokens = _created_by_app(private_redis, ("service.matches.app_index", "AppIndex._index"))
    relay_now(svc)
    _indexed_everywhere(svc, app, tokens, own=True)


def test_a_player_who_joins_in_a_process_killed_before_listing_it_finds_the_match_by_the_relay(private_redis):
    svc = service(private_redis)
    app, key, tokens = app_with_players(svc, "joins", "bo")
    # An anonymous host: the match is the app's only through the player who joins it.
    match_id = svc.create({"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]})["id"]
    bo = svc.players.find(app.id, "bo")
    join = f"svc.join({match_id!r}, 'Bobby', None, caller)"
    die_at(private_redis, "service.identity.players", "Players.sat_down", join, tokens["bo"])
    assert svc.load(match_id).record["seats"][1]["player"] == bo.id  # the join stands
    relay_now(svc)
    assert listed_ids(svc, tokens["bo"]) == [match_id]
    assert app_listed(svc, app.id) == {match_id: False}
    # Its erasure finds the match and the name it joined with.
    assert match_id in svc.players.match_ids(bo.id)
    assert "Bobby" in svc.players.names_of(bo.id)
    assert svc.trips.state.zscore(app_index.joined_key(bo.id), match_id) is not None


def test_a_player_who_takes_a_rematch_seat_in_a_process_killed_before_listing_it_finds_it_by_the_relay(
    private_redis,
):
    svc = service(private_redis)
    app, key, tokens, old = ana_and_bo_match(svc, "rematches")
    svc.act(old, tokens["bo"], {"type": "resign"})
    as_ana = identify(svc.apps, svc.players, tokens["ana"], None)
    new = rematch(svc.repo, svc.seats, old, tokens["ana"], as_ana)["id"]
    # Bo takes the seat held for him, in a process killed after that commit.
    take = f"from service.matches.rematch import rematch\nrematch(svc.repo, svc.seats, {old!r}, key, caller)"
    die_at(private_redis, "service.identity.players", "Players.sat_down", take, tokens["bo"])
    assert svc.load(new).status() == "active"
    relay_now(svc)
    assert new in listed_ids(svc, tokens["bo"])
    assert new in svc.players.match_ids(svc.players.find(app.id, "bo").id)


def test_a_match_ended_by_a_process_killed_before_handing_on_leaves_its_players_live_lists_by_the_relay(
    private_redis,
):
    svc = service(private_redis)
    app, key, tokens, match_id = ana_and_bo_match(svc, "ends")
    resign = f"svc.act({match_id!r}, key, {{'type': 'resign'}})"
    die_at(private_redis, "service.matches.repository", "MatchRepository.hand_on", resign, tokens["bo"])
    ana = svc.players.find(app.id, "ana")
    live = match_list_key(ana.id, "live")
    assert svc.trips.state.zscore(live, match_id) is not None  # nothing moved it yet
    relay_now(svc)
    assert svc.trips.state.zscore(live, match_id) is None
    assert svc.trips.state.zscore(match_list_key(ana.id, "done"), match_id) is not None


def test_the_relay_lists_nothing_for_a_player_erased_after_its_join_was_killed_before_listing_it(
    private_redis,
):
    svc = service(private_redis)
    app, key, tokens = app_with_players(svc, "erased", "bo")
    match_id = svc.create({"game": "zhol", "seats": [{"kind": "human"}, {"kind": "open"}]})["id"]
    bo = svc.players.find(app.id, "bo")
    join = f"svc.join({match_id!r}, 'Bobby', None, caller)"
    die_at(private_redis, "service.identity.players", "Players.sat_down", join, tokens["bo"])
    svc.erasure.erase(app.id, "bo")
    relay_now(svc)
    # Nothing of the erased player comes back: no list, no name it joined with.
    assert svc.trips.state.exists(*svc.players.erasure_keys(bo.id)) == 0
    assert app_listed(svc, app.id) == {match_id: False}


def test_a_rematch_whose_asker_was_killed_before_creating_it_is_made_by_an_ask_a_minute_later(
    private_redis, monkeypatch
):
    svc = service(private_redis)
    app, key, tokens, old = ana_and_bo_match(svc, "lost-rematch")
    svc.act(old, tokens["bo"], {"type": "resign"})
    # Ana's ask names the rematch in the old match, then dies before the rematch's own commit.
    ask = f"from service.matches.rematch import rematch\nrematch(svc.repo, svc.seats, {old!r}, key, caller)"
    die_at(private_redis, "service.matches.repository", "MatchRepository.add", ask, tokens["ana"])
    lost = svc.load(old).record["rematch"]
    assert svc.repo.find(lost) is None
    as_bo = identify(svc.apps, svc.players, tokens["bo"], None)
    # Within a minute its creation may still be on its way: the ask waits for it, then a 409.
    with pytest.raises(errors.Conflict):
        rematch(svc.repo, svc.seats, old, tokens["bo"], as_bo)
    later(rematches, monkeypatch, 61)
    made = rematch(svc.repo, svc.seats, old, tokens["bo"], as_bo)
    assert made["id"] != lost and svc.load(old).record["rematch"] == made["id"]
    assert made["id"] in listed_ids(svc, tokens["bo"])
