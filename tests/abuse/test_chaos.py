"""A scripted chaos client against a live `cardtable serve` (docs/api.md, "Hidden information"):
random calls of every endpoint from several anonymous seats and several players of one app, with
feeds opened at random positions in the background, for CARDTABLE_CHAOS_SECONDS (120 in CI).

After each answer it checks what a user relies on:
- no answer is a 5xx;
- a feed (long-poll or stream) never serves its token an event past the one that took the seat
  from it (a leave while waiting, a claimed invitation), and every card in a served event is one
  the seat may see: the stored (unredacted) event, redacted for that seat, holds it;
- a token that lost its seat reads no view of it any more;
- no player's feed entry holds a card.
At the end every person leaves every match; each match must then end (finished or aborted): a
match moves on while somebody plays it and ends when nobody does.

The calls are made one at a time from one loop (so that a seat's loss is known before the next
call); the feeds run in their own threads, as phones polling beside the game would.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
import requests

from engines.base import redact_event
from service.identity.apps import Apps
from service.infra.embedded import REDIS_URL_FILE
from service.infra.roundtrips import RoundTrips
from service.matches.store import Store
from tests.api_helpers import CARD_RE
from tests.serve_helpers import cardtable_serve

SECONDS = float(os.environ.get("CARDTABLE_CHAOS_SECONDS", "120"))  # 2 minutes in CI
GAMES = {"spades": (4, 4), "three-thirteen": (2, 4), "zhol": (2, 2), "zoliky": (2, 4)}
LEVELS = ["easy", "medium", "hard"]


@dataclass
class Holding:
    """A token and the seat it was given: `lost` is the seq of the event that took the seat
    from it (None while it holds it), `dead` when it can no longer read the match at all."""

    token: str
    match: str
    seat: int
    player: str | None = None  # the external id, for a player token
    lost: int | None = None
    dead: bool = False
    invite: str | None = None  # the last invitation code it made


@dataclass
class Chaos:
    base: str
    store: Store
    app_key: str
    rng: random.Random
    holdings: list[Holding] = field(default_factory=list)
    matches: set[str] = field(default_factory=set)
    players: dict[str, str] = field(default_factory=dict)  # external id -> its live token
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    calls: int = 0
    checked: int = 0  # events served to feeds and checked
    asked_after_loss: int = 0  # feeds opened by a token that had lost its seat

    # -- plumbing --------------------------------------------------------------------------------

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = kw.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        r = requests.request(method, self.base + path, headers=headers, timeout=30, **kw)
        self.calls += 1
        if r.status_code >= 500:
            self.problem(f"{method} {path} answered {r.status_code}: {r.text[:300]}")
        return r

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def truth(self, match_id: str) -> dict[int, dict[str, Any]]:
        return {e["seq"]: e for e in self.store.events(match_id, 0)}

    def last_event_of(self, match_id: str, seat: int, types: tuple[str, ...]) -> int:
        seqs = [
            e["seq"] for e in self.store.events(match_id, 0) if e["type"] in types and e.get("seat") == seat
        ]
        assert seqs, f"no {types} event of seat {seat} in {match_id}"
        return seqs[-1]

    def check_served(self, holding: Holding, events: list[dict[str, Any]], asked_after: float) -> None:
        """Events a feed served `holding`'s token: none past its loss, no card it may not see."""
        if not events:
            return
        truth = self.truth(holding.match)
        with self.lock:
            self.checked += len(events)
        for e in events:
            if holding.lost is not None and e["seq"] > holding.lost:
                self.problem(
                    f"{holding.match} seat {holding.seat}: event {e['seq']} ({e['type']}) served"
                    f" after the seat was lost at {holding.lost}"
                )
            allowed = json.dumps(redact_event(truth[e["seq"]], holding.seat))
            for card in set(CARD_RE.findall(json.dumps(e))) - set(CARD_RE.findall(allowed)):
                self.problem(f"{holding.match} seat {holding.seat}: event {e['seq']} shows {card}")

    def alive(self) -> list[Holding]:
        return [h for h in self.holdings if not h.dead]

    # -- the random calls ------------------------------------------------------------------------

    def new_player(self) -> None:
        external = f"p{len(self.players)}-{self.rng.randrange(10**6)}"
        r = self.call("PUT", f"/v1/players/{external}", self.app_key, json={"name": f"Name {external}"})
        if r.status_code == 200:
            self.players[external] = r.json()["token"]

    def create(self) -> None:
        game = self.rng.choice(list(GAMES))
        low, high = GAMES[game]
        n = self.rng.randint(low, high)
        kinds = ["human"] + [self.rng.choice(["human", "open", "open", "bot"]) for _ in range(n - 1)]
        seats = [{"kind": k, **({"level": self.rng.choice(LEVELS)} if k == "bot" else {})} for k in kinds]
        player = self.rng.choice([None, *self.players]) if self.players else None
        token = self.players.get(player) if player else None
        body = {"game": game, "seats": seats, "listed": self.rng.random() < 0.5}
        if self.rng.random() < 0.3:
            body["options"] = {"hints": True}
        r = self.call("POST", "/v1/matches", token, json=body)
        if r.status_code != 201:
            return
        answer = r.json()
        self.matches.add(answer["id"])
        for s in answer["seats"]:
            if "token" in s:
                self.holdings.append(Holding(s["token"], answer["id"], s["seat"]))
            elif "player" in s and token is not None:
                self.holdings.append(Holding(token, answer["id"], s["seat"], player=player))

    def join(self) -> None:
        if not self.matches:
            return
        match_id = self.rng.choice(sorted(self.matches))
        player = self.rng.choice([None, *self.players]) if self.players else None
        token = self.players.get(player) if player else None
        r = self.call("POST", f"/v1/matches/{match_id}/join", token, json={"name": "Joiner"})
        if r.status_code == 200:
            answer = r.json()
            self.holdings.append(
                Holding(answer.get("token") or token, match_id, answer["seat"], player=player)
            )

    def quick(self) -> None:
        r = self.call(
            "POST", "/v1/matches/quick", json={"game": self.rng.choice(list(GAMES)), "name": "Quick"}
        )
        if r.status_code == 200:
            answer = r.json()
            self.matches.add(answer["id"])
            self.holdings.append(Holding(answer["token"], answer["id"], answer["seat"]))

    def view(self, h: Holding) -> dict[str, Any] | None:
        r = self.call("GET", f"/v1/matches/{h.match}", h.token)
        if r.status_code == 200 and h.dead:
            self.problem(f"{h.match} seat {h.seat}: a token that lost its seat read the view")
        return r.json() if r.status_code == 200 else None

    def act(self, h: Holding) -> None:
        view = self.view(h)
        if view is None:
            return
        legal = [a for a in view.get("legal_actions") or [] if not a.get("template")]
        if view["status"] == "round_over" and view.get("host") == h.seat:
            self.call("POST", f"/v1/matches/{h.match}/rounds", h.token)
            return
        if not legal:
            return
        if self.rng.random() < 0.05:
            action: dict[str, Any] = self.rng.choice(
                [{"type": "nonsense"}, {"type": legal[0]["type"], "card": "ZZ"}, {}]
            )
        else:
            choice = [a for a in legal if a["type"] != "resign"] or legal
            action = self.rng.choice(choice if self.rng.random() < 0.98 else legal)
        self.call(
            "POST",
            f"/v1/matches/{h.match}/actions",
            h.token,
            json=action,
            headers={"If-Match": f'"{view["version"]}"'},
        )

    def leave(self, h: Holding) -> None:
        status = (self.view(h) or {}).get("status")
        r = self.call("POST", f"/v1/matches/{h.match}/leave", h.token)
        if r.status_code == 200 and status == "waiting":
            h.lost = self.last_event_of(h.match, h.seat, ("leave",))
            h.dead = True

    def invite_and_claim(self, h: Holding) -> None:
        r = self.call("POST", f"/v1/matches/{h.match}/invite", h.token)
        if r.status_code != 200:
            return
        h.invite = r.json()["code"]
        if self.rng.random() < 0.7:
            c = self.call("POST", f"/v1/matches/{h.match}/claim", json={"code": h.invite, "name": "Claimer"})
            if c.status_code == 200:
                h.lost = self.last_event_of(h.match, h.seat, ("claim",))
                h.dead = True
                self.holdings.append(Holding(c.json()["token"], h.match, h.seat))

    def rematch(self, h: Holding) -> None:
        r = self.call("POST", f"/v1/matches/{h.match}/rematch", h.token)
        if r.status_code in (200, 201):
            answer = r.json()
            self.matches.add(answer["id"])
            for s in answer.get("seats", []):
                if "token" in s:
                    self.holdings.append(Holding(s["token"], answer["id"], s["seat"]))
                elif "player" in s and h.player is not None and s["player"] == h.player:
                    self.holdings.append(Holding(h.token, answer["id"], s["seat"], player=h.player))

    def poll(self, h: Holding) -> None:
        """A long-poll from a random position, up to a few events ahead of the match, in a thread."""
        self.asked_after_loss += h.lost is not None

        def run() -> None:
            after = self.rng.randint(0, len(self.store.events(h.match, 0)) + 4)
            started = time.monotonic()
            r = self.call("GET", f"/v1/matches/{h.match}/events?after={after}&wait=2", h.token)
            if r.status_code == 200:
                self.check_served(h, r.json()["events"], started)

        threading.Thread(target=run, daemon=True).start()

    def stream(self, h: Holding) -> None:
        """A stream resumed from a random position, read for a second or two, in a thread."""
        self.asked_after_loss += h.lost is not None

        def run() -> None:
            last = self.rng.randint(0, len(self.store.events(h.match, 0)) + 4)
            started = time.monotonic()
            headers = {"Authorization": f"Bearer {h.token}", "Last-Event-ID": str(last)}
            events: list[dict[str, Any]] = []
            try:
                with requests.get(
                    f"{self.base}/v1/matches/{h.match}/stream", headers=headers, stream=True, timeout=(5, 2)
                ) as r:
                    if r.status_code >= 500:
                        self.problem(f"stream answered {r.status_code}")
                    if r.status_code != 200:
                        return
                    for line in r.iter_lines(decode_unicode=True):
                        if line and line.startswith("data:"):
                            data = json.loads(line[5:])
                            if isinstance(data, dict) and "seq" in data and "type" in data:
                                events.append(data)
                        if time.monotonic() - started > 2:
                            break
            except requests.RequestException:
                pass  # the read timeout ends a quiet stream
            self.check_served(h, events, started)

        threading.Thread(target=run, daemon=True).start()

    def player_calls(self) -> None:
        if not self.players:
            return
        external = self.rng.choice(sorted(self.players))
        token = self.players[external]
        which = self.rng.randrange(6)
        if which == 0:
            r = self.call("GET", "/v1/me/events?after=0&wait=0", token)
            if r.status_code == 200 and CARD_RE.search(json.dumps(r.json())):
                self.problem(f"player {external}'s feed holds a card")
        elif which == 1:
            self.call("GET", "/v1/me/matches?limit=5", token)
        elif which == 2:
            self.call("GET", "/v1/me", token)
        elif which == 3 and self.rng.random() < 0.3:
            r = self.call("POST", f"/v1/players/{external}/token", self.app_key)
            if r.status_code == 200:
                self.players[external] = r.json()["token"]
                for h in list(self.holdings):
                    if h.player == external and h.token == token and not h.dead:
                        # The old token is 401 from now on; the player keeps its seats.
                        h.dead = True
                        self.holdings.append(Holding(r.json()["token"], h.match, h.seat, player=external))
        elif which == 4:
            self.call("GET", f"/v1/leaderboards/{self.rng.choice(list(GAMES))}")
        else:
            self.call("GET", "/v1/admin/matches?limit=5", self.app_key)

    def public_calls(self) -> None:
        which = self.rng.randrange(4)
        if which == 0:
            self.call("GET", "/v1/matches")
        elif which == 1:
            self.call("GET", "/v1/games")
        elif which == 2 and self.matches:
            self.call("GET", f"/v1/matches/{self.rng.choice(sorted(self.matches))}")
        else:
            self.call(
                "POST",
                "/v1/matches",
                json=self.rng.choice([{}, {"game": "spades"}, {"game": "x", "seats": []}]),
            )

    def step(self) -> None:
        alive = self.alive()
        roll = self.rng.random()
        if roll < 0.08 or not alive:
            self.create()
        elif roll < 0.11:
            self.join()
        elif roll < 0.13:
            self.quick()
        elif roll < 0.15 and len(self.players) < 6:
            self.new_player()
        elif roll < 0.18:
            self.player_calls()
        elif roll < 0.20:
            self.public_calls()
        else:
            h = self.rng.choice(alive)
            kind = self.rng.random()
            if kind < 0.55:
                self.act(h)
            elif kind < 0.62:
                # Now and then from a token that lost its seat: it must be served nothing new.
                self.poll(h if self.rng.random() < 0.8 else self.rng.choice(self.holdings))
            elif kind < 0.67:
                self.stream(h if self.rng.random() < 0.8 else self.rng.choice(self.holdings))
            elif kind < 0.71:
                self.leave(h)
            elif kind < 0.75:
                self.invite_and_claim(h)
            elif kind < 0.78:
                self.rematch(h)
            elif kind < 0.81:
                self.call("GET", f"/v1/matches/{h.match}/hint", h.token)
            elif kind < 0.83:
                self.call("GET", f"/v1/matches/{h.match}/history", h.token)
            else:
                self.view(h)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("chaos")
    with cardtable_serve(
        str(data), CARDTABLE_RATE_LIMIT="0", CARDTABLE_LOG_LEVEL="WARNING", CARDTABLE_BOT_DELAY="0"
    ) as (_, base):
        url = (data / REDIS_URL_FILE).read_text().strip()
        yield base, redis.Redis.from_url(url)


