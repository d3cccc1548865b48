"""Bots and clocks, run by the RQ workers (workers/): a bot's decision and a turn clock that ran out
(what the clock does for the seat: service/matches/clocks.py).

Both go through the same compare-and-set commit as a person's move."""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import time
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from engines import bots as engine_bots
from engines.base import Step
from engines.legal import complete
from engines.rng import new_rng_state
from service.infra.counters import Counters
from service.matches import clocks
from service.matches.match import Match
from service.matches.repository import JobOutcome, MatchRepository, Write

log = logging.getLogger("cardtable.matches")

# Buckets (seconds) of the bot-turn latency histogram in /metrics.
BOT_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# Buckets of the bots' thinking time by level (/metrics: a pro has a second, the others 50 ms).
BOT_DECISION_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)

# The least time a pro decision takes in a match with a person at the table, from the job's
# start to its commit, by game (and Zhol's variant): a pro plays a forced move (one legal
# action) at once and searches otherwise, so without it how soon it moved would tell its
# opponents, say, that it held exactly one card of the led suit. Each floor lies above nearly
# all of that game's searched decisions (docs/bots.md, "Forced moves"), so a forced move is
# one of the many that took the floor. Engines never sleep: tournaments and benchmarks that
# call them directly are not slowed, and neither are matches of bots only (nobody to tell).
PRO_FLOOR: dict[str, float] = {
    "spades": 0.1,
    "three-thirteen": 0.25,
    "zoliky": 0.25,
    "zhol": 0.25,
    "zhol/large": 0.5,
}
DEFAULT_PRO_FLOOR = 0.25  # a game not in the table (one added with CARDTABLE_EXTRA_GAMES)


