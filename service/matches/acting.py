"""Acting: a seat's move (with If-Match and Idempotency-Key), the next round, ending the match
(docs/api.md, "Requests")."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, cast

import redis

from engines.legal import without_mark
from service import codec, errors
from service.matches.following import Following
from service.matches.match import Match
from service.matches.repository import MatchRepository, Write
from service.matches.store import IN_PROGRESS

log = logging.getLogger("cardtable.matches")


class Acting:
    """A seat's changes to a match in play: moves, the next round, ending it."""

    def __init__(self, repo: MatchRepository, following: Following):
        self.repo = repo
        self.store = repo.store
        self.view = following.view

    def act(
        self,
        match_id: str,
        token: str | None,
        action: dict[str, Any],
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        # A filled-in template sent back with its `template` mark is the same move without it
        # (engines/legal.py): dropped before the engine, which takes no such field, and before
        # the Idempotency-Key's body hash, so a retry with or without the mark gets one answer.
        action = without_mark(action)
        match = self.repo.load(match_id, token=token)
        seat = self.repo.authenticate(match, token)
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
                return cast(dict[str, Any], first["response"])  # the answer stored as JSON
        try:
            return self._act(match, seat, action, if_match, idem_key)
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

    def _act(
        self, match: Match, seat: int, action: dict[str, Any], if_match: int | None, idem_key: str | None
    ) -> dict[str, Any]:
        def change(match: Match) -> Write:
            if if_match is not None and if_match != match.version:
                raise errors.StaleVersion(f"the match is at version {match.version}, not {if_match}")
            if match.record["state"] is None or match.record["status"] != "playing":
                raise errors.MatchNotActive(f"the match is {match.status()}, not in play")
            if action.get("type") != "resign" and match.resigned(seat):
                # The bot that plays the seat on moves for it; the person's move would race it.
                raise errors.NotYourTurn("you have resigned: a bot plays this seat now")
            step = match.apply(seat, action)
            response = self.view(match, seat, match.next_version)
            idem = None
            if idem_key is not None:
                stored = codec.dumps({"body": body_hash(action), "response": response})
                idem = (idem_key, stored, self.repo.config.IDEMPOTENCY_TTL)
            return Write(step.events, response, idem)

        return cast(dict[str, Any], self.repo.update(match.id, match, change))  # the Write's result

    def start_round(self, match_id: str, token: str | None) -> dict[str, Any]:
        match = self.repo.load(match_id, token=token)
        seat = self.repo.authenticate(match, token)

        def change(match: Match) -> Write:
            if match.status() != "round_over":
                raise errors.MatchNotActive("the next round starts only after a round is over")
            if match.host_seat() != seat:
                raise errors.Forbidden("only the host starts the next round")
            step = match.start_next_round()
            return Write(step.events, self.view(match, seat, match.next_version))

        return cast(dict[str, Any], self.repo.update(match_id, match, change))  # the Write's result

    def end(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The host ends the match now (games with `target_wins`). It takes no If-Match, so a
        race with another writer is retried like any other write (docs/architecture.md)."""
        match = self.repo.load(match_id, token=token)
        seat = self.repo.authenticate(match, token)

        def change(match: Match) -> Write:
            if match.host_seat() != seat:
                raise errors.Forbidden("only the host ends the match")
            if match.status() not in ("active", "round_over"):
                raise errors.MatchNotActive(f"the match is {match.status()}")
            step = match.end_match()
            return Write(step.events, self.view(match, seat, match.next_version))

        return cast(dict[str, Any], self.repo.update(match_id, match, change))  # the Write's result


def body_hash(body: Any) -> str:
    """What an idempotent answer keeps of the action it answered, to tell the same key sent with
    another body."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
