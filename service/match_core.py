"""What every part of `MatchService` stands on: loading and authenticating, the one
compare-and-set write (`MatchCore.update`), the turn clock and the worker jobs a commit hands
on, and the record helpers (docs/architecture.md, "Matches and versions").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.base import Game, Step
from engines.registry import GAMES
from service import errors
from service.config import Config
from service.jobqueue import Jobs
from service.options import split_options
from service.quotas import Quotas
from service.store import Loaded, Store

# How often a change is re-applied when another writer got in first (no If-Match given).
RETRIES = 8

# Level that plays a resigned seat on in games with three or more individual players.
_RESIGNED_LEVEL = "medium"
# A match id: 16 lowercase hex digits (one C call, where a loop over the characters was 17).
MATCH_ID_PATTERN = "[0-9a-f]{16}"
_MATCH_ID = re.compile(MATCH_ID_PATTERN)


@dataclass
class Write:
    """A change made to a loaded record: its events, the caller's answer should the commit
    succeed, and the idempotency entry stored with it."""

    events: list[dict[str, Any]]
    result: Any
    idem: tuple[str, bytes | str, int] | None = None
    step: Step | None = None  # the engine's Step for the change, when an engine made it


class MatchCore:
    def __init__(self, store: Store, config: Config, queue: Jobs | None = None):
        self.store = store
        self.config = config
        self.queue = queue
        self.waiters = store.hub()
        self.quotas = Quotas(store.state, config.IDLE_TTL)

    def load(self, match_id: str, events_after: int | None = None) -> Loaded:
        """The match; with `events_after`, its events after that seq read in the same round trip."""
        loaded = self.store.load(match_id, events_after) if valid_id(match_id) else None
        if loaded is None:
            raise errors.NotFound(f"no match with id {match_id!r}")
        return loaded

    def authenticate(self, record: dict[str, Any], token: str | None, required: bool = True) -> int | None:
        """The seat a bearer token belongs to; None for no token when not required."""
        if token is None:
            if required:
                raise errors.InvalidToken("this call needs the seat's token: Authorization: Bearer <token>")
            return None
        digest = hash_token(token)
        found = None
        for s in record["seats"]:
            # Compare against every seat so timing says nothing about which seat matched.
            if s.get("token") and hmac.compare_digest(s["token"], digest):
                found = s["seat"]
        if found is None:
            raise errors.InvalidToken("this token does not belong to a seat of this match")
        return found

    # --- writing -----------------------------------------------------------
    def update(
        self,
        match_id: str,
        loaded: Loaded | None,
        change: Callable[[Loaded], Write],
        retries: int = RETRIES,
    ) -> Any:
        """The one compare-and-set write: apply `change` to the match as loaded (`loaded`, or
        loaded here) and commit it at that version; when another writer got in first, reload
        and apply it again, up to `retries` times. `change` raises to refuse."""
        for _ in range(retries):
            current = loaded or self.load(match_id)
            write = change(current)
            if self._commit(match_id, current, current.record, write.events, write.idem, write.step):
                return write.result
            loaded = None
        raise errors.VersionConflict()

    def _ttl(self, status: str) -> int:
        if status in ("finished", "aborted"):
            return self.config.FINISHED_TTL
        if status == "waiting":
            # A waiting match nobody joins or leaves for this long is gone (and out of the lobby).
            return self.config.WAITING_TTL
        return self.config.IDLE_TTL

    @staticmethod
    def _seq(events: list[dict[str, Any]], before: int) -> None:
        for i, e in enumerate(events):
            e["seq"] = before + i + 1

    def _commit(self, match_id, loaded: Loaded | None, record, events, idem=None, step=None) -> bool:
        """Store `record` at the version after `loaded` (a new match for None) unless another
        writer got in first; hand the next bot turn or clock to the workers once stored.
        `step`: the engine's Step for the change (asked of the engine here otherwise)."""
        version, before = (loaded.version, loaded.event_count) if loaded is not None else (None, 0)
        if version is not None and version + 1 >= self.config.MAX_VERSIONS:
            events = self._too_long(record, events, step)
        self._seq(events, before)
        step = step or facts(record)
        new_clock = update_clock(record, step)
        record["at"] = round(time.time(), 3)  # when this version was made (bot-turn latency)
        job = pending_job(record, step)
        due = self._due(record, job)
        status = match_status(record, step)
        ok = self.store.commit(match_id, version, record, events, before, self._ttl(status), idem, due)
        if ok:
            new = 0 if version is None else version + 1
            self._after_commit(match_id, record, new, new_clock, job, step)
            if status in ("finished", "aborted"):
                self.store.archive(match_id, new)
        return ok

    def _too_long(self, record: dict[str, Any], events: list[dict[str, Any]], step: Step | None) -> list:
        """The change that brings a match to CARDTABLE_MAX_VERSIONS is its last: it is stored,
        and the match is aborted with it (docs/api.md, "Limits"), so no loop of moves, joins or
        hints grows one match without end."""
        if match_status(record, step) in ("finished", "aborted"):
            return events
        record["status"] = "aborted"
        limit = self.config.MAX_VERSIONS
        over = {"type": "match_over", "winners": [], "reason": "too_long", "limit": limit}
        return [*events, over]

    def _after_commit(
        self,
        match_id: str,
        record: dict[str, Any],
        version: int,
        new_clock: bool,
        job: str | None,
        step: Step | None,
    ) -> None:
        """Hand the next bot turn or turn clock to the workers; no bot ever moves inside a request."""
        if self.queue is None or record["state"] is None:
            return
        if new_clock:
            clock = record["clock"]
            self.queue.enqueue_clock(match_id, clock["turn"], max(0.0, clock["deadline"] - time.time()))
        if job == "bot":
            self.queue.enqueue_bot(match_id, version, low=low_priority(record, version, self.config, step))

    def _due(self, record: dict[str, Any], job: str | None) -> float | None:
        """When the sweeper should look at the match if no worker has moved it by then."""
        if job == "bot":
            return time.time() + self.config.BOT_DELAY + self.config.SWEEP_GRACE
        if job == "clock":
            return record["clock"]["deadline"] + self.config.SWEEP_GRACE
        return None


