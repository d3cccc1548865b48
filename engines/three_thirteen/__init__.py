"""Three Thirteen (docs/rules/three-thirteen.md): the engine object `GAME` and its building blocks."""

from engines.three_thirteen.game import GAME, ThreeThirteenGame
from engines.three_thirteen.rules import card_points, meld_rules, points_function, schedule

__all__ = ["GAME", "ThreeThirteenGame", "card_points", "meld_rules", "points_function", "schedule"]