def bot_rng(record: dict[str, Any], version: int, seat: int) -> random.Random:
    """The randomness of the bot deciding for `seat` at `version`: HMAC-SHA256 under the match's
    secret bot key of "bot:<version>:<seat>". Seeded from public facts alone (the match id and
    the version), an opponent could replay a bot's random choices and its deliberate mistakes;
    the key appears in no view, event or history (docs/api.md, "Hidden information")."""
    digest = hmac.new(bot_key(record), f"bot:{version}:{seat}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def decision_floor(record: dict[str, Any], level: str, scale: float = 1.0) -> float:
    """The least time in seconds the decision of a `level` bot takes in this match (PRO_FLOOR),
    times `scale` (CARDTABLE_BOT_FLOOR_SCALE, which only lengthens it: never below 1)."""
    if level != "pro" or not any(s["kind"] == "human" for s in record["seats"]):
        return 0.0
    game = record["game"]
    variant = record["options"].get("variant")
    floor = PRO_FLOOR.get(f"{game}/{variant}") or PRO_FLOOR.get(game, DEFAULT_PRO_FLOOR)
    return floor * max(1.0, scale)


class Holder(Protocol):
    """What waits out a bot's floor, or a clock released before its deadline: `then` is to run
    `seconds` from now, and what `hold` returns is the job's outcome."""

    def hold(self, seconds: float, then: Callable[[], str]) -> str: ...


class Sleeper:
    """The holder of a process that is no worker's (tests, benchmarks, a burst worker): it
    sleeps in the caller's thread, then runs `then` there. A worker's own holder waits in a
    thread of its process instead, so that a held decision holds no worker (workers/held.py)."""

    def hold(self, seconds: float, then: Callable[[], str]) -> str:
        time.sleep(seconds)
        return then()


def bot_key(record: dict[str, Any]) -> bytes:
    """The match's bot key: 32 random bytes drawn at creation (`bot_key` in the record). A match
    created before there were bot keys derives one from its engine state's deal key, which is as
    secret (drawn from the OS, never published, not even by /history); a match older than deal
    keys, from its seed, as the deal salts of such a match are (engines/rng.py): the seed is
    secret until the match is over unless its creator chose it."""
    key = record.get("bot_key")
    if key:
        return bytes.fromhex(key)
    rng_state = record["state"]["rng"]
    deal_key = rng_state.get("deal_key") or new_rng_state(rng_state["seed"])["deal_key"]
    return hmac.new(bytes.fromhex(deal_key), b"cardtable-bot-key", hashlib.sha256).digest()


class _Early(Exception):
    """A clock job released before its deadline (RQ's scheduler keeps whole seconds): how early."""

    def __init__(self, seconds: float):
        super().__init__(seconds)
        self.seconds = seconds


class Bots:
    """The workers' jobs on matches: a bot's decision and a turn clock that ran out. What waits
    out a pro's floor or a clock's early release is `holder` (a `Sleeper` unless the worker
    puts its own in: workers/held.py)."""

    def __init__(self, repo: MatchRepository, counters: Counters, holder: Holder | None = None):
        self.repo = repo
        self.counters = counters
        self.holder: Holder = Sleeper() if holder is None else holder

    def play_bot(self, match_id: str, version: int, job_started: float | None = None) -> str:
        """One bot decision at exactly `version`; a stale job does nothing (so it commits once,
        never retried: the job of the version that won does the next decision). A decision
        with a floor (`decision_floor`) left to wait is handed to the holder with its commit,
        and the job's outcome is the holder's ("held" from a worker's). `job_started`: when
        the job started by the wall clock (RQ's stamp), for the DEBUG line of a floored commit."""
        started = time.monotonic()
        job_started = time.time() if job_started is None else job_started
        match = self.repo.find(match_id)
        if match is None or match.version != version:
            return "stale"
        status = match.status()
        if status == "round_over" and match.deals_itself():
            step = match.start_next_round()
            return "next-round" if self.repo.commit(match, step.events) else "stale"
        now = match.step
        if status != "active" or now is None:
            return "idle"
        seat = now.to_move
        level = match.bot_level(seat)
        if seat is None or level is None:
            return "human"
        decided = self._decide(match, seat, level)
        if decided is None:
            return "stale"
        match, step, thought = decided
        for e in step.events:
            e.setdefault("bot", True)
        floor = decision_floor(match.record, level, self.repo.config.BOT_FLOOR_SCALE)

        def commit() -> str:
            return self._commit_decision(match, step.events, level, thought, floor, job_started)

        hold = floor - (time.monotonic() - started)
        return self.holder.hold(hold, commit) if hold > 0 else commit()

    def _decide(self, match: Match, seat: int, level: str) -> tuple[Match, Step, float | None] | None:
        """The bot's decision for `seat` applied: the match it was applied to, its `Step`, and how
        long the bot thought. A bot that raises is logged and counted, and a random complete
        legal action is played instead (thought: None) on the match read again, as the engine
        may have changed the state before it refused; None when that match moved on."""
        game, version = match.game, match.version
        view = game.view(match.record["state"], seat)
        rng = bot_rng(match.record, version, seat)
        try:
            thinking = time.perf_counter()
            action = engine_bots.decide(game, view, level, rng)
            thought = time.perf_counter() - thinking
            return match, match.apply(seat, action), thought
        except Exception as exc:
            # A bot bug must not stall the match. The log has the bot's stack but not the
            # error's text, which may name its cards.
            log.error(
                "%s bot at level %s raised %s in match %s at version %d; it plays a random legal "
                "action instead\n%s",
                game.id, level, type(exc).__name__, match.id, version,
                "".join(traceback.format_tb(exc.__traceback__)),
            )  # fmt: skip
            self.counters.count("bot_fallbacks")
            reloaded = self.repo.find(match.id)
            if reloaded is None or reloaded.version != version:
                return None
            return reloaded, reloaded.apply(seat, rng.choice(complete(view["legal_actions"]))), None

    def _commit_decision(
        self,
        match: Match,
        events: list[dict[str, Any]],
        level: str,
        thought: float | None,
        floor: float,
        job_started: float,
    ) -> str:
        """Commit a bot's decision (once its floor is over) and observe it in /metrics."""
        since = match.record.get("at")
        # The floor was waited out by the monotonic clock from a moment after the job's start;
        # NTP may slew the wall clock against it by a fraction of a millisecond, and the rule
        # holds on the wall clock's stamps too (RQ's start, the commit's). Never more than the
        # floor: a wall clock set back by hours must not hold a match for hours.
        left = job_started + floor - time.time()
        if left > 0:
            time.sleep(min(left, floor))
        committing = time.time()
        if not self.repo.commit(match, events):
            return "stale"
        if since is not None:
            self.counters.observe("bot_turn_seconds", max(0.0, time.time() - since), BOT_LATENCY_BUCKETS)
        if thought is not None:
            self.counters.observe(f"bot_decision_seconds.{level}", thought, BOT_DECISION_BUCKETS)
        if floor > 0 and log.isEnabledFor(logging.DEBUG):
            # The floor's rule, checkable from the logs: committed no sooner than `floor`
            # after the job started (tests/test_held_decisions.py reads these fields).
            log.debug(
                "pro decision committed %.1f ms after its job started (floor %.0f ms)",
                (committing - job_started) * 1000, floor * 1000,
                extra={"job_started": job_started, "committing": committing, "floor": floor},
            )  # fmt: skip
        return "moved"

    def clock_expired(self, match_id: str, turn: int) -> str:
        """The clock of turn number `turn` ran out: the change `on_timeout` makes for that seat
        (service/matches/clocks.py), unless it already moved on. Released before its deadline (RQ's
        scheduler may release it up to a second early), the job hands the rest of the wait to
        the holder and looks again then ("early" from a worker's holder)."""

        def change(match: Match) -> Write:
            clock = match.record.get("clock")
            now = match.step
            if not clock or clock["turn"] != turn or match.status() != "active" or now is None:
                raise JobOutcome("stale")
            seat = clock["seat"]
            if now.to_move != seat:
                raise JobOutcome("stale")
            # Never act before the deadline shown.
            early = clock["deadline"] - time.time()
            if early > 0:
                raise _Early(early)
            rng = bot_rng(match.record, match.version, seat)
            events = clocks.run_out(match, seat, rng, lambda: self.counters.count("bot_fallbacks"))
            return Write(events, "resigned" if clocks.on_timeout(match) == "resign" else "played")

        try:
            return self.repo.job_update(match_id, change)
        except _Early as e:
            return self.holder.hold(e.seconds, lambda: self.clock_expired(match_id, turn))
