"""The games the service hosts, by engine id.

A new game registers here (docs/architecture.md, "Adding a game"). `CARDTABLE_EXTRA_GAMES`
names more, as `module:ATTRIBUTE` entries separated by commas, each a `Game` instance: read
once at import, before the service builds its schemas from this table, so a game registered
that way is offered, validated and documented like the others (the conformance test registers
a tiny test-only game so).
"""

from __future__ import annotations

import importlib
import os

from engines.base import Game


def _load() -> dict[str, Game]:
    from engines.spades import GAME as spades
    from engines.three_thirteen import GAME as three_thirteen
    from engines.zhol import GAME as zhol
    from engines.zoliky import GAME as zoliky

    games = [zoliky, three_thirteen, zhol, spades]
    for entry in filter(None, os.environ.get("CARDTABLE_EXTRA_GAMES", "").split(",")):
        module, _, attribute = entry.strip().partition(":")
        game = getattr(importlib.import_module(module), attribute or "GAME")
        if not isinstance(game, Game):
            raise TypeError(f"CARDTABLE_EXTRA_GAMES: {entry} is not a Game")
        games.append(game)
    return {g.id: g for g in games}


GAMES: dict[str, Game] = _load()
