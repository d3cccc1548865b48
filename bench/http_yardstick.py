"""The yardstick over HTTP: a level decided in this process plays as a person, through the API of a
running `cardtable serve`, against the service's own bots, on paired deals (issue 43).

Level A (`--seats A,B`, first) is decided here by the engines' own bot (`engines.bots.decide`)
from its seat's view as the API serves it (`GET /v1/matches/{id}` with the seat's token), and
posted like any person's move; level B is the service's bot seat (`{"kind": "bot", "level": B}`,
one of the API's levels), decided by the service's RQ workers, pro's decision floor included.
`sound` and `solver` are ladder-only levels the API does not seat, but they can be A: A runs
here. Each deal k (the creator's `seed`: `--seed` + k) is played twice, A in seat 0 then in seat
1 (Spades: A's partnership in seats 0 and 2, then in 1 and 3), so the luck of the deal cancels as
in bench/yardstick.py. A's seat waits for its turn by long-polling the match's events, never by
polling its view. The bot reads the engine's view, which the seat's API view holds with the
service's additions around it (`engine_view` takes them off: the envelope, the seats' names and
kinds, the `resign` entry of `legal_actions`; tests/test_http_yardstick.py checks that what is
left is `Game.view(state, seat)` exactly). Only the deals repeat from run to run, not the play:
the service's bots draw their randomness from a secret key of each match (docs/api.md, "Hidden
information").

    cardtable serve --port 8000                        # another shell: Redis, workers, gunicorn
    python bench/http_yardstick.py --url http://127.0.0.1:8000 --games zoliky --seats sound,pro \\
        --deals 200 --parallel 4

Prints per game the score rate of A (a shared win counts 1/k to each of k winning sides, as
`engines.tournament` counts) with its 95% Wilson interval, B's beside it, the matches, the wall
time, and the service bot's answer time as this client saw it: from the answer that handed the
turn to a bot seat to the view in which it is A's turn again (or the round or match is over),
p50 and p95 over every such hand-over (Žolíky's bot turn is two decisions: draw and discard).
The winners are read from each match's `GET …/history` (its `match_over` event), which also
shows that the two matches of a deal were dealt the same initial deck.

`--match one` (the default) plays one hand a match in Zhol and Žolíky (`target_wins` 1);
`--match default` the games' own length; Three Thirteen and Spades always their whole match;
`--options` (a JSON object) is merged over every game's options. Matches are created anonymously
(a server's default, `CARDTABLE_REQUIRE_APP=0`) unless `--app-key` (or `CARDTABLE_APP_KEY`) gives
an app key, which a server with `CARDTABLE_REQUIRE_APP=1` needs: make one on the service's machine
with `cardtable apps create yardstick --json` (docs/integrating.md). The seat tokens' own calls
count on the server's per-token and per-address rate limits either way (docs/api.md,
"Requests"): a 429 is waited out as its Retry-After says.

`--parallel N` matches are played at once, each in a worker process of its own (`--pool
process`, the default) or thread (`--pool thread`). A's decisions are CPU work (`sound`: about
1 ms in Žolíky, 0.1-1 s in Zhol large and Three Thirteen): in threads they hold the GIL, and the
matches waiting beside them read their answers late, which the answer times then include
(Zhol large, `sound` against `easy`, 4 at once: the service bot's p50 40 ms with threads, 12 ms
with processes, for the same wall time on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import http.client
import json
import multiprocessing
import os
import random
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import yardstick  # noqa: E402
from bench.stats import percentile  # noqa: E402
from engines import bots  # noqa: E402
from engines.base import BOT_LEVELS, Game  # noqa: E402
from engines.registry import GAMES  # noqa: E402
from engines.tournament import LEVELS, SideResult, TournamentResult, _count  # noqa: E402

Json = dict[str, Any]

# The games as bench/yardstick.py names them, with Spades (partnerships) beside them.
GAME_OPTIONS: dict[str, tuple[str, Json]] = {**yardstick.GAME_OPTIONS, "spades": ("spades", {})}
DEFAULT_GAMES = tuple(yardstick.GAME_OPTIONS)
# Seats of a match: two, or Spades' two partnerships of two.
SEATS = {"spades": 4}

# The engine's view (engines.base.Game.view) is the API view's game part: these fields, with
# `players` entries less what the service adds to them (service/matches/following.py, _players),
# and `legal_actions` less the `resign` entry the service adds for a person (engines never list
# it). The rest of the API view (id, game, options, version, you, host, deal_commitment, ...) is
# the service's envelope, which no engine bot reads.
ENGINE_FIELDS = tuple(Game.waiting_view(2, None))  # the engine's own view, in its order
SERVICE_PLAYER_FIELDS = frozenset({"name", "kind", "level", "player", "hints_used", "left", "reserved"})


def engine_view(view: Mapping[str, Any]) -> Json:
    """A seat's API view as the engine's bots read it: `Game.view(state, seat)` of the same state,
    made from what the API served that seat and nothing else."""
    missing = [name for name in ENGINE_FIELDS if name not in view]
    if missing:
        raise ValueError(f"the API view has no {', '.join(missing)}: not the view this script knows")
    out = {name: view[name] for name in ENGINE_FIELDS}
    out["turn"] = {**view["turn"], "deadline": None}  # the engine has no clock
    out["players"] = [{k: v for k, v in p.items() if k not in SERVICE_PLAYER_FIELDS} for p in view["players"]]
    out["legal_actions"] = [a for a in view["legal_actions"] if a.get("type") != "resign"]
    return out


class Refused(Exception):
    """An answer the yardstick does not expect from a healthy service."""


class Http:
    """One kept-alive connection to the service: a JSON request, a 429 or 503 waited out (its
    Retry-After), a request that may be sent twice sent again when the connection dropped."""

    def __init__(self, base: str, timeout: float):
        url = urllib.parse.urlsplit(base)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"--url must be http(s)://host[:port], not {base!r}")
        self.scheme, self.host, self.port = url.scheme, url.hostname, url.port
        self.prefix = url.path.rstrip("/")
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.requests = 0
        self.waited = 0  # 429 and 503 answers waited out

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            self.conn = kind(self.host, self.port, timeout=self.timeout)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        resend: bool = True,
    ) -> tuple[int, Any]:
        """(status, JSON answer) of one request; `resend`: it may be sent again when no answer came."""
        sent = {"Accept": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        failures = 0
        for _ in range(600):
            try:
                conn = self._connection()
                self.requests += 1
                conn.request(method, self.prefix + path, body=data, headers=sent)
                resp = conn.getresponse()
                raw = resp.read()
            except (OSError, http.client.HTTPException):
                self.close()
                failures += 1
                if not resend or failures > 5:
                    raise
                time.sleep(0.2 * failures)
                continue
            if resp.status in (429, 503):
                self.waited += 1
                time.sleep(float(resp.getheader("Retry-After") or 1))
                continue
            try:
                answer = json.loads(raw) if raw else None
            except ValueError:
                raise Refused(f"{method} {path}: {resp.status}, not JSON: {raw[:200]!r}") from None
            return resp.status, answer
        raise Refused(f"{method} {path}: still refused with 429/503 after 600 tries")

    def expect(self, status: int, method: str, path: str, **kwargs: Any) -> Any:
        got, answer = self.call(method, path, **kwargs)
        if got != status:
            raise Refused(f"{method} {path}: {got} {answer}")
        return answer


@dataclass(frozen=True)
class Job:
    """One match to play: deal `deal` (seed `seed`) with A's side rotated by `shift`."""

    url: str
    app_key: str | None
    name: str
    game_id: str
    options: Json
    level_a: str
    level_b: str
    deal: int
    seed: int
    shift: int
    wait: float

    @property
    def side_of(self) -> list[int]:
        """Each seat's side: 0 for A, 1 for B (engines.tournament.seat_levels' rotation)."""
        return [(s + self.shift) % 2 for s in range(SEATS.get(self.game_id, 2))]


