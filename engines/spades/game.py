"""The rules of partnership Spades (docs/rules/spades.md): deal, bidding, tricks, scoring, match end.

Decisions the rules leave open (each also written in place in docs/rules/spades.md):

- A null `first_dealer` draws the first dealer from the seed before the first shuffle.
- Each seat may bid 0-13 whatever its partner bid; a partnership's combined bid may exceed 13.
- When both partners bid Nil the contract is 0: it scores nothing and is neither made nor
  failed (`made` is None); every trick they take is a failed Nil's trick, so a bag (+1).
- Bags from overtricks and from failed Nils are added to the carried bags before the
  penalty: -100 for each full 10, the remainder carries on.
- The match end is checked only after a complete hand. A team at or above `target_score`
  with the strictly higher score wins; equal scores (both at or above) play another hand.
- `{"type": "resign"}` is accepted while the match is active or between hands, from any
  seat at any time; it is not listed in `legal_actions`, which is empty off turn.
- `round_result` is the last hand's breakdown; it also shows every seat's dealt hand
  (all were played face up) and `winners`: the seats of the team that scored more points
  in that hand ([] when equal).
- The view's `table.played` lists every card played this hand in order, as {seat, card}
  (the current trick included): all were seen face up, and bots need them to count cards.
- Bags carried are shown in the view's `table.bags`; `scores` holds the team totals keyed
  "0" (seats 0 and 2) and "1" (seats 1 and 3).
- A hand is shown sorted by suit (S H D C) and rank (2 low, A high).
- An action is checked in this order: its shape (InvalidAction), the match in play
  (MatchNotActive), the seat to move (NotYourTurn), then the rules (IllegalAction).

Events: `deal` (each seat's hand under `secret`), `bid`, `play`, `trick` (winner and cards),
`round_over` (the hand's breakdown), `resign` and `match_over` (winners, reason, scores): the
vocabulary of docs/api.md, "Events".
"""

from __future__ import annotations

from typing import Any, ClassVar

from engines import rng as rngmod
from engines.base import Action, Event, Game, Option, State
from engines.cards import ACE_HIGH_INDEX
from engines.errors import IllegalAction, InvalidAction, InvalidOptions
from engines.spades import view
from engines.spades.rules import (
    CARD_SET,
    DECK,
    NUM_SEATS,
    PREFERRED,
    SUIT_NAMES,
    TRICKS_PER_HAND,
    legal_plays,
    score_hand,
    team_of,
    trick_winner,
)

BID_SHAPE = 'a bid is {"type": "bid", "tricks": <0 to 13>}'
SEAT_KEYS = ("0", "1", "2", "3")  # seats as JSON object keys
# The 14 bids, copied for each answer (as rules.PLAY_ACTIONS).
BID_ACTIONS = tuple({"type": "bid", "tricks": n} for n in range(TRICKS_PER_HAND + 1))
PLAY_SHAPE = 'a play is {"type": "play", "card": "<card code such as QH>"}'


