"""Partnership Spades (docs/rules/spades.md): the engine object `GAME` and its building blocks."""

from engines.spades.game import GAME, SpadesGame, legal_cards, trick_winner
from engines.spades.scoring import score_hand, score_team

__all__ = ["GAME", "SpadesGame", "legal_cards", "score_hand", "score_team", "trick_winner"]
