"""Following a match: a seat's view, its events (long-polled through the waiter module,
service/infra/waiters.py) and the published history (docs/api.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import Game, View, redact_event
from engines.registry import GAMES
from service import errors
from service.config import Config
from service.identity.players import holds as holds_token
from service.identity.players import player_of_token
from service.infra.waiters import ClusterHub, Hub, Waiter
from service.matches import fair_seeds, hints, tenure
from service.matches.match import Match
from service.matches.repository import MatchRepository
from service.matches.store import EVENTS_PAGE, channel


class MatchView(View):
    """A seat's view of a match as the API answers it (docs/api.md, "Views"): the engine's view
    (engines.base.View) inside the match's own fields."""

    id: str
    game: str
    options: dict[str, Any]
    version: int
    you: int | None
    host: int | None
    deal_commitment: str | None
    seeded_by_client: bool
    server_seed_hash: str | None


# The events that end a holding of a seat: a leave while the match waits frees it (the token
# dies), a claimed invitation gives it a new token. A feed whose seat changed hands serves up
# to the first of them after what it had checked (service/matches/tenure.py says whether it changed).
SEAT_CHANGES = frozenset({"leave", "claim"})


@dataclass(slots=True)  # one per waiting feed: with slots, 104 bytes where a __dict__ took 136
class Holder:
    """Who a feed serves: the token it was opened with, the seat that token held and that
    seat's tenure then (service/matches/tenure.py), and the seq of the match's events up to which the
    tenure was checked (docs/api.md, "Hidden information": a feed serves a token only while
    it holds its seat)."""

    token: str | None
    seat: int | None
    checked: int
    tenure: int = 0
    lost: bool = False  # the token no longer holds the seat: the feed serves nothing more
    app: str | None = None  # the app of the seat's player: its players are named in match_over
    player: str | None = None  # opened with a player token: that player's id
    address: str | None = None  # a stream's: the client address whose place it holds

    @classmethod
    def of(cls, repo: MatchRepository, match: Match, token: str | None) -> Holder:
        """The holder a request's token makes, authenticated against `match` (401 for a
        token of no seat of the match)."""
        seat = repo.authenticate(match, token, required=False)
        if seat is None:
            return cls(token, None, match.event_count)
        seats = match.record["seats"]
        player = player_of_token(token) if token is not None else None
        held = tenure.of_seat(seats, seat)
        return cls(token, seat, match.event_count, held, app=seats[seat].get("app"), player=player)


