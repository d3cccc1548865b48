"""Where a move's CPU goes, in one process: bench/api.py's Spades load driven through the app's
WSGI callable (no HTTP, no gunicorn), timed and optionally profiled.

Plays `--moves` moves of four-seat Spades matches, as bench/api.py's clients do (create, read
each hand once a hand, act, start the next hand), with the seats' own tokens and then with an
app's players bound to the seats (their player tokens: every move that hands the turn on
publishes a `turn.started` to a player's feed), and times empty long-poll rounds of a player's
feed (`/v1/me/events?wait=`) and of a match (`/events?wait=`), each waking at its timeout with
nothing new. Prints the process's CPU per move (all requests of the load included) and per
round; with `--profile seats|players|poll|match-poll`, cProfile's top functions for that part.

    python bench/profile_moves.py [--moves 4000] [--rounds 2000] [--profile players]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import tempfile
import time
from typing import Any

import orjson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from api import legal_play  # noqa: E402

from service.infra.embedded import start_redis  # noqa: E402


class Caller:
    """Requests straight into the WSGI app, with the environ gunicorn would build."""

    def __init__(self, app: Any):
        self.app = app

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        data = orjson.dumps(body) if body is not None else b""
        path, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "bench",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "bench",
            "CONTENT_LENGTH": str(len(data)),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.version": (1, 0),
        }
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        if token:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        status: list[str] = []
        chunks = self.app(environ, lambda s, h, e=None: status.append(s))
        raw = b"".join(chunks)
        if hasattr(chunks, "close"):
            chunks.close()
        return int(status[0][:3]), orjson.loads(raw) if raw else None


def seated(c: Caller, seed: int, app_key: str | None) -> tuple[str, list[str]]:
    if app_key is None:
        seats = [{"kind": "human", "name": f"p{i}"} for i in range(4)]
        status, created = c.call("POST", "/v1/matches", {"game": "spades", "seats": seats, "seed": seed})
        assert status == 201, created
        return created["id"], [s["token"] for s in created["seats"]]
    tokens, seats = [], []
    for i in range(4):
        external = f"prof-{seed}-{i}"
        status, player = c.call("PUT", f"/v1/players/{external}", {"name": f"p{i}"}, app_key)
        assert status == 200, player
        tokens.append(player["token"])
        seats.append({"kind": "human", "player": external})
    status, created = c.call("POST", "/v1/matches", {"game": "spades", "seats": seats, "seed": seed}, app_key)
    assert status == 201, created
    return created["id"], tokens


def play(c: Caller, moves: int, seed: int, app_key: str | None) -> int:
    """bench/api.py's `play_match`, match after match, until `moves` moves were made."""
    rng, made = random.Random(seed), 0
    while made < moves:
        match_id, tokens = seated(c, seed + made, app_key)
        hands: dict[int, list[str]] = {}
        view: Any = None
        while made < moves:
            if view is None or view["status"] == "round_over":
                if view is not None:
                    status, view = c.call("POST", f"/v1/matches/{match_id}/rounds", token=tokens[0])
                    assert status == 200, view
                for s in range(4):
                    status, view = c.call("GET", f"/v1/matches/{match_id}", token=tokens[s])
                    hands[s] = view["hand"]
            if view["status"] == "finished":
                break
            seat, table = view["turn"]["seat"], view["table"]
            if view["turn"]["phase"] == "bid":
                action = {"type": "bid", "tricks": rng.randint(1, 4)}
            else:
                card = rng.choice(legal_play(hands[seat], table["trick"], table["spades_broken"]))
                action = {"type": "play", "card": card}
            status, view = c.call("POST", f"/v1/matches/{match_id}/actions", action, tokens[seat])
            assert status == 200, view
            if action["type"] == "play":
                hands[seat].remove(action["card"])
            made += 1
    return made


def polls(c: Caller, rounds: int, path: str, token: str | None) -> int:
    for _ in range(rounds):
        status, body = c.call("GET", path, token=token)
        assert status == 200 and not body["events"], body
    return rounds