@dataclass
class MatchOutcome:
    deal: int
    seed: int
    a_seats: list[int]
    match_id: str
    token: str  # the token of A's first seat: /history for whoever wants to check
    winners: list[int]
    reason: str
    deck_digest: str  # SHA-256 of the initial deck /history publishes
    levels: list[str | None]  # each seat's bot level as /history shows it (None: a person)
    timed_out: int  # turn clocks that ran out (none expected: no clock unless --options sets one)
    bot_waits: list[float] = field(default_factory=list)
    decisions: int = 0
    decide_seconds: list[float] = field(default_factory=list)
    requests: int = 0
    waited: int = 0


def play(job: Job) -> MatchOutcome:
    """Create the match, play A's seats to its end, read its history."""
    api = Http(job.url, timeout=job.wait + 30)
    seats: list[Json] = [
        {"kind": "human", "name": f"{job.level_a} (yardstick)"}
        if side == 0
        else {"kind": "bot", "level": job.level_b}
        for side in job.side_of
    ]
    body = {"game": job.game_id, "options": job.options, "seats": seats, "seed": job.seed}
    # Not sent again without an answer: it could make a second match.
    created = api.expect(201, "POST", "/v1/matches", token=job.app_key, body=body, resend=False)
    match_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s["kind"] == "human"}
    try:
        outcome = _play(api, job, match_id, tokens)
    except BaseException:
        _leave(api, match_id, tokens)
        raise
    finally:
        api.close()
    return outcome


