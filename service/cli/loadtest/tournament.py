"""A Swiss tournament of simulated players: `cardtable loadtest --scenario tournament`, or
`locust -f` this file with as many users as players, all spawned at once (docs/loadtest.md,
"A tournament").

The first player creates the tournament with the app key; every player is made with the key
(`PUT /v1/players/{id}`), all join at the same moment and the first starts it. Then each follows
its own feed (`GET /v1/me/events`, long-poll) and plays its match of each round with its player
token: random legal moves from the view after a short think. At the end a report measures, for
each round, the time from the end of its last match (the `match.over` notice's timestamp, the
service's clock) to the moment each player's feed delivered the next round's
`tournament.round_started`, and the same for `tournament.over`.

One locust process holds all the players (they meet at barriers): no distributed run.

Environment: CARDTABLE_LOAD_APP_KEY (required), CARDTABLE_LOAD_ROUNDS (default 3),
CARDTABLE_LOAD_THINK ("min,max" seconds before a move, default "0.05,0.2"),
CARDTABLE_LOAD_PROGRESS_EVERY (seconds between two progress lines; unset or 0: none).
"""

from __future__ import annotations

import itertools
import os
import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import gevent
from gevent.event import Event
from locust import events, task
from locust.exception import StopUser

from service.cli.loadtest.client import Client, Refused, complete, env_pair

APP_KEY = os.environ.get("CARDTABLE_LOAD_APP_KEY", "")
ROUNDS = int(os.environ.get("CARDTABLE_LOAD_ROUNDS", "3"))
THINK = env_pair("CARDTABLE_LOAD_THINK", "0.05,0.2")
PROGRESS_EVERY = float(os.environ.get("CARDTABLE_LOAD_PROGRESS_EVERY") or 0)
# One hand won ends a match (docs/loadtest.md). Rated, as a real tournament would be: each match's
# end then settles its players' ratings too.
TOURNAMENT = {"game": "zhol", "format": "swiss", "options": {"target_wins": 1, "rated": True}}
LONG_POLL = 10  # seconds a feed request waits for news
SETUP_WAIT = 120  # seconds a player waits at a barrier for the others


@dataclass
class Feed:
    """What one player's feed delivered: the client's time each round start and the end came."""

    starts: dict[int, float] = field(default_factory=dict)
    start_count: int = 0
    over_count: int = 0
    over_at: float | None = None


@dataclass
class Run:
    players: int = 0
    tournament: str | None = None
    created: Event = field(default_factory=Event)
    arrived: dict[str, int] = field(default_factory=dict)
    barriers: dict[str, Event] = field(default_factory=dict)
    began: float | None = None  # the first request
    started_at: float | None = None  # the start's request
    feeds: dict[str, Feed] = field(default_factory=dict)
    ended: dict[str, float] = field(default_factory=dict)  # match id: its match.over's timestamp
    told: dict[int, float] = field(default_factory=dict)  # round: its round_started's timestamp
    final: dict[str, Any] | None = None  # GET /v1/tournaments/{id} after the end
    done: int = 0

    def meet(self, name: str) -> None:
        """Wait until every player got here (Refused after SETUP_WAIT: a player failed)."""
        event = self.barriers.setdefault(name, Event())
        self.arrived[name] = self.arrived.get(name, 0) + 1
        if self.arrived[name] >= self.players:
            event.set()
        if not event.wait(SETUP_WAIT):
            raise Refused(f"not every player reached {name}")


RUN = Run()
NUMBERS = itertools.count()


