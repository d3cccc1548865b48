"""Simulated players for load tests: `cardtable loadtest`, or `locust -f` this file (docs/loadtest.md).

Each simulated user plays whole matches, one after another: half of them against bots (a match
created with the user's seat and bots of mixed levels), half against other simulated users
(seated through the lobby's quick play). Users think before each move, follow the match by
long-polling its events, and wait out a 429 for as long as its Retry-After says. Moves are random
legal actions taken from the view, so the file needs nothing but locust, this package's
client.py and a URL.

After locust's tables, a "Matches played" table counts the matches that ended, per game and
kind of opponent, with how long they took. Players who waited longer than
CARDTABLE_LOAD_SEAT_WAIT for people to fill their table leave it; those show as `gave up`.

Environment: CARDTABLE_LOAD_THINK ("min,max" seconds before a move, default "0.5,2"),
CARDTABLE_LOAD_PEOPLE (share of matches against other users, default 0.5),
CARDTABLE_LOAD_SEAT_WAIT (seconds to wait for a table to fill, default 30),
CARDTABLE_LOAD_GAMES (comma-separated game ids, default all four),
CARDTABLE_LOAD_PROGRESS_EVERY (seconds between two progress lines, set by `cardtable loadtest`;
unset or 0: none, as locust prints its own).
"""

from __future__ import annotations

import os
import random
import time
import uuid
from typing import Any, cast

import gevent
from locust import events, task
from locust.runners import LocalRunner

from service.cli.loadtest.client import Client, Refused, complete, env_pair

# Short matches, so each user goes through whole matches (creation, rounds, the end) often.
OPTIONS = {
    "spades": {"target_score": 100},
    "three-thirteen": {},
    "zhol": {"target_wins": 1},
    "zoliky": {"target_wins": 1},
}
SEATS = {"spades": 4, "three-thirteen": 3, "zhol": 2, "zoliky": 2}  # tables against bots
PEOPLE_SEATS = {"spades": 4, "three-thirteen": 2, "zhol": 2, "zoliky": 2}
BOT_LEVELS = ("easy", "medium", "hard")
# Seconds one events request waits for something to happen (the API allows up to 30).
LONG_POLL = 10

THINK = env_pair("CARDTABLE_LOAD_THINK", "0.5,2")
PEOPLE_SHARE = float(os.environ.get("CARDTABLE_LOAD_PEOPLE", "0.5"))
SEAT_WAIT = float(os.environ.get("CARDTABLE_LOAD_SEAT_WAIT", "30"))
GAMES = [g for g in os.environ.get("CARDTABLE_LOAD_GAMES", ",".join(OPTIONS)).split(",") if g]
PROGRESS_EVERY = float(os.environ.get("CARDTABLE_LOAD_PROGRESS_EVERY") or 0)


# Seconds each match took, by "<game> vs <bots|people>[ (how it ended)]". Kept out of locust's
# request statistics so that their Aggregated line stays about requests.
MATCHES: dict[str, list[float]] = {}


@events.quitting.add_listener  # type: ignore[untyped-decorator]  # locust's is unannotated
def _print_matches(environment: Any, **_: Any) -> None:
    print("\nMatches played (from the first request to the end)")
    print(f"{'Name':<40} {'# matches':>10} {'avg s':>8} {'max s':>8}")
    for name, took in sorted(MATCHES.items()):
        print(f"{name:<40} {len(took):>10} {sum(took) / len(took):>8.1f} {max(took):>8.1f}")
    print(f"{'Total':<40} {sum(map(len, MATCHES.values())):>10}\n", flush=True)


def progress_line(environment: Any, elapsed: float) -> str:
    """Where the run stands: players running, matches ended (by this file's count, as in the
    "Matches played" table) and locust's request counts so far."""
    runner, total = environment.runner, environment.stats.total
    ended = sum(map(len, MATCHES.values()))
    finished = sum(len(took) for name, took in MATCHES.items() if "(" not in name)
    return (
        f"progress {elapsed:4.0f}s: {runner.user_count} users, {finished} matches finished "
        f"({ended - finished} ended otherwise), {total.num_requests} requests, "
        f"{total.num_failures} failed"
    )


