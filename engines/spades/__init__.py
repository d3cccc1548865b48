"""Partnership Spades (docs/rules/spades.md): the engine object `GAME` and its building blocks."""

from engines.spades.game import GAME, SpadesGame
from engines.spades.rules import legal_cards, score_hand, score_team, trick_winner

__all__ = ["GAME", "SpadesGame", "legal_cards", "score_hand", "score_team", "trick_winner"]
