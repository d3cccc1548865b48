"""Seats and tokens: creating a match, joining an open seat, leaving (docs/api.md)."""

from __future__ import annotations

import random
import secrets
import time
from typing import Any

from engines.registry import GAMES
from service import errors
from service.identity.callers import Caller
from service.identity.players import Player
from service.identity.quotas import Quotas
from service.identity.tokens import hash_token, new_token
from service.matches import clocks, fair_seeds, invitations, membership, rated, tenure
from service.matches.following import Following
from service.matches.invitations import Invitations
from service.matches.lobby_index import LobbyIndex
from service.matches.match import Match, match_options, new_id
from service.matches.options import engine_options
from service.matches.repository import MatchRepository, Write

RESIGN = {"type": "resign"}
# Claims of one seat in one match at most (docs/api.md, "Invitations").
MAX_CLAIMS = 10


class Seats:
    """Who sits where: creating a match, joining, invitations, leaving."""

    def __init__(
        self,
        repo: MatchRepository,
        following: Following,
        quotas: Quotas,
        lobby: LobbyIndex,
        invitations: Invitations,
    ):
        self.repo = repo
        self.players = repo.players
        self.config = repo.config
        self.quotas = quotas
        self.lobby = lobby
        self.invitations = invitations
        self.view = following.view

    def create(
        self,
        body: dict[str, Any],
        caller: Caller | None = None,
        match_id: str | None = None,
        players: dict[int, Player] | None = None,
        app: str | None = None,
        quick: bool = False,
    ) -> dict[str, Any]:
        """A new match. `caller`: who creates it (its seats bound to players as it may, and
        counted against its quotas: service/matches/membership.py, `quick` when quick play hosts it);
        None for the service's own callers. A rematch (service/matches/rematch.py) names the new match's
        id, its seats' players and its app."""
        game, seats_in = GAMES[body["game"]], body["seats"]
        options = match_options(game, body.get("options") or {}, len(seats_in))
        deck, seed = self._check_seeding(game, options, body)
        server_seed, server_seed_hash = fair_seeds.new_server_seed()
        match_id = match_id or new_id()
        seats, tokens = _new_seats(seats_in)
        bound = membership.bind_created(seats, seats_in, tokens, caller, self.players, players)
        fair_seeds.give_creator_seed(seats, body.get("client_seed"))
        record: dict[str, Any] = {
            "game": game.id,
            "options": options,
            "seats": seats,
            # Without a seed of the creator's, the deck seed is chained from the seeds when the
            # match starts (_start); until then it is the chain with no client seed, which is
            # what an aborted match (its seats left and took their seeds along) publishes.
            "seed": seed if seed is not None else fair_seeds.chained_seed(server_seed, [None] * len(seats)),
            "chained": seed is None,
            "server_seed": server_seed,
            "server_seed_hash": server_seed_hash,
            "seeded_by_client": seed is not None or deck is not None,
            "deck": deck,
            "status": "waiting",
            "state": None,
            **clocks.new_match(body.get("options") or {}),
            "created": round(time.time(), 3),  # to the millisecond, as the commit stamps "at"
            "joins": sum(s["kind"] == "human" for s in seats),
            "listed": bool(body.get("listed")),
            # Keys the bots' randomness (service/matches/bots.py, bot_rng); never shown to anyone.
            "bot_key": secrets.token_hex(32),
            **_owner(caller, app),
        }
        rated.check_created(record)
        match = Match(match_id, record)
        events: list[dict[str, Any]] = [{"type": "match_created", "game": game.id}]
        if not any(s["kind"] == "open" for s in seats):
            events += _start(match)
        held = self._take_quotas(caller, match_id, record, quick) if caller is not None else []
        if record["listed"] and record["status"] == "waiting":
            # Into the lobby before the commit, so the lobby never misses a listed waiting match;
            # readers drop entries that went stale (service/matches/lobby_index.py).
            self.lobby.add(match_id, record)
        if not self.repo.add(match, events):
            raise self._collided(caller, held, match_id)
        for player_id in bound:
            self.players.sat_down(player_id, match_id)
        self.repo.app_index.created(caller, match_id, record)
        return _created(match_id, seats, tokens)

    def _check_seeding(self, game: Any, options: dict[str, Any], body: dict[str, Any]) -> tuple[Any, Any]:
        """The creator's deck and seed, each refused where this server or the seats forbid it."""
        deck, seed = body.get("deck"), body.get("seed")
        if deck is not None:
            self._check_deck(game, options, deck)
        if seed is not None and not self.config.ALLOW_STACKED_DECK:
            _check_client_seed(body["seats"])
        return deck, seed

    def _take_quotas(self, caller: Caller, match_id: str, record: dict[str, Any], quick: bool) -> list[str]:
        return membership.take_quotas(
            self.quotas, self.config, caller, match_id, record, self._live, self._waiting, quick
        )

    def _collided(self, caller: Caller | None, held: list[str], match_id: str) -> errors.Conflict:
        """A new match whose id was taken: the quota places it took given back; the error."""
        for kind in held:
            self.quotas.release(caller.owner if caller else "", kind, match_id)
        return errors.Conflict("match id collision, try again")

    def _live(self, match_id: str) -> bool | None:
        match = self.repo.find(match_id)
        return None if match is None else not match.over()

    def _waiting(self, match_id: str) -> bool | None:
        match = self.repo.find(match_id)
        return None if match is None else match.record["status"] == "waiting"

    def _check_deck(self, game: Any, options: dict[str, Any], deck: list[str]) -> None:
        if not self.config.ALLOW_STACKED_DECK:
            raise errors.Forbidden("this server does not accept stacked decks")
        full = game.full_deck(engine_options(game, options))
        if sorted(deck) != sorted(full):
            raise errors.InvalidRequest(
                f"deck must be a permutation of the game's {len(full)} cards",
                {"deck": ["not a permutation of the full deck"]},
            )

    def join(
        self, match_id: str, name: str | None, client_seed: str | None = None, caller: Caller | None = None
    ) -> dict[str, Any]:
        """Take the first open seat: with a new token, or bound to the calling player."""
        player = caller.player if caller is not None else None

        def change(match: Match) -> Write:
            record = match.record
            if record["status"] != "waiting":
                raise errors.MatchNotActive("this match has no open seat to join")
            seat = next((s for s in record["seats"] if s["kind"] == "open" and not s.get("reserved")), None)
            if seat is None:
                # A rematch's seat is its person's (service/matches/rematch.py): never a stranger's.
                raise errors.MatchNotActive(
                    "this rematch's open seats are held for the players of the match before it,"
                    " who take them by asking for the rematch too"
                )
            if record["joins"] >= self.config.MAX_JOINS:
                # Each join mints a token (and its own rate allowance): a join-and-leave loop
                # must end somewhere.
                raise errors.MatchNotActive(
                    f"this match has been joined {record['joins']} times, its limit; create a new one"
                )
            rated.check_joiner(record, player)
            if player is not None and match.seat_of_player(player.id) is not None:
                raise errors.Conflict("this player already sits in this match")
            token = None if player is not None else new_token()
            record["joins"] += 1
            if player is not None:
                membership.bind(seat, player)
                if name:
                    seat["name"] = name
            else:
                seat.update(
                    kind="human", name=name or f"Player {seat['seat'] + 1}", token=hash_token(token or "")
                )
            seat["joined"] = record["joins"]
            tenure.hand_on(seat)  # whatever credential the open seat still had ends here
            seat.pop("left", None)
            if client_seed is not None:
                seat["client_seed"] = client_seed
            events: list[dict[str, Any]] = [{"type": "join", "seat": seat["seat"], "name": seat["name"]}]
            if not any(s["kind"] == "open" for s in record["seats"]):
                events += _start(match)
            answer = {"seat": seat["seat"], "version": match.next_version}
            answer.update({"player": player.external} if player is not None else {"token": token})
            return Write(events, answer)

        joined = self.repo.update(match_id, None, change)
        if player is not None:
            self.players.sat_down(player.id, match_id)
            self.repo.app_index.joined(caller, match_id)
        return joined

    def invite(self, match_id: str, token: str | None) -> dict[str, Any]:
        """An invitation code for the token's seat: whoever claims it gets the seat with a new
        token and this one dies (docs/api.md, "Invitations"). A new invitation replaces the
        seat's last one; only the code's hash is stored, beside the match and not in it
        (service/matches/invitations.py): no version, no event, nothing another seat sees changes, so
        a loop of invitations holds up nobody and grows nothing."""
        match = self.repo.load(match_id, token=token)
        seat = self.repo.authenticate(match, token)
        assert seat is not None  # a token is required here: authenticate raised otherwise
        entry = match.record["seats"][seat]
        _check_handable(match, seat)
        _check_claims(entry)
        code = new_token()
        if not self.invitations.put(match_id, seat, hash_token(code), invitations.holder(entry)):
            raise errors.NotFound(f"no match with id {match_id!r}")
        return {"seat": seat, "code": code, "version": match.version}

    def claim(self, match_id: str, code: str, name: str | None) -> dict[str, Any]:
        """Take the seat an invitation code was made for: a fresh token for it, the old one dead.

        The invitation is taken first (once: of two claims of one code, one gets it), then the
        hand-over is committed only while the seat is still held by whoever made it; if the
        commit does not happen, the invitation is put back (unless a new one replaced it)."""
        match = self.repo.load(match_id)
        found = self.invitations.find(match_id, len(match.record["seats"]), hash_token(code))
        if found is None or not self.invitations.take(match_id, found[0], found[2]):
            raise _not_valid()
        seat, held_by, stored = found
        token = new_token()

        def change(match: Match) -> Write:
            entry = match.record["seats"][seat]
            if invitations.holder(entry) != held_by:
                raise _not_valid()  # its maker no longer holds the seat
            _check_handable(match, seat)
            _check_claims(entry)
            entry["claims"] = entry.get("claims", 0) + 1
            entry["token"] = hash_token(token)
            tenure.hand_on(entry)  # the old token's feeds end here
            for gone in ("player", "app", "external"):
                # A player's seat handed over is no longer the player's: its token stops acting in it.
                entry.pop(gone, None)
            if name:
                entry["name"] = name
            events = [{"type": "claim", "seat": seat, "name": entry["name"]}]
            answer = {"seat": seat, "token": token, "name": entry["name"], "version": match.next_version}
            return Write(events, answer)

        try:
            return self.repo.update(match_id, match, change)
        except BaseException:
            self.invitations.restore(match_id, seat, stored)
            raise

    def leave(self, match_id: str, token: str | None) -> dict[str, Any]:
        def change(match: Match) -> Write:
            record = match.record
            # Checked on the match as this attempt loaded it: a retry after another writer got
            # in first must not act on a seat the token no longer holds (freed meanwhile and
            # taken by someone else).
            seat = self.repo.authenticate(match, token)
            assert seat is not None  # a token is required here: authenticate raised otherwise
            entry = record["seats"][seat]
            status = match.status()
            events: list[dict[str, Any]] = [{"type": "leave", "seat": seat}]
            if status == "waiting":
                # Free the seat: it is open again and the token is dead.
                entry.update(kind="open", name=None, token=None, joined=None)
                tenure.hand_on(entry)  # its feeds end here
                # The next occupant brings its own; the leaver's invitation dies with its token.
                for gone in ("client_seed", "player", "app", "external", "invite"):
                    entry.pop(gone, None)
                if not any(s["kind"] == "human" for s in record["seats"]):
                    record["status"] = "aborted"
                    events.append({"type": "match_over", "winners": [], "reason": "aborted"})
            elif status in ("active", "round_over"):
                if entry.get("left"):
                    raise errors.MatchNotActive("you already left this match")
                if not match.resigned(seat):
                    # A seat that resigned already (the match plays on without it) just leaves.
                    events = match.apply(seat, dict(RESIGN)).events
                    events.append({"type": "leave", "seat": seat})
                entry["left"] = True
            else:
                raise errors.MatchNotActive(f"the match is {status}")
            return Write(events, self.view(match, seat, match.next_version))

        return self.repo.update(match_id, None, change)


