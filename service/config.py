"""Configuration read once from the environment.

| variable | default | meaning |
|---|---|---|
| `REDIS_URL` | none | the queue's Redis (and the matches' without a state URL); embedded if unset |
| `CARDTABLE_STATE_URL` | `REDIS_URL` | matches, rate counts, metrics; or `redis+cluster://h:p[,h:p]` |
| `CARDTABLE_REPLICA_ACKS` | `0` | replicas that must hold a commit (Redis `WAIT`) before it is acknowledged |
| `CARDTABLE_REPLICA_WAIT_MS` | `1000` | how long a commit waits for them; past it the request answers 503 |
| `CARDTABLE_ALLOW_STACKED_DECK` | `0` | `1` accepts `deck` at match creation (tests, demos) |
| `CARDTABLE_FINISHED_TTL` | `604800` | seconds a finished or aborted match is kept (7 days) |
| `CARDTABLE_IDLE_TTL` | `2592000` | seconds a match with no change is kept (30 days) |
| `CARDTABLE_BOT_DELAY` | `0` | seconds a bot waits before moving, so people can follow |
| `CARDTABLE_RATE_LIMIT` | `100` | requests a second per seat token, and per address without one; 0: off |
| `CARDTABLE_ADDRESS_RATE_LIMIT` | `0` | requests a second per address, seat tokens included; 0: twice that |
| `CARDTABLE_REQUIRE_APP` | `0` | `1`: new matches, rematches, joins, claims need an app key or player token |
| `CARDTABLE_ORIGINS_TTL` | `5` | seconds an API process keeps its copy of the apps' web origins (CORS) |
| `CARDTABLE_ANONYMOUS_LIVE_MATCHES` | `100` | live matches of any kind one address may hold (no app key) |
| `CARDTABLE_ANONYMOUS_BOT_MATCHES` | `2` | live matches with no human seat an address may hold; 0: none |
| `CARDTABLE_ANONYMOUS_WAITING_MATCHES` | `10` | live waiting matches one address may hold |
| `CARDTABLE_WAITING_TTL` | `3600` | seconds a waiting match is kept after its last join (or leave) |
| `CARDTABLE_REMATCH_SECONDS` | `300` | seconds a rematch holds the others' seats; then it ends `declined` |
| `CARDTABLE_MAX_JOINS` | `50` | joins one match takes while it waits (leaving and joining again count) |
| `CARDTABLE_MAX_VERSIONS` | `20000` | moves one match takes; the one that reaches it aborts the match |
| `CARDTABLE_LOW_PRIORITY_AFTER` | `2000` | versions after which a match's bot turns wait in the low queue |
| `CARDTABLE_HINTS_AT_ONCE` | `1` | hints one API process computes at a time; more wait, then 429 |
| `CARDTABLE_METRICS_TOKEN` | none | when set, `/metrics` needs `Authorization: Bearer <it>` |
| `CARDTABLE_MAX_BODY` | `65536` | largest request body in bytes; larger is 413 `payload_too_large` |
| `CARDTABLE_QUEUE` | `cardtable` | RQ queue of bot turns and clocks; `<it>-low`: bot-only and long matches |
| `CARDTABLE_LOG_LEVEL` | `INFO` | log level of every process; `DEBUG` adds a line per request and per job |
| `CARDTABLE_LOG_FORMAT` | `text` | `json`: one JSON object a line, with request, match and job ids |
| `CARDTABLE_SWEEP_GRACE` | `5` | seconds past its time before the sweeper re-enqueues a bot turn or clock |
| `CARDTABLE_SWEEP_INTERVAL` | `2` | seconds between two sweeps (one worker sweeps at a time) |
| `CARDTABLE_OUTBOX_GRACE` | `2` | seconds before the relay hands on an effect its committer did not |
| `CARDTABLE_MAX_WAIT` | `30` | longest long-poll on `/events`, in seconds (a larger `wait` is cut to it) |
| `CARDTABLE_STREAM_SECONDS` | `300` | seconds one SSE stream lasts (the client resumes with Last-Event-ID) |
| `CARDTABLE_MAX_WAITS_PER_ADDRESS` | `1000` | long-polls and streams one address holds open per process |
| `CARDTABLE_CLOCK_SCALE` | `1` | tests, demos: multiplies each turn clock's seconds as its deadline is set |
| `CARDTABLE_QUICK_BAND_SCALE` | `1` | tests, demos: multiplies the seconds of rated quick play's band |
| `CARDTABLE_BOT_FLOOR_SCALE` | `1` | tests, demos: multiplies each pro decision's floor (less than 1 is 1) |
| `CARDTABLE_WEBHOOKS_TTL` | `1` | seconds a process keeps its copy of the event types apps' webhooks want |
| `CARDTABLE_WEBHOOK_ALLOW_HTTP` | `0` | `1` takes `http://` webhook URLs (tests, local setups only) |
| `CARDTABLE_WEBHOOK_ALLOW_PRIVATE` | `0` | `1` takes webhook hosts on private addresses (tests, local use) |
| `CARDTABLE_WEBHOOK_RETRY_SCALE` | `1` | tests only: scales webhook retry delays and the day to `failing` |
| `CARDTABLE_WEBHOOK_PENDING` | `10000` | pending webhook deliveries per app; more fail unsent; 0: no limit |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


def _flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


@dataclass
class Config:
    REDIS_URL: str = "redis://127.0.0.1:6379/0"
    # Match state (docs/deployment.md): '' means REDIS_URL.
    STATE_URL: str = ""
    REPLICA_ACKS: int = 0
    REPLICA_WAIT_MS: int = 1000
    ALLOW_STACKED_DECK: bool = False
    FINISHED_TTL: int = 7 * 24 * 3600
    IDLE_TTL: int = 30 * 24 * 3600
    BOT_DELAY: float = 0.0
    RATE_LIMIT: int = 100
    MAX_BODY: int = 64 * 1024
    QUEUE: str = "cardtable"
    LOG_LEVEL: str = "INFO"
    LOG_FORMAT: str = "text"
    IDEMPOTENCY_TTL: int = 24 * 3600
    # The sweeper (workers/housekeeping.py): how late a job may be before it is enqueued again,
    # and how often the overdue matches are looked at.
    SWEEP_GRACE: float = 5.0
    SWEEP_INTERVAL: float = 2.0
    # How old an effect in a match's outbox is before the relay hands it on (service/matches/outbox.py):
    # the committing process hands it on itself within milliseconds unless it died.
    OUTBOX_GRACE: float = 2.0
    # Longest long-poll on /events (docs/api.md caps `wait` at 30 s), and how long one SSE
    # stream lasts before the client reconnects with Last-Event-ID.
    MAX_WAIT: int = 30
    STREAM_SECONDS: int = 300
    # Long-polls and streams one address holds open at once in each API process
    # (service/infra/wait_quota.py).
    MAX_WAITS_PER_ADDRESS: int = 1000
    # What one caller may take of the service (docs/api.md, "Limits"): requests a second per
    # address (0: twice RATE_LIMIT), and the live matches an address without an app key holds:
    # of any kind (raise it where many people share an address: carrier NAT), of them those
    # with no human seat, and those waiting.
    ADDRESS_RATE_LIMIT: int = 0
    ANONYMOUS_LIVE_MATCHES: int = 100
    ANONYMOUS_BOT_MATCHES: int = 2
    ANONYMOUS_WAITING_MATCHES: int = 10
    # What one match may take: how long it waits for players, joins, moves in all.
    WAITING_TTL: int = 3600
    # How long a rematch waits for the people it reserved seats for (service/matches/rematch.py).
    REMATCH_SECONDS: int = 300
    MAX_JOINS: int = 50
    MAX_VERSIONS: int = 20_000
    # Versions after which a match's bot turns wait behind those of shorter ones.
    LOW_PRIORITY_AFTER: int = 2000
    # Hints one API process computes at once (each is tens of milliseconds of CPU).
    HINTS_AT_ONCE: int = 1
    METRICS_TOKEN: str = ""
    # Play only through apps: new matches and seats need an app key or a player token.
    REQUIRE_APP: bool = False
    # Seconds an API process answers CORS from its copy of the apps' origins (service/http/cors.py).
    ORIGINS_TTL: float = 5.0
    # A test-and-demo seam: every turn clock's seconds are multiplied by it when its deadline is
    # set (Match.restart_clock), so a test runs a clock of days in seconds. 1 in production.
    CLOCK_SCALE: float = 1.0
    # A test-and-demo seam: the seconds of rated quick play's band (how long a waiting match
    # holds out for a close rating: service/matches/lobby_rated.py) are multiplied by it, so a
    # test sees the band widen in seconds. 1 in production.
    QUICK_BAND_SCALE: float = 1.0
    # A test-and-demo seam: every pro decision's floor (service/matches/bots.py, PRO_FLOOR) is
    # multiplied by it, so a test holds decisions long enough to kill a worker under them. It
    # only lengthens a floor: a value below 1 counts as 1.
    BOT_FLOOR_SCALE: float = 1.0
    # Webhooks (docs/webhooks.md): how long a process trusts its copy of the event types an
    # app's endpoints want (asked on every commit of an app's match); the two safety switches,
    # for tests and local setups only; the tests' seam that shortens the retry schedule; and
    # the pending deliveries one app may hold (an endpoint that never answers keeps each one
    # pending for a day of retries).
    WEBHOOKS_TTL: float = 1.0
    WEBHOOK_ALLOW_HTTP: bool = False
    WEBHOOK_ALLOW_PRIVATE: bool = False
    WEBHOOK_RETRY_SCALE: float = 1.0
    WEBHOOK_PENDING: int = 10_000

    @property
    def address_rate_limit(self) -> int:
        return self.ADDRESS_RATE_LIMIT or 2 * self.RATE_LIMIT

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        env = dict(os.environ if env is None else env)
        cfg = cls()
        for f in fields(cls):
            name = f.name if f.name == "REDIS_URL" else f"CARDTABLE_{f.name}"
            if name not in env:
                continue
            raw = env[name]
            current = getattr(cfg, f.name)
            try:
                if isinstance(current, bool):
                    value: object = _flag(raw)
                elif isinstance(current, int):
                    value = int(raw)
                elif isinstance(current, float):
                    value = float(raw)
                else:
                    value = raw
            except ValueError:
                kind = "an integer" if isinstance(current, int) else "a number"
                raise ValueError(f"{name} must be {kind}, not {raw!r}") from None
            setattr(cfg, f.name, value)
        return cfg
