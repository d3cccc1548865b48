"""A running tournament's rounds: pairing the next one when the last match of a round ends,
opening it (its matches created, its players told), and the end (docs/api.md, "Tournaments";
docs/architecture.md, "Tournaments").

Every step may run twice, or be cut off by a `kill -9` at any point, without losing or doubling
anything:

- a match's end reaches the tournament through its outbox (service/matches/repository.py), so
  its result is written even if the process that committed it died; the result is an HSETNX;
- the next round is paired by one compare-and-set of the record, so only one pairing is ever
  stored, with its matches' ids chosen then;
- opening a round creates each match under its chosen id (one already there is left alone) and
  tells each player under a notice id of its own (a sink takes a notice it has once); then the
  round is marked open. A round paired and not opened within CARDTABLE_OUTBOX_GRACE is opened
  by the housekeeper (`ct:tournaments:opening`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from engines.registry import GAMES
from service import errors
from service.identity.players import Player
from service.matches.new_match import new_id
from service.matches.notices import stamp
from service.tournaments import pairing
from service.tournaments.store import TournamentStore, Unchanged

log = logging.getLogger("cardtable.tournaments")

# The standings a `tournament.over` notice carries (every player's is in GET /v1/tournaments/{id}).
OVER_STANDINGS = 32

CreateMatch = Callable[..., Any]
Sink = Callable[[str, list[dict[str, Any]], bool], None]


def table_size(game: str) -> int:
    """Players at a table: the game's smallest (2; Spades' two partnerships, 4)."""
    return int(GAMES[game].min_seats)


def turn_seconds(round_seconds: int) -> int:
    """A round's turn clock: a twentieth of the round, at least 5 s, so that a player who does
    not show is resigned long before the round's time (on_timeout "resign")."""
    return max(5, round_seconds // 20)


def played(record: dict[str, Any], results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The record's rounds as service/tournaments/pairing.py reads them: each table's winners
    from the results (None while its match runs)."""
    out = []
    for r in record["played"]:
        tables = [
            {
                "seats": t["seats"],
                "winners": results[t["match"]]["winners"] if t["match"] in results else None,
            }
            for t in r["tables"]
        ]
        out.append({"round": r["round"], "tables": tables, "byes": r["byes"]})
    return out


def next_pairing(
    record: dict[str, Any], rounds: list[dict[str, Any]]
) -> tuple[list[list[str]], list[str]] | None:
    """The next round's tables and byes, None when the tournament is decided."""
    entrants, size = record["entrants"], record["size"]
    if record["format"] == "swiss":
        if len(rounds) >= record["rounds"]:
            return None
        return pairing.swiss_pairing(entrants, rounds, size)
    return pairing.knockout_pairing(entrants, rounds, size)


def new_round(number: int, tables: list[list[str]], byes: list[str]) -> dict[str, Any]:
    """A paired round as the record keeps it: each table's match id chosen now."""
    return {
        "round": number,
        "tables": [{"match": new_id(), "seats": seats} for seats in tables],
        "byes": byes,
        "open": False,
        "paired": round(time.time(), 3),
    }


class Rounds:
    """Advancing tournaments: `create_match` is Seats.create, `players` finds a player by id,
    `sinks` are the repository's notice sinks (the players' feeds and the apps' webhooks)."""

    def __init__(
        self,
        store: TournamentStore,
        create_match: CreateMatch,
        find_player: Callable[[str], Player | None],
        sinks: list[Sink],
        grace: float,
        defer: Callable[[str, int], None] | None = None,
    ):
        self.store = store
        self.create_match = create_match
        self.find_player = find_player
        self.sinks = sinks
        self.grace = grace
        # A worker's job that calls `advance` (workers/jobs.py); None: advance at once.
        self.defer = defer

    def match_ended(self, effect: dict[str, Any]) -> None:
        """A match of the tournament ended (its outbox's effect): its result, then, if it was
        the round's last, the next round is left to a worker."""
        tournament_id = effect["tournament"]
        result = {"winners": effect["winners"], "status": effect["status"]}
        self.store.result(tournament_id, effect["match"], result)
        loaded = self.store.load(tournament_id)
        if loaded is None or loaded[0]["status"] != "running":
            return
        current = loaded[0]["played"][-1]
        if not current["open"]:
            self.later(tournament_id, current["round"])  # opening it is what the round waits for
        elif self.store.ended(tournament_id, [t["match"] for t in current["tables"]]):
            self.later(tournament_id, current["round"] + 1)

    def later(self, tournament_id: str, number: int) -> None:
        """`advance` by a worker: a round of 512 matches is made in a job, not in the request of
        the move that ended the last round (nor the start's). Marked in the opening index first,
        so a job lost with its worker is run by the housekeeper."""
        if self.defer is None:
            self.advance(tournament_id)
            return
        self.store.opening(tournament_id, number, time.time() + self.grace)
        self.defer(tournament_id, number)

    def advance(self, tournament_id: str) -> None:
        """Whatever the tournament waits for now: open its paired round, pair the next one once
        every match of the last has ended (the round just opened may have ended already), or
        finish it and tell its players (once more, if the process that finished it died first)."""
        for _ in range(3):
            loaded = self.store.load(tournament_id)
            if loaded is None or loaded[0]["status"] == "registering":
                return
            record = loaded[0]
            if record["status"] == "finished":
                if not record.get("told"):
                    self._tell_over(tournament_id)
                return
            if record["played"] and not record["played"][-1]["open"]:
                self.open(record)
                continue
            paired, _ = self.store.update(tournament_id, self._pair)
            if paired is None:
                return  # a match of the last round still runs, or another process paired it
            if paired == "finished":
                self._tell_over(tournament_id)
                return

    def _pair(self, record: dict[str, Any]) -> str:
        """The record's change that pairs its next round or finishes it (Unchanged: a match of
        the last round still runs, or another process got there first)."""
        if record["status"] != "running" or (record["played"] and not record["played"][-1]["open"]):
            raise Unchanged()
        if record["played"] and not self.store.ended(
            record["id"], [t["match"] for t in record["played"][-1]["tables"]]
        ):
            # Every match of a round that ends asks: only the round's own results are read.
            raise Unchanged()
        rounds = played(record, self.store.results(record["id"]))
        nxt = next_pairing(record, rounds)
        if nxt is None:
            # Its players are told after this write: should that not happen, the housekeeper does.
            self.store.opening(record["id"], len(rounds) + 1, time.time() + self.grace)
            record.update(status="finished", finished=round(time.time(), 3), told=False)
            record["standings"] = pairing.standings(record["entrants"], rounds, record["format"])
            return "finished"
        self.store.opening(record["id"], len(rounds) + 1, time.time() + self.grace)
        record["played"].append(new_round(len(rounds) + 1, *nxt))
        return "paired"

    def open(self, record: dict[str, Any]) -> None:
        """Create the paired round's matches of the record as loaded (those not there yet), tell
        its players, mark it open."""
        tournament_id, current = record["id"], record["played"][-1]
        for table in current["tables"]:
            self._create(record, current["round"], table)
        self._tell(tournament_id, self._round_notices(record, current))

        def mark(r: dict[str, Any]) -> None:
            if r["played"][-1]["round"] != current["round"] or r["played"][-1]["open"]:
                raise Unchanged()
            r["played"][-1]["open"] = True
            r["played"][-1]["opened"] = round(time.time(), 3)

        self.store.update(tournament_id, mark)
        self.store.opened(tournament_id, current["round"])

    def _create(self, record: dict[str, Any], number: int, table: dict[str, Any]) -> None:
        """One match of a round, its seats bound to its players, under the id the pairing chose."""
        found = {i: self.find_player(p) for i, p in enumerate(table["seats"])}
        players = {i: p for i, p in found.items() if p is not None}
        options = dict(record["match_options"])
        if len(players) < len(found):
            # An erased player's seat is nobody's: unrated, and resigned by its first turn's clock.
            options["rated"] = False
        body = {"game": record["game"], "seats": [{"kind": "human"} for _ in found], "options": options}
        try:
            self.create_match(
                body,
                None,
                match_id=table["match"],
                players=players,
                app=record["app"],
                tournament={"id": record["id"], "round": number},
            )
        except errors.Conflict:
            pass  # created before (this round is being opened again)

    def _round_notices(self, record: dict[str, Any], current: dict[str, Any]) -> list[dict[str, Any]]:
        """`tournament.round_started` for each player of the round: its match and seat, or its bye."""
        by_id = {e["player"]: e for e in record["entrants"]}
        when = stamp(time.time())
        out = []
        where: list[tuple[str, str | None, int | None]] = [
            (p, t["match"], seat) for t in current["tables"] for seat, p in enumerate(t["seats"])
        ]
        where += [(p, None, None) for p in current["byes"]]
        for player_id, match_id, seat in where:
            entrant = by_id[player_id]
            data = {
                "tournament": record["id"],
                "game": record["game"],
                "round": current["round"],
                "match": match_id,
                "seat": seat,
                "bye": match_id is None,
                "player": entrant["external"],
            }
            out.append(
                _notice(
                    record,
                    f"{current['round']}-tournament.round_started-{entrant['order']}",
                    when,
                    data,
                    [player_id],
                )
            )
        return out

    def _tell_over(self, tournament_id: str) -> None:
        loaded = self.store.load(tournament_id)
        if loaded is None:
            return
        record = loaded[0]
        by_id = {e["player"]: e for e in record["entrants"]}
        rows = [
            {
                "player": by_id[row["player"]]["external"],
                "name": by_id[row["player"]]["name"],
                "points": row["points"],
                "rank": row["rank"],
            }
            for row in record["standings"]
        ]
        data = {
            "tournament": record["id"],
            "game": record["game"],
            "winners": [r["player"] for r in rows[: champions(record)]],
            "entrants": len(rows),
            "standings": rows[:OVER_STANDINGS],
        }
        number = len(record["played"]) + 1
        notice = _notice(
            record,
            f"{number}-tournament.over",
            stamp(time.time()),
            data,
            [e["player"] for e in record["entrants"]],
        )
        self._tell(tournament_id, [notice])

        def told(r: dict[str, Any]) -> None:
            if r.get("told"):
                raise Unchanged()
            r["told"] = True

        self.store.update(tournament_id, told)
        self.store.opened(tournament_id, number)

    def _tell(self, tournament_id: str, notices: list[dict[str, Any]]) -> None:
        """Each sink takes the notices as it takes those the relay hands on (`relayed`): no
        commit's script has published them (service/notify/feeds.py), they may have been told
        before (a round opened again), and a sink that fails raises, so the round stays unopened
        for the housekeeper to open again."""
        for sink in self.sinks:
            sink(tournament_id, notices, True)


def champions(record: dict[str, Any]) -> int:
    """How many players win: one, but a Spades knockout's winning partnership (the two at the
    top of its standings)."""
    return 2 if record["format"] == "knockout" and record["size"] == 4 else 1


def _notice(
    record: dict[str, Any], suffix: str, when: str, data: dict[str, Any], to: list[str]
) -> dict[str, Any]:
    """A tournament's notice, shaped as a match's (service/matches/notices.py): its id
    `<tournament>-<round>-<type>[-<player's number>]`, so the webhooks' fan-out is one job a round."""
    return {
        "id": f"{record['id']}-{suffix}",
        "app": record["app"],
        "type": suffix.split("-")[1],
        "timestamp": when,
        "data": data,
        "players": to,
    }
