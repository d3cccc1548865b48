"""The composition root: `build_service` builds the Redis clients, the RQ queue and the
notice sinks once, and returns the `MatchService` that routes, workers and the CLI use.

`MatchService` builds every adapter once over the process's Redis clients and hands each to
its users (the store gets the round trips, the rate limiter's ride and the feed's publish; the
repository the players, leaderboards and the app's match index; nothing reaches one through
another), exposes those the routes and workers call (apps, players, webhooks, deliveries,
leaderboards, feeds, quotas, rates, counters, the due index, the outbox), and puts the use
cases of service/matches/ together over one repository:

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
from service.identity.apps import Apps
from service.identity.players import Players
from service.identity.quotas import Quotas
from service.identity.tombstones import Tombstones
from service.infra.cluster import state_client
from service.infra.counters import SHARDS, Counters
from service.infra.due_index import DueIndex
from service.infra.jobqueue import JobQueue, Jobs, make_queue
from service.infra.rate_limit import RateLimiter
from service.infra.roundtrips import RoundTrips, connect
from service.infra.wait_quota import WaitQuota
from service.infra.waiter import open_waiters
from service.infra.waiters import ClusterHub, Hub
from service.matches.acting import Acting
from service.matches.app_index import AppIndex
from service.matches.bots import Bots
from service.matches.following import Following
from service.matches.invitations import Invitations
from service.matches.lobby_index import LobbyIndex
from service.matches.outbox import Outbox
from service.matches.rematch import decline
from service.matches.repository import MatchRepository
from service.matches.seats import Seats
from service.matches.store import Store, match_key
from service.notify.deliveries import Deliveries
from service.notify.feed_following import PlayerFeed
from service.notify.feeds import Feeds
from service.notify.webhook_sink import webhook_sink
from service.notify.webhooks import Webhooks
from service.privacy.erasure import Erasure
from service.ratings.leaderboards import Leaderboards
from service.ratings.stored import PlayerRatings
from service.tournaments.rounds import Rounds
from service.tournaments.running import Tournaments
from service.tournaments.store import TournamentStore


class MatchService:
    """Every adapter of a process, built once over its Redis clients (`trips`), and the use
    cases of matches over one repository: what routes, workers and the CLI call."""

    def __init__(self, trips: RoundTrips, config: Config, queue: Jobs | None = None):
        self.trips = trips
        self.config = config
        self.queue = queue
        self._build_adapters(trips, config)
        self.wait_quota = WaitQuota(config.MAX_WAITS_PER_ADDRESS)
        self.repo = MatchRepository(
            self.store,
            config,
            queue,
            players=self.players,
            leaderboards=self.leaderboards,
            ratings=self.ratings,
            app_index=self.app_index,
        )
        self.following = Following(self.repo, self.waiters)
        self.player_feed = PlayerFeed(self.feeds, self.waiters, config)
        self.seats = Seats(self.repo, self.following, self.quotas, self.lobby_index, self.invitations)
        self.acting = Acting(self.repo, self.following)
        self.bots = Bots(self.repo, self.counters)
        notify = (self.feeds, self.webhooks, self.deliveries)
        self.erasure = Erasure(self.repo, Tombstones(trips.state), notify)
        # Tournaments make their rounds' matches through seats and tell their players through the
        # repository's notice sinks; a match of one tells it of its end through its outbox.
        self.tournament_store = TournamentStore(trips.state, trips.queue)
        self.rounds = Rounds(
            self.tournament_store,
            self.seats.create,
            self.players.get,
            self.repo.notice_sinks,
            config.OUTBOX_GRACE,
            # Its rounds are made by the workers (workers/jobs.py) when the service has them.
            defer=queue.enqueue_tournament if queue is not None else None,
        )
        self.tournaments = Tournaments(self.tournament_store, self.rounds, self.quotas, self.ratings)
        self.repo.tournament_sink = self.rounds.match_ended
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

    def _build_adapters(self, trips: RoundTrips, config: Config) -> None:
        """Each adapter on the client it uses: the match state's Redis (`trips.state`) for what
        lives beside the matches, the queue Redis for the indexes RQ's workers sweep."""
        state, queue = trips.state, trips.queue
        # On a cluster the counts every request bumps spread over SHARDS hash tags.
        self.counters = Counters(state, SHARDS if trips.cluster else 1)
        # A match call's rate count rides in its match load's round trip (`RateLimiter.ride`).
        self.rates = RateLimiter(trips.exchange, self.counters)
        # Its publish rides the hot path's own connections (one round trip for every player a
        # commit's notices name), like the match's load and commit; on one Redis the commit's
        # script publishes them itself, with the feed's Lua function handed to the store.
        self.feeds = Feeds(state, trips.exchange, self.rates)
        publisher = self.feeds if self.feeds.joins_commit else None
        self.store = Store(trips, config.REPLICA_ACKS, config.REPLICA_WAIT_MS, self.rates.ride, publisher)
        self.due = DueIndex(queue)
        self.lobby_index = LobbyIndex(queue)
        # Invitation codes' hashes, beside each match and outside its commits.
        self.invitations = Invitations(state, match_key)
        self.outbox = Outbox(state, queue, match_key)
        # A change of a player's tokens wakes its waiting feeds, which then re-check theirs.
        self.apps = Apps(state, wake=self.feeds.wake)
        self.players = Players(state, wake=self.feeds.wake)
        self.leaderboards = Leaderboards(state)
        self.ratings = PlayerRatings(state)
        # An app's webhook endpoints, with each process's copy of the types they want for
        # WEBHOOKS_TTL seconds; their deliveries, with the index of pending ones on the queue Redis.
        self.webhooks = Webhooks(state, config.WEBHOOKS_TTL)
        self.deliveries = Deliveries(state, queue)
        # Live matches per owner, kept beside the matches.
        self.quotas = Quotas(state, config.IDLE_TTL)
        self.app_index = AppIndex(state, self.players)
        # The process's waiters' subscription(s): on the state Redis (where commits publish),
        # one per master on a cluster; waiter counts go to the queue Redis.
        self.waiters = ClusterHub(state, queue) if trips.cluster else Hub(state, queue)

    @property
    def rq(self) -> JobQueue:
        """The RQ queue behind `queue` in a process wired to RQ (`build_service`): what the
        sweeper, the relay, the webhooks' housekeeping, /metrics and /readyz look into."""
        assert isinstance(self.queue, JobQueue), "the service is wired to RQ (build_service)"
        return self.queue

    def open_waiters(self) -> dict[str, int]:
        """Open waiters of every live API process, by kind (reported to the queue Redis)."""
        return open_waiters(self.trips.queue)

    def rematch_expired(self, match_id: str) -> str:
        """A rematch's reserved seats are past their time (service/matches/rematch.py)."""
        return decline(self.repo, match_id)


def build_service(config: Config) -> MatchService:
    """The service as a process runs it (API or worker): its Redis clients, the adapters and
    the RQ queue, wired from the configuration, and the notice sinks."""
    client = connect(config.REDIS_URL)
    state = state_client(config.STATE_URL, connect) if config.STATE_URL else None
    queue = JobQueue(make_queue(client, config.QUEUE), config.BOT_DELAY)
    svc = MatchService(RoundTrips(client, state), config, queue)
    # Each notice to the own feed of every player it names (GET /v1/me/events, /v1/me/stream).
    svc.repo.notice_sinks.append(svc.feeds.take)
    # A match that ends leaves the live part of its players' lists (GET /v1/me/matches).
    svc.repo.notice_sinks.append(svc.players.take)
    # The apps' webhooks hear of the notices their endpoints want (service/notify/webhook_sink.py).
    svc.repo.notice_sinks.append(webhook_sink(svc.webhooks, svc.deliveries, queue))
    return svc
