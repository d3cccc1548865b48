"""Rematch: after a match ends, any seat asks for the same game again (docs/api.md, "Rematch").

The new match has the same game and options and every bot at its level. The asker is seated
(bound to its player, or with a new token); every other person's seat is reserved for that
person: it stays `open` with `"reserved": true`, no join takes it, and only that person takes
it, by asking for the rematch of the old match too (a player's seat with the player's token, an
anonymous seat with the old seat's token), which answers the same new match. So a rematch seats
only those who asked: a player who loops rematch + resign never puts the other in a match, its
list or its webhooks. The rematch starts when the last seat is taken; a reserved seat still
untaken after CARDTABLE_REMATCH_SECONDS ends it, `aborted` with reason `declined` (`decline`,
run by a worker at the deadline: the creation's commit hands the job on through the outbox and
puts the match in the sweeper's due index, so a lost job still ends it).

The old match gets a `rematch` event naming the new one, committed first (with the new match's
id chosen beforehand), so two seats asking at once make one rematch: the second takes its seat
in it. A rematch named but still not stored a minute later (LOST_AFTER: its asker died between
the two commits) is forgotten by the next ask, which makes one.
"""

from __future__ import annotations

import time
from typing import Any, cast

from service import errors
from service.identity.callers import Caller
from service.identity.players import Player
from service.identity.tokens import new_token
from service.matches import listings
from service.matches.match import Match
from service.matches.new_match import new_id
from service.matches.repository import JobOutcome, MatchRepository, Write
from service.matches.seats import Seats

# How long a second asker waits for a rematch the first one is still creating (its `rematch`
# event is committed to the old match a moment before the new match itself).
CREATING = (0.05, 0.1, 0.2, 0.4)
# A rematch its old match names but that is still not stored this long after is lost: its asker
# died between the two commits (a quota's place waits as long: service/identity/quotas.py).
LOST_AFTER = 60.0


class _Made(Exception):
    """The old match has its rematch already (another seat asked first)."""

    def __init__(self, match_id: str, at: float):
        super().__init__(match_id)
        self.match_id = match_id
        self.at = at  # when the old match last changed: when it named its rematch


def rematch(
    repo: MatchRepository, seats: Seats, match_id: str, token: str | None, caller: Caller, again: bool = True
) -> dict[str, Any]:
    old = repo.load(match_id, token=token)
    asker = repo.authenticate(old, token)
    assert asker is not None  # a token is required: authenticate raised otherwise
    new = new_id()

    def change(match: Match) -> Write:
        if not match.over():
            raise errors.MatchNotActive(f"the match is {match.status()}: a rematch follows its end")
        if match.record.get("rematch"):
            raise _Made(match.record["rematch"], match.record.get("at", 0.0))
        match.name_rematch(new)
        return Write([{"type": "rematch", "match": new, "seat": asker}], match.record)

    try:
        record = repo.update(match_id, old, change)
    except _Made as made:
        if again and time.time() - made.at > LOST_AFTER and repo.find(made.match_id) is None:
            # Named by the old match, never stored (its asker died between the two commits):
            # the old match forgets it, and this ask makes the rematch.
            _forget(repo, match_id, made.match_id)
            return rematch(repo, seats, match_id, token, caller, again=False)
        return _take(repo, made.match_id, old, asker, caller)
    held = {"of": match_id, "until": round(time.time() + repo.config.REMATCH_SECONDS, 3)}
    body, players = _again(record, asker, repo, held)
    try:
        return seats.create(body, caller, match_id=new, players=players, app=record.get("app"))
    except errors.DomainError:
        # Not made (the asker's quota, say): the old match may be asked again.
        _forget(repo, match_id, new)
        raise