def _owner(caller: Caller | None, app: str | None) -> dict[str, str]:
    """The app whose key (or player) made the match, or a rematch's match's: its webhooks hear of
    the match (service/matches/notices.py) whoever sits in it."""
    owner = caller.app.id if caller is not None and caller.app is not None else app
    return {"app": owner} if owner is not None else {}


def _start(match: Match) -> list[dict[str, Any]]:
    """Deal the first round: the match leaves `waiting`."""
    record = match.record
    fair_seeds.start_seed(record)
    if record["deck"] is None:
        # The service shuffles the first deck itself so history can reveal it; later
        # rounds shuffle inside the engine from the same secret seed.
        deck = match.game.full_deck(engine_options(match.game, record["options"]))
        random.Random(f"cardtable-deck:{record['seed']}").shuffle(deck)
        record["deck"] = deck
    # The deal key salts every deal commitment: drawn from the OS, kept only inside the
    # engine state, so nothing a seat sees (nor the seed) predicts a salt.
    return [{"type": "match_started"}, *match.deal(secrets.token_hex(32))]


def _created(match_id: str, seats: list[dict[str, Any]], tokens: dict[int, str]) -> dict[str, Any]:
    """Create's answer: the match id, every seat with the token of each human one, version 0."""
    return {
        "id": match_id,
        "seats": [
            {
                "seat": s["seat"],
                "kind": s["kind"],
                **({"token": tokens[s["seat"]]} if s["seat"] in tokens else {}),
                **({"player": s["external"]} if "external" in s else {}),
                **({"reserved": True} if s.get("reserved") else {}),
            }
            for s in seats
        ],
        "version": 0,
    }


