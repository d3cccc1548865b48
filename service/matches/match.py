"""A match as the service holds it: the stored record, its version and events, and what the
engine says of it now (docs/architecture.md, "Matches and versions"), and every change of its
record: the match is the one owner of the record's shape and of its lifecycle.

The use cases (service/matches/seats.py, rematch.py, hints.py, acting.py, bots.py, ...) check
who may do what and call the methods below; no module but this one writes into a record
(tests/test_code_shape.py checks it). Every hand-over of a seat (a join, a leave while the match
waits, a claim, an erasure) raises the seat's tenure here (service/matches/tenure.py), so no
caller can forget it.

`Match.step` is the engine's `Step` for the state as it is: asked of the engine once, when the
match is loaded (nearly every caller needs it, and a plain attribute is read faster than a
lazy one on the hot path), and replaced by the Step of every engine change made through the
match (`apply`, `start_next_round`, ...), so no question (service/matches/match_questions.py)
asks the engine again. The record is changed in place; the repository
(service/matches/repository.py) stores it.
"""

from __future__ import annotations

import random
import secrets
import time
from typing import Any

from engines.base import Event, Game, Step
from engines.registry import GAMES
from service import errors
from service.identity.players import Player
from service.identity.tokens import hash_token
from service.matches import fair_seeds, tenure
from service.matches.match_questions import MatchQuestions
from service.matches.new_match import bind_seat, new_seats, seeding
from service.matches.options import engine_options

# Claims of one seat in one match at most (docs/api.md, "Invitations").
MAX_CLAIMS = 10
# What a seat that leaves a match in play does first, unless it did already.
RESIGN = {"type": "resign"}


