"""Hints for people (docs/api.md "Hints"): `GET /v1/matches/{id}/hint` in matches created with
the option `hints` (service/matches/options.py). A hint is the pro bot's action for the seat to move,
computed from that seat's own view only (`engines.hints`), with a short reason; every hint given
raises the seat's public `players[].hints_used` and is an event (`{"type": "hint", "seat", "hints_used"}`),
so the match's version moves on like for any other change; at most once a move (`give_hint`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from engines import hints as engine_hints
from service import errors
from service.matches.match import Match
from service.matches.repository import MatchRepository, Write

# How often a hint is computed again when the match changed while it was being computed.
_RETRIES = 4
# How long a hint waits for the process's budget (CARDTABLE_HINTS_AT_ONCE) before a 429.
_BUDGET_WAIT = 2.0
_budget: threading.BoundedSemaphore | None = None
_budget_size = 0


def _hint_budget(size: int) -> threading.BoundedSemaphore:
    """The process's hint budget: at most `size` hints computed at once (created on first use,
    after gevent has patched threading)."""
    global _budget, _budget_size
    if _budget is None or _budget_size != size:
        _budget, _budget_size = threading.BoundedSemaphore(max(size, 1)), size
    return _budget


def hints_used(record: dict[str, Any], seat: int) -> int:
    used = record.get("hints_used") or []
    return used[seat] if seat < len(used) else 0


def compute_within(budget: int, game_id: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """`compute` within the process's budget of hints at once: a hint is tens of milliseconds
    of CPU in the web process, and a burst of them must not starve the moves (429 beyond it)."""
    semaphore = _hint_budget(budget)
    if not semaphore.acquire(timeout=_BUDGET_WAIT):
        raise errors.QuotaExceeded(
            "hints_at_once", "this server is computing as many hints as it can; try again", retry_after=1
        )
    try:
        return compute(game_id, view)
    finally:
        semaphore.release()


def compute(game_id: str, view: Mapping[str, Any]) -> dict[str, Any]:
    """The hint for a seat's game view, off the event loop when the process runs gevent.

    A hint is tens of milliseconds of Python. In a gevent worker the loop would stall for all
    that time; run in gevent's thread pool, the interpreter still switches to the loop's thread
    every few milliseconds (the GIL's switch interval), so other requests keep being served.
    """
    try:
        from gevent import monkey

        patched = monkey.is_module_patched("threading")
    except ImportError:
        patched = False
    if patched:
        from gevent import get_hub

        return get_hub().threadpool.apply(engine_hints.hint, (game_id, view))
    return engine_hints.hint(game_id, view)


class _Given(Exception):
    """The seat's hint of this move is given already: answered as stored, nothing committed."""

    def __init__(self, answer: dict[str, Any]):
        super().__init__()
        self.answer = answer


def _given(match: Match, seat: int | None) -> dict[str, Any] | None:
    """The hint given to `seat` for the move the match waits for now, with the match's version
    as it is (another change, a claim, may have moved it since; the hint is the same)."""
    given = match.record.get("hint")
    if given and given["seat"] == seat and given.get("moves") == match.record.get("moves", 0):
        return {**given["answer"], "version": match.version}
    return None


def give_hint(repo: MatchRepository, match_id: str, token: str | None) -> dict[str, Any]:
    """The hint for the token's seat; counts it. Errors as docs/api.md "Hints" lists them.

    One hint a move: asked again before the next move, whatever else changed meanwhile (a
    claim, a join), the same hint is answered from the match as stored, computing nothing,
    adding no event and moving no version. So a loop of hint calls adds at most one version
    a move, and none toward CARDTABLE_MAX_VERSIONS, which counts moves."""
    match = repo.load(match_id, token=token)
    seat = repo.authenticate(match, token)
    given = _given(match, seat)
    if given is not None:
        return given

    def change(match: Match) -> Write:
        seat = repo.authenticate(match, token)
        assert seat is not None  # a token is required: authenticate raises without one
        given = _given(match, seat)
        if given is not None:
            raise _Given(given)  # given by a call that committed while this one computed
        if not match.record["options"].get("hints"):
            raise errors.Forbidden("hints are off in this match (create it with options.hints = true)")
        status = match.status()
        if status != "active":
            raise errors.MatchNotActive(f"the match is {status}: there is no move to hint")
        step = match.step
        if step is None or step.to_move != seat:
            raise errors.NotYourTurn("it is not your turn: a hint is for the seat to move")
        game = match.game
        found = compute_within(repo.config.HINTS_AT_ONCE, game.id, game.view(match.record["state"], seat))
        answer, events = match.count_hint(seat, found)
        return Write(events, answer)

    try:
        return repo.update(match_id, match, change, retries=_RETRIES)
    except _Given as already:
        return already.answer
