"""Acting: a seat's move (with If-Match and Idempotency-Key), the next round, ending the match
(docs/api.md, "Requests")."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import redis

from service import codec, errors
from service.following import FollowingMixin
from service.match_core import Write, body_hash, game_of, host_seat, match_status, resigned
from service.store import IN_PROGRESS, Loaded

log = logging.getLogger("cardtable.matches")


class ActingMixin(FollowingMixin):
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
                raise errors.IdempotencyInProgress("a request with this Idempotency-Key is still running")
            if stored is not None:
                first = json.loads(stored)
                if first["body"] != body_hash(action):
                    raise errors.IdempotencyKeyReused(
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
        def change(loaded: Loaded) -> Write:
            if if_match is not None and if_match != loaded.version:
                raise errors.StaleVersion(f"the match is at version {loaded.version}, not {if_match}")
            record = loaded.record
            if record["state"] is None or record["status"] != "playing":
                raise errors.MatchNotActive(f"the match is {match_status(record)}, not in play")
            if action.get("type") != "resign" and resigned(record, seat):
                # The bot that plays the seat on moves for it; the person's move would race it.
                raise errors.NotYourTurn("you have resigned: a bot plays this seat now")
            step = game_of(record).apply(record["state"], seat, action)
            response = self.view(match_id, record, loaded.version + 1, seat, step)
            idem = None
            if idem_key is not None:
                stored = codec.dumps({"body": body_hash(action), "response": response})
                idem = (idem_key, stored, self.config.IDEMPOTENCY_TTL)
            return Write(step.events, response, idem, step)

        return self.update(match_id, loaded, change)

    def start_round(self, match_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)

        def change(loaded: Loaded) -> Write:
            record = loaded.record
            if match_status(record) != "round_over":
                raise errors.MatchNotActive("the next round starts only after a round is over")
            if host_seat(record) != seat:
                raise errors.Forbidden("only the host starts the next round")
            step = game_of(record).start_next_round(record["state"])
            return Write(step.events, self.view(match_id, record, loaded.version + 1, seat, step), step=step)

        return self.update(match_id, loaded, change)

    def end(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The host ends the match now (games with `target_wins`). It takes no If-Match, so a
        race with another writer is retried like any other write (docs/architecture.md)."""
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)

        def change(loaded: Loaded) -> Write:
            record = loaded.record
            if host_seat(record) != seat:
                raise errors.Forbidden("only the host ends the match")
            if match_status(record) not in ("active", "round_over"):
                raise errors.MatchNotActive(f"the match is {match_status(record)}")
            step = game_of(record).end_match(record["state"])
            return Write(step.events, self.view(match_id, record, loaded.version + 1, seat, step), step=step)

        return self.update(match_id, loaded, change)
