"""Every game's bots, found by (game id, level) (docs/bots.md).

A game names the module that registers its bots (`Game.bots_module`, e.g.
`engines.spades.bots`); that module decorates one function per level with `register`. The
registry imports it on the first decision, so no game imports its bots and the rules never
depend on them. A bot is `bot(view, level, rng) -> action` (one function may serve several
levels): it decides from its seat's view only. A game's hint (`register_hint`, read by
engines/hints.py) is its pro decision on a lighter budget with the reason in words:
`hint(view, rng) -> (action, reason or None)`.

The levels: `random` (a uniformly random legal action, the bottom of the ladder, unless a game
registers its own), the four offered to clients (`engines.base.BOT_LEVELS`), and two rungs the
ladder is measured against (`cardtable tournament`, bench/bots.py; not offered to clients):
`solver`, the least-deadwood baseline, and `sound`, the yardstick at the top. A level a game
does not register is refused with ValueError.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engines.errors import IllegalAction
from engines.legal import complete

if TYPE_CHECKING:
    from engines.base import Action, Game

Bot = Callable[..., "Action"]  # bot(view, level, rng)
Hint = Callable[..., tuple["Action", str | None]]  # hint(view, rng)

_BOTS: dict[tuple[str, str], Bot] = {}
_HINTS: dict[str, Hint] = {}


def register(game_id: str, *levels: str) -> Callable[[Bot], Bot]:
    """Register the decorated function as the bot of `game_id` at each of `levels`."""

    def add(bot: Bot) -> Bot:
        for level in levels:
            _BOTS[(game_id, level)] = bot
        return bot

    return add


def register_hint(game_id: str) -> Callable[[Hint], Hint]:
    """Register the decorated function as the hint of `game_id`."""

    def add(hint: Hint) -> Hint:
        _HINTS[game_id] = hint
        return hint

    return add


def _load(game: Game) -> None:
    """Import the module that registers `game`'s bots, once (later imports are a dict look-up)."""
    if game.bots_module is not None:
        importlib.import_module(game.bots_module)


def play_random(view: Mapping[str, Any], level: str, rng: random.Random) -> Action:
    # A template (Žolíky's meld to fill in) is no action by itself.
    return dict(rng.choice(complete(view["legal_actions"])))


def find(game: Game, level: str) -> Bot:
    """The bot of `game` at `level`."""
    _load(game)
    bot = _BOTS.get((game.id, level))
    if bot is None:
        if level == "random" or game.bots_module is None:
            return play_random
        raise ValueError(f"{game.name} has no {level!r} bot")
    return bot


def levels(game: Game) -> list[str]:
    """The levels `game` has bots for, `random` first."""
    _load(game)
    return ["random", *(level for gid, level in _BOTS if gid == game.id and level != "random")]


def decide(game: Game, view: Mapping[str, Any], level: str, rng: random.Random) -> Action:
    """The decision of `game`'s `level` bot for the seat whose view this is.

    A view with no legal action (not this seat's turn) raises IllegalAction for every game.
    """
    if not view.get("legal_actions"):
        raise IllegalAction("it is not this seat's turn")
    return find(game, level)(view, level, rng)


def hint_decision(game: Game, view: Mapping[str, Any], rng: random.Random) -> tuple[Action, str | None]:
    """`game`'s hint for the seat whose view this is: an action and its reason; ValueError for a
    game that registers none."""
    _load(game)
    hint = _HINTS.get(game.id)
    if hint is None:
        raise ValueError(f"no hints for game {game.id!r}")
    return hint(view, rng)
