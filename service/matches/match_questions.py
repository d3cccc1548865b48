"""What the service asks of a match, never changing it: its status, who hosts it, who plays a
seat, what it waits for from a worker (docs/architecture.md, "Matches and versions").

`Match` (service/matches/match.py) is these questions and the record's changes; the questions
live here so that match.py holds every write into a record and nothing else of size. Each reads
`step`, the engine's answer for the state as it is, never the engine itself.
"""

from __future__ import annotations

from typing import Any, cast

from engines.base import Game, Step

# Level that plays a resigned seat on in games with three or more individual players.
RESIGNED_LEVEL = "medium"


class MatchQuestions:
    """The read-only half of `Match`: its subclass holds the attributes read here."""

    __slots__ = ()
    record: dict[str, Any]
    game: Game
    step: Step | None

    def open_seat(self) -> int | None:
        """The first open seat anyone may join (a rematch's reserved ones are their people's)."""
        return next(
            (s["seat"] for s in self.record["seats"] if s["kind"] == "open" and not s.get("reserved")), None
        )

    def full(self) -> bool:
        """Whether no seat is open any more (the match starts when the last one is taken)."""
        return not any(s["kind"] == "open" for s in self.record["seats"])

    def status(self) -> str:
        """waiting, active, round_over, finished or aborted (docs/api.md, "Views")."""
        status: str = self.record["status"]
        if status in ("waiting", "aborted"):
            return status
        step = self.step
        return step.status if step is not None else status

    def over(self) -> bool:
        return self.status() in ("finished", "aborted")

    def resigned(self, seat: int) -> bool:
        """Whether `seat` has resigned; in games of three or more the match plays on with a bot in it."""
        step = self.step
        return step is not None and seat in step.resigned

    def bot_level(self, seat: int | None) -> str | None:
        """The level of the bot that decides for `seat`: its own, or a resigned seat's; None for a person."""
        if seat is None:
            return None
        entry = self.record["seats"][seat]
        if entry["kind"] == "bot":
            return cast(str, entry["level"])  # the record is JSON-ish
        return RESIGNED_LEVEL if self.resigned(seat) else None

    def seat_of_player(self, player_id: str) -> int | None:
        """The seat bound to a player (a player sits at most once in a match)."""
        for s in self.record["seats"]:
            if s.get("player") == player_id:
                return cast(int, s["seat"])
        return None

    def abandoned(self) -> bool:
        """Whether the match had a person and nobody plays it any more: every human seat left
        or resigned while bots would play on (docs/api.md, "Seats, host, leaving"). A rated
        match never is: it has no bots, so its rules end it before its last person goes."""
        record = self.record
        if record["status"] != "playing" or record["options"].get("rated"):
            return False
        if self.status() not in ("active", "round_over"):
            return False
        return any(s["kind"] == "human" for s in record["seats"]) and self.host_seat() is None

    def host_seat(self) -> int | None:
        """The host: the earliest-joined human seat that is still in the match."""
        step = self.step
        resigned = step.resigned if step is not None else frozenset()
        humans = [
            s
            for s in self.record["seats"]
            if s["kind"] == "human" and not s.get("left") and s["seat"] not in resigned
        ]
        return min(humans, key=lambda s: s["joined"])["seat"] if humans else None

    def reserved_until(self) -> float | None:
        """When a rematch waiting for someone it holds a seat for ends (service/matches/rematch.py);
        None for any other match."""
        if self.record["status"] != "waiting":
            return None
        held = [float(s["reserved"]["until"]) for s in self.record["seats"] if s.get("reserved")]
        return min(held) if held else None

    def pending_job(self) -> str | None:
        """What the match waits for from a worker: "bot" (a bot's or resigned seat's decision, or
        the next round of a match without humans), "clock" (a human's turn on the clock),
        "rematch" (a rematch's reserved seats, declined at their deadline), or None."""
        step = self.step
        if step is None:
            return "rematch" if self.reserved_until() is not None else None
        status = self.status()
        if status == "round_over":
            return "bot" if self.deals_itself() else None
        seat = step.to_move
        if status != "active" or seat is None:
            return None
        if self.bot_level(seat) is not None:
            return "bot"
        clock = self.record.get("clock")
        return "clock" if clock and clock["seat"] == seat else None

    def deals_itself(self) -> bool:
        """Whether the service deals the next hand once one is over: when no person hosts the
        match, and in a tournament's match, where a player who stays away between hands must not
        stall the round (docs/api.md, "Tournaments"; the clock covers the turns)."""
        return self.host_seat() is None or "tournament" in self.record

    def low_priority(self, version: int, low_after: int) -> bool:
        """Whether the match's bot turns at `version` may wait behind those of matches people
        are playing: no person plays in it (a bot-only table, or every human gone), or
        `version` is `low_after` or more."""
        return version >= low_after or self.host_seat() is None

    def _clock_runs(self) -> bool:
        """Whether the clock runs on a human's turn: always when it was asked for at creation;
        Zhol's default clock only with two or more humans, as it always has (docs/api.md,
        "Turn clocks")."""
        record = self.record
        return bool(record.get("clock_asked")) or sum(s["kind"] == "human" for s in record["seats"]) >= 2

    def turn_ended(self, step: Step) -> bool:
        """Whether `step` ended the turn of the seat that moved though that seat moves next."""
        # A game whose seat may take two turns in a row names the events that end one
        # (`turn_ends`: Spades' trick); in the others a turn ends when another seat moves.
        ends = self.game.turn_ends
        return bool(ends) and any(e["type"] in ends for e in step.events)
