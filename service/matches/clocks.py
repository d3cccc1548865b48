"""Turn clocks in every game: what the server does for a seat whose clock ran out (docs/api.md,
"Turn clocks"; docs/architecture.md, "Turn clocks").

A match has a clock when its options have `turn_seconds` (Zhol always has: its default is 60).
`Match.restart_clock` starts one when a human's turn begins, the commit hands it to the
workers (service/matches/outbox.py) and indexes it for the sweeper; the worker's job
(`Bots.clock_expired`) calls `run_out` at the deadline. By `on_timeout`:

- `auto`: the server plays the turn: the engine's own timeout where it has one (Zhol: draw and
  discard), elsewhere the easy bot's decisions for the seat, each from that seat's own view
  (what the seat's person would see), until the turn passes on.
- `resign`: the seat resigns (the engine's resign action); where the match goes on (three or
  more individual players) a bot plays the seat on, as it plays every resigned seat, unless it
  was the last person playing: then the commit ends the match, abandoned
  (`MatchRepository.commit`), as when that person leaves.

The change starts with the public event `{"type": "timed_out", "seat", "on_timeout"}`; the
events the server played for the seat carry `"auto": true`.
"""

from __future__ import annotations

import logging
import random
import traceback
from collections.abc import Callable
from typing import Any

from engines import bots as engine_bots
from engines.base import Game, Step
from engines.errors import EngineError
from engines.legal import complete
from service.matches.match import Match

log = logging.getLogger("cardtable.matches")

Events = list[dict[str, Any]]
Fallback = Callable[[], None]  # counts a bot decision that raised

RESIGN = {"type": "resign"}
# The level that plays a turn for a seat whose clock ran out: the simplest sensible moves.
AUTO_LEVEL = "easy"
# Decisions one timeout plays at most. A turn is a few actions (draw, melds, lay-offs, a
# discard); a turn still not over after this many is left to the sweeper's next look.
MAX_AUTO_STEPS = 60


def on_timeout(match: Match) -> str:
    """`auto` or `resign` (a match stored before the option existed plays on: `auto`)."""
    return str(match.record["options"].get("on_timeout", "auto"))


def run_out(match: Match, seat: int, rng: random.Random, fallback: Fallback) -> Events:
    """Make the change the clock makes for `seat`, whose turn it is, on the loaded match; its
    events, `timed_out` first. `rng`: the randomness of the bot deciding for the seat;
    `fallback`: counts a bot decision that raised (a random legal action was played)."""
    how = on_timeout(match)
    if how == "resign":
        events = list(match.apply(seat, RESIGN).events)
    elif has_engine_timeout(match.game):
        events = list(match.apply_timeout(seat).events)
    else:
        events = _play_turn(match, seat, rng, fallback)
    for e in events:
        e.setdefault("auto", True)
    return [{"type": "timed_out", "seat": seat, "on_timeout": how}, *events]


def has_engine_timeout(game: Game) -> bool:
    """Whether the game's engine plays a timed-out turn itself (`Game._timeout`: Zhol)."""
    return type(game)._timeout is not Game._timeout


def _play_turn(match: Match, seat: int, rng: random.Random, fallback: Fallback) -> Events:
    """The easy bot's decisions for `seat` until its turn is over."""
    game = match.game
    events: Events = []
    for _ in range(MAX_AUTO_STEPS):
        # The seat's own view: the bot knows what the seat's person would, nothing more.
        view = game.view(match.record["state"], seat)
        step = _apply_decision(match, seat, view, rng, fallback)
        events += step.events
        if step.status != "active" or step.to_move != seat or match.turn_ended(step):
            break
    return events


def _apply_decision(match: Match, seat: int, view: Any, rng: random.Random, fallback: Fallback) -> Step:
    """The bot's decision applied. A bot that raises, or decides what the engine refuses (a
    refusal leaves the state as it was), is logged and counted, and a random complete legal
    action (engines/legal.py: no template) is played instead, so a bot bug never stalls a
    match. An engine that fails otherwise fails the job: nothing is committed, and the sweeper
    tries again."""
    try:
        action = engine_bots.decide(match.game, view, AUTO_LEVEL, rng)
    except Exception as exc:  # the bot's own code: the engine has seen nothing yet
        _log_fallback(match, seat, exc)
    else:
        try:
            return match.apply(seat, action)
        except EngineError as exc:
            _log_fallback(match, seat, exc)
    fallback()
    return match.apply(seat, rng.choice(complete(view["legal_actions"])))


def _log_fallback(match: Match, seat: int, exc: Exception) -> None:
    # The log has the stack, not the error's text, which may name the seat's cards.
    log.error(
        "%s bot deciding for timed-out seat %d raised %s in match %s; it plays a random legal "
        "action instead\n%s",
        match.game.id, seat, type(exc).__name__, match.id,
        "".join(traceback.format_tb(exc.__traceback__)),
    )  # fmt: skip
