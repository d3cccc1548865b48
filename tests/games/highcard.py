"""High card: a tiny test-only game, registered through the same registry as the four real ones.

It shows what a new game has to write (docs/architecture.md, "Adding a game") and lets the
conformance test play a fifth game through the API. Rules: 2–4 players; each round deals three
cards to each seat from the top of a shuffled deck of the 16 highest spades and hearts (the
rest stays face down); three tricks, the first led by the seat after the dealer; each seat in turn plays any
card; the highest rank wins the trick (spades beat hearts on a tie) and leads the next. A round
scores one point a trick; after `rounds` rounds the seats with the most points win. Resigning
ends the match and the others win.
"""

from __future__ import annotations

from typing import Any

from engines import rng as rngmod
from engines.base import Action, Event, Game, Option, State
from engines.errors import IllegalAction, InvalidAction

RANKS = "AKQJT98765432"
HAND = 3


# The 16 highest spades and hearts, best first (spades before hearts of a rank).
DECK = [r + s for r in RANKS for s in "SH"][:16]
ORDER = {card: i for i, card in enumerate(DECK)}


class HighCardGame(Game):
    def full_deck(self, options: dict[str, Any]) -> list[str]:
        return list(DECK)

    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        return {
            "options": dict(options),
            "num_seats": num_seats,
            "dealer": num_seats - 1,
            "hands": [[] for _ in range(num_seats)],
            "stock": [],
            "played": [],
            "trick": [],
            "leader": None,
            "turn": None,
            "phase": None,
            "won": [0] * num_seats,
            "scores": [0] * num_seats,
        }

    def _deal(self, state: State, deck: list[str] | None) -> list[Event]:
        n = state["num_seats"]
        if deck is None:
            deck = list(DECK)
            rngmod.shuffle(state["rng"], deck)
        sealed = rngmod.seal_deck(state["rng"], deck)
        dealer = (state["dealer"] + 1) % n
        first = (dealer + 1) % n
        hands = [sorted(deck[HAND * s : HAND * s + HAND], key=ORDER.__getitem__) for s in range(n)]
        state.update(status="active", round=state["round"] + 1, dealer=dealer, hands=hands, phase="play")
        state.update(stock=deck[HAND * n :], played=[], trick=[], leader=first, turn=first)
        state.update(won=[0] * n, round_result=None)
        return [
            {
                "type": "deal",
                "round": state["round"],
                "dealer": dealer,
                "cards": [HAND] * n,
                "secret": {str(s): {"hand": list(hands[s])} for s in range(n)},
                **sealed,
            }
        ]

    def all_cards(self, state: State) -> list[str]:
        # `played` holds the current trick's cards too
        return [*(c for hand in state["hands"] for c in hand), *state["stock"], *state["played"]]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["status"] != "active" or seat != state["turn"]:
            return []
        return [{"type": "play", "card": c} for c in state["hands"][seat]]

    def parse_action(self, state: State, action: Any) -> Action:
        kind = self.require_type(action, ("play", "resign"))
        if kind == "play" and (set(action) != {"type", "card"} or not isinstance(action["card"], str)):
            raise InvalidAction('a play is {"type": "play", "card": "QS"}')
        if kind == "resign" and set(action) != {"type"}:
            raise InvalidAction('resigning is {"type": "resign"}')
        return action

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        if action["type"] == "resign":
            state["resigned"][seat] = True
            state["turn"] = None
            others = [s for s in range(state["num_seats"]) if s != seat]
            return [{"type": "resign", "seat": seat}, self._finish(state, others, "resign")]
        card = action["card"]
        if card not in state["hands"][seat]:
            raise IllegalAction(f"{card} is not in your hand")
        state["hands"][seat].remove(card)
        state["trick"].append(card)
        state["played"].append(card)
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        n = state["num_seats"]
        if len(state["trick"]) < n:
            state["turn"] = (seat + 1) % n
            return events
        return events + self._end_trick(state)

    def _end_trick(self, state: State) -> list[Event]:
        n, leader, trick = state["num_seats"], state["leader"], state["trick"]
        best = 0
        for i in range(1, n):
            if ORDER[trick[i]] < ORDER[trick[best]]:
                best = i
        winner = (leader + best) % n
        state["won"][winner] += 1
        state.update(trick=[], leader=winner, turn=winner)
        events: list[Event] = [{"type": "trick", "winner": winner, "cards": list(trick)}]
        if state["hands"][winner]:
            return events
        for s in range(n):
            state["scores"][s] += state["won"][s]
        result = {"points": {str(s): state["won"][s] for s in range(n)}, "scores": self.scores(state)}
        state.update(round_result=result, turn=None, status="round_over")
        events.append({"type": "round_over", "round": state["round"], "result": dict(result)})
        if state["round"] >= state["options"]["rounds"]:
            top = max(state["scores"])
            events.append(self._finish(state, [s for s in range(n) if state["scores"][s] == top], "rounds"))
        return events

    def _finish(self, state: State, winners: list[int], reason: str) -> Event:
        state.update(status="finished", winners=winners, turn=None)
        return {"type": "match_over", "winners": winners, "reason": reason, "scores": self.scores(state)}

    def standing_key(self, state: State, seat: int) -> tuple[Any, ...]:
        # The most points are best; the seat that resigned ranks last.
        return (state["resigned"][seat], -state["scores"][seat])

    # --- the parts of the view (engines/base.py builds the rest) --------------------------
    def scores(self, state: State) -> dict[str, int]:
        return {str(s): v for s, v in enumerate(state["scores"])}

    def discard_view(self, state: State) -> None:
        return None

    def table_view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {
            "leader": state["leader"],
            "trick": list(state["trick"]),
            "played": list(state["played"]),
            "tricks_won": list(state["won"]),
        }


GAME = HighCardGame(
    id="highcard",
    name="High card",
    min_seats=2,
    max_seats=4,
    actions={"play": ("card",), "resign": ()},
    options={"rounds": Option("integer", 2, "rounds to play", minimum=1, maximum=5)},
    move_events=("play", "trick", "resign"),
)