def _leave(api: Http, match_id: str, tokens: Mapping[int, str]) -> None:
    """Best effort: a match this client gives up on ends (its person leaves) instead of staying live."""
    for token in tokens.values():
        try:
            api.call("POST", f"/v1/matches/{match_id}/leave", token=token)
        except Exception:
            pass


def _play(api: Http, job: Job, match_id: str, tokens: Mapping[int, str]) -> MatchOutcome:
    game = GAMES[job.game_id]
    path = f"/v1/matches/{match_id}"
    mine = sorted(tokens)
    rng = random.Random(f"http-yardstick:{job.seed}:{job.shift}")
    outcome = MatchOutcome(job.deal, job.seed, mine, match_id, tokens[mine[0]], [], "", "", [], 0)

    def view_of(seat: int) -> Json:
        answer: Json = api.expect(200, "GET", path, token=tokens[seat])
        return answer

    view = view_of(mine[0])
    after = 0  # the last event seen
    handed_over: float | None = None  # when an answer showed a bot seat to move
    for _ in range(1_000_000):
        status = view["status"]
        mover: int | None = view["turn"]["seat"] if status == "active" else None
        now = time.monotonic()
        if status == "active" and mover not in tokens:
            if handed_over is None:
                handed_over = now
        elif handed_over is not None:
            outcome.bot_waits.append(now - handed_over)
            handed_over = None
        if status in ("finished", "aborted"):
            break
        if status == "active" and mover is not None and mover in tokens:
            own = view if view["you"] == mover else view_of(mover)
            if own["status"] != "active" or own["turn"]["seat"] != mover:
                view = own
                continue
            start = time.perf_counter()
            action = bots.decide(game, engine_view(own), job.level_a, rng)
            outcome.decide_seconds.append(time.perf_counter() - start)
            outcome.decisions += 1
            headers = {"If-Match": f'"{own["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
            got, answer = api.call(
                "POST", f"{path}/actions", token=tokens[mover], body=action, headers=headers
            )
            if got == 200:
                view = answer
            elif got in (409, 412) and answer.get("error") in ("version_conflict", "not_your_turn"):
                view = view_of(mover)  # the match moved on meanwhile: read it again
            else:
                raise Refused(f"match {match_id}: {job.level_a}'s {action} got {got} {answer}")
            continue
        if status == "round_over" and view["host"] in tokens:
            got, answer = api.call("POST", f"{path}/rounds", token=tokens[view["host"]])
            if got == 200:
                view = answer
            elif got == 409:  # started already (an answer lost, the request sent again)
                view = view_of(view["you"])
            else:
                raise Refused(f"match {match_id}: starting a round got {got} {answer}")
            continue
        if status not in ("active", "round_over"):
            raise Refused(f"match {match_id} is {status}, which this client cannot play on")
        # A bot seat is to move: wait for the match to change (the events long-poll).
        events = api.expect(
            200, "GET", f"{path}/events?after={after}&wait={job.wait:g}", token=tokens[view["you"]]
        )
        if events["events"]:
            after = events["events"][-1]["seq"]
        if events["version"] != view["version"]:
            view = view_of(view["you"])
    else:
        raise Refused(f"match {match_id} did not end")
    _read_history(api, outcome)
    outcome.requests, outcome.waited = api.requests, api.waited
    return outcome


def _read_history(api: Http, outcome: MatchOutcome) -> None:
    """The match's end as its history tells it: winners, reason, initial deck, seats, clocks."""
    history = api.expect(200, "GET", f"/v1/matches/{outcome.match_id}/history", token=outcome.token)
    over = [e for e in history["events"] if e["type"] == "match_over"]
    if not over:
        raise Refused(f"match {outcome.match_id}: no match_over event in its history")
    outcome.winners = list(over[-1]["winners"])
    outcome.reason = over[-1]["reason"]
    outcome.deck_digest = hashlib.sha256(json.dumps(history["deck"]).encode()).hexdigest()
    outcome.levels = [s.get("level") for s in history["seats"]]
    outcome.timed_out = sum(e["type"] == "timed_out" for e in history["events"])


@dataclass
class GameRun:
    """One game's paired run: A's and B's score, and every match."""

    name: str
    game_id: str
    options: Json
    levels: list[str]
    sides: list[SideResult]
    parallel: int
    pool: str
    matches: list[MatchOutcome] = field(default_factory=list)
    wall: float = 0.0

    def bot_waits(self) -> list[float]:
        return sorted(w for m in self.matches for w in m.bot_waits)

    def problems(self) -> list[str]:
        """What makes the run other than the paired comparison it claims to be."""
        found = []
        by_deal: dict[int, set[str]] = {}
        for m in self.matches:
            by_deal.setdefault(m.deal, set()).add(m.deck_digest)
            expected = [None if s in m.a_seats else self.levels[1] for s in range(len(m.levels))]
            if m.levels != expected:
                found.append(f"match {m.match_id}: seats {m.levels}, not {expected}")
            if m.timed_out:
                found.append(f"match {m.match_id}: {m.timed_out} turn clocks ran out")
            if m.reason not in ("target", "rounds"):
                found.append(f"match {m.match_id} ended by {m.reason!r}, not by the rules")
        found += [
            f"deal {k}: its matches were dealt different decks" for k, d in by_deal.items() if len(d) > 1
        ]
        return found


def run_game(
    url: str,
    name: str,
    levels: list[str],
    deals: int,
    seed: int,
    match: str = "one",
    parallel: int = 4,
    pool: str = "process",
    app_key: str | None = None,
    options: Json | None = None,
    wait: float = 20.0,
    progress: Callable[[int, int], None] | None = None,
) -> GameRun:
    """`deals` paired deals of game `name` (GAME_OPTIONS), A (`levels[0]`) decided here against the
    service's bot of level `levels[1]`, `parallel` matches at once."""
    game_id, opts = yardstick.match_options(name, match, GAME_OPTIONS)
    opts.update(options or {})
    level_a, level_b = levels
    jobs = [
        Job(url, app_key, name, game_id, opts, level_a, level_b, k, seed + k, shift, wait)
        for k in range(deals)
        for shift in range(2)
    ]
    run = GameRun(
        name, game_id, opts, list(levels), [SideResult(level_a), SideResult(level_b)], parallel, pool
    )
    tally = TournamentResult(game_id, list(levels), run.sides)
    start = time.perf_counter()
    executor: concurrent.futures.Executor
    if pool == "process":
        # spawn: a fresh interpreter per worker, whatever threads the caller runs.
        context = multiprocessing.get_context("spawn")
        executor = concurrent.futures.ProcessPoolExecutor(parallel, mp_context=context)
    else:
        executor = concurrent.futures.ThreadPoolExecutor(parallel)
    with executor:
        futures = {executor.submit(play, job): job for job in jobs}
        try:
            for done in concurrent.futures.as_completed(futures):
                outcome = done.result()
                run.matches.append(outcome)
                _count(tally, futures[done].side_of, outcome.winners)
                if progress:
                    progress(len(run.matches), len(jobs))
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    run.wall = time.perf_counter() - start
    run.matches.sort(key=lambda m: (m.deal, m.a_seats))
    return run


def report(run: GameRun, match: str, seed: int) -> str:
    a, b = run.sides
    lo, hi = a.interval()
    blo, bhi = b.interval()
    waits = run.bot_waits()
    decided = sorted(s for m in run.matches for s in m.decide_seconds)
    requests = sum(m.requests for m in run.matches)
    waited = sum(m.waited for m in run.matches)
    lines = [
        f"{run.name:>15} {match}: {a.level} (client) vs {b.level} (service) {a.rate:.1%} of {a.matches}"
        f" [{lo:.1%}, {hi:.1%}]; {b.level} {b.rate:.1%} [{blo:.1%}, {bhi:.1%}]"
        f"  seed {seed}, {len(run.matches)} matches, {run.parallel} at once ({run.pool} pool),"
        f" wall {run.wall:.0f} s",
        f"{'':>15} service bot answer p50 {percentile(waits, 0.5):.3f} s, p95 {percentile(waits, 0.95):.3f} s"
        f" over {len(waits)} hand-overs; client {a.level} decisions {len(decided)},"
        f" p50 {percentile(decided, 0.5) * 1000:.1f} ms, p95 {percentile(decided, 0.95) * 1000:.1f} ms;"
        f" {requests} requests, {waited} waited out (429/503)",
    ]
    lines += [f"{'':>15} WARNING: {p}" for p in run.problems()]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8000", help="a running `cardtable serve`")
    ap.add_argument("--app-key", default=os.environ.get("CARDTABLE_APP_KEY"), help="creates the matches")
    ap.add_argument("--seats", default="sound,pro", help="A,B: A decided here, B the service's bot")
    ap.add_argument("--deals", type=int, default=200, help="each played twice (200: 400 matches)")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--games", default=",".join(DEFAULT_GAMES), help=f"of {', '.join(GAME_OPTIONS)}")
    ap.add_argument("--match", choices=("one", "default"), default="one")
    ap.add_argument("--options", type=json.loads, default={}, help="JSON object merged over each game's")
    ap.add_argument("--parallel", type=int, default=4, help="matches at once")
    ap.add_argument("--pool", choices=("process", "thread"), default="process")
    ap.add_argument("--wait", type=float, default=20.0, help="seconds of each events long-poll (at most 30)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)
    levels = args.seats.split(",")
    if len(levels) != 2:
        ap.error("--seats takes two levels, A,B")
    if levels[0] not in LEVELS:
        ap.error(f"A must be one of {', '.join(LEVELS)}")
    if levels[1] not in BOT_LEVELS:
        ap.error(f"B is the service's bot seat: one of {', '.join(BOT_LEVELS)} (the API seats no other)")
    for name in args.games.split(","):
        if name not in GAME_OPTIONS:
            ap.error(f"unknown game {name!r}: one of {', '.join(GAME_OPTIONS)}")
        try:
            bots.find(GAMES[GAME_OPTIONS[name][0]], levels[0])
        except ValueError as e:
            ap.error(str(e))
    try:
        Http(args.url, 1)
    except ValueError as e:
        ap.error(str(e))
    if not isinstance(args.options, dict):
        ap.error("--options must be a JSON object")
    if args.deals < 1 or args.parallel < 1 or not 0 < args.wait <= 30:
        ap.error("--deals and --parallel take 1 or more, --wait 0 to 30 seconds")
    args.levels = levels
    return args


def main(argv: list[str] | None = None) -> list[GameRun]:
    args = parse_args(argv)
    runs = []
    for name in args.games.split(","):

        def progress(done: int, total: int, name: str = name) -> None:
            if not args.quiet and (done == total or done % max(1, total // 10) == 0):
                print(f"{name}: {done}/{total} matches", file=sys.stderr, flush=True)

        try:
            run = run_game(
                args.url, name, args.levels, args.deals, args.seed, args.match, args.parallel, args.pool,
                args.app_key, args.options, args.wait, progress,
            )  # fmt: skip
        except (Refused, OSError, http.client.HTTPException) as e:
            raise SystemExit(f"http_yardstick: {name}: {type(e).__name__}: {e}") from e
        print(report(run, args.match, args.seed), flush=True)
        runs.append(run)
    return runs


if __name__ == "__main__":
    main()
