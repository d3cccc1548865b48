"""The RQ jobs. Each builds the service from the environment once per worker process."""

from __future__ import annotations

import functools

from rq import get_current_job

from service.bootstrap import MatchService, build_service
from service.config import Config
from service.infra import logs
from service.matches.bots import Bots, Holder

# What waits out a pro's floor and a clock released early: a bot worker's own thread
# (workers/held.py, set by workers/worker.py), else the service's default, which sleeps.
holder: Holder | None = None


@functools.cache
def service() -> MatchService:
    """The worker process's match service, built on first use."""
    return build_service(Config.from_env())


def bot_turn(match_id: str, version: int) -> str:
    """Play one bot decision if the match is still at `version`."""
    logs.update(match_id=match_id, version=version)  # until the job ends (workers/worker.py)
    return _bots().play_bot(match_id, version, _job_started())


def clock_expired(match_id: str, turn: int) -> str:
    """The turn clock of turn number `turn` ran out; play for that seat if it has not moved."""
    logs.update(match_id=match_id)
    return _bots().clock_expired(match_id, turn)


def rematch_expired(match_id: str) -> str:
    """A rematch's reserved seats are past their time: decline it if one is still untaken."""
    logs.update(match_id=match_id)
    return service().rematch_expired(match_id)


def advance_tournament(tournament_id: str) -> str:
    """A tournament's round ended, or it started: pair and open what it waits for."""
    logs.update(tournament=tournament_id)
    service().rounds.advance(tournament_id)
    return "advanced"


def _bots() -> Bots:
    """The service's bot and clock jobs, with the worker's holder when it has one."""
    bots = service().bots
    if holder is not None:
        bots.holder = holder
    return bots


def _job_started() -> float | None:
    """When RQ started the running job, by the wall clock (None outside a job)."""
    job = get_current_job()
    return job.started_at.timestamp() if job is not None and job.started_at is not None else None
