"""Bots' thinking time in a real worker while several bot matches run at once.

Starts a private Redis and `--workers` real `cardtable worker` processes (one by default), keeps
`--matches` bot-only matches of one game going on them for `--seconds` (a finished match is
replaced by a new one), then reads `cardtable_bot_decision_seconds` (GET /metrics: the time
each bot spent on its decision, by level) and prints per level the decisions made, the mean
and the bucket bounds under which 50 %, 95 % and 99 % of them fell.

    python bench/bot_latency.py --game zhol --seats pro,hard [--matches 8] [--seconds 120]

The issue's targets (docs/bots.md): pro p95 <= 1 s and p99 <= 2 s, every other level p95 <= 50 ms.
Nothing else should run on the machine meanwhile: the worker's decisions are timed in wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from service.config import Config  # noqa: E402
from service.http.app import create_app  # noqa: E402
from service.infra.embedded import start_redis  # noqa: E402


def histograms(text: str) -> dict[str, dict]:
    """Per level: cumulative bucket counts (le -> n), sum and count, from /metrics text."""
    out: dict[str, dict] = {}
    for line in text.splitlines():
        if not line.startswith("cardtable_bot_decision_seconds"):
            continue
        name, value = line.rsplit(" ", 1)
        level = name.split('level="')[1].split('"')[0]
        entry = out.setdefault(level, {"buckets": {}, "sum": 0.0, "count": 0})
        if "_bucket{" in name:
            entry["buckets"][name.split('le="')[1].split('"')[0]] = float(value)
        elif name.startswith("cardtable_bot_decision_seconds_sum"):
            entry["sum"] = float(value)
        else:
            entry["count"] = int(float(value))
    return out


def bound(entry: dict, q: float) -> str:
    """The smallest bucket bound under which a share `q` of the decisions fell."""
    for le, n in entry["buckets"].items():
        if n >= q * entry["count"]:
            return "over 5 s" if le == "+Inf" else f"<= {float(le) * 1000:g} ms"
    return "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="zhol")
    ap.add_argument("--seats", default="pro,hard", help="bot levels a client may seat, one a seat")
    ap.add_argument("--options", type=json.loads, default={}, help="match options as JSON")
    ap.add_argument("--matches", type=int, default=8, help="bot matches kept going at once")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=120)
    args = ap.parse_args()
    proc, url = start_redis(tempfile.mkdtemp(prefix="bot-latency-"), persist=False)
    env = dict(os.environ, REDIS_URL=url, CARDTABLE_BOT_DELAY="0", CARDTABLE_LOG_LEVEL="WARNING")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(args.workers)
    ]
    client = create_app(Config(REDIS_URL=url, RATE_LIMIT=0, BOT_DELAY=0.0)).test_client()
    seats = [{"kind": "bot", "level": level} for level in args.seats.split(",")]
    body = {"game": args.game, "seats": seats, "options": args.options}
    try:
        running: list[str] = []
        finished = 0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            for match_id in list(running):
                status = client.get(f"/v1/matches/{match_id}").get_json()["status"]
                if status in ("finished", "aborted"):
                    running.remove(match_id)
                    finished += 1
            while len(running) < args.matches:
                created = client.post("/v1/matches", json=body)
                assert created.status_code == 201, created.get_json()
                running.append(created.get_json()["id"])
            time.sleep(0.5)
        found = histograms(client.get("/metrics").get_data(as_text=True))
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(30)
        proc.terminate()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    at_once = f"{args.matches} matches at once on {args.workers} worker(s)"
    print(f"{args.game} {args.options} seats {args.seats}: {at_once}")
    print(f"for {args.seconds:.0f} s, {finished} finished; load average at the end {load}")
    print("| level | decisions | mean ms | p50 | p95 | p99 |")
    print("|---|---|---|---|---|---|")
    for level, entry in sorted(found.items()):
        if entry["count"]:
            mean = entry["sum"] / entry["count"] * 1000
            cells = " | ".join(bound(entry, q) for q in (0.5, 0.95, 0.99))
            print(f"| {level} | {entry['count']} | {mean:.1f} | {cells} |")


if __name__ == "__main__":
    main()
