"""Replaying a finished match's history through its engine: every stored version, once, in order."""

from __future__ import annotations

import json
from typing import Any

from engines.base import Game, State
from engines.errors import EngineError
from engines.legal import complete
from engines.registry import GAMES

# Fields the service adds to an engine's events (numbering, who played it), and a deal's
# commitment and sealed order, whose salt is fresh randomness no replay can draw again.
_ADDED = ("seq", "bot", "auto", "deal_commitment", "sealed")


def _plain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in _ADDED} for e in json.loads(json.dumps(events))]


def replay(history: dict[str, Any], game: Game | None = None) -> int:
    """Play the history's match again from its seed and deck, finding at each step the one
    decision (or next deal) that yields exactly the next stored events. Returns the number of
    changes after creation, which must be the match's version: no move lost or applied twice.
    `game`: the engine, when it is not in this process's registry (a test-only game)."""
    game = game or GAMES[history["game"]]
    stored = history["events"]
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1)), "event numbers have gaps"
    events = _plain(stored)
    # People taking and leaving seats before the start: a version each, and no engine in them.
    seating = 0
    while events[1 + seating]["type"] in ("join", "leave"):
        seating += 1
    events = [events[0], *events[1 + seating :]]
    kept = [stored[0], *stored[1 + seating :]]  # as stored, beside `events`: the `auto` marks
    state, dealt = game.new_match(history["options"], len(history["seats"]), history["seed"], history["deck"])
    first = _plain([{"type": "match_created", "game": game.id}, {"type": "match_started"}, *dealt])
    assert events[: len(first)] == first
    done, steps = len(first), seating
    while done < len(events):
        if events[done]["type"] == "timed_out":
            # A turn clock that ran out: one change, the seat's moves the server made for it.
            state, done = replay_timeout(game, state, kept, done)
            steps += 1
            continue
        if events[done]["type"] == "resign":
            # Taken out of turn too, and never listed: the seat is the event's.
            produced = _plain(game.apply(state, events[done]["seat"], {"type": "resign"}).events)
        elif events[done]["type"] == "match_over" and events[done].get("reason") == "ended":
            produced = _plain(game.end_match(state).events)  # the host ended it (POST .../end)
        elif game.status(state) == "round_over":
            produced = _plain(game.start_next_round(state).events)
        else:
            seat = game.to_move(state)
            assert seat is not None, f"nothing to play, yet events remain after seq {done}"
            # The complete entries only: a template (Žolíky's meld, filled in by the player) is
            # no action by itself, and the events do not say how one was filled in (a meld with
            # lay-offs, or a meld then lay_off actions, yield the same events), so a Žolíky
            # history with melds is not replayed.
            for action in complete(game.legal_actions(state, seat)):
                trial = game.clone(state)
                produced = _plain(game.apply(trial, seat, action).events)
                if produced == events[done : done + len(produced)]:
                    state = trial
                    break
            else:
                raise AssertionError(f"no legal action of seat {seat} yields the events after seq {done}")
        assert produced == events[done : done + len(produced)], f"history departs at seq {done + 1}"
        done += len(produced)
        steps += 1
    assert game.status(state) == "finished"
    assert steps == history["version"], f"{steps} changes replayed for version {history['version']}"
    return steps


def replay_timeout(game: Game, state: State, stored: list[dict[str, Any]], done: int) -> tuple[State, int]:
    """Replay the change a turn clock made (service/matches/clocks.py) from `state`, its `timed_out`
    event at `stored[done]`: each run of the events it caused (marked `auto`) must be what one
    action the seat may take yields (a legal action or `resign`), or the engine's own timeout.
    Returns the state after it and the index of the first event after it."""
    seat = stored[done]["seat"]
    events = _plain(stored)
    done += 1
    while done < len(stored) and stored[done].get("auto"):
        # Templates are left out: as listed, the engine refuses them (engines/legal.py).
        for action in [*complete(game.legal_actions(state, seat)), {"type": "resign"}, None]:
            trial = game.clone(state)
            try:
                step = game.apply_timeout(trial, seat) if action is None else game.apply(trial, seat, action)
            except EngineError:
                continue
            produced = _plain(step.events)
            if produced and produced == events[done : done + len(produced)]:
                state = trial
                break
        else:
            raise AssertionError(f"no move of seat {seat} yields the timed-out events after seq {done}")
        done += len(produced)
    return state, done
