"""The service's rate limiter against flask-limiter, in the same run (docs/api.md, "Requests").

A seat's view (GET /v1/matches/<id> with its token) is served in-process by three apps on one
private Redis: no rate limit at all, the service's own limiter (its count rides in the round
trip that loads the match), and the service with its limiter off and flask-limiter (Redis
storage, fixed window, keyed on the address) in front. Prints the CPU a request costs in each,
the best and the median of several interleaved runs, and the two limiters' cost over none.

flask-limiter is not one of the service's dependencies; this script needs it installed:

    pip install flask-limiter && python bench/limiter.py [--requests 500] [--runs 6]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from service.config import Config  # noqa: E402
from service.http.app import create_app  # noqa: E402
from service.infra.embedded import start_redis  # noqa: E402

# Above what one loop reaches, so no request is refused and every one pays the count.
LIMIT = 100_000
KINDS = ("none", "own", "flask-limiter")


def build(kind: str, url: str):
    """A test client, a seat's view path and its headers, for an app limited by `kind`."""
    app = create_app(Config(REDIS_URL=url, RATE_LIMIT=LIMIT if kind == "own" else 0))
    if kind == "flask-limiter":
        try:
            from flask_limiter import Limiter
            from flask_limiter.util import get_remote_address
        except ImportError:
            sys.exit("flask-limiter is not installed: pip install flask-limiter")
        Limiter(
            get_remote_address,
            app=app,
            storage_uri=url,
            default_limits=[f"{LIMIT}/second"],
            strategy="fixed-window",
        )
    client = app.test_client()
    seats = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]
    created = client.post("/v1/matches", json={"game": "spades", "seats": seats}).get_json()
    return client, f"/v1/matches/{created['id']}", {"Authorization": f"Bearer {created['seats'][0]['token']}"}


def cpu_ms(client, path: str, headers: dict, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        resp = client.get(path, headers=headers)
        assert resp.status_code == 200, resp.get_data(as_text=True)
    return (time.process_time() - start) / n * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=500, help="views per run and kind")
    ap.add_argument("--runs", type=int, default=6, help="interleaved runs of every kind")
    args = ap.parse_args()
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-bench-"))
    try:
        setups = {kind: build(kind, url) for kind in KINDS}
        for setup in setups.values():
            cpu_ms(*setup, 100)  # warm up
        runs: dict[str, list[float]] = {kind: [] for kind in KINDS}
        for _ in range(args.runs):
            for kind, setup in setups.items():
                runs[kind].append(cpu_ms(*setup, args.requests))
        best = {kind: min(v) for kind, v in runs.items()}
        for kind, v in runs.items():
            over = f", {best[kind] - best['none']:+.3f} ms over none" if kind != "none" else ""
            print(f"{kind:14s} best {best[kind]:.3f} ms, median {sorted(v)[len(v) // 2]:.3f} ms{over}")
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
