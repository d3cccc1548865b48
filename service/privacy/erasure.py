"""Erasing a player (GDPR art. 17; docs/integrating.md, "Erasure"): its tokens, its place on
the app's leaderboards, its name in every stored match it sat in, other players' feeds and the
app's webhook deliveries, its feed and the player.

First a tombstone (service/identity/tombstones.py): from then on a rating or notice handed on (by a
commit that read a match before the erasure reached it, or by the relay) leaves it out.

In each match the player ever sat down in or joined (service/identity/players.py,
`all_match_ids`: also those its lists forgot, a seat it left or handed on):

- the player's seat keeps its `kind` (human) and everything the game needs, so the history
  still replays, but its `name` becomes ERASED_NAME and `player`, `app` and `external` go:
  nothing in it names the player any more, and no token acts in it (`Match.erase_player`);
- a human seat of no player that shows a name the player had (every name it was given or
  joined with, `Players.names_of`; a seat it handed over by invitation keeps the name when the
  claimant gives none) shows ERASED_NAME too;
- the `join` event that seated the player, and every other `join` or `claim` event carrying
  a name the player had, carries ERASED_NAME, except the one that seated another app player
  who still holds that seat;
- what its outbox still holds forgets the player: a ratings effect, so applying it later puts
  nobody back on a board, a lists effect (service/matches/listings.py), so the relay lists
  the match for it nowhere and keeps no name it joined with, and notices naming it.

A live match's seat changes through `MatchRepository.update` with no events: one
compare-and-set commit, its version moves on, and a move decided on the old version is
refused rather than undoing the change. A match that is over never moves again (its version is
the number of its changes, which its history replays to): its record and archived events are
rewritten in place by one script, checked against what was read.

Then the feeds of the app's players seated in those matches lose the player's external id
from their notices (other feeds are redacted as they are read, service/identity/tombstones.py), and so
do the bodies and stored answers of the deliveries the app's endpoints list (rewritten in place
by `Deliveries.rewrite`, a field only if it is still as read).
"""

from __future__ import annotations

import json
import math
import zlib
from typing import Any, cast

from engines.registry import GAMES
from service import codec, errors
from service.identity import tombstones
from service.identity.players import Player
from service.identity.tombstones import Tombstones
from service.matches.app_index import joined_key
from service.matches.match import Match
from service.matches.outbox import encode as encode_effect
from service.matches.repository import RETRIES, MatchRepository, Write
from service.matches.store import Store
from service.notify.deliveries import Deliveries
from service.notify.delivery_record import body_of
from service.notify.feeds import Feeds
from service.notify.webhooks import Webhooks

ERASED_NAME = "Erased player"
NAMED_EVENTS = ("join", "claim")  # the events that carry a seat's name (service/matches/seats.py)


class _Unchanged(Exception):
    """The live path's change found nothing to scrub (or a match that is over): no commit."""


