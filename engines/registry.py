"""The games the service hosts, by engine id."""

from __future__ import annotations

from engines.base import Game


def _load() -> dict[str, Game]:
    from engines.spades import GAME as spades

    games = [spades]
    return {g.id: g for g in games}


GAMES: dict[str, Game] = _load()
