"""The relay: hands on the effects a commit wrote to its match's outbox when the process that
committed did not (it died in between), then removes them (service/matches/outbox.py,
docs/architecture.md "The outbox").

Run by the housekeeper with the sweeper (workers/housekeeping.py). It takes the index members
of commits older than CARDTABLE_OUTBOX_GRACE, reads each of their matches' outbox once, and
looks at every effect of those commits: one still wanted (the match is still at the bot's
version; the clock's turn is still running; the rematch still waits for a reserved seat) whose
job RQ has never seen is handed on now. The others were handed on by their committer, or the
match has moved past them. Either way they leave the outbox. What a handed-on job then does (a
worker killed while running it) is the sweeper's business.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from service.bootstrap import MatchService
from service.infra.jobqueue import bot_job_id, clock_job_id, rematch_job_id
from service.matches.match import Match
from workers.sweeper import rq_queue

log = logging.getLogger("cardtable.relay")

# Index members (commits) looked at per pass; the rest wait for the next one, earliest first.
BATCH = 500


def relay(svc: MatchService, now: float | None = None) -> int:
    """One pass over the commits whose effects are due; return how many effects it handed on."""
    now = time.time() if now is None else now
    outbox = svc.outbox
    relayed = 0
    for match_id, members in outbox.due(now, BATCH).items():
        newest = max(version for _, version in members)
        effects = [(raw, e) for raw, e in outbox.effects(match_id) if e["v"] <= newest]
        match = svc.repo.find(match_id)
        for _, effect in effects:
            if effect["kind"] in ("ratings", "notify", "lists", "tournament"):
                # Idempotent: applying ratings or lists twice changes nothing, and every notice sink
                # takes a notice it has already taken as a no-op (service/matches/repository.py, NoticeSink).
                svc.repo.hand_on(match_id, effect, relayed=True)
            elif match is not None and _lost(svc, match, effect):
                log.warning(
                    "match %s: a %s effect of version %d was never handed on; relayed",
                    match_id,
                    effect["kind"],
                    effect["v"],
                )
                svc.repo.hand_on(
                    match_id, effect, bot_delay=max(0.0, effect["at"] + svc.config.BOT_DELAY - now)
                )
                relayed += 1
        outbox.remove(match_id, [raw for raw, _ in effects], [name for name, _ in members])
    if relayed:
        svc.counters.count("outbox_relayed", relayed)
    _open_rounds(svc, now)
    return relayed


def _open_rounds(svc: MatchService, now: float) -> None:
    """Tournament rounds paired and still not opened by the process that paired them (it died
    between): opened now (service/tournaments/rounds.py)."""
    store = svc.tournament_store
    for tournament_id, number in store.due(now):
        log.warning("tournament %s: round %d was paired and never opened; opening it", tournament_id, number)
        svc.rounds.advance(tournament_id)
        if store.is_open(tournament_id, number):
            store.opened(tournament_id, number)


def _lost(svc: MatchService, match: Match, effect: dict[str, Any]) -> bool:
    """Whether `effect` is still wanted and its job never reached RQ."""
    if effect["kind"] == "bot":
        wanted = match.version == effect["v"] and match.pending_job() == "bot"
        job_id = bot_job_id(match.id, effect["v"])
    elif effect["kind"] == "clock":
        clock = match.record.get("clock")
        wanted = clock is not None and clock["turn"] == effect["turn"] and match.status() == "active"
        job_id = clock_job_id(match.id, effect["turn"])
    elif effect["kind"] == "rematch":
        wanted = match.reserved_until() is not None
        job_id = rematch_job_id(match.id)
    else:
        log.error("match %s: an effect of unknown kind %r in its outbox is dropped", match.id, effect["kind"])
        return False
    return wanted and not rq_queue(svc).exists(job_id)
