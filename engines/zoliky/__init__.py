"""Žolíky, the Czech two-player rummy of RULES.md §1."""

from engines.zoliky.game import GAME, ZolikyGame

__all__ = ["GAME", "ZolikyGame"]
