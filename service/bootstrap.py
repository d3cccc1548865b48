"""The composition root: `build_service` builds the Redis clients, the store, the RQ queue and
the notice sinks once, and returns the `MatchService` that routes, workers and the CLI use.

`MatchService` puts the use cases of service/matches/ together over one repository:

- service/matches/match.py: `Match`, a stored match and what the engine says of it;
- service/matches/repository.py: loading, tokens, the one compare-and-set write, the jobs a commit
  hands on;
- service/matches/seats.py: creating, joining, invitations, leaving;
- service/matches/acting.py: moves, the next round, ending;
- service/matches/bots.py: bot decisions and expired clocks (run by workers);
- service/matches/following.py: views, events and history.

Both the HTTP routes and the RQ workers go through `MatchService`, so a bot's move
takes exactly the same compare-and-set path as a person's. It raises domain errors
(service/errors.py); service/http/app.py maps them to HTTP.

It is where matches meet notify: the notice sinks (players' feeds, their match lists, the
webhooks) are appended here, so no module of service/matches/ imports a subscriber.
May import: everything but http, workers and cli (tests/test_code_shape.py).
"""

from __future__ import annotations

from service.config import Config
from service.infra.cluster import state_client
from service.infra.jobqueue import JobQueue, Jobs, make_queue
from service.infra.wait_quota import WaitQuota
from service.matches.acting import Acting
from service.matches.bots import Bots
from service.matches.following import Following
from service.matches.rematch import decline
from service.matches.repository import MatchRepository
from service.matches.seats import Seats
from service.matches.store import Store, connect
from service.notify.feed_following import PlayerFeed
from service.notify.webhook_sink import webhook_sink


class MatchService:
    """Seats and tokens, acting, bots and clocks, following: one service over `Store`."""

    def __init__(self, store: Store, config: Config, queue: Jobs | None = None):
        self.store = store
        self.config = config
        self.queue = queue
        self.waiters = store.hub()
        self.wait_quota = WaitQuota(config.MAX_WAITS_PER_ADDRESS)
        self.quotas = store.quotas(config.IDLE_TTL)
        self.repo = MatchRepository(store, config, queue)
        self.following = Following(self.repo, self.waiters)
        self.player_feed = PlayerFeed(store.feeds, self.waiters, config)
        self.seats = Seats(self.repo, self.following, self.quotas)
        self.acting = Acting(self.repo, self.following)
        self.bots = Bots(self.repo)
        # The service's calls, each answered by the part that owns it.
        self.load, self.authenticate, self.update = self.repo.load, self.repo.authenticate, self.repo.update
        self.view, self.events, self.history = (
            self.following.view,
            self.following.events,
            self.following.history,
        )
        self.stream_events = self.following.stream_events
        self.create, self.join, self.leave = self.seats.create, self.seats.join, self.seats.leave
        self.invite, self.claim = self.seats.invite, self.seats.claim
        self.act, self.start_round, self.end = self.acting.act, self.acting.start_round, self.acting.end
        self.play_bot, self.clock_expired = self.bots.play_bot, self.bots.clock_expired

    def rematch_expired(self, match_id: str) -> str:
        """A rematch's reserved seats are past their time (service/matches/rematch.py)."""
        return decline(self.repo, match_id)


def build_service(config: Config) -> MatchService:
    """The service as a process runs it (API or worker): its Redis clients, the store and the
    RQ queue, wired from the configuration."""
    client = connect(config.REDIS_URL)
    state = state_client(config.STATE_URL, connect) if config.STATE_URL else None
    store = Store(client, state, config.REPLICA_ACKS, config.REPLICA_WAIT_MS, config.WEBHOOKS_TTL)
    queue = JobQueue(make_queue(client, config.QUEUE), config.BOT_DELAY)
    svc = MatchService(store, config, queue)
    # Each notice to the own feed of every player it names (GET /v1/me/events, /v1/me/stream).
    svc.repo.notice_sinks.append(store.feeds.take)
    # A match that ends leaves the live part of its players' lists (GET /v1/me/matches).
    svc.repo.notice_sinks.append(store.players.take)
    # The apps' webhooks hear of the notices their endpoints want (service/notify/webhook_sink.py).
    svc.repo.notice_sinks.append(webhook_sink(store, queue))
    return svc