def stamp(text: str) -> float:
    """A notice's timestamp (RFC 3339, UTC) as seconds since the epoch."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class TournamentPlayer(Client):
    def wait_time(self) -> float:
        return 0.0

    @task
    def take_part(self) -> None:
        number = next(NUMBERS)
        RUN.players = self.environment.runner.target_user_count  # all spawned at once
        try:
            token = self.enter(number)
            self.follow(token, RUN.feeds.setdefault(f"load-{number}", Feed()))
        except Refused:
            # Counted as a failed request already; the tournament cannot end without this
            # player's moves, so the run stops here rather than at --run-time.
            gevent.spawn(self.environment.runner.quit)
            raise StopUser() from None
        RUN.done += 1
        if RUN.done == RUN.players:
            gevent.spawn(self.environment.runner.quit)
        raise StopUser()

    def enter(self, number: int) -> str:
        """Made, joined with every other player at once; the first player creates the tournament
        and starts it once all joined. Answers the player's token."""
        if number == 0:
            RUN.began = time.time()
            body = {**TOURNAMENT, "rounds": ROUNDS, "max_players": max(RUN.players, 2)}
            created = self.call("POST", "/v1/tournaments", "/v1/tournaments", APP_KEY, json=body)
            RUN.tournament = created["id"]
            RUN.created.set()
        path = f"/v1/players/load-{number}-{uuid.uuid4().hex[:8]}"
        made = self.call("PUT", path, "/v1/players/{id}", APP_KEY, True, json={"name": f"load {number}"})
        if not RUN.created.wait(SETUP_WAIT):
            raise Refused("no tournament was created")
        RUN.meet("made")
        join = f"/v1/tournaments/{RUN.tournament}/join"
        self.call("POST", join, "/v1/tournaments/{id}/join", made["token"], True)
        RUN.meet("joined")
        if number == 0:
            RUN.started_at = time.time()
            start = f"/v1/tournaments/{RUN.tournament}/start"
            self.call("POST", start, "/v1/tournaments/{id}/start", APP_KEY, True)
        return str(made["token"])

    def follow(self, token: str, feed: Feed) -> None:
        """Read the feed until `tournament.over`, playing the current match when it names one."""
        after, match = 0, None
        while feed.over_count == 0:
            url = f"/v1/me/events?after={after}&wait={LONG_POLL}"
            news = self.call("GET", url, "/v1/me/events (long-poll)", token)
            now = time.time()
            for e in news["events"]:
                after = e["seq"]
                match = take(feed, e, now, match)
            if match is not None:
                # Every turn.started, and a quiet feed too: no notice says that a hand is over
                # (the service deals the next one itself; a host may ask first, as people do).
                self.play(match, token)
        if RUN.final is None and RUN.tournament is not None:
            RUN.final = {}  # one player reads the result, the others need not
            path = f"/v1/tournaments/{RUN.tournament}"
            RUN.final = self.call("GET", path, "/v1/tournaments/{id}", APP_KEY)

    def play(self, match_id: str, token: str) -> None:
        """Move in the match for as long as the player is to move (or to start its next hand)."""
        path = f"/v1/matches/{match_id}"
        view = self.call("GET", path, "/v1/matches/{id}", token)
        while True:
            seat = view["you"]
            mine = view["status"] == "active" and view["turn"]["seat"] == seat and view["legal_actions"]
            if not mine and not (view["status"] == "round_over" and view["host"] == seat):
                return
            time.sleep(random.uniform(*THINK))
            if mine:
                action = random.choice(complete(view["legal_actions"]))
                key = {"Idempotency-Key": uuid.uuid4().hex}
                name = "/v1/matches/{id}/actions"
                moved = self.call("POST", path + "/actions", name, token, True, json=action, headers=key)
            else:
                moved = self.call("POST", path + "/rounds", "/v1/matches/{id}/rounds", token, True)
            view = moved or self.call("GET", path, "/v1/matches/{id}", token)


def take(feed: Feed, e: dict[str, Any], now: float, match: str | None) -> str | None:
    """Note one feed entry that came at `now`; answers the match the player is to play now."""
    kind, data = e["type"], e["data"]
    if kind == "tournament.round_started":
        feed.start_count += 1
        feed.starts[data["round"]] = now
        RUN.told[data["round"]] = stamp(e["timestamp"])
        yours: str | None = data["match"]  # null for a bye
        return yours
    if kind == "turn.started":
        return str(data["match"])
    if kind == "match.over":
        RUN.ended[data["match"]] = stamp(e["timestamp"])
        return None if data["match"] == match else match
    if kind == "tournament.over":
        feed.over_count += 1
        feed.over_at = now
        return None
    return match