class Following:
    """Views, events (long-polled and streamed) and history of matches."""

    def __init__(self, repo: MatchRepository, waiters: Hub | ClusterHub):
        self.repo = repo
        self.store = repo.store
        self.config: Config = repo.config
        self.waiters = waiters

    @staticmethod
    def view(match: Match, seat: int | None, version: int | None = None, app: str | None = None) -> MatchView:
        """`seat`'s view (None: a spectator's) of the match as it is, at `version` (the
        match's own by default: a change's answer shows the version its commit makes).

        `app`: the app the viewer belongs to, which sees its own players' external ids in
        `players[].player` (docs/integrating.md); by default the app of the seat's player."""
        record = match.record
        if app is None and seat is not None:
            app = record["seats"][seat].get("app")
        status = match.status()
        game_view = _game_view(record, seat)
        turn = game_view["turn"].copy()
        clock = record.get("clock")
        if clock and status == "active" and clock["seat"] == turn.get("seat"):
            turn["deadline"] = clock["deadline"]
        return {
            "id": match.id,
            "game": record["game"],
            "options": record["options"],
            "status": status,
            "version": match.version if version is None else version,
            "round": game_view["round"],
            "you": seat,
            "host": match.host_seat(),
            "turn": turn,
            "players": _players(record, game_view, app),
            "hand": game_view["hand"],
            "stock": game_view["stock"],
            "discard": game_view["discard"],
            "table": game_view["table"],
            "scores": game_view["scores"],
            "legal_actions": _legal_actions(match, game_view, status, seat),
            "round_result": game_view.get("round_result"),
            "winners": game_view.get("winners") if status == "finished" else None,
            "deal_commitment": match.game.deal_commitment(record["state"]) if record["state"] else None,
            "seeded_by_client": record.get("seeded_by_client", False),
            # Null only for a match stored before the service drew server seeds.
            "server_seed_hash": record.get("server_seed_hash"),
        }

    def events(
        self,
        match_id: str,
        holder: Holder,
        after: int,
        wait: float,
        client: Any = None,
        match: Match | None = None,
        limit: int = EVENTS_PAGE,
        mark: Any = None,
    ) -> tuple[list[dict[str, Any]], int, int | None]:
        """Events after `after` as `holder`'s seat may see them, long-polling up to `wait`
        seconds: at most `limit` of them, and the seq to ask after next when more follow.

        The wait registers with the process's one subscription (service/infra/waiters.py) and
        holds no Redis connection; `client` (the client's socket) ends it when the client
        hangs up. `match`: the match with its events after `after` (loaded with
        `events_after`), when the caller has just loaded it, and `mark` the waiters' mark of
        the match's channel taken before that load (`Hub.mark`). The wait is capped
        at CARDTABLE_MAX_WAIT (deployments behind proxies with shorter idle timeouts)."""
        wait = min(wait, self.config.MAX_WAIT)
        if match is None or match.events_after is None:
            mark = self.waiters.mark(channel(match_id)) if wait > 0 else None
            match = self.repo.load(match_id, events_after=after)
        version = match.version
        raw, now, tenures = match.events_after or [], None, match.events_tenures
        if not raw and wait > 0:
            with self.waiters.watch(channel(match_id), "long_poll", client) as waiter:
                # Written between the first read and the subscription? Not when the channel
                # was subscribed before that read and nothing came on it since: a long-poll
                # re-polls within the channel's linger, so its usual round makes one read.
                if not self.waiters.quiet_since(channel(match_id), mark):
                    raw, now, tenures = self.store.events_since(match_id, after)
                if not raw:
                    raw, now, tenures = self._wait_events(match_id, after, wait, waiter)
        more = len(raw) > limit
        served = self._served(match_id, holder, raw[:limit], tenures)
        next_after = served[-1]["seq"] if more and not holder.lost else None
        return served, version if now is None else now, next_after

    def stream_events(
        self, match_id: str, holder: Holder, after: int, wait: float, waiter: Waiter, catch_up: bool = True
    ) -> list[dict[str, Any]]:
        """For a stream, which keeps `waiter` registered all its life: the next events after
        `after` (waiting up to `wait` seconds), one read a wake-up. Once `holder.lost` the
        stream must end: its token holds no seat any more.

        `catch_up`: read before waiting. A stream's first call must; later ones need not,
        since its waiter stays registered between them and is woken by every notification
        (and by the hub's reconnection, which may have lost some): a stream that only sends
        its keep-alive makes no read, where 10,000 idle streams cost 667 reads a second."""
        raw, _, tenures = self.store.events_since(match_id, after) if catch_up else ([], None, None)
        if not raw:
            raw, _, tenures = self._wait_events(match_id, after, wait, waiter)
        return self._served(match_id, holder, raw, tenures)

    def _served(
        self, match_id: str, holder: Holder, raw: list[dict[str, Any]], tenures: bytes | None
    ) -> list[dict[str, Any]]:
        """`raw` redacted for the holder's seat, as far as its token held that seat.

        `tenures`: the seats' tenures read in the same round trip as `raw`, after it
        (service/matches/tenure.py). The seat's still being the holder's says that every event of `raw`
        was written while the token held the seat. Another says the seat changed hands since
        the holder's tenure was last checked (`holder.checked`), and the holder is `lost`: the
        events end with the first change after it, or, when the feed asked from past events
        it never checked (an `after` or Last-Event-ID ahead), the change may lie among those
        and nothing is served. Every batch a feed serves passes here: the next occupant's cards
        never reach a feed opened by the one before, whatever position it asks from."""
        seat = holder.seat
        if seat is None:
            return [redact_event(e, None) for e in raw]
        if not raw:
            return []
        if holder.player is not None and not self._player_holds(holder):
            # The player's tokens were rotated, its app revoked or the player erased while the
            # feed was open: the feed ends, serving nothing more.
            holder.lost = True
            return []
        if tenure.stored(tenures, seat) == holder.tenure:
            holder.checked = max(holder.checked, raw[-1]["seq"])
        else:
            holder.lost = True
            raw = _before_loss(raw, seat, holder.checked)
        served = [redact_event(e, seat) for e in raw]
        if holder.app is not None and any(e["type"] == "match_over" for e in served):
            self._name_players(match_id, holder.app, served)
        return served

    def _player_holds(self, holder: Holder) -> bool:
        assert holder.player is not None and holder.token is not None
        return holds_token(self.repo.players.tokens_of(holder.player), holder.token)

    def _name_players(self, match_id: str, app: str, served: list[dict[str, Any]]) -> None:
        """`match_over` names the seats' players (external ids) for a holder of their app."""
        match = self.repo.find(match_id)
        if match is None:
            return
        named = {str(s["seat"]): s["external"] for s in match.record["seats"] if s.get("app") == app}
        for i, e in enumerate(served):
            if e["type"] == "match_over":
                # A copy: waiters of one match may share the events they read.
                served[i] = {**e, "players": named}

    def _wait_events(
        self, match_id: str, after: int, wait: float, waiter: Waiter
    ) -> tuple[list[dict[str, Any]], int | None, bytes | None]:
        found = self.waiters.wait_read(
            waiter, (match_id, after), lambda: self.store.events_since(match_id, after), wait
        )
        return found if found is not None else ([], None, None)

    def history(self, match_id: str, token: str | None, required: bool = False) -> dict[str, Any]:
        """The history for a seat's token; HTTP calls require one (`required`), the service's
        own callers (tools, a bot-only match's replay) may read it without."""
        match = self.repo.load(match_id)
        record = match.record
        seat = self.repo.authenticate(match, token) if token is not None or required else None
        app = record["seats"][seat].get("app") if seat is not None else None
        if not match.over():
            raise errors.MatchNotActive("the history is published when the match is over")
        events = self.store.events(match_id, 0)
        return {
            "id": match_id,
            "game": record["game"],
            "options": record["options"],
            "seats": [_public_seat(s, app) for s in record["seats"]],
            "seed": record["seed"],
            "seeded_by_client": record.get("seeded_by_client", False),
            "server_seed": record.get("server_seed"),
            "client_seeds": fair_seeds.client_seeds(record),
            "deck": record["deck"],
            "deals": revealed_deals(events),
            "events": events,
            "version": match.version,
        }