def _again(
    record: dict[str, Any], asker: int, repo: MatchRepository, held: dict[str, Any]
) -> tuple[dict[str, Any], dict[int, Player]]:
    """The new match's body (its reserved seats `held`: for the old match's seat of the same
    number, until when), and the players to bind to its seats."""
    players: dict[int, Player] = {}
    seats_in: list[dict[str, Any]] = []
    for s in record["seats"]:
        player = repo.players.get(s["player"]) if "player" in s else None
        if s["kind"] == "bot":
            seats_in.append({"kind": "bot", "level": s["level"], "name": s["name"]})
        elif s["seat"] == asker:
            if player is not None:
                players[s["seat"]] = player
            seats_in.append({"kind": "human", **({"name": s["name"]} if player is None else {})})
        elif s["kind"] == "human" and ("player" not in s or player is not None):
            # Someone's seat (a player's, or an anonymous token's): theirs to take, nobody
            # else's. An erased player's seat, or one nobody sat in, is open to anyone.
            seats_in.append({"kind": "open", "reserved": dict(held)})
        else:
            seats_in.append({"kind": "open"})
    options = dict(record["options"])
    if not record.get("clock_asked"):
        # Zhol's default clock (turn_seconds filled in, not asked for) stays a default one.
        options.pop("turn_seconds", None)
    return {"game": record["game"], "options": options, "seats": seats_in}, players


def _forget(repo: MatchRepository, match_id: str, new: str) -> None:
    def change(match: Match) -> Write:
        match.forget_rematch(new)
        return Write([], None)

    try:
        repo.update(match_id, None, change)
    except errors.DomainError:
        pass  # the old match keeps naming a rematch that is not there: asked again, a 409 says so


def _take(repo: MatchRepository, new: str, old: Match, seat: int, caller: Caller) -> dict[str, Any]:
    """The seat reserved in the rematch `new` for whoever holds `seat` of the old match."""
    was = old.record["seats"][seat]
    player = repo.players.get(was["player"]) if "player" in was else None
    token = None if player is not None else new_token()

    def change(match: Match) -> Write:
        if match.status() != "waiting":
            raise errors.MatchNotActive(f"the rematch, match {new}, is {match.status()}: no seat is held now")
        held = match.record["seats"][seat].get("reserved")
        if not held or held["of"] != old.id:
            raise errors.Conflict(f"a rematch was made already: match {new}")
        events = match.join(seat, player, None if player is not None else was.get("name"), token)
        # The player's lists and its app's index, outside the match's slot, ride the outbox.
        return Write(events, _answer(match, seat, token), effects=listings.joined(player, match.record, seat))

    return cast(dict[str, Any], repo.update(new, _created_by_now(repo, new), change))  # the Write's result


def _created_by_now(repo: MatchRepository, new: str) -> Match:
    """The rematch, waiting a moment for the seat that is creating it."""
    for pause in (*CREATING, None):
        found = repo.find(new)
        if found is not None:
            return found
        if pause is not None:
            time.sleep(pause)
    # Its creator died between the two commits, or it expired: the old match is not the 404.
    raise errors.Conflict(f"a rematch was asked for, match {new}, but it is gone or was never made")


def _answer(match: Match, seat: int, token: str | None) -> dict[str, Any]:
    """What the second asker hears: the rematch as create answers it, its own seat's token."""
    return {
        "id": match.id,
        "seats": [
            {
                "seat": s["seat"],
                "kind": s["kind"],
                **({"token": token} if s["seat"] == seat and token is not None else {}),
                **({"player": s["external"]} if "external" in s else {}),
                **({"reserved": True} if s.get("reserved") else {}),
            }
            for s in match.record["seats"]
        ],
        "version": match.next_version,
    }


def decline(repo: MatchRepository, match_id: str) -> str:
    """The rematch's reserved seats are past their time: end it, `aborted` with reason
    `declined` (unrated: nothing was played), unless every one was taken meanwhile."""

    def change(match: Match) -> Write:
        until = match.reserved_until()
        if until is None:
            raise JobOutcome("stale")
        early = until - time.time()
        if early > 1:
            raise JobOutcome("early")  # not this job's time: the sweeper looks again then
        if early > 0:
            time.sleep(early)  # RQ's scheduler wakes about once a second
        return Write(match.decline(), "declined")

    return repo.job_update(match_id, change)