def percentiles(values: list[float]) -> str:
    """p50, p95 and max of seconds, in milliseconds (nearest rank)."""
    if not values:
        return "none"
    ranked = sorted(values)

    def rank(p: int) -> float:
        return ranked[max(0, -(-len(ranked) * p // 100) - 1)] * 1000

    return f"p50 {rank(50):.0f} ms, p95 {rank(95):.0f} ms, max {ranked[-1] * 1000:.0f} ms"


def report(environment: Any) -> list[str]:
    """The tournament's report: its rounds, what the feeds got, the round-to-notice times."""
    final, total = RUN.final, environment.stats.total
    lines = [f"\nTournament {RUN.tournament} (zhol, swiss, {RUN.players} players, {ROUNDS} rounds)"]
    requests = f"requests {total.num_requests}, failed {total.num_failures}"
    if not final or final.get("status") != "finished" or RUN.started_at is None or RUN.began is None:
        return [*lines, "tournament did not finish", requests]
    last_notice = max(f.over_at or 0.0 for f in RUN.feeds.values())
    lines.append(
        f"tournament finished: total wall time {last_notice - RUN.began:.1f} s (players made and joined "
        f"in {RUN.started_at - RUN.began:.1f} s, then {last_notice - RUN.started_at:.1f} s from the "
        "start to the last tournament.over)"
    )
    ends: dict[int, float] = {}
    for r in final["rounds"]:
        over = [RUN.ended.get(m["id"]) for m in r["matches"]]
        known = [t for t in over if t is not None]
        ends[r["round"]] = max(known, default=0.0)
        told = RUN.told.get(r["round"] + 1)
        told_in = f", next round told {(told - ends[r['round']]) * 1000:.0f} ms after" if told else ""
        lines.append(
            f"round {r['round']}: {len(r['matches'])} matches, {len(r['byes'])} byes, last match over "
            f"{ends[r['round']] - RUN.started_at:.1f} s after the start{told_in}"
            + ("" if len(known) == len(over) else f" ({len(over) - len(known)} match.over not seen)")
        )
    whole = [f for f in RUN.feeds.values() if f.start_count == ROUNDS and f.over_count == 1]
    lines.append(f"feeds: {len(whole)} of {RUN.players} got {ROUNDS} round starts and 1 tournament.over")
    gaps = [t - ends[r - 1] for f in RUN.feeds.values() for r, t in f.starts.items() if r - 1 in ends]
    overs = [f.over_at - ends[ROUNDS] for f in RUN.feeds.values() if f.over_at and ROUNDS in ends]
    lines.append(f"round-to-notice ({len(gaps)} notices): {percentiles(gaps)}")
    lines.append(f"over-to-notice ({len(overs)} notices): {percentiles(overs)}")
    return [*lines, requests]


@events.quitting.add_listener  # type: ignore[untyped-decorator]  # locust's is unannotated
def _print_report(environment: Any, **_: Any) -> None:
    lines = report(environment)
    print("\n".join(lines) + "\n", flush=True)
    if "tournament did not finish" in lines:
        environment.process_exit_code = 1


@events.test_start.add_listener  # type: ignore[untyped-decorator]  # locust's is unannotated
def _start_progress(environment: Any, **_: Any) -> None:
    if PROGRESS_EVERY <= 0:
        return
    began = time.monotonic()

    def progress() -> None:
        while True:
            gevent.sleep(PROGRESS_EVERY)
            total = environment.stats.total
            rounds = max(RUN.told, default=0)
            print(
                f"progress {time.monotonic() - began:4.0f}s: round {rounds} of {ROUNDS}, "
                f"{len(RUN.ended)} matches over, {total.num_requests} requests, "
                f"{total.num_failures} failed",
                flush=True,
            )

    greenlet = gevent.spawn(progress)
    environment.events.test_stop.add_listener(lambda **_: greenlet.kill(block=False))