class SpadesGame(Game):
    """Four-seat partnership Spades to `target_score` points."""

    bots_module = "engines.spades.bots"
    # Events after which the seat to move begins a new turn though it moved last (the trick's
    # winner leads the next): the service's turn clock starts afresh (Match.turn_ended). In
    # other games a turn ends when another seat is to move.
    turn_ends: ClassVar[frozenset[str]] = frozenset({"trick"})

    def full_deck(self, options: dict[str, Any]) -> list[str]:
        return list(DECK)

    # --- life cycle --------------------------------------------------------
    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        if num_seats != NUM_SEATS:
            raise InvalidOptions("Spades is played by 4 players")
        dealer = options.get("first_dealer")
        if dealer is None:
            dealer = rngmod.randbelow(rng, NUM_SEATS)
        return {
            "options": {"target_score": options.get("target_score", 500), "first_dealer": dealer},
            "dealer": (dealer - 1) % NUM_SEATS,
            "phase": None,
            "turn": None,
            "leader": None,
            "hands": [[], [], [], []],
            "bids": [None] * NUM_SEATS,
            "trick": [],
            "tricks": [],
            "won": [0] * NUM_SEATS,
            "spades_broken": False,
            "scores": [0, 0],
            "bags": [0, 0],
        }

    def _deal(self, state: State, deck: list[str] | None) -> list[Event]:
        """Pass the deal on and deal one card at a time from dealer+1 (`deck` unshuffled if given)."""
        if deck is None:
            deck = list(DECK)
            rngmod.shuffle(state["rng"], deck)
        sealed = rngmod.seal_deck(state["rng"], deck)
        dealer = (state["dealer"] + 1) % NUM_SEATS
        first = (dealer + 1) % NUM_SEATS
        hands: list[list[str]] = [[], [], [], []]
        for i in range(NUM_SEATS):
            # deck[k] goes to seat (dealer + 1 + k) % 4.
            hands[(first + i) % NUM_SEATS] = sorted(deck[i::NUM_SEATS], key=ACE_HIGH_INDEX.__getitem__)
        state.update(
            status="active",
            round=state["round"] + 1,
            dealer=dealer,
            phase="bid",
            turn=first,
            leader=first,
            hands=hands,
            bids=[None] * NUM_SEATS,
            trick=[],
            tricks=[],
            won=[0] * NUM_SEATS,
            spades_broken=False,
        )
        return [
            {
                "type": "deal",
                "round": state["round"],
                "dealer": dealer,
                "cards": [TRICKS_PER_HAND] * NUM_SEATS,
                "secret": {key: {"hand": list(hand)} for key, hand in zip(SEAT_KEYS, hands, strict=True)},
                **sealed,
            }
        ]

    def all_cards(self, state: State) -> list[str]:
        played = [c for trick in state["tricks"] for c in trick["cards"]]
        return [*(c for hand in state["hands"] for c in hand), *played, *state["trick"]]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["status"] != "active" or seat != state["turn"]:
            return []
        if state["phase"] == "bid":
            return [bid.copy() for bid in BID_ACTIONS]
        return legal_plays(state["hands"][seat], state["trick"], state["spades_broken"])

    # --- actions -----------------------------------------------------------
    def parse_action(self, state: State, action: Any) -> Action:
        if type(action) is dict and len(action) == 2:
            try:  # the usual move first, in one test; anything else gets its error below
                if action["type"] == "play" and action["card"] in CARD_SET:
                    return action
            except (KeyError, TypeError):  # no such field, or an unhashable card
                pass
        if type(action) is not dict:
            raise InvalidAction('an action is a JSON object such as {"type": "play", "card": "QH"}')
        kind = action.get("type")
        if kind == "play":
            card = action.get("card")
            if len(action) != 2 or card is None:
                raise InvalidAction(PLAY_SHAPE)
            raise InvalidAction(f"{card!r} is not a card code (rank 2-9 T J Q K A, then suit S H D C)")
        if kind == "bid":
            tricks = self.one_field(action, "tricks", BID_SHAPE)
            if type(tricks) is not int or not 0 <= tricks <= TRICKS_PER_HAND:
                raise InvalidAction("a bid is a whole number of tricks from 0 (Nil) to 13")
        elif kind == "resign":
            self.check_resign(action)
        else:
            raise InvalidAction(f"unknown action type {kind!r}; Spades knows bid, play and resign")
        return action

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        # A play is 52 of a hand's 56 moves: its rules are written here, not in a method of their
        # own, to spare every play a call (bench/engine.py).
        kind = action["type"]
        if kind != "play":
            return self._bid(state, seat, action["tricks"]) if kind == "bid" else self._resign(state, seat)
        card = action["card"]
        if state["phase"] != "play":
            raise IllegalAction("every player bids before the first card is played")
        hand = state["hands"][seat]
        try:
            at = hand.index(card)  # one scan of the hand for the check and the removal
        except ValueError:
            raise IllegalAction(f"you do not hold {card}") from None
        trick = state["trick"]
        suit = card[1]
        preferred = PREFERRED[trick[0][1] if trick else state["spades_broken"]]
        if card not in preferred:
            for c in hand:
                if c in preferred:
                    if trick:
                        raise IllegalAction(f"you must follow suit: you hold {SUIT_NAMES[trick[0][1]]}")
                    raise IllegalAction(
                        "spades are not broken: you may lead a spade only once one has been played"
                        " or when you hold nothing but spades"
                    )
        del hand[at]
        trick.append(card)
        if suit == "S":
            state["spades_broken"] = True
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if len(trick) < NUM_SEATS:
            state["turn"] = (seat + 1) % NUM_SEATS
            return events
        leader = state["leader"]
        winner = trick_winner(leader, trick)
        state["tricks"].append({"leader": leader, "winner": winner, "cards": trick})
        state["trick"] = []
        state["won"][winner] += 1
        state["leader"] = state["turn"] = winner
        events.append(
            {"type": "trick", "seat": winner, "winner": winner, "leader": leader, "cards": list(trick)}
        )
        if len(state["tricks"]) == TRICKS_PER_HAND:
            events.extend(self._hand_over(state))
        return events

    def _bid(self, state: State, seat: int, tricks: int) -> list[Event]:
        if state["phase"] != "bid":
            raise IllegalAction("the bidding is over: play a card")
        state["bids"][seat] = tricks
        # The dealer bids last; dealer+1 then leads the first trick.
        state["turn"] = (seat + 1) % NUM_SEATS
        if seat == state["dealer"]:
            state["phase"] = "play"
        return [{"type": "bid", "seat": seat, "tricks": tricks}]

    def _hand_over(self, state: State) -> list[Event]:
        teams = score_hand(state["bids"], state["won"], state["bags"], state["scores"])
        t0, t1 = teams["0"], teams["1"]
        state["scores"] = [t0["total"], t1["total"]]
        state["bags"] = [t0["bags_total"], t1["bags_total"]]
        # Every card was played face up, so the dealt hands are public now.
        played: list[list[str]] = [[], [], [], []]
        for trick in state["tricks"]:
            leader = trick["leader"]
            for card in trick["cards"]:
                played[leader].append(card)
                leader = (leader + 1) % NUM_SEATS
        hand_winners = (
            t0["seats"] if t0["points"] > t1["points"] else t1["seats"] if t1["points"] > t0["points"] else []
        )
        result = {
            "round": state["round"],
            "dealer": state["dealer"],
            "hands": [sorted(h, key=ACE_HIGH_INDEX.__getitem__) for h in played],
            "teams": teams,
            "scores": view.scores(state),
            "winners": list(hand_winners),
        }
        state["round_result"] = result
        state["phase"] = state["turn"] = None
        state["status"] = "round_over"
        events: list[Event] = [{"type": "round_over", "round": state["round"], "result": result}]
        target = state["options"]["target_score"]
        s0, s1 = state["scores"]
        if (s0 >= target or s1 >= target) and s0 != s1:
            events.append(self._finish(state, 0 if s0 > s1 else 1, "target"))
        return events

    def _resign(self, state: State, seat: int) -> list[Event]:
        state["resigned"][seat] = True
        state["phase"] = state["turn"] = None
        return [{"type": "resign", "seat": seat}, self._finish(state, 1 - team_of(seat), "resign")]

    def _finish(self, state: State, team: int, reason: str) -> Event:
        state["status"] = "finished"
        state["winners"] = [team, team + 2]
        return {
            "type": "match_over",
            "winners": [team, team + 2],
            "reason": reason,
            "scores": view.scores(state),
        }

    # --- the end of the match (engines/base.py, `standings`) ------------------------------
    def standing_key(self, state: State, seat: int) -> tuple[Any, ...]:
        # A partnership wins or loses whole: the losing partners share a place, resigned or not.
        return ()

    def teams(self, num_seats: int, options: dict[str, Any]) -> list[list[int]]:
        return [[s for s in range(NUM_SEATS) if team_of(s) == team] for team in (0, 1)]

    # --- views (the parts engines/base.py's envelope asks for) ---------------------------
    player_view = staticmethod(view.player)

    def stock_view(self, state: State) -> int:
        return 0  # every card is dealt

    def discard_view(self, state: State) -> None:
        return None

    table_view = staticmethod(view.table)
    scores = staticmethod(view.scores)
    result_view = staticmethod(view.copy_result)


GAME = SpadesGame(
    id="spades",
    move_events=("bid", "play", "trick", "resign"),
    name="Spades",
    min_seats=NUM_SEATS,
    max_seats=NUM_SEATS,
    actions={"bid": ("tricks",), "play": ("card",), "resign": ()},
    options={
        "target_score": Option(
            "integer", 500, "points a partnership needs to win the match", minimum=50, maximum=10000
        ),
        "first_dealer": Option(
            "integer",
            None,
            "seat of the first dealer (null: drawn at random from the seed)",
            minimum=0,
            maximum=3,
        ),
    },
)
