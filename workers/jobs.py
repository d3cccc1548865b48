"""The RQ jobs. Each builds the service from the environment once per worker process."""

from __future__ import annotations

import functools

from service import logs
from service.config import Config
from service.matches import MatchService, build_service


@functools.cache
def service() -> MatchService:
    """The worker process's match service, built on first use."""
    return build_service(Config.from_env())


def bot_turn(match_id: str, version: int) -> str:
    """Play one bot decision if the match is still at `version`."""
    logs.update(match_id=match_id, version=version)  # until the job ends (workers/worker.py)
    return service().play_bot(match_id, version)


def clock_expired(match_id: str, turn: int) -> str:
    """The turn clock of turn number `turn` ran out; play for that seat if it has not moved."""
    logs.update(match_id=match_id)
    return service().clock_expired(match_id, turn)


def rematch_expired(match_id: str) -> str:
    """A rematch's reserved seats are past their time: decline it if one is still untaken."""
    logs.update(match_id=match_id)
    return service().rematch_expired(match_id)
