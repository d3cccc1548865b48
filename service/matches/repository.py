"""The match repository: loading, authenticating and committing matches, and the one
compare-and-set retry loop every change goes through (docs/architecture.md, "Matches and
versions"). Seats, acting, bots and clocks, hints and the lobby all change matches here.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from service import errors
from service.config import Config
from service.identity.players import Players, player_key, player_of_token
from service.identity.players import holds as holds_token
from service.identity.tokens import hash_token
from service.infra import logs, tracing
from service.infra.jobqueue import Jobs
from service.matches import notices, outbox, rated_matches, tenure
from service.matches.app_index import AppIndex
from service.matches.match import Match
from service.matches.new_match import valid_id
from service.matches.store import Store
from service.ratings.leaderboards import Leaderboards
from service.ratings.stored import PlayerRatings

log = logging.getLogger("cardtable.repository")

# How often a change is re-applied when another writer got in first (no If-Match given).
RETRIES = 8


@dataclass
class Write:
    """A change made to a loaded match: its events, the caller's answer should the commit
    succeed, the idempotency entry stored with it, and effects of its own for the outbox (a
    `lists` effect: service/matches/listings.py)."""

    events: list[dict[str, Any]]
    result: Any
    idem: tuple[str, bytes | str, int] | None = None
    effects: list[dict[str, Any]] = field(default_factory=list)


# Who a commit's notices go to (the players' streams, the apps' webhooks): each sink takes
# the match id, the notices, and whether the relay hands them on (the committer may have
# done so already: a sink must take the same notices twice without doing anything twice).
NoticeSink = Callable[[str, list[dict[str, Any]], bool], None]


class JobOutcome(Exception):
    """A job's change that finds nothing to do: its outcome for the worker's log."""

    def __init__(self, outcome: str):
        super().__init__(outcome)
        self.outcome = outcome


class MatchRepository:
    """The matches in `store`, with the adapters the use cases share beside it (handed over by
    the composition root, service/bootstrap.py): the players, their stored ratings and the
    leaderboards a rated match's end moves, and the apps' match index."""

    def __init__(
        self,
        store: Store,
        config: Config,
        queue: Jobs | None = None,
        *,
        players: Players,
        leaderboards: Leaderboards,
        ratings: PlayerRatings,
        app_index: AppIndex,
    ):
        self.store = store
        self.config = config
        self.queue = queue
        self.players = players
        self.leaderboards = leaderboards
        self.ratings = ratings
        self.app_index = app_index
        self.notice_sinks: list[NoticeSink] = []
        # Who hears that a tournament's match ended (service/tournaments/running.py, set by the
        # composition root): the effect's `tournament`, `match`, `winners` (player ids), `status`.
        self.tournament_sink: Callable[[dict[str, Any]], None] | None = None

    def find(self, match_id: str, events_after: int | None = None, token: str | None = None) -> Match | None:
        """The match as stored, None when there is none; with `events_after`, its events after
        that seq read in the same round trip; with a player token, what checks it too."""
        if not valid_id(match_id):
            return None
        player_id = player_of_token(token) if token is not None else None
        also = (
            None
            if player_id is None
            else (player_key(player_id), [("HGET", player_key(player_id), "tokens")])
        )
        loaded = self.store.load(match_id, events_after, also)
        if loaded is None:
            return None
        match = Match(match_id, loaded.record, loaded.version, loaded.event_count, loaded.events_after)
        match.events_tenures = loaded.tenures
        if player_id is not None and loaded.also is not None:
            match.player_check = (player_id, loaded.also[0])
        return match

    def load(self, match_id: str, events_after: int | None = None, token: str | None = None) -> Match:
        """`find`, with a 404 for a match that is not there."""
        match = self.find(match_id, events_after, token)
        if match is None:
            raise errors.NotFound(f"no match with id {match_id!r}")
        return match

    def authenticate(self, match: Match, token: str | None, required: bool = True) -> int | None:
        """The seat a bearer token belongs to: a seat's own token, or the token of the player
        bound to the seat (docs/integrating.md); None for no token when not required."""
        if token is None:
            if required:
                raise errors.InvalidToken("this call needs the seat's token: Authorization: Bearer <token>")
            return None
        player_id = player_of_token(token)
        if player_id is not None:
            seat = self._player_seat(match, player_id, token)
        else:
            seat = self._token_seat(match, token)
        logs.update(seat=seat)  # the request's log lines name the seat from here on
        return seat

    @staticmethod
    def _token_seat(match: Match, token: str) -> int:
        digest = hash_token(token)
        found: int | None = None
        for s in match.record["seats"]:
            # Compare against every seat so timing says nothing about which seat matched.
            if s.get("token") and hmac.compare_digest(s["token"], digest):
                found = s["seat"]
        if found is None:
            raise errors.InvalidToken("this token does not belong to a seat of this match")
        return found

    def _player_seat(self, match: Match, player_id: str, token: str) -> int:
        seat = match.seat_of_player(player_id)
        if match.player_check is not None and match.player_check[0] == player_id:
            stored = match.player_check[1]
        else:
            stored = self.players.tokens_of(player_id)
        if seat is None or not holds_token(stored, token):
            raise errors.InvalidToken("this token does not belong to a seat of this match")
        return seat

    # --- writing -----------------------------------------------------------
    def update(
        self,
        match_id: str,
        match: Match | None,
        change: Callable[[Match], Write],
        retries: int = RETRIES,
    ) -> Any:
        """The one compare-and-set write: apply `change` to the match as loaded (`match`, or
        loaded here) and commit it at that version; when another writer got in first, reload
        and apply it again, up to `retries` times. `change` raises to refuse."""
        for _ in range(retries):
            current = match or self.load(match_id)
            write = change(current)
            if self.commit(current, write.events, write.idem, write.effects):
                return write.result
            match = None
        raise errors.VersionConflict()

    def job_update(self, match_id: str, change: Callable[[Match], Write]) -> str:
        """`update` for a worker's job, whose outcome is a word for its log: the change's result,
        "gone" (no such match), "stale" (moved on under it too often) or a `JobOutcome`'s."""
        try:
            return str(self.update(match_id, None, change))
        except errors.NotFound:
            return "gone"
        except errors.VersionConflict:
            return "stale"
        except JobOutcome as e:
            return e.outcome

    def add(
        self, match: Match, events: list[dict[str, Any]], effects: list[dict[str, Any]] | None = None
    ) -> bool:
        """Store a new match (False: its id is taken), with `effects` of its own for the outbox."""
        return self.commit(match, events, None, effects)

    def commit(
        self,
        match: Match,
        events: list[dict[str, Any]],
        idem: tuple[str, bytes | str, int] | None = None,
        own: list[dict[str, Any]] | None = None,
    ) -> bool:
        """Store the match as changed at the version after the one it was loaded at, unless
        another writer got in first (False), with the effects the change causes in its outbox
        (service/matches/outbox.py) and the change's `own` ones; once stored, hand them on to the
        workers. On success `match` is the stored version."""
        version, before = match.version, match.event_count
        events = self._numbered(match, events)
        new_clock = match.restart_clock(self.config.CLOCK_SCALE)
        at = match.stamp()
        job = match.pending_job()
        effects, told = self._caused(match, events, new_clock, job, at)
        effects += [{**e, "v": match.next_version, "at": at} for e in own or ()]
        record, status = match.record, match.status()
        # Stored beside the events by the same script: every feed's read checks its seat's.
        tenures = tenure.stored_form(record["seats"])
        with tracing.span("match commit", match_id=match.id, version=version + 1):
            ok = self.store.commit(
                match.id,
                version if version >= 0 else None,
                record,
                events,
                before,
                self._ttl(status),
                idem,
                self._due(match, job) if job is not None else None,
                ([outbox.encode(e) for e in effects], at + self.config.OUTBOX_GRACE) if effects else None,
                tenures,
                told,  # on one Redis the script publishes them to the players' feeds itself
            )
            if ok:
                match.version = version + 1
                logs.update(version=match.version)
                match.event_count = before + len(events)
                for effect in effects:
                    self.hand_on(match.id, effect)
                if status in ("finished", "aborted"):
                    self.store.archive(match.id, match.version)
        return ok

    def _numbered(self, match: Match, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The change's events as stored: with the end it brings a match no person plays any more
        or one at CARDTABLE_MAX_VERSIONS moves, each numbered after the match's last (`seq`)."""
        if match.abandoned():
            events = self._abandoned(match, events)
        if match.record.get("moves", 0) >= self.config.MAX_VERSIONS:
            events = self._too_long(match, events)
        for seq, e in enumerate(events, match.event_count + 1):
            e["seq"] = seq
        return events

    def _caused(
        self, match: Match, events: list[dict[str, Any]], new_clock: bool, job: str | None, at: float
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """What the change causes, for its outbox: the workers' effects (`_effects`), a rated
        match's new ratings, and its notices, first; and the notices."""
        effects = self._effects(match, new_clock, job, at) if new_clock or job in ("bot", "rematch") else []
        if match.record["options"].get("rated"):
            settled = rated_matches.settle(match, events, self.ratings)
            effects += [settled] if settled is not None else []
        if match.record.get("tournament") and any(e["type"] == "match_over" for e in events):
            effects.append(_tournament_result(match, events, at))
        told = notices.derive(match, events, at)
        if told:
            # Handed on first: a bot's job, handed on before them, could commit its turn and
            # publish its notices ahead of this commit's in a player's feed.
            effects.insert(0, {"kind": "notify", "v": match.next_version, "at": at, "notices": told})
        return effects, told

    def hand_on(
        self, match_id: str, effect: dict[str, Any], bot_delay: float | None = None, relayed: bool = False
    ) -> None:
        """Give an effect of a commit to whoever acts on it: a rated match's new ratings go to
        its players and leaderboard now, its entries in lists outside its slot are written, its
        notices go to the notice sinks, a bot's turn or a clock to the workers (no bot ever moves
        inside a request)."""
        if effect["kind"] == "ratings":
            rated_matches.apply(effect, self.ratings, self.leaderboards)
        elif effect["kind"] == "lists":
            self.app_index.apply(match_id, effect, relayed)
        elif effect["kind"] == "tournament":
            self._tournament(match_id, effect, relayed)
        elif effect["kind"] == "notify":
            for sink in self.notice_sinks:
                try:
                    sink(match_id, effect["notices"], relayed)
                except (redis.ConnectionError, redis.TimeoutError) as e:
                    # The commit is stored and answered: its notices wait in the outbox for
                    # the relay, whose own failure is raised so that it tries again.
                    if relayed:
                        raise
                    log.warning("match %s: notices left to the relay (%s)", match_id, e)
        elif self.queue is not None:
            outbox.hand_on(self.queue, match_id, effect, bot_delay)

    def _tournament(self, match_id: str, effect: dict[str, Any], relayed: bool) -> None:
        """A tournament's match ended: its standings hear of it now, or from the relay should
        that fail (applying it twice changes nothing)."""
        if self.tournament_sink is None:
            return
        try:
            self.tournament_sink(effect)
        except (redis.ConnectionError, redis.TimeoutError, errors.DomainError) as e:
            if relayed:
                raise
            log.warning("match %s: its tournament's standings left to the relay (%s)", match_id, e)

    def _ttl(self, status: str) -> int:
        if status in ("finished", "aborted"):
            return self.config.FINISHED_TTL
        if status == "waiting":
            # A waiting match nobody joins or leaves for this long is gone (and out of the lobby).
            return self.config.WAITING_TTL
        return self.config.IDLE_TTL

    @staticmethod
    def _abandoned(match: Match, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The change after which no person plays the match any more (the last one left or
        resigned, or was resigned by the clock) ends it: aborted, no winner, no more bot turns
        (docs/api.md, "Seats, host, leaving")."""
        return [*events, *match.abort("abandoned")]

    def _too_long(self, match: Match, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The change that brings a match to CARDTABLE_MAX_VERSIONS moves is its last: it is
        stored, and the match is aborted with it (docs/api.md, "Limits"), so no loop of moves
        grows one match without end. Only moves count (`Match._changed`): every other change is
        bounded on its own, so no loop of one seat's other calls can end a match."""
        if match.over():
            return events
        return [*events, *match.abort("too_long", limit=self.config.MAX_VERSIONS)]

    def _effects(self, match: Match, new_clock: bool, job: str | None, at: float) -> list[dict[str, Any]]:
        """What the change leaves for the workers: a turn clock it started, the bot turn the
        match now waits for, the deadline of the reserved seats of a rematch it created."""
        version = match.next_version
        effects = []
        if job == "rematch" and match.version < 0:
            # One job a rematch, from its creation: the seats taken later keep its deadline.
            effects.append(outbox.rematch(version, match.reserved_until() or at, at))
        if new_clock:
            effects.append(outbox.clock(version, match.record["clock"], at))
        if job == "bot":
            effects.append(
                outbox.bot_turn(version, match.low_priority(version, self.config.LOW_PRIORITY_AFTER), at)
            )
        return effects

    def _due(self, match: Match, job: str | None) -> float | None:
        """When the sweeper should look at the match if no worker has moved it by then."""
        if job == "bot":
            return time.time() + self.config.BOT_DELAY + self.config.SWEEP_GRACE
        if job == "clock":
            return cast(float, match.record["clock"]["deadline"] + self.config.SWEEP_GRACE)  # JSON-ish
        if job == "rematch":
            return (match.reserved_until() or 0.0) + self.config.SWEEP_GRACE
        return None


def _tournament_result(match: Match, events: list[dict[str, Any]], at: float) -> dict[str, Any]:
    """The effect that tells a tournament (service/tournaments/running.py) how its match ended:
    its winners by player id (a seat bound to no player, one erased, names none)."""
    over = next(e for e in events if e["type"] == "match_over")
    players = {s["seat"]: s.get("player") for s in match.record["seats"]}
    winners = [players[w] for w in over.get("winners") or [] if players.get(w)]
    return {
        "kind": "tournament",
        "v": match.next_version,
        "at": at,
        "tournament": match.record["tournament"]["id"],
        "match": match.id,
        "winners": winners,
        "status": match.status(),
    }
