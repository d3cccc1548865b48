"""Zhol, Albanian rummy (docs/rules/zhol.md): the engine object `GAME` and its building blocks."""

from engines.zhol.game import GAME, RULES, VARIANTS, ZholGame, choose_discard

__all__ = ["GAME", "RULES", "VARIANTS", "ZholGame", "choose_discard"]