class Match(MatchQuestions):
    """A match: its stored record, version and events, the engine's `step`, and every change of
    the record; the questions asked of it are `MatchQuestions`'."""

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

    # --- the lifecycle: creation, seats taken, left and handed over, the end ---------------
    @classmethod
    def new(
        cls,
        match_id: str,
        game: Game,
        options: dict[str, Any],
        seats_in: list[dict[str, Any]],
        players: dict[int, Player],
        *,
        seed: int | None,
        deck: list[str] | None,
        client_seed: str | None,
        clock_asked: bool,
        listed: bool,
        app: str | None,
        tournament: dict[str, Any] | None = None,
    ) -> tuple[Match, dict[int, str]]:
        """A new match, waiting and not stored yet, and the tokens of its human seats not bound to
        a player (only their hashes are stored). `options`: validated (`new_match.match_options`);
        `seats_in`: the seats as create's body (or a rematch) asks for them; `players`: the seats
        bound to players (service/matches/membership.py, `bindings`); `seed` and `deck`: the
        creator's own, if any; `client_seed`: the creator's, for its first human seat;
        `clock_asked`: whether the creator asked for `turn_seconds`; `app`: the app whose webhooks
        hear of the match (service/matches/notices.py) whoever sits in it; `tournament`: the
        tournament and round it is a match of (its end feeds the standings)."""
        seats, tokens = new_seats(seats_in, players)
        if client_seed is not None:
            # Every human seat of a create is the creator's, and more seeds from one party would
            # add nothing: the first one's (the schema asks for one).
            next(s for s in seats if s["kind"] == "human")["client_seed"] = client_seed
        record: dict[str, Any] = {
            "game": game.id,
            "options": options,
            "seats": seats,
            **seeding(len(seats), seed, deck),
            "status": "waiting",
            "state": None,
            # No clock runs yet. An asked clock runs on every human's turn, even a lone human's
            # against bots; Zhol's default one only with two or more humans (`restart_clock`).
            "clock": None,
            "clock_asked": clock_asked,
            "created": round(time.time(), 3),  # to the millisecond, as the commit stamps "at"
            "joins": sum(s["kind"] == "human" for s in seats),
            "listed": listed,
            # Keys the bots' randomness (service/matches/bots.py, bot_rng); never shown to anyone.
            "bot_key": secrets.token_hex(32),
            **({"app": app} if app is not None else {}),
            **({"tournament": tournament} if tournament is not None else {}),
        }
        return cls(match_id, record), tokens

    def start(self) -> list[Event]:
        """Deal the first round: the match leaves `waiting`. The deck seed is fixed from the
        client seeds its seats hold now (docs/api.md, "Fair deals"); a creator's own `seed`
        (and a match stored before server seeds existed) keeps the seed it has."""
        record = self.record
        if record.get("chained"):
            record["seed"] = fair_seeds.chained_seed(record["server_seed"], fair_seeds.client_seeds(record))
        if record["deck"] is None:
            # The service shuffles the first deck itself so history can reveal it; later
            # rounds shuffle inside the engine from the same secret seed.
            deck = self.game.full_deck(engine_options(self.game, record["options"]))
            random.Random(f"cardtable-deck:{record['seed']}").shuffle(deck)
            record["deck"] = deck
        # The deal key salts every deal commitment: drawn from the OS, kept only inside the
        # engine state, so nothing a seat sees (nor the seed) predicts a salt.
        return [{"type": "match_started"}, *self.deal(secrets.token_hex(32))]

    def join(
        self,
        seat: int,
        player: Player | None,
        name: str | None,
        token: str | None,
        client_seed: str | None = None,
    ) -> list[Event]:
        """A person takes the open `seat` (a rematch's reserved one included): bound to `player`,
        or held by `token`; `name` replaces the player's, or names the token's seat. The match
        starts when it was the last open seat. Its events."""
        record = self.record
        entry = record["seats"][seat]
        entry.pop("reserved", None)
        record["joins"] += 1
        if player is not None:
            bind_seat(entry, player)
            if name:
                entry["name"] = name
        else:
            entry.update(kind="human", name=name or f"Player {seat + 1}", token=hash_token(token or ""))
        entry["joined"] = record["joins"]
        tenure.hand_on(entry)  # whatever credential the open seat still had ends here
        entry.pop("left", None)
        if client_seed is not None:
            entry["client_seed"] = client_seed
        events: list[Event] = [{"type": "join", "seat": seat, "name": entry["name"]}]
        return events + self.start() if self.full() else events

    def leave(self, seat: int) -> list[Event]:
        """The person in `seat` leaves. While the match waits the seat is open again (the match
        aborted when no person is left); in play the seat resigns (if it had not) and is marked
        left, and a bot plays it on where the game goes on. Its events."""
        entry = self.record["seats"][seat]
        status = self.status()
        events: list[Event] = [{"type": "leave", "seat": seat}]
        if status == "waiting":
            # Free the seat: it is open again and the token is dead.
            entry.update(kind="open", name=None, token=None, joined=None)
            tenure.hand_on(entry)  # its feeds end here
            # The next occupant brings its own; the leaver's invitation dies with its token.
            for gone in ("client_seed", "player", "app", "external", "invite"):
                entry.pop(gone, None)
            if not any(s["kind"] == "human" for s in self.record["seats"]):
                events += self.abort("aborted")
        elif status in ("active", "round_over"):
            if entry.get("left"):
                raise errors.MatchNotActive("you already left this match")
            if not self.resigned(seat):
                # A seat that resigned already (the match plays on without it) just leaves.
                events = self.apply(seat, dict(RESIGN)).events
                events.append({"type": "leave", "seat": seat})
            entry["left"] = True
        else:
            raise errors.MatchNotActive(f"the match is {status}")
        return events

    def check_hand_over(self, seat: int) -> None:
        """Refuse to hand `seat` over by invitation: when the match is over, its person no longer
        plays it, or it was handed on MAX_CLAIMS times (each claim is a version and an event
        every seat sees, so a loop of invitations and claims must end somewhere)."""
        if self.over():
            raise errors.MatchNotActive(
                f"the match is {self.status()}: its seats can no longer be handed over"
            )
        entry = self.record["seats"][seat]
        if entry.get("left") or self.resigned(seat):
            raise errors.MatchNotActive("this seat has left the match")
        if entry.get("claims", 0) >= MAX_CLAIMS:
            raise errors.MatchNotActive(
                f"this seat has been handed on {MAX_CLAIMS} times, the most a seat is in one match"
            )

    def claim(self, seat: int, token: str, name: str | None) -> list[Event]:
        """`seat` is handed over to whoever claimed its invitation: held by the new `token` (the
        old one, or its player's, stops acting in it), renamed to `name` if given. Its events."""
        self.check_hand_over(seat)
        entry = self.record["seats"][seat]
        entry["claims"] = entry.get("claims", 0) + 1
        entry["token"] = hash_token(token)
        tenure.hand_on(entry)  # the old token's feeds end here
        for gone in ("player", "app", "external"):
            # A player's seat handed over is no longer the player's: its token stops acting in it.
            entry.pop(gone, None)
        if name:
            entry["name"] = name
        return [{"type": "claim", "seat": seat, "name": entry["name"]}]

    def erase_player(self, player_id: str, names: set[str], erased: str) -> bool:
        """Take an erased player out of the seats (service/privacy/erasure.py): its seat unbound
        and renamed `erased`, and so is an anonymous seat still showing one of its `names`.
        Whether anything changed."""
        changed = False
        for s in self.record["seats"]:
            if s.get("player") == player_id:
                for gone in ("player", "app", "external"):
                    s.pop(gone, None)
                tenure.hand_on(s)  # the player's feeds of the match end (its tokens are gone too)
                s["name"] = erased
                changed = True
            elif s["kind"] == "human" and "player" not in s and s.get("name") in names:
                s["name"] = erased
                changed = True
        return changed

    def abort(self, reason: str, **detail: Any) -> list[Event]:
        """End the match with no winner, `aborted` for `reason` (docs/api.md, "Events"); its
        `match_over` event, with `detail`."""
        self.record["status"] = "aborted"
        return [{"type": "match_over", "winners": [], "reason": reason, **detail}]

    def decline(self) -> list[Event]:
        """A rematch's reserved seats are past their time: aborted, `declined`, and its seats
        held for nobody any more."""
        events = self.abort("declined")
        for s in self.record["seats"]:
            s.pop("reserved", None)
        return events

    def name_rematch(self, rematch_id: str) -> None:
        """The match's rematch is `rematch_id` (service/matches/rematch.py)."""
        self.record["rematch"] = rematch_id

    def forget_rematch(self, rematch_id: str) -> None:
        """The rematch `rematch_id` was not made after all: the match may be asked again."""
        if self.record.get("rematch") == rematch_id:
            del self.record["rematch"]

    def count_hint(self, seat: int, hint: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        """Count a hint given to `seat` (its public `hints_used`) and keep it with the match, never
        shown but to this seat, until the next move (service/matches/hints.py). The answer (the
        hint, the seat, its count, the version) and the event."""
        record = self.record
        used = list(record.get("hints_used") or [0] * len(record["seats"]))
        used[seat] += 1
        record["hints_used"] = used
        answer = {**hint, "seat": seat, "hints_used": used[seat], "version": self.next_version}
        record["hint"] = {"seat": seat, "moves": record.get("moves", 0), "answer": answer}
        return answer, [{"type": "hint", "seat": seat, "hints_used": used[seat]}]

    def stamp(self) -> float:
        """Stamp the version being committed with when it was made (bot-turn latency); the stamp."""
        at = self.record["at"] = round(time.time(), 3)
        return at

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

    # --- the turn clock ---------------------------------------------------------------------
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
