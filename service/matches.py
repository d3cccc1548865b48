"""Match domain logic: `MatchService`, put together from its concerns.

- service/match_core.py: loading, tokens, the one compare-and-set write, clocks and jobs;
- service/seats.py: creating, joining, leaving;
- service/acting.py: moves, the next round, ending;
- service/bots.py: bot decisions and expired clocks (run by workers);
- service/following.py: views, events and history.

Both the HTTP routes and the RQ workers go through `MatchService`, so a bot's move
takes exactly the same compare-and-set path as a person's. It raises domain errors
(service/errors.py); service/app.py maps them to HTTP.
"""

from __future__ import annotations

from service.acting import ActingMixin
from service.bots import BOT_DECISION_BUCKETS, BOT_LATENCY_BUCKETS, BotsMixin
from service.cluster import state_client
from service.config import Config
from service.errors import ApiError
from service.following import revealed_deals
from service.jobqueue import JobQueue, make_queue
from service.match_core import (
    body_hash,
    game_of,
    host_seat,
    match_options,
    match_status,
    new_token,
    pending_job,
)
from service.seats import RESIGN, SeatsMixin
from service.store import Store, connect


class MatchService(SeatsMixin, ActingMixin, BotsMixin):
    """Seats and tokens, acting, bots and clocks, following: one service over `Store`."""


def build_service(config: Config) -> MatchService:
    """The service as a process runs it (API or worker): its Redis clients, the store and the
    RQ queue, wired from the configuration."""
    client = connect(config.REDIS_URL)
    state = state_client(config.STATE_URL, connect) if config.STATE_URL else None
    store = Store(client, state, config.REPLICA_ACKS, config.REPLICA_WAIT_MS)
    return MatchService(store, config, JobQueue(make_queue(client, config.QUEUE), config.BOT_DELAY))


__all__ = [
    "BOT_DECISION_BUCKETS",
    "BOT_LATENCY_BUCKETS",
    "RESIGN",
    "ApiError",
    "MatchService",
    "body_hash",
    "build_service",
    "game_of",
    "host_seat",
    "match_options",
    "match_status",
    "new_token",
    "pending_job",
    "revealed_deals",
]
