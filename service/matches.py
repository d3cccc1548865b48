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
from service.errors import ApiError
from service.following import revealed_deals
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


class MatchService(SeatsMixin, ActingMixin, BotsMixin):
    """Seats and tokens, acting, bots and clocks, following: one service over `Store`."""


__all__ = [
    "BOT_DECISION_BUCKETS",
    "BOT_LATENCY_BUCKETS",
    "RESIGN",
    "ApiError",
    "MatchService",
    "body_hash",
    "game_of",
    "host_seat",
    "match_options",
    "match_status",
    "new_token",
    "pending_job",
    "revealed_deals",
]
