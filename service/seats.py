"""Seats and tokens: creating a match, joining an open seat, leaving (docs/api.md)."""

from __future__ import annotations

import random
import secrets
import time
from typing import Any

from engines.registry import GAMES
from service import errors, hints
from service.following import FollowingMixin
from service.lobby_index import LobbyIndex
from service.match_core import Write, game_of, hash_token, match_options, match_status, new_token, resigned
from service.store import Loaded

RESIGN = {"type": "resign"}


class SeatsMixin(FollowingMixin):
    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        game = GAMES[body["game"]]
        seats_in = body["seats"]
        options = match_options(game, body.get("options") or {}, len(seats_in))
        deck = body.get("deck")
        if deck is not None:
            self._check_deck(game, options, deck)
        seed = body.get("seed")
        if seed is not None and not self.config.ALLOW_STACKED_DECK:
            _check_client_seed(seats_in)
        seeded_by_client = seed is not None or deck is not None
        if seed is None:
            seed = secrets.randbits(62)
        match_id = secrets.token_hex(8)
        seats, tokens = _new_seats(seats_in)
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
            # Keys the bots' randomness (service/bots.py, bot_rng); never shown to anyone.
            "bot_key": secrets.token_hex(32),
        }
        events: list[dict[str, Any]] = [{"type": "match_created", "game": game.id}]
        if not any(s["kind"] == "open" for s in seats):
            events += self._start(record)
        if record["listed"] and record["status"] == "waiting":
            # Into the lobby before the commit, so the lobby never misses a listed waiting match;
            # readers drop entries that went stale (service/lobby_index.py).
            LobbyIndex(self.store.redis).add(match_id, record)
        if not self._commit(match_id, None, record, events):
            raise errors.Conflict("match id collision, try again")
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

    def _check_deck(self, game: Any, options: dict[str, Any], deck: list[str]) -> None:
        if not self.config.ALLOW_STACKED_DECK:
            raise errors.Forbidden("this server does not accept stacked decks")
        full = game.full_deck(hints.engine_options(options))
        if sorted(deck) != sorted(full):
            raise errors.InvalidRequest(
                f"deck must be a permutation of the game's {len(full)} cards",
                {"deck": ["not a permutation of the full deck"]},
            )

    def join(self, match_id: str, name: str | None) -> dict[str, Any]:
        def change(loaded: Loaded) -> Write:
            record = loaded.record
            if record["status"] != "waiting":
                raise errors.MatchNotActive("this match has no open seat to join")
            seat = next(s for s in record["seats"] if s["kind"] == "open")
            token = new_token()
            record["joins"] += 1
            seat.update(kind="human", name=name or f"Player {seat['seat'] + 1}", token=hash_token(token))
            seat["joined"] = record["joins"]
            seat.pop("left", None)
            events: list[dict[str, Any]] = [{"type": "join", "seat": seat["seat"], "name": seat["name"]}]
            if not any(s["kind"] == "open" for s in record["seats"]):
                events += self._start(record)
            return Write(events, {"seat": seat["seat"], "token": token, "version": loaded.version + 1})

        return self._update(match_id, None, change)

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

    def leave(self, match_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        seat = self.authenticate(loaded.record, token)
        assert seat is not None  # a token is required here: authenticate raised otherwise

        def change(loaded: Loaded) -> Write:
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
                    raise errors.MatchNotActive("you already left this match")
                if not resigned(record, seat):
                    # A seat that resigned already (the match plays on without it) just leaves.
                    events = game_of(record).apply(record["state"], seat, dict(RESIGN)).events
                    events.append({"type": "leave", "seat": seat})
                entry["left"] = True
            else:
                raise errors.MatchNotActive(f"the match is {status}")
            return Write(events, self.view(match_id, record, loaded.version + 1, seat))

        return self._update(match_id, loaded, change)


def _new_seats(seats_in: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The seats as stored and the tokens of the human ones (only their hashes are stored)."""
    tokens: dict[int, str] = {}
    seats = []
    for i, s in enumerate(seats_in):
        entry: dict[str, Any] = {"seat": i, "kind": s["kind"], "name": s.get("name")}
        if s["kind"] == "human":
            tokens[i] = new_token()
            entry["token"] = hash_token(tokens[i])
            entry["joined"] = len(tokens)
            entry["name"] = s.get("name") or f"Player {i + 1}"
        elif s["kind"] == "bot":
            entry["level"] = s.get("level") or "medium"
            entry["name"] = s.get("name") or f"{entry['level'].capitalize()} bot"
        seats.append(entry)
    return seats, tokens


def _check_client_seed(seats: list[dict[str, Any]]) -> None:
    """A seed chosen by the creator is refused when someone else could be dealt from it."""
    if any(s["kind"] == "open" for s in seats):
        raise errors.InvalidRequest(
            "a seed of your choice would tell you the cards of whoever takes an open seat: leave out"
            " seed, or fill every seat yourself (human seats you create, or bots)",
            {"seed": ["not allowed with open seats on this server"]},
        )