def _new_seats(seats_in: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The seats as stored and the tokens of the human ones (only their hashes are stored)."""
    tokens: dict[int, str] = {}
    seats = []
    for i, s in enumerate(seats_in):
        entry: dict[str, Any] = {"seat": i, "kind": s["kind"], "name": s.get("name")}
        if s.get("reserved"):
            # A rematch's seat held for its person (service/matches/rematch.py); create's body has none.
            entry["reserved"] = s["reserved"]
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


def _not_valid() -> errors.Forbidden:
    return errors.Forbidden("this invitation code is not valid: claimed already, replaced, or never made")


def _check_claims(entry: dict[str, Any]) -> None:
    """A seat is handed on by claim at most MAX_CLAIMS times a match: each claim is a version
    and an event every seat sees, so a loop of invitations and claims must end somewhere."""
    if entry.get("claims", 0) >= MAX_CLAIMS:
        raise errors.MatchNotActive(
            f"this seat has been handed on {MAX_CLAIMS} times, the most a seat is in one match"
        )


def _check_handable(match: Match, seat: int) -> None:
    """A seat may be handed over while its match is not over and its person still plays it."""
    if match.over():
        raise errors.MatchNotActive(f"the match is {match.status()}: its seats can no longer be handed over")
    if match.record["seats"][seat].get("left") or match.resigned(seat):
        raise errors.MatchNotActive("this seat has left the match")


def _check_client_seed(seats: list[dict[str, Any]]) -> None:
    """A seed chosen by the creator is refused when someone else could be dealt from it."""
    if any(s["kind"] == "open" for s in seats):
        raise errors.InvalidRequest(
            "a seed of your choice would tell you the cards of whoever takes an open seat: leave out"
            " seed, or fill every seat yourself (human seats you create, or bots)",
            {"seed": ["not allowed with open seats on this server"]},
        )
