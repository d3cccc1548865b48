"""Match domain logic: seats and tokens, actions through the engines, views, events.

Both the HTTP routes and the RQ workers go through `MatchService`, so a bot's move
takes exactly the same compare-and-set path as a person's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import secrets
import time
import traceback
from typing import Any

import redis

from engines.base import Game, redact_event
from engines.errors import EngineError, MatchNotActive
from engines.registry import GAMES
from service import codec, hints
from service.config import Config
from service.lobby_index import LobbyIndex
from service.store import IN_PROGRESS, Loaded, Store, channel
from service.waiters import Waiter

log = logging.getLogger("cardtable.matches")

# How often an action is re-applied when another writer got in first (no If-Match given).
_RETRIES = 8

# Level that plays a resigned seat on in games with three or more individual players.
_RESIGNED_LEVEL = "medium"

RESIGN = {"type": "resign"}

# Buckets (seconds) of the bot-turn latency histogram in /metrics.
BOT_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class ApiError(Exception):
    """An HTTP error with its machine id (docs/api.md)."""

    def __init__(self, status: int, error: str, message: str, errors: dict | None = None):
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.errors = errors


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    # 192 random bits; only the SHA-256 of it is ever stored.
    return secrets.token_urlsafe(24)


def body_hash(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def game_of(record: dict[str, Any]) -> Game:
    return GAMES[record["game"]]


def host_seat(record: dict[str, Any]) -> int | None:
    """The host: the earliest-joined human seat that is still in the match."""
    state = record.get("state")
    resigned = game_of(record).resigned_seats(state) if state is not None else set()
    humans = [
        s for s in record["seats"] if s["kind"] == "human" and not s.get("left") and s["seat"] not in resigned
    ]
    if not humans:
        return None
    return min(humans, key=lambda s: s["joined"])["seat"]


def match_status(record: dict[str, Any]) -> str:
    if record["status"] in ("waiting", "aborted"):
        return record["status"]
    return game_of(record).status(record["state"])


class MatchService:
    def __init__(self, store: Store, config: Config, queue: Any = None):
        self.store = store
        self.config = config
        self.queue = queue
        self.waiters = store.hub()

    # --- reading -----------------------------------------------------------
    def load(self, match_id: str) -> Loaded:
        loaded = self.store.load(match_id) if _valid_id(match_id) else None
        if loaded is None:
            raise ApiError(404, "not_found", f"no match with id {match_id!r}")
        return loaded

    def authenticate(self, record: dict[str, Any], token: str | None, required: bool = True) -> int | None:
        """The seat a bearer token belongs to; None for no token when not required."""
        if token is None:
            if required:
                raise ApiError(
                    401, "invalid_token", "this call needs the seat's token: Authorization: Bearer <token>"
                )
            return None
        digest = _hash_token(token)
        found = None
        for s in record["seats"]:
            # Compare against every seat so timing says nothing about which seat matched.
            if s.get("token") and hmac.compare_digest(s["token"], digest):
                found = s["seat"]
        if found is None:
            raise ApiError(401, "invalid_token", "this token does not belong to a seat of this match")
        return found

    def view(self, match_id: str, record: dict[str, Any], version: int, seat: int | None) -> dict[str, Any]:
        status = match_status(record)
        seats = record["seats"]
        if record["state"] is None:
            game_view: dict[str, Any] = {
                "round": 0,
                "turn": {"seat": None, "phase": None, "deadline": None},
                "players": [{"seat": s["seat"], "cards": 0, "resigned": False} for s in seats],
                "hand": [] if seat is not None else None,
                "stock": 0,
                "discard": None,
                "table": {},
                "scores": {},
                "legal_actions": [],
                "round_result": None,
                "winners": None,
            }
        else:
            game_view = game_of(record).view(record["state"], seat)
        players = []
        for p in game_view["players"]:
            s = seats[p["seat"]]
            entry = {"seat": p["seat"], "name": s.get("name"), "kind": s["kind"]}
            if s["kind"] == "bot":
                entry["level"] = s["level"]
            entry.update(p)
            entry["hints_used"] = hints.hints_used(record, p["seat"])
            if s.get("left"):
                entry["left"] = True
            players.append(entry)
        turn = dict(game_view["turn"])
        clock = record.get("clock")
        if clock and status == "active" and clock["seat"] == turn.get("seat"):
            turn["deadline"] = clock["deadline"]
        legal = game_view["legal_actions"] if status == "active" else []
        if seat is not None and record["state"] is not None:
            if seat in game_of(record).resigned_seats(record["state"]):
                # A bot plays a resigned seat on (games of 3+ players): the person has no moves left.
                legal = []
        if seat is not None and _may_resign(record, status, seat):
            # Every engine takes a resignation from any seat still playing, on its turn or not,
            # between rounds too; engines leave it out of legal_actions (a bot picking at random
            # from them must never resign), so the view adds it for the person in the seat.
            legal = [*legal, {"type": "resign"}]
        out = {
            "id": match_id,
            "game": record["game"],
            "options": record["options"],
            "status": status,
            "version": version,
            "round": game_view["round"],
            "you": seat,
            "host": host_seat(record),
            "turn": turn,
            "players": players,
            "hand": game_view["hand"],
            "stock": game_view["stock"],
            "discard": game_view["discard"],
            "table": game_view["table"],
            "scores": game_view["scores"],
            "legal_actions": legal,
            "round_result": game_view.get("round_result"),
            "winners": game_view.get("winners") if status == "finished" else None,
            "deal_commitment": game_of(record).deal_commitment(record["state"]) if record["state"] else None,
            "seeded_by_client": record.get("seeded_by_client", False),
        }
        return out

    def events(
        self,
        match_id: str,
        seat: int | None,
        after: int,
        wait: float,
        client: Any = None,
        loaded: Loaded | None = None,
    ) -> tuple[list[dict], int]:
        """Events after `after` as `seat` may see them, long-polling up to `wait` seconds.

        The wait registers with the process's one subscription (service/waiters.py) and
        holds no Redis connection; `client` (the client's socket) ends it when the client
        hangs up. `loaded`: the match, when the caller has just loaded it. The wait is capped
        at CARDTABLE_MAX_WAIT (deployments behind proxies with shorter idle timeouts)."""
        wait = min(wait, self.config.MAX_WAIT)
        version = (loaded or self.load(match_id)).version
        raw, now = self.store.events_since(match_id, after)
        if not raw and wait > 0:
            with self.waiters.watch(channel(match_id), "long_poll", client) as waiter:
                # Written between the first read and the subscription?
                raw, now = self.store.events_since(match_id, after)
                if not raw:
                    raw, now = self._wait_events(match_id, after, wait, waiter)
        return [redact_event(e, seat) for e in raw], version if now is None else now

    def stream_events(self, match_id: str, seat: int | None, after: int, wait: float, waiter: Waiter) -> list:
        """For a stream, which keeps `waiter` registered all its life: the next events after
        `after` (waiting up to `wait` seconds), one read a wake-up."""
        raw, _ = self.store.events_since(match_id, after)
        if not raw:
            raw, _ = self._wait_events(match_id, after, wait, waiter)
        return [redact_event(e, seat) for e in raw]

    def _wait_events(self, match_id: str, after: int, wait: float, waiter: Waiter) -> tuple[list, int | None]:
        deadline = time.monotonic() + wait
        while not waiter.gone:
            left = deadline - time.monotonic()
            if left <= 0 or not waiter.wait(left):
                break
            raw, version = self.waiters.shared_read(
                waiter, (match_id, after), lambda: self.store.events_since(match_id, after)
            )
            if raw:
                return raw, version
        return [], None

    def history(self, match_id: str, token: str | None, required: bool = False) -> dict[str, Any]:
        """The history for a seat's token; HTTP calls require one (`required`), the service's
        own callers (tools, a bot-only match's replay) may read it without."""
        loaded = self.load(match_id)
        record = loaded.record
        if token is not None or required:
            self.authenticate(record, token)
        if match_status(record) not in ("finished", "aborted"):
            raise ApiError(409, "match_not_active", "the history is published when the match is over")
        events = self.store.events(match_id, 0)
        return {
            "id": match_id,
            "game": record["game"],
            "options": record["options"],
            "seats": [_public_seat(s) for s in record["seats"]],
            "seed": record["seed"],
            "seeded_by_client": record.get("seeded_by_client", False),
            "deck": record["deck"],
            "deals": revealed_deals(events),
            "events": events,
            "version": loaded.version,
        }

    # --- creating and joining ---------------------------------------------
    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        game = GAMES[body["game"]]
        seats_in = body["seats"]
        options = match_options(game, body.get("options") or {}, len(seats_in))
        deck = body.get("deck")
        if deck is not None:
            if not self.config.ALLOW_STACKED_DECK:
                raise ApiError(403, "forbidden", "this server does not accept stacked decks")
            full = game.full_deck(hints.engine_options(options))
            if sorted(deck) != sorted(full):
                raise ApiError(
                    422,
                    "validation_error",
                    f"deck must be a permutation of the game's {len(full)} cards",
                    {"deck": ["not a permutation of the full deck"]},
                )
        seed = body.get("seed")
        if seed is not None and not self.config.ALLOW_STACKED_DECK:
            _check_client_seed(seats_in)
        seeded_by_client = seed is not None or deck is not None
        if seed is None:
            seed = secrets.randbits(62)
        match_id = secrets.token_hex(8)
        tokens: dict[int, str] = {}
        seats = []
        for i, s in enumerate(seats_in):
            entry: dict[str, Any] = {"seat": i, "kind": s["kind"], "name": s.get("name")}
            if s["kind"] == "human":
                tokens[i] = new_token()
                entry["token"] = _hash_token(tokens[i])
                entry["joined"] = len(tokens)
                entry["name"] = s.get("name") or f"Player {i + 1}"
            elif s["kind"] == "bot":
                entry["level"] = s.get("level") or "medium"
                entry["name"] = s.get("name") or f"{entry['level'].capitalize()} bot"
            seats.append(entry)
        record: dict[str, Any] = {
            "game": game.id,
            "options": options,
            "seats": seats,
            "seed": seed,
            "seeded_by_client": seeded_by_client,
            "deck": deck,
            "status": "waiting",
            "state": None,
            "clock": None,
            "created": time.time(),
            "joins": len(tokens),
            "listed": bool(body.get("listed")),
        }
        events: list[dict[str, Any]] = [{"type": "match_created", "game": game.id}]
        if not any(s["kind"] == "open" for s in seats):
            events += self._start(record)
        self._seq(events, 0)
        new_clock = self._update_clock(record)
        record["at"] = round(time.time(), 3)
        job = pending_job(record)
        if record["listed"] and record["status"] == "waiting":
            # Into the lobby before the commit, so the lobby never misses a listed waiting match;
            # readers drop entries that went stale (service/lobby_index.py).
            LobbyIndex(self.store.redis).add(match_id, record)
        if not self.store.commit(
            match_id, None, record, events, 0, self._ttl(record), due=self._due(record, job)
        ):
            raise ApiError(409, "conflict", "match id collision, try again")
        self._after_commit(match_id, record, 0, new_clock, job)
        return {
            "id": match_id,
            "seats": [
                {
                    "seat": s["seat"],
                    "kind": s["kind"],
                    **({"token": tokens[s["seat"]]} if s["seat"] in tokens else {}),
                }
                for s in seats
            ],
            "version": 0,
        }

    def join(self, match_id: str, name: str | None) -> dict[str, Any]:
        for _ in range(_RETRIES):
            loaded = self.load(match_id)
            record = loaded.record
            if record["status"] != "waiting":
                raise ApiError(409, "match_not_active", "this match has no open seat to join")
            seat = next(s for s in record["seats"] if s["kind"] == "open")
            token = new_token()
            record["joins"] += 1
            seat.update(kind="human", name=name or f"Player {seat['seat'] + 1}", token=_hash_token(token))
            seat["joined"] = record["joins"]
            seat.pop("left", None)
            events: list[dict[str, Any]] = [{"type": "join", "seat": seat["seat"], "name": seat["name"]}]
            if not any(s["kind"] == "open" for s in record["seats"]):
                events += self._start(record)
            if self._commit(match_id, loaded, record, events):
                return {"seat": seat["seat"], "token": token, "version": loaded.version + 1}
        raise ApiError(409, "version_conflict", "the match is changing too fast; try again")

    def _start(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Deal the first round: the match leaves `waiting`."""
        game = game_of(record)
        deck = record["deck"]
        if deck is None:
            # The service shuffles the first deck itself so history can reveal it; later
            # rounds shuffle inside the engine from the same secret seed.
            deck = game.full_deck(hints.engine_options(record["options"]))
            random.Random(f"cardtable-deck:{record['seed']}").shuffle(deck)
            record["deck"] = deck
        # The deal key salts every deal commitment: drawn from the OS, kept only inside the
        # engine state, so nothing a seat sees (nor the seed) predicts a salt.
        state, events = game.new_match(
            hints.engine_options(record["options"]),
            len(record["seats"]),
            record["seed"],
            list(deck),
            secrets.token_hex(32),
        )
        record["state"] = state
        record["status"] = "playing"
        return [{"type": "match_started"}, *events]

    # --- playing -----------------------------------------------------------
    def act(
        self,
        match_id: str,
        token: str | None,
        action: dict[str, Any],
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)
        assert seat is not None  # a token is required here: authenticate raised otherwise
        idem_key = None
        if idempotency_key is not None:
            idem_key = self.store.idempotency_key(
                match_id, seat, hashlib.sha256(idempotency_key.encode()).hexdigest()
            )
            stored = self.store.claim_idempotency(idem_key)
            if stored == IN_PROGRESS:
                raise ApiError(
                    409, "idempotency_in_progress", "a request with this Idempotency-Key is still running"
                )
            if stored is not None:
                first = json.loads(stored)
                if first["body"] != body_hash(action):
                    raise ApiError(
                        422,
                        "idempotency_key_reused",
                        "this Idempotency-Key was used with a different request body",
                    )
                return first["response"]
        try:
            return self._act(match_id, loaded, seat, action, if_match, idem_key)
        except BaseException:
            if idem_key is not None:
                self._release_idempotency(idem_key)
            raise

    def _release_idempotency(self, idem_key: str) -> None:
        """Free the key of a request that failed, unless its commit happened after all (then
        the stored answer stays and a retry with the key gets it instead of playing again)."""
        try:
            self.store.release_idempotency(idem_key)
        except (redis.ConnectionError, redis.TimeoutError):
            # Redis is away: the claim expires by itself within a minute; the request's own
            # error (a 503 the client may retry) is what it should see.
            log.warning("could not free an idempotency key; it expires by itself")

    def _act(self, match_id, loaded, seat, action, if_match, idem_key):
        for _ in range(_RETRIES):
            if if_match is not None and if_match != loaded.version:
                raise ApiError(
                    412, "version_conflict", f"the match is at version {loaded.version}, not {if_match}"
                )
            record = loaded.record
            if record["state"] is None or record["status"] != "playing":
                raise ApiError(409, "match_not_active", f"the match is {match_status(record)}, not in play")
            if action.get("type") != "resign" and seat in game_of(record).resigned_seats(record["state"]):
                # The bot that plays the seat on moves for it; the person's move would race it.
                raise ApiError(409, "not_your_turn", "you have resigned: a bot plays this seat now")
            events = _engine_call(game_of(record).apply, record["state"], seat, action)
            response = self.view(match_id, record, loaded.version + 1, seat)
            idem = None
            if idem_key is not None:
                idem = (
                    idem_key,
                    codec.dumps({"body": body_hash(action), "response": response}),
                    self.config.IDEMPOTENCY_TTL,
                )
            if self._commit(match_id, loaded, record, events, idem):
                return response
            loaded = self.load(match_id)
        raise ApiError(409, "version_conflict", "the match is changing too fast; try again")

    def start_round(self, match_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)
        for _ in range(_RETRIES):
            record = loaded.record
            if match_status(record) != "round_over":
                raise ApiError(409, "match_not_active", "the next round starts only after a round is over")
            if host_seat(record) != seat:
                raise ApiError(403, "forbidden", "only the host starts the next round")
            events = _engine_call(game_of(record).start_next_round, record["state"])
            if self._commit(match_id, loaded, record, events):
                return self.view(match_id, record, loaded.version + 1, seat)
            loaded = self.load(match_id)
        raise ApiError(409, "version_conflict", "the match is changing too fast; try again")

    def end(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The host ends the match now (games with `target_wins`)."""
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)
        record = loaded.record
        if host_seat(record) != seat:
            raise ApiError(403, "forbidden", "only the host ends the match")
        if match_status(record) not in ("active", "round_over"):
            raise ApiError(409, "match_not_active", f"the match is {match_status(record)}")
        events = _engine_call(game_of(record).end_match, record["state"])
        if not self._commit(match_id, loaded, record, events):
            raise ApiError(412, "version_conflict", "the match changed meanwhile; try again")
        return self.view(match_id, record, loaded.version + 1, seat)

    def leave(self, match_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)
        for _ in range(_RETRIES):
            record = loaded.record
            entry = record["seats"][seat]
            status = match_status(record)
            events: list[dict[str, Any]] = [{"type": "leave", "seat": seat}]
            if status == "waiting":
                # Free the seat: it is open again and the token is dead.
                entry.update(kind="open", name=None, token=None, joined=None)
                if not any(s["kind"] == "human" for s in record["seats"]):
                    record["status"] = "aborted"
                    events.append({"type": "match_over", "winners": [], "reason": "aborted"})
            elif status in ("active", "round_over"):
                if entry.get("left"):
                    raise ApiError(409, "match_not_active", "you already left this match")
                if seat not in game_of(record).resigned_seats(record["state"]):
                    # A seat that resigned already (the match plays on without it) just leaves.
                    events = _engine_call(game_of(record).apply, record["state"], seat, dict(RESIGN))
                    events.append({"type": "leave", "seat": seat})
                entry["left"] = True
            else:
                raise ApiError(409, "match_not_active", f"the match is {status}")
            if self._commit(match_id, loaded, record, events):
                return self.view(match_id, record, loaded.version + 1, seat)
            loaded = self.load(match_id)
        raise ApiError(409, "version_conflict", "the match is changing too fast; try again")

    # --- bots and clocks (run by workers) ----------------------------------
    def play_bot(self, match_id: str, version: int) -> str:
        """One bot decision at exactly `version`; a stale job does nothing."""
        loaded = self.store.load(match_id)
        if loaded is None or loaded.version != version:
            return "stale"
        record = loaded.record
        status = match_status(record)
        game = game_of(record)
        if status == "round_over" and host_seat(record) is None:
            events = game.start_next_round(record["state"])
            return "next-round" if self._commit(match_id, loaded, record, events) else "stale"
        if status != "active":
            return "idle"
        seat = game.to_move(record["state"])
        level = self._bot_level(record, seat)
        if seat is None or level is None:
            return "human"
        view = game.view(record["state"], seat)
        rng = random.Random(f"bot:{match_id}:{version}")
        since = record.get("at")
        try:
            events = game.apply(record["state"], seat, game.bot_action(view, level, rng))
        except Exception as exc:
            # A bot bug must not stall the match: log it, count it and play a random legal
            # action instead. The log has the bot's stack but not the error's text, which may
            # name its cards.
            log.error(
                "%s bot at level %s raised %s in match %s at version %d; it plays a random legal "
                "action instead\n%s",
                game.id, level, type(exc).__name__, match_id, version,
                "".join(traceback.format_tb(exc.__traceback__)),
            )  # fmt: skip
            self.store.count("bot_fallbacks")
            # A refused action leaves the state untouched; anything else may have changed it.
            loaded = self.store.load(match_id)
            if loaded is None or loaded.version != version:
                return "stale"
            record = loaded.record
            events = game.apply(record["state"], seat, rng.choice(view["legal_actions"]))
        for e in events:
            e.setdefault("bot", True)
        if not self._commit(match_id, loaded, record, events):
            return "stale"
        if since is not None:
            self.store.observe("bot_turn_seconds", max(0.0, time.time() - since), BOT_LATENCY_BUCKETS)
        return "moved"

    def _bot_level(self, record: dict[str, Any], seat: int | None) -> str | None:
        if seat is None:
            return None
        entry = record["seats"][seat]
        if entry["kind"] == "bot":
            return entry["level"]
        if seat in game_of(record).resigned_seats(record["state"]):
            return _RESIGNED_LEVEL
        return None

    # --- writing -----------------------------------------------------------
    def _ttl(self, record: dict[str, Any]) -> int:
        if match_status(record) in ("finished", "aborted"):
            return self.config.FINISHED_TTL
        return self.config.IDLE_TTL

    @staticmethod
    def _seq(events: list[dict[str, Any]], before: int) -> None:
        for i, e in enumerate(events):
            e["seq"] = before + i + 1

    def _commit(self, match_id, loaded: Loaded, record, events, idem=None) -> bool:
        self._seq(events, loaded.events)
        new_clock = self._update_clock(record)
        record["at"] = round(time.time(), 3)  # when this version was made (bot-turn latency)
        job = pending_job(record)
        ok = self.store.commit(
            match_id,
            loaded.version,
            record,
            events,
            loaded.events,
            self._ttl(record),
            idem,
            self._due(record, job),
        )
        if ok:
            self._after_commit(match_id, record, loaded.version + 1, new_clock, job)
            if match_status(record) in ("finished", "aborted"):
                self.store.archive(match_id, loaded.version + 1)
        return ok

    def _update_clock(self, record: dict[str, Any]) -> bool:
        """Start a turn clock when a human's turn begins in a clocked match; True when one started.

        A turn keeps its deadline across its steps (Zhol's draw, then discard); the clock
        restarts only when another seat is to move or a new round begins.
        """
        game = game_of(record)
        if "turn_seconds" not in game.options or record["state"] is None:
            return False
        humans = [s for s in record["seats"] if s["kind"] == "human"]
        seat = game.to_move(record["state"]) if match_status(record) == "active" else None
        if len(humans) < 2 or seat is None or self._bot_level(record, seat) is not None:
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

    def clock_expired(self, match_id: str, turn: int) -> str:
        """The clock of turn number `turn` ran out: play for that seat unless it already moved on."""
        for _ in range(_RETRIES):
            loaded = self.store.load(match_id)
            if loaded is None:
                return "gone"
            record = loaded.record
            clock = record.get("clock")
            if not clock or clock["turn"] != turn or match_status(record) != "active":
                return "stale"
            # RQ's scheduler wakes about once a second; never act before the deadline shown.
            early = clock["deadline"] - time.time()
            if early > 0:
                time.sleep(early)
            events = game_of(record).apply_timeout(record["state"], clock["seat"])
            for e in events:
                e.setdefault("auto", True)
            if self._commit(match_id, loaded, record, events):
                return "played"
        return "stale"

    def _after_commit(
        self, match_id: str, record: dict[str, Any], version: int, new_clock: bool, job: str | None
    ) -> None:
        """Hand the next bot turn or turn clock to the workers; no bot ever moves inside a request."""
        if self.queue is None or record["state"] is None:
            return
        if new_clock:
            clock = record["clock"]
            self.queue.enqueue_clock(match_id, clock["turn"], max(0.0, clock["deadline"] - time.time()))
        if job == "bot":
            self.queue.enqueue_bot(match_id, version)

    def _due(self, record: dict[str, Any], job: str | None) -> float | None:
        """When the sweeper should look at the match if no worker has moved it by then."""
        if job == "bot":
            return time.time() + self.config.BOT_DELAY + self.config.SWEEP_GRACE
        if job == "clock":
            return record["clock"]["deadline"] + self.config.SWEEP_GRACE
        return None


def pending_job(record: dict[str, Any]) -> str | None:
    """What the match waits for from a worker: "bot" (a bot's or resigned seat's decision, or
    the next round of a match without humans), "clock" (a human's turn on the clock), or None."""
    if record["state"] is None:
        return None
    status = match_status(record)
    if status == "round_over":
        return "bot" if host_seat(record) is None else None
    if status != "active":
        return None
    seat = game_of(record).to_move(record["state"])
    if seat is None:
        return None
    entry = record["seats"][seat]
    if entry["kind"] == "bot" or seat in game_of(record).resigned_seats(record["state"]):
        return "bot"
    clock = record.get("clock")
    return "clock" if clock and clock["seat"] == seat else None


def _may_resign(record: dict[str, Any], status: str, seat: int) -> bool:
    if status not in ("active", "round_over") or record["seats"][seat].get("left"):
        return False
    return seat not in game_of(record).resigned_seats(record["state"])


def match_options(game: Game, options: dict[str, Any], seats: int) -> dict[str, Any]:
    """A match's options as stored: validated, defaults filled in (quick play compares these)."""
    # `hints` is the service's option (service/hints.py); the engine validates the rest.
    own, hints_on = hints.split_options(options)
    return {**_engine_call(game.validate_options, own, seats), "hints": hints_on}


def _engine_call(fn, *args):
    try:
        return fn(*args)
    except EngineError as e:
        raise ApiError(e.status, e.error, str(e)) from e


def _check_client_seed(seats: list[dict[str, Any]]) -> None:
    """A seed chosen by the creator is refused when someone else could be dealt from it."""
    if any(s["kind"] == "open" for s in seats):
        raise ApiError(
            422,
            "validation_error",
            "a seed of your choice would tell you the cards of whoever takes an open seat: leave out"
            " seed, or fill every seat yourself (human seats you create, or bots)",
            {"seed": ["not allowed with open seats on this server"]},
        )


def revealed_deals(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every deal and reshuffle with its commitment, salt and deck order (for /history)."""
    out = []
    rnd = 0
    for e in events:
        if e["type"] == "deal":
            rnd += 1
        if "sealed" in e:
            out.append(
                {
                    "seq": e["seq"],
                    "type": e["type"],
                    "round": rnd,
                    "deal_commitment": e["deal_commitment"],
                    **e["sealed"],
                }
            )
    return out


def _valid_id(match_id: str) -> bool:
    return len(match_id) == 16 and all(c in "0123456789abcdef" for c in match_id)


def _public_seat(s: dict[str, Any]) -> dict[str, Any]:
    out = {"seat": s["seat"], "kind": s["kind"], "name": s.get("name")}
    if s["kind"] == "bot":
        out["level"] = s["level"]
    return out


__all__ = ["ApiError", "MatchService", "MatchNotActive"]
