"""The games the service hosts, by engine id."""

from __future__ import annotations

from engines.base import Game


def _load() -> dict[str, Game]:
    from engines.spades import GAME as spades
    from engines.three_thirteen import GAME as three_thirteen
    from engines.zhol import GAME as zhol
    from engines.zoliky import GAME as zoliky

    games = [zoliky, three_thirteen, zhol, spades]
    return {g.id: g for g in games}


GAMES: dict[str, Game] = _load()
