"""Seats and tokens: creating a match, joining an open seat, invitations, leaving (docs/api.md).

The use cases: who may take, hand over or leave a seat, and the writes around a new match's
commit; what each does to the match is `Match`'s (service/matches/match.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engines.registry import GAMES
from service import errors
from service.identity.callers import Caller
from service.identity.players import Player
from service.identity.quotas import Quotas
from service.identity.tokens import hash_token, new_token
from service.matches import invitations, listings, membership, rated_matches
from service.matches.following import Following
from service.matches.invitations import Invitations
from service.matches.lobby_index import LobbyIndex
from service.matches.match import Match
from service.matches.new_match import match_options, new_id
from service.matches.options import engine_options
from service.matches.repository import MatchRepository, Write


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
        tournament: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A new match. `caller`: who creates it (its seats bound to players as it may, and
        counted against its quotas: service/matches/membership.py, `quick` when quick play hosts it);
        None for the service's own callers. A rematch (service/matches/rematch.py) names the new match's
        id, its seats' players and its app; a tournament's round (service/tournaments/running.py) those
        and `tournament`, `{"id", "round"}`, kept in the record: its end feeds the standings."""
        match, tokens, bound = self._new_match(body, caller, match_id or new_id(), players, app, tournament)
        events: list[dict[str, Any]] = [{"type": "match_created", "game": match.game.id}]
        if match.full():
            events += match.start()
        self._store_new(match, events, caller, bound, quick)
        return _created(match.id, match.record["seats"], tokens)

    def _new_match(
        self,
        body: dict[str, Any],
        caller: Caller | None,
        match_id: str,
        chosen: dict[int, Player] | None,
        app: str | None,
        tournament: dict[str, Any] | None = None,
    ) -> tuple[Match, dict[int, str], list[str]]:
        """The match create's `body` asks for, not stored yet: its seeding and its rated seats
        checked, its seats bound to players as `caller` may and to the `chosen` ones (a
        rematch's). With the tokens of its other human seats, and the ids of the players bound."""
        game, seats_in = GAMES[body["game"]], body["seats"]
        asked = body.get("options") or {}
        options = match_options(game, asked, len(seats_in))
        deck, seed = self._check_seeding(game, options, body)
        bound = membership.bindings(seats_in, caller, self.players, chosen)
        match, tokens = Match.new(
            match_id,
            game,
            options,
            seats_in,
            bound,
            seed=seed,
            deck=deck,
            client_seed=body.get("client_seed"),
            clock_asked=asked.get("turn_seconds") is not None,
            listed=bool(body.get("listed")),
            app=_owner(caller, app),
            tournament=tournament,
        )
        rated_matches.check_created(match.record)
        return match, tokens, [p.id for p in bound.values()]

    def _store_new(
        self, match: Match, events: list[dict[str, Any]], caller: Caller | None, bound: list[str], quick: bool
    ) -> None:
        """Commit a new match with the writes around it: its creator's quotas (given back should
        its id be taken) and the lobby's entry before, the players' lists and the app's index after."""
        match_id, record = match.id, match.record
        held = self._take_quotas(caller, match_id, record, quick) if caller is not None else []
        if record["listed"] and record["status"] == "waiting":
            # Into the lobby before the commit, so the lobby never misses a listed waiting match;
            # readers drop entries that went stale (service/matches/lobby_index.py).
            self.lobby.add(match_id, record)
        # Its players' lists and its app's index, outside its slot, ride its commit's outbox.
        app_id = caller.app.id if caller is not None and caller.app is not None else None
        if not self.repo.add(match, events, listings.created(record, bound, app_id)):
            raise self._collided(caller, held, match_id)

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
        self,
        match_id: str,
        name: str | None,
        client_seed: str | None = None,
        caller: Caller | None = None,
        choose: Callable[[Match], int] | None = None,
    ) -> dict[str, Any]:
        """Take the first open seat, or the one `choose` picks from the match as the commit
        reads it (rated quick play's Spades seat: service/matches/lobby_rated.py): with a new
        token, or bound to the calling player."""
        player = caller.player if caller is not None else None

        def change(match: Match) -> Write:
            seat = self._seat_to_join(match, player)
            seat = choose(match) if choose is not None else seat
            token = None if player is not None else new_token()
            events = match.join(seat, player, name, token, client_seed)
            answer: dict[str, Any] = {"seat": seat, "version": match.next_version}
            answer.update({"player": player.external} if player is not None else {"token": token})
            # A player's lists and its app's index, outside the match's slot, ride the outbox.
            return Write(events, answer, effects=listings.joined(player, match.record, seat))

        return cast(dict[str, Any], self.repo.update(match_id, None, change))  # the Write's result

    def _seat_to_join(self, match: Match, player: Player | None) -> int:
        """The seat a join takes, or why none: the match started, its open seats are held for a
        rematch's people, it was joined too often, or the player may not or does already sit."""
        record = match.record
        if record["status"] != "waiting":
            raise errors.MatchNotActive("this match has no open seat to join")
        seat = match.open_seat()
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
        rated_matches.check_joiner(record, player)
        if player is not None and match.seat_of_player(player.id) is not None:
            raise errors.Conflict("this player already sits in this match")
        return seat

    def invite(self, match_id: str, token: str | None) -> dict[str, Any]:
        """An invitation code for the token's seat: whoever claims it gets the seat with a new
        token and this one dies (docs/api.md, "Invitations"). A new invitation replaces the
        seat's last one; only the code's hash is stored, beside the match and not in it
        (service/matches/invitations.py): no version, no event, nothing another seat sees changes, so
        a loop of invitations holds up nobody and grows nothing."""
        match = self.repo.load(match_id, token=token)
        seat = self.repo.authenticate(match, token)
        assert seat is not None  # a token is required here: authenticate raised otherwise
        match.check_hand_over(seat)
        code = new_token()
        holder = invitations.holder(match.record["seats"][seat])
        if not self.invitations.put(match_id, seat, hash_token(code), holder):
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
            if invitations.holder(match.record["seats"][seat]) != held_by:
                raise _not_valid()  # its maker no longer holds the seat
            events = match.claim(seat, token, name)
            named = match.record["seats"][seat]["name"]
            answer = {"seat": seat, "token": token, "name": named, "version": match.next_version}
            return Write(events, answer)

        try:
            return cast(dict[str, Any], self.repo.update(match_id, match, change))  # the Write's result
        except BaseException:
            self.invitations.restore(match_id, seat, stored)
            raise

    def leave(self, match_id: str, token: str | None) -> dict[str, Any]:
        def change(match: Match) -> Write:
            # Checked on the match as this attempt loaded it: a retry after another writer got
            # in first must not act on a seat the token no longer holds (freed meanwhile and
            # taken by someone else).
            seat = self.repo.authenticate(match, token)
            assert seat is not None  # a token is required here: authenticate raised otherwise
            events = match.leave(seat)
            return Write(events, self.view(match, seat, match.next_version))

        return cast(dict[str, Any], self.repo.update(match_id, None, change))  # the Write's result


def _owner(caller: Caller | None, app: str | None) -> str | None:
    """The app whose key (or player) made the match, or a rematch's match's: its webhooks hear of
    the match (service/matches/notices.py) whoever sits in it."""
    return caller.app.id if caller is not None and caller.app is not None else app


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


def _not_valid() -> errors.Forbidden:
    return errors.Forbidden("this invitation code is not valid: claimed already, replaced, or never made")


def _check_client_seed(seats: list[dict[str, Any]]) -> None:
    """A seed chosen by the creator is refused when someone else could be dealt from it."""
    if any(s["kind"] == "open" for s in seats):
        raise errors.InvalidRequest(
            "a seed of your choice would tell you the cards of whoever takes an open seat: leave out"
            " seed, or fill every seat yourself (human seats you create, or bots)",
            {"seed": ["not allowed with open seats on this server"]},
        )
