"""Notices: what a commit tells the apps and players of a match (docs/webhooks.md).

A commit derives its notices here, from the match as changed and the events of the change,
and stores them with the commit as one outbox effect (service/matches/outbox.py), so that a notice
exists exactly when its commit does. Handing the effect on gives each notice to the sinks the
service was built with (service/bootstrap.py appends them): the players' own feeds
(service/notify/feeds.py), their match lists (service/identity/players.py) and the apps' webhooks
(service/notify/webhook_sink.py).

Every app with a stake in the match gets its own copy of a notice: the app that created it
(`record["app"]`) and the app of every seated player. A copy names only that app's players
(their external ids), never another app's. A match with no app (anonymous play) makes none.

One notice::

    {"id": "<match>-<version>-<type>", "app": "<app id>", "type": "turn.started",
     "timestamp": "<the commit's time, RFC 3339>", "data": {...}, "players": [<player ids>]}

`players` are the internal ids of that app's players whose own stream gets the notice. No
notice carries a card: they say whose turn it is and how a match ended, nothing a seat hides.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.matches.match import Match

TYPES = (
    "match.created",
    "match.started",
    "turn.started",
    "match.over",
    "seat.timed_out",
    "rematch.offered",
    # A tournament's (service/tournaments/rounds.py), through the same sinks.
    "tournament.round_started",
    "tournament.over",
)


def apps_of(record: dict[str, Any]) -> list[str]:
    """The apps with a stake in the match: its creator's and its seated players'."""
    apps = [record["app"]] if record.get("app") else []
    for s in record["seats"]:
        app = s.get("app")
        if app is not None and app not in apps:
            apps.append(app)
    return apps


def mover(match: Match) -> int | None:
    """The seat a person must move for now (None: nobody, or a bot decides)."""
    step = match.step
    if step is None or step.to_move is None or match.status() != "active":
        return None
    seat: int = step.to_move
    return seat if match.bot_level(seat) is None else None


def derive(match: Match, events: list[dict[str, Any]], at: float) -> list[dict[str, Any]]:
    """The notices of the change that turns `match` into its next version with `events`."""
    apps = apps_of(match.record)
    if not apps:
        return []
    found = _found(match, events)
    if not found:
        return []
    version = match.next_version
    when = stamp(at)
    out = []
    for app in apps:
        players = {s["seat"]: s for s in match.record["seats"] if s.get("app") == app and "player" in s}
        for kind, data, seat in found:
            if seat is not None:
                held = players.get(seat)
                data = {**data, "seat": seat, "player": held["external"] if held else None}
                to = [held["player"]] if held else []
            else:
                to = [s["player"] for s in players.values()]
            if kind in ("match.created", "match.started", "match.over"):
                data = {**data, "players": {str(k): s["external"] for k, s in players.items()}}
            out.append(
                {
                    "id": f"{match.id}-{version}-{kind}",
                    "app": app,
                    "type": kind,
                    "timestamp": when,
                    "data": {"match": match.id, "game": match.record["game"], **data},
                    "players": to,
                }
            )
    return out


# The last whole second stamped and its RFC 3339 form, replaced as one tuple (threads share it).
_second: tuple[int, str] = (-1, "")


def stamp(at: float) -> str:
    """`at` in RFC 3339 with milliseconds (UTC), as datetime's isoformat writes it; the second's
    part is made once a second (every commit of a player's match stamps its notices)."""
    global _second
    second, fraction = divmod(round(at * 1_000_000), 1_000_000)
    cached = _second
    if cached[0] != second:
        cached = _second = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{cached[1]}.{fraction // 1000:03d}Z"


def _found(match: Match, events: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], int | None]]:
    """(type, data, seat it concerns) for each notice the change makes, in the order a
    reader expects them: the match's start before the first turn, a timeout before the
    turn it hands on, the end last."""
    found: list[tuple[str, dict[str, Any], int | None]] = []
    for e in events:
        kind = e["type"]
        if kind == "match_created":
            found.append(("match.created", {}, None))
        elif kind == "match_started":
            found.append(("match.started", {}, None))
        elif kind == "timed_out":
            found.append(("seat.timed_out", {"on_timeout": e.get("on_timeout", "auto")}, e["seat"]))
        elif kind == "rematch":
            found.append(("rematch.offered", {"rematch": e["match"], "by_seat": e["seat"]}, None))
    seat = mover(match)
    # A new turn: another seat is to move, a round begins, or the game ended the turn of the
    # seat that moves again (a Spades trick's winner leads: its clock restarts too).
    ends = {"deal", *match.game.turn_ends}
    if seat is not None and (seat != match.mover_before or any(e["type"] in ends for e in events)):
        clock = match.record.get("clock")
        deadline = clock["deadline"] if clock and clock["seat"] == seat else None
        found.append(("turn.started", {"version": match.next_version, "deadline": deadline}, seat))
    over = next((e for e in events if e["type"] == "match_over"), None)
    if over is not None:
        data = {"winners": over.get("winners", []), "reason": over.get("reason")}
        if "ratings" in over:
            data["ratings"] = over["ratings"]
        found.append(("match.over", data, None))
    return found