def _before_loss(raw: list[dict[str, Any]], seat: int, checked: int) -> list[dict[str, Any]]:
    """The events of `raw` a holder whose seat changed hands after event `checked` may still
    get: up to the first event after `checked` that took the seat (served, so the client sees
    it leave), and none when `raw` starts past events it never checked."""
    if raw[0]["seq"] > checked + 1:
        return []
    for i, e in enumerate(raw):
        if e["seq"] > checked and e["type"] in SEAT_CHANGES and e.get("seat") == seat:
            return raw[: i + 1]
    return []  # changed by no event of the batch (an erasure): nothing after it is known safe


def _game_view(record: dict[str, Any], seat: int | None) -> View:
    """The engine's view for `seat`, or an empty table before the first deal."""
    if record["state"] is not None:
        return GAMES[record["game"]].view(record["state"], seat)
    return Game.waiting_view(len(record["seats"]), seat)


def _players(record: dict[str, Any], game_view: View, app: str | None) -> list[dict[str, Any]]:
    seats = record["seats"]
    players = []
    for p in game_view["players"]:
        s = seats[p["seat"]]
        entry = {"seat": p["seat"], "name": s.get("name"), "kind": s["kind"]}
        if app is not None and s.get("app") == app:
            entry["player"] = s["external"]
        if s["kind"] == "bot":
            entry["level"] = s["level"]
        entry.update(p)
        entry["hints_used"] = hints.hints_used(record, p["seat"])
        if s.get("left"):
            entry["left"] = True
        if s.get("reserved") and record["status"] == "waiting":
            # Still `open` (what clients know), held for the person of the match before it.
            entry["reserved"] = True
        players.append(entry)
    return players


def _legal_actions(match: Match, game_view: View, status: str, seat: int | None) -> list[dict[str, Any]]:
    record = match.record
    if seat is not None and match.resigned(seat):
        # A bot plays a resigned seat on (games of 3+ players): the person has no moves left.
        return []
    legal = game_view["legal_actions"] if status == "active" else []
    if seat is not None and status in ("active", "round_over") and not record["seats"][seat].get("left"):
        # Every engine takes a resignation from any seat still playing, on its turn or not,
        # between rounds too; engines leave it out of legal_actions (a bot picking at random
        # from them must never resign), so the view adds it for the person in the seat.
        legal = [*legal, {"type": "resign"}]
    return legal


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


def _public_seat(s: dict[str, Any], app: str | None = None) -> dict[str, Any]:
    """A seat as /history shows it; with `app`, the external id of that app's players."""
    out = {"seat": s["seat"], "kind": s["kind"], "name": s.get("name")}
    if app is not None and s.get("app") == app:
        out["player"] = s["external"]
    if s["kind"] == "bot":
        out["level"] = s["level"]
    return out