REDIS_PID: list[int] = []  # the private redis-server's, whose CPU each measurement reports too


def redis_cpu() -> float:
    with open(f"/proc/{REDIS_PID[0]}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(name: str, run, count: int, unit: str, profile: bool, dump: str | None = None) -> None:
    # CPU time, not wall time: the machine is shared, and a wait for a core is not our cost.
    prof = cProfile.Profile(time.process_time) if profile else None
    cpu0, wall0, redis0 = time.process_time(), time.perf_counter(), redis_cpu()
    if prof:
        prof.enable()
    run()
    if prof:
        prof.disable()
    cpu, wall, in_redis = time.process_time() - cpu0, time.perf_counter() - wall0, redis_cpu() - redis0
    each = f"{1e6 * cpu / count:.0f} us CPU a {unit} (+ Redis {1e6 * in_redis / count:.0f} us)"
    print(f"{name}: {each} ({count} {unit}s, {1e6 * wall / count:.0f} us wall)")
    if prof:
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        if dump:
            stats.dump_stats(dump)
        print(f"  {stats.total_calls / count:.0f} Python calls a {unit}")  # type: ignore[attr-defined]
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(30)
        print(out.getvalue())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moves", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=1, help="measure the moves this many times, alternating")
    ap.add_argument("--rounds", type=int, default=2000, help="empty long-poll rounds of each kind")
    ap.add_argument("--wait", type=float, default=0.001, help="each long-poll round's wait")
    ap.add_argument("--profile", choices=("seats", "players", "poll", "match-poll"), default=None)
    ap.add_argument("--only", choices=("seats", "players"), help="play only these moves (for py-spy)")
    ap.add_argument("--dump", help="with --profile: also write its stats to this file (pstats)")
    args = ap.parse_args()
    # With its append-only file, as bench/api.py runs it: every write a move makes costs there too.
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-prof-"))
    REDIS_PID.append(proc.pid)
    os.environ.update(REDIS_URL=url, CARDTABLE_LOG_LEVEL="WARNING", CARDTABLE_RATE_LIMIT="1000000")
    os.environ["CARDTABLE_MAX_WAITS_PER_ADDRESS"] = "0"
    try:
        import gc

        import redis

        from service.http.app import create_app
        from service.identity.apps import Apps

        app = create_app()
        gc.freeze()
        gc.set_threshold(700, 10, 1000)
        apps = Apps(redis.Redis.from_url(url))
        _, app_key = apps.create("prof", matches=10**6, bot_matches=10**6, rate=10**9)
        c = Caller(app.wsgi_app)
        play(c, 300, 1, None)  # warm up: imports, caches, connections
        play(c, 300, 2, app_key)
        for turn in range(args.repeat):
            for name, key in (("seat tokens", None), ("player tokens", app_key)):
                part = "seats" if key is None else "players"
                if args.only not in (None, part):
                    continue
                profile = args.profile == part and turn == 0
                play_them = lambda k=key, t=turn: play(c, args.moves, 1000 + 10**6 * t, k)  # noqa: E731
                measure(name, play_them, args.moves, "move", profile, args.dump)
        status, player = c.call("PUT", "/v1/players/prof-poller", {"name": "poller"}, app_key)
        status, created = c.call("POST", "/v1/matches", {"game": "spades", "seats": [{"kind": "human"}] * 4})
        feed = f"/v1/me/events?after=0&wait={args.wait}"
        events = f"/v1/matches/{created['id']}/events?after=3&wait={args.wait}"
        polls(c, 50, feed, player["token"])
        polls(c, 50, events, None)
        measure(
            f"player's long-poll, empty (wait {args.wait} s)",
            lambda: polls(c, args.rounds, feed, player["token"]),
            args.rounds,
            "round",
            args.profile == "poll",
            args.dump,
        )
        measure(
            f"match's long-poll, empty (wait {args.wait} s)",
            lambda: polls(c, args.rounds, events, None),
            args.rounds,
            "round",
            args.profile == "match-poll",
            args.dump,
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