class Erasure:
    """Erasing a player from the matches of `repo` (its store and players), the players'
    `feeds` and the app's `webhooks` and `deliveries`, behind `tombstones` (all handed over by
    service/bootstrap.py): it writes every key through the adapter that owns it."""

    def __init__(
        self,
        repo: MatchRepository,
        tombstones: Tombstones,
        notify: tuple[Feeds, Webhooks, Deliveries],
    ):
        self.repo = repo
        self.store: Store = repo.store
        self.players = repo.players
        self.tombstones = tombstones
        self.feeds, self.webhooks, self.deliveries = notify

    def erase(self, app_id: str, external: str) -> dict[str, Any] | None:
        """Erase the app's player `external`; what was erased, or None when there is no such
        player. Every step may run again: a request that failed half way is sent again."""
        player_id = self.players.id_of(app_id, external)
        if player_id is None:
            return None
        # First of all: a rating or notice handed on from here on leaves the player out.
        self.tombstones.begin(app_id, player_id, external)
        player = self.players.get(player_id)
        matches = 0
        if player is not None:
            # Its tokens next: from here on nothing acts as the player, and its open feeds end.
            self.players.end_tokens(player_id)
            self.feeds.wake(player_id)
            ids = self.players.all_match_ids(player_id)
            names, others = self._survey(player, ids)
            matches = sum(self.scrub_match(match_id, player_id, external, names) for match_id in ids)
            for other in others:
                self._scrub_feed(other, external)
        self._scrub_deliveries(app_id, external)
        boards = self.repo.leaderboards.remove_everywhere(app_id, player_id, sorted(GAMES))
        # With the player's hash goes its feed (the feed's script writes nothing for a player
        # whose hash is gone, so a notice handed on later does not bring it back).
        self.players.delete(player_id, [joined_key(player_id), *self.feeds.keys(player_id)])
        # Before its external id is free again: a new player of that id is named in notices.
        self.tombstones.end(app_id, external)
        self.players.free_external(app_id, external, player_id)
        return {"player": external, "matches": matches, "leaderboards": boards}

    def _survey(self, player: Player, ids: list[str]) -> tuple[set[str], set[str]]:
        """Every name the player shows in its matches (every name it had, those it joined
        with, and its seats': the name it had when it sat down, or the one it joined with),
        and the other players of its app seated in them, whose feeds got notices naming it."""
        names = {player.name, *self.players.names_of(player.id)}
        others: set[str] = set()
        for match_id in ids:
            match = self.repo.find(match_id)
            if match is None:
                continue
            seat = match.seat_of_player(player.id)
            if seat is not None:
                names.add(match.record["seats"][seat].get("name") or player.name)
            seated = (s.get("player") for s in match.record["seats"] if s.get("app") == player.app)
            others.update(p for p in seated if p not in (None, player.id))
        names.discard(ERASED_NAME)
        return names, others

    def scrub_match(self, match_id: str, player_id: str, external: str, names: set[str]) -> bool:
        """Scrub one match of the player; whether anything in it changed."""
        before = self.repo.find(match_id)
        if before is None:
            return False  # expired
        # The player's seat, read before the live commit unbinds it: the event that seated
        # the player is found through it.
        bound = before.seat_of_player(player_id)
        changed = self._scrub_live(match_id, player_id, names)
        for _ in range(RETRIES):
            done, scrubbed = self._scrub_stored(match_id, player_id, names, bound)
            changed |= scrubbed
            if done:
                break
        else:
            raise errors.VersionConflict()
        return self._scrub_outbox(match_id, player_id, external) or changed

    def _scrub_live(self, match_id: str, player_id: str, names: set[str]) -> bool:
        """The seats of a live match, in one commit; False when the match is over, gone or
        names nobody to scrub."""

        def change(match: Match) -> Write:
            if match.over() or not match.erase_player(player_id, names, ERASED_NAME):
                raise _Unchanged()
            return Write([], True)

        try:
            return cast(bool, self.repo.update(match_id, None, change))  # the Write's result
        except (_Unchanged, errors.NotFound):
            return False

    def _scrub_stored(
        self, match_id: str, player_id: str, names: set[str], bound: int | None
    ) -> tuple[bool, bool]:
        """The events (in their list, or archived) and, once the match is over, its seats
        rewritten in place. Whether that is done (not when the match changed meanwhile: read
        it again), and whether anything changed."""
        data, archived = self.store.read_over(match_id)
        if data is None:
            return True, False  # expired
        match = Match(match_id, codec.loads(data))
        record = match.record
        protected = {s["seat"] for s in record["seats"] if s.get("player") not in (None, player_id)}
        listed = self._scrub_list(match_id, bound, protected, names)
        if listed and match.over() and archived is None:
            # A match that just ended has its list folded into its archive right after the
            # commit (Store.archive): read again, so a fold of the list as it was before is seen.
            # Left open: a fold that read the list before the scrub and stores it after this
            # second read (Store.archive checks the version only, which this erasure keeps).
            return False, True
        seats_changed = match.over() and match.erase_player(player_id, names, ERASED_NAME)
        new_record = codec.dumps(record) if seats_changed else b""
        new_archive = b""
        if archived is not None:
            events = codec.loads(zlib.decompress(archived))
            if scrub_events(events, bound, protected, names):
                new_archive = zlib.compress(codec.dumps(events), 6)
        if not new_record and not new_archive:
            return True, listed
        written = self.store.rewrite_over(match_id, (data, archived), new_record, new_archive)
        return written, listed or written

    def _scrub_list(self, match_id: str, bound: int | None, protected: set[int], names: set[str]) -> bool:
        raw = self.store.items(match_id, "events")
        events = [codec.loads(r) for r in raw]
        changed = scrub_events(events, bound, protected, names)
        if not changed:
            return False
        pairs = [part for i in sorted(changed) for part in (raw[i], codec.dumps(events[i]))]
        self.store.replace_items(match_id, "events", pairs)
        return True

    def _scrub_outbox(self, match_id: str, player_id: str, external: str) -> bool:
        """What the match's outbox still holds (its committer died before handing it on, or
        the relay has not removed it yet) forgets the player: a rated match's ratings effect,
        a lists effect, and its notices (tombstones.py redacts those the relay read before this)."""
        pairs: list[Any] = []
        for raw in self.store.items(match_id, "outbox"):
            effect = codec.loads(raw)
            if effect.get("kind") == "ratings" and player_id in effect.get("players", {}):
                del effect["players"][player_id]
            elif effect.get("kind") == "lists" and player_id in (*effect["sat"], effect.get("joined")):
                effect["sat"] = [p for p in effect["sat"] if p != player_id]
                if effect.get("joined") == player_id:
                    effect.update(joined=None, name=None)
            elif effect.get("kind") == "notify" and any(
                external in tombstones.named(n["data"]) for n in effect["notices"]
            ):
                effect["notices"] = [tombstones.without(n, {external: math.inf}) for n in effect["notices"]]
            else:
                continue
            pairs += [raw, encode_effect(effect)]
        if pairs:
            self.store.replace_items(match_id, "outbox", pairs)
        return bool(pairs)

    def _scrub_feed(self, player_id: str, external: str) -> None:
        """Another player's feed keeps no notice naming the erased player (those a feed got
        while its player sat elsewhere are redacted as they are read: service/identity/tombstones.py)."""
        pairs: list[Any] = []
        for raw in self.feeds.entries(player_id):
            entry = codec.loads(raw)
            if _names_it(entry, external):
                # The entry as the feed's script stores it: `seq` first, then the rest.
                pairs += [raw, codec.dumps(tombstones.without(entry, {external: math.inf}))]
        if pairs:
            self.feeds.replace_entries(player_id, pairs)

    def _scrub_deliveries(self, app_id: str, external: str) -> None:
        """The app's webhook deliveries its endpoints list: their bodies (sent again by a
        retry) name the player no more, nor do the answers stored from the app's endpoints.
        One a pending delivery no longer listed is redacted as it is sent (workers/webhooks.py)."""
        for endpoint in self.webhooks.list(app_id):
            for delivery in self.deliveries.listed(app_id, endpoint.id):
                body = json.loads(delivery.payload)
                changes: list[str] = []
                if _names_it(body, external):
                    shown = body_of(tombstones.without(body, {external: math.inf}))
                    changes += ["payload", delivery.payload, shown]
                if external in delivery.response:
                    changes += [
                        "response",
                        delivery.response,
                        delivery.response.replace(external, ERASED_NAME),
                    ]
                if changes:
                    self.deliveries.rewrite(app_id, delivery.id, changes)


def scrub_events(
    events: list[dict[str, Any]], bound: int | None, protected: set[int], names: set[str]
) -> set[int]:
    """Replace the player's name in `join` and `claim` events (see the module's docstring);
    the indexes of the events changed. `bound`: the seat the player holds (None if none),
    `protected`: the seats other app players hold."""
    current: dict[int, int] = {}  # seat -> the event that seated whoever holds it now
    for i, e in enumerate(events):
        if e["type"] in NAMED_EVENTS:
            current[e["seat"]] = i
    keep = {current[s] for s in protected if s in current}
    mine = current.get(bound) if bound is not None else None
    changed = set()
    for i, e in enumerate(events):
        if e["type"] not in NAMED_EVENTS or i in keep or e.get("name") == ERASED_NAME:
            continue
        if i == mine or e.get("name") in names:
            e["name"] = ERASED_NAME
            changed.add(i)
    return changed


def _names_it(notice: dict[str, Any], external: str) -> bool:
    return external in tombstones.named(notice["data"])
