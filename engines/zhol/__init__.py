"""Zhol, Albanian rummy (docs/rules/zhol.md): the engine object `GAME` and its building blocks."""

from engines.zhol.game import GAME, ZholGame
from engines.zhol.rules import RULES, VARIANTS, choose_discard

__all__ = ["GAME", "RULES", "VARIANTS", "ZholGame", "choose_discard"]
