"""Žolíky, the Czech two-player rummy of docs/rules/zoliky.md."""

from engines.zoliky.game import GAME, ZolikyGame

__all__ = ["GAME", "ZolikyGame"]