@events.test_start.add_listener  # type: ignore[untyped-decorator]  # locust's is unannotated
def _start_progress(environment: Any, **_: Any) -> None:
    # Only where the players run in this process: a distributed master or worker sees half of it.
    if PROGRESS_EVERY <= 0 or not isinstance(environment.runner, LocalRunner):
        return
    started = time.monotonic()

    def report() -> None:
        while True:
            gevent.sleep(PROGRESS_EVERY)
            print(progress_line(environment, time.monotonic() - started), flush=True)

    progress = gevent.spawn(report)
    environment.events.test_stop.add_listener(lambda **_: progress.kill(block=False))


class Player(Client):
    # Matches follow each other at once; the thinking happens before each move.
    def wait_time(self) -> float:
        return 0.0

    @task
    def play_a_match(self) -> None:
        game = random.choice(GAMES)
        started = time.monotonic()
        try:
            if random.random() < PEOPLE_SHARE:
                kind, outcome = "people", self.against_people(game)
            else:
                kind, outcome = "bots", self.against_bots(game)
        except Refused:
            return  # already counted as a failed request
        name = f"{game} vs {kind}" + ("" if outcome == "finished" else f" ({outcome})")
        MATCHES.setdefault(name, []).append(time.monotonic() - started)

    def against_bots(self, game: str) -> str:
        seats = [{"kind": "human", "name": "load"}] + [
            {"kind": "bot", "level": random.choice(BOT_LEVELS)} for _ in range(SEATS[game] - 1)
        ]
        body = {"game": game, "options": OPTIONS.get(game, {}), "seats": seats}
        created = self.call("POST", "/v1/matches", "/v1/matches", json=body)
        return self.play(created["id"], created["seats"][0]["token"], 0)

    def against_people(self, game: str) -> str:
        """Sit at a table someone listed (seen in the lobby), or host one for `game`."""
        lobby = self.call("GET", "/v1/matches?status=waiting&limit=20", "/v1/matches (lobby)")
        waiting = [m["game"] for m in lobby["matches"] if PEOPLE_SEATS.get(m["game"]) == m["players"]]
        game = random.choice([g for g in waiting if g in GAMES] or [game])
        body = {"game": game, "options": OPTIONS.get(game, {}), "name": "load", "players": PEOPLE_SEATS[game]}
        seat = self.call("POST", "/v1/matches/quick", "/v1/matches/quick", json=body)
        if seat is None:
            return "conflict"
        return self.play(seat["id"], seat["token"], seat["seat"])

    def play(self, match_id: str, token: str, seat: int) -> str:
        """Play `seat` until the match ends; the outcome: finished, aborted or gave up."""
        path = f"/v1/matches/{match_id}"
        view = self.call("GET", path, "/v1/matches/{id}", token)
        after, waiting_since = 0, time.monotonic()
        while view["status"] not in ("finished", "aborted"):
            if view["status"] == "waiting" and time.monotonic() - waiting_since > SEAT_WAIT:
                self.call("POST", path + "/leave", "/v1/matches/{id}/leave", token)
                return "gave up"
            mine = view["status"] == "active" and view["turn"]["seat"] == seat and view["legal_actions"]
            if mine or (view["status"] == "round_over" and view["host"] == seat):
                time.sleep(random.uniform(*THINK))
                if mine:
                    action = random.choice(complete(view["legal_actions"]))
                    # The key makes the move safe to send again (docs/api.md, "Requests").
                    key = {"Idempotency-Key": uuid.uuid4().hex}
                    moved = self.call(
                        "POST", path + "/actions", "/v1/matches/{id}/actions", token, True, json=action,
                        headers=key,
                    )  # fmt: skip
                else:
                    # Sent twice, the second start is a 409: the round began.
                    moved = self.call("POST", path + "/rounds", "/v1/matches/{id}/rounds", token, True)
                view = moved or self.call("GET", path, "/v1/matches/{id}", token)
                continue
            url = f"{path}/events?after={after}&wait={LONG_POLL}"
            news = self.call("GET", url, "/v1/matches/{id}/events (long-poll)", token)
            if news and news["events"]:
                after = news["events"][-1]["seq"]
            view = self.call("GET", path, "/v1/matches/{id}", token)
        return cast(str, view["status"])  # the match view, as JSON