def facts(record: dict[str, Any]) -> Step | None:
    """What the engine says of the match now (status, seat to move, resigned seats), asked
    once; None before the first deal. A change made by the engine brings its own Step, and the
    service reads that instead (docs/architecture.md, "A move through the code")."""
    state = record["state"]
    return game_of(record).step(state, []) if state is not None else None


def update_clock(record: dict[str, Any], step: Step | None) -> bool:
    """Start a turn clock when a human's turn begins in a clocked match; True when one started.

    A turn keeps its deadline across its steps (Zhol's draw, then discard); the clock
    restarts only when another seat is to move or a new round begins.
    """
    if "turn_seconds" not in game_of(record).options or step is None:
        return False
    humans = [s for s in record["seats"] if s["kind"] == "human"]
    seat = step.to_move if match_status(record, step) == "active" else None
    if len(humans) < 2 or seat is None or bot_level(record, seat, step) is not None:
        record["clock"] = None
        return False
    clock = record.get("clock")
    if clock and clock["seat"] == seat:
        return False
    seconds = record["options"]["turn_seconds"]
    record["clock"] = {
        "seat": seat,
        "turn": (clock["turn"] if clock else record.get("turns", 0)) + 1,
        "deadline": round(time.time() + seconds, 3),
    }
    record["turns"] = record["clock"]["turn"]
    return True


def bot_level(record: dict[str, Any], seat: int | None, step: Step | None = None) -> str | None:
    """The level of the bot that decides for `seat`: its own, or a resigned seat's; None for a person."""
    if seat is None:
        return None
    entry = record["seats"][seat]
    if entry["kind"] == "bot":
        return entry["level"]
    if resigned(record, seat, step):
        return _RESIGNED_LEVEL
    return None


def resigned(record: dict[str, Any], seat: int, step: Step | None = None) -> bool:
    """Whether `seat` has resigned; in games of three or more the match plays on with a bot in it."""
    step = step or facts(record)
    return step is not None and seat in step.resigned


def pending_job(record: dict[str, Any], step: Step | None = None) -> str | None:
    """What the match waits for from a worker: "bot" (a bot's or resigned seat's decision, or
    the next round of a match without humans), "clock" (a human's turn on the clock), or None."""
    step = step or facts(record)
    if step is None:
        return None
    status = match_status(record, step)
    if status == "round_over":
        return "bot" if host_seat(record, step) is None else None
    if status != "active":
        return None
    seat = step.to_move
    if seat is None:
        return None
    if bot_level(record, seat, step) is not None:
        return "bot"
    clock = record.get("clock")
    return "clock" if clock and clock["seat"] == seat else None


def low_priority(record: dict[str, Any], version: int, config: Config, step: Step | None = None) -> bool:
    """Whether the match's bot turns may wait behind those of matches people are playing: no
    person plays in it (a bot-only table, or every human gone), or it is very long."""
    return version >= config.LOW_PRIORITY_AFTER or host_seat(record, step) is None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    # 192 random bits; only the SHA-256 of it is ever stored.
    return secrets.token_urlsafe(24)


def body_hash(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def game_of(record: dict[str, Any]) -> Game:
    return GAMES[record["game"]]


def host_seat(record: dict[str, Any], step: Step | None = None) -> int | None:
    """The host: the earliest-joined human seat that is still in the match."""
    step = step or facts(record)
    resigned = step.resigned if step is not None else frozenset()
    humans = [
        s for s in record["seats"] if s["kind"] == "human" and not s.get("left") and s["seat"] not in resigned
    ]
    if not humans:
        return None
    return min(humans, key=lambda s: s["joined"])["seat"]


def match_status(record: dict[str, Any], step: Step | None = None) -> str:
    if record["status"] in ("waiting", "aborted"):
        return record["status"]
    return step.status if step is not None else game_of(record).status(record["state"])


def match_options(game: Game, options: dict[str, Any], seats: int) -> dict[str, Any]:
    """A match's options as stored: validated, defaults filled in (quick play compares these)."""
    # `hints` is the service's option (service/hints.py); the engine validates the rest.
    own, hints_on = split_options(options)
    return {**game.validate_options(own, seats), "hints": hints_on}


def valid_id(match_id: str) -> bool:
    return _MATCH_ID.fullmatch(match_id) is not None
