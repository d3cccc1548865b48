"""A match as the service holds it: the stored record, its version and events, and what the
engine says of it now (docs/architecture.md, "Matches and versions").

`Match.step` is the engine's `Step` for the state as it is: asked of the engine once, when the
match is loaded (nearly every caller needs it, and a plain attribute is read faster than a
lazy one on the hot path), and replaced by the Step of every engine change made through the
match (`apply`, `start_next_round`, ...), so no question below asks the engine again. The
record is changed in place; the repository (service/matches/repository.py) stores it.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from typing import Any, cast

from engines.base import Event, Game, Step
from engines.registry import GAMES
from service.matches.options import engine_options, split_options

# Level that plays a resigned seat on in games with three or more individual players.
RESIGNED_LEVEL = "medium"
# A match id: 16 lowercase hex digits.
MATCH_ID_PATTERN = "[0-9a-f]{16}"
_MATCH_ID = re.compile(MATCH_ID_PATTERN)


class Match:
    __slots__ = (
        "id",
        "record",
        "game",
        "version",
        "event_count",
        "events_after",
        "events_tenures",
        "step",
        "player_check",
        "mover_before",
    )

    def __init__(
        self,
        match_id: str,
        record: dict[str, Any],
        version: int = -1,
        event_count: int = 0,
        events_after: list[dict[str, Any]] | None = None,
    ):
        self.id = match_id
        self.record = record
        self.game: Game = GAMES[record["game"]]
        self.version = version  # -1: not stored yet
        self.event_count = event_count  # events stored: the seq of the last one
        # Loaded with `events_after=k`: the stored events with seq > k, read in the same round trip.
        self.events_after = events_after
        # And the seats' tenures read after those events (service/matches/tenure.py).
        self.events_tenures: bytes | None = None
        # What the engine says of the match now (status, seat to move, resigned seats); None
        # before the first deal.
        self.step: Step | None = self._ask()
        # Loaded for a player token: (player id, the player's stored tokens), read in the
        # same round trip as the match (MatchRepository.authenticate checks the token there).
        self.player_check: tuple[str, Any] | None = None
        # The seat to move as loaded: a commit that hands the turn to a person tells them
        # (service/matches/notices.py, `turn.started`) only when the turn is new.
        step = self.step
        playing = step is not None and step.status == "active" and record["status"] == "playing"
        self.mover_before: int | None = step.to_move if playing and step is not None else None

    @property
    def next_version(self) -> int:
        """The version the next commit of this match stores."""
        return self.version + 1

    def _ask(self) -> Step | None:
        state = self.record["state"]
        return self.game.step(state, []) if state is not None else None

    # --- engine changes: each keeps `step` in step with the state ------------
    def deal(self, deal_key: str) -> list[Event]:
        """Deal the first round from the record's seed and deck: the match leaves `waiting`."""
        record = self.record
        record["state"], events = self.game.new_match(
            engine_options(self.game, record["options"]),
            len(record["seats"]),
            record["seed"],
            list(record["deck"]),
            deal_key,
        )
        record["status"] = "playing"
        self.step = self._ask()
        return events

    def apply(self, seat: int, action: dict[str, Any]) -> Step:
        return self._changed(self.game.apply(self.record["state"], seat, action))

    def apply_timeout(self, seat: int) -> Step:
        return self._changed(self.game.apply_timeout(self.record["state"], seat))

    def start_next_round(self) -> Step:
        return self._changed(self.game.start_next_round(self.record["state"]))

    def end_match(self) -> Step:
        return self._changed(self.game.end_match(self.record["state"]))

    def _changed(self, step: Step) -> Step:
        # Moves (a seat's, a bot's, a clock's, a new round, the end) are what
        # CARDTABLE_MAX_VERSIONS counts: the other changes of a match are each bounded on their
        # own (joins, claims, one hint a move), so none of them can end a match.
        self.record["moves"] = self.record.get("moves", 0) + 1
        self.step = step
        return step

    # --- questions ------------------------------------------------------------
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
            return "bot" if self.host_seat() is None else None
        seat = step.to_move
        if status != "active" or seat is None:
            return None
        if self.bot_level(seat) is not None:
            return "bot"
        clock = self.record.get("clock")
        return "clock" if clock and clock["seat"] == seat else None

    def low_priority(self, version: int, low_after: int) -> bool:
        """Whether the match's bot turns at `version` may wait behind those of matches people
        are playing: no person plays in it (a bot-only table, or every human gone), or
        `version` is `low_after` or more."""
        return version >= low_after or self.host_seat() is None

    def restart_clock(self, scale: float = 1.0) -> bool:
        """Start a turn clock when a human's turn begins in a clocked match; True when one started.

        A match is clocked when its options have `turn_seconds` (service/matches/clocks.py). A turn
        keeps its deadline across its steps (Zhol's draw, then discard); the clock restarts
        when another seat is to move, a new round begins, or the game says the turn ended
        (a Spades trick's winner leads again: `turn_ended`). `scale`:
        CARDTABLE_CLOCK_SCALE, which multiplies the seconds (tests and demos).
        """
        record = self.record
        step = self.step
        seconds = record["options"].get("turn_seconds")
        if seconds is None or step is None:
            return False
        seat = step.to_move if self.status() == "active" else None
        if seat is None or self.bot_level(seat) is not None or not self._clock_runs():
            record["clock"] = None
            return False
        clock = record.get("clock")
        if clock and clock["seat"] == seat and not self.turn_ended(step):
            return False
        record["clock"] = {
            "seat": seat,
            "turn": (clock["turn"] if clock else record.get("turns", 0)) + 1,
            "deadline": round(time.time() + seconds * scale, 3),
        }
        record["turns"] = record["clock"]["turn"]
        return True

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


def match_options(game: Game, options: dict[str, Any], seats: int) -> dict[str, Any]:
    """A match's options as stored: validated, defaults filled in (quick play compares these)."""
    # `hints`, `rated`, `turn_seconds` and `on_timeout` are the service's options
    # (service/matches/options.py); the engine validates the rest.
    own, flags = split_options(game, options)
    return {**game.validate_options(own, seats), **flags}


def valid_id(match_id: str) -> bool:
    return _MATCH_ID.fullmatch(match_id) is not None


def new_id() -> str:
    return secrets.token_hex(8)


def body_hash(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
