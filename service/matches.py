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
from typing import Any

from engines.base import Game, redact_event
from engines.errors import EngineError, MatchNotActive
from engines.registry import GAMES
from service import codec
from service.config import Config
from service.lobby_index import LobbyIndex
from service.store import IN_PROGRESS, Loaded, Store, channel

log = logging.getLogger("cardtable.matches")

# How often an action is re-applied when another writer got in first (no If-Match given).
_RETRIES = 8

# Level that plays a resigned seat on in games with three or more individual players.
_RESIGNED_LEVEL = "medium"


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
            if s.get("left"):
                entry["left"] = True
            players.append(entry)
        turn = dict(game_view["turn"])
        clock = record.get("clock")
        if clock and status == "active" and clock["seat"] == turn.get("seat"):
            turn["deadline"] = clock["deadline"]
        legal = game_view["legal_actions"] if status == "active" else []
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
        }
        return out

    def events(self, match_id: str, seat: int | None, after: int, wait: float) -> tuple[list[dict], int]:
        """Events after `after` as `seat` may see them, long-polling up to `wait` seconds."""
        loaded = self.load(match_id)
        raw = self.store.events(match_id, after)
        if not raw and wait > 0:
            pubsub = self.store.redis.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(channel(match_id))
                raw = self.store.events(match_id, after)  # written between the read and SUBSCRIBE
                deadline = time.monotonic() + wait
                while not raw:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    if pubsub.get_message(timeout=min(left, 1.0)) is not None:
                        raw = self.store.events(match_id, after)
            finally:
                pubsub.close()
            loaded = self.load(match_id)
        return [redact_event(e, seat) for e in raw], loaded.version

    def history(self, match_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        record = loaded.record
        if token is not None:
            self.authenticate(record, token)
        if match_status(record) not in ("finished", "aborted"):
            raise ApiError(409, "match_not_active", "the history is published when the match is over")
        return {
            "id": match_id,
            "game": record["game"],
            "options": record["options"],
            "seats": [_public_seat(s) for s in record["seats"]],
            "seed": record["seed"],
            "deck": record["deck"],
            "events": self.store.events(match_id, 0),
            "version": loaded.version,
        }

    # --- creating and joining ---------------------------------------------
    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        game = GAMES[body["game"]]
        seats_in = body["seats"]
        options = _engine_call(game.validate_options, body.get("options") or {}, len(seats_in))
        deck = body.get("deck")
        if deck is not None:
            if not self.config.ALLOW_STACKED_DECK:
                raise ApiError(403, "forbidden", "this server does not accept stacked decks")
            full = game.full_deck(options)
            if sorted(deck) != sorted(full):
                raise ApiError(
                    422,
                    "validation_error",
                    f"deck must be a permutation of the game's {len(full)} cards",
                    {"deck": ["not a permutation of the full deck"]},
                )
        seed = body.get("seed")
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
        if record["listed"] and record["status"] == "waiting":
            # Into the lobby before the commit, so the lobby never misses a listed waiting match;
            # readers drop entries that went stale (service/lobby_index.py).
            LobbyIndex(self.store.redis).add(match_id, record)
        if not self.store.commit(match_id, None, record, events, 0, self._ttl(record)):
            raise ApiError(409, "conflict", "match id collision, try again")
        self._after_commit(match_id, record, 0, new_clock)
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
            deck = game.full_deck(record["options"])
            random.Random(f"cardtable-deck:{record['seed']}").shuffle(deck)
            record["deck"] = deck
        state, events = game.new_match(record["options"], len(record["seats"]), record["seed"], list(deck))
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
                self.store.release_idempotency(idem_key)
            raise

    def _act(self, match_id, loaded, seat, action, if_match, idem_key):
        for _ in range(_RETRIES):
            if if_match is not None and if_match != loaded.version:
                raise ApiError(
                    412, "version_conflict", f"the match is at version {loaded.version}, not {if_match}"
                )
            record = loaded.record
            if record["state"] is None or record["status"] != "playing":
                raise ApiError(409, "match_not_active", f"the match is {match_status(record)}, not in play")
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
                    events.append({"type": "match_aborted"})
            elif status in ("active", "round_over"):
                if entry.get("left"):
                    raise ApiError(409, "match_not_active", "you already left this match")
                events = _engine_call(game_of(record).apply, record["state"], seat, {"type": "resign"})
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
        if level is None:
            return "human"
        view = game.view(record["state"], seat)
        rng = random.Random(f"bot:{match_id}:{version}")
        action = game.bot_action(view, level, rng)
        try:
            events = game.apply(record["state"], seat, action)
        except EngineError:
            # A bot bug must not stall the match: log it (without the cards) and play the
            # random-legal level instead. A refused action leaves the state untouched.
            log.exception("%s bot at level %s chose an illegal action in match %s", game.id, level, match_id)
            events = game.apply(record["state"], seat, game.bot_action(view, "random", rng))
        for e in events:
            e.setdefault("bot", True)
        return "moved" if self._commit(match_id, loaded, record, events) else "stale"

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
        ok = self.store.commit(
            match_id, loaded.version, record, events, loaded.events, self._ttl(record), idem
        )
        if ok:
            self._after_commit(match_id, record, loaded.version + 1, new_clock)
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
        self, match_id: str, record: dict[str, Any], version: int, new_clock: bool = False
    ) -> None:
        """Hand the next bot turn or turn clock to the workers; no bot ever moves inside a request."""
        if self.queue is None or record["state"] is None:
            return
        if new_clock:
            clock = record["clock"]
            self.queue.enqueue_clock(match_id, clock["turn"], max(0.0, clock["deadline"] - time.time()))
        status = match_status(record)
        needs_bot = False
        if status == "active":
            needs_bot = self._bot_level(record, game_of(record).to_move(record["state"])) is not None
        elif status == "round_over":
            needs_bot = host_seat(record) is None
        if needs_bot:
            self.queue.enqueue_bot(match_id, version)


def _engine_call(fn, *args):
    try:
        return fn(*args)
    except EngineError as e:
        raise ApiError(e.status, e.error, str(e)) from e


def _valid_id(match_id: str) -> bool:
    return len(match_id) == 16 and all(c in "0123456789abcdef" for c in match_id)


def _public_seat(s: dict[str, Any]) -> dict[str, Any]:
    out = {"seat": s["seat"], "kind": s["kind"], "name": s.get("name")}
    if s["kind"] == "bot":
        out["level"] = s["level"]
    return out


__all__ = ["ApiError", "MatchService", "MatchNotActive"]