@pytest.mark.slow
def test_random_calls_never_show_a_seat_a_card_it_may_not_see_and_every_match_ends_when_left(served):
    base, client = served
    _, key = Apps(client).create("chaos")
    chaos = Chaos(
        base, Store(RoundTrips(client)), key, random.Random(int(os.environ.get("CARDTABLE_CHAOS_SEED", "39")))
    )
    for _ in range(3):
        chaos.new_player()
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        chaos.step()
    time.sleep(3)  # the feeds' threads finish their reads
    assert chaos.calls > 500, f"only {chaos.calls} calls were made"
    # The run reached what it checks: feeds served, seats lost and feeds asked past the loss.
    lost = sum(h.lost is not None for h in chaos.holdings)
    assert chaos.checked > 100 and lost > 5 and chaos.asked_after_loss > 0, (chaos.checked, lost)
    assert not chaos.problems, "\n".join(chaos.problems[:20])
    # Everybody leaves: every match must then end, none left playing (or waiting) for nobody.
    for h in chaos.alive():
        chaos.call("POST", f"/v1/matches/{h.match}/leave", h.token)
    ends = time.monotonic() + 60
    live = set(chaos.matches)
    while live and time.monotonic() < ends:
        live = {
            m
            for m in live
            if chaos.call("GET", f"/v1/matches/{m}").json()["status"] not in ("finished", "aborted")
        }
        time.sleep(0.5)
    assert not live, (
        f"{len(live)} of {len(chaos.matches)} matches neither moved on to their end nor ended:"
        f" {sorted(live)[:5]}"
    )
    assert not chaos.problems, "\n".join(chaos.problems[:20])
