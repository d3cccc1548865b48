"""The rules of Zhol, Albanian rummy (docs/rules/zhol.md): deal, draw and discard, Zhol detection, crowns.

Decisions the rules leave open (each also written in place in docs/rules/zhol.md):

- The stock is kept top card first (`state["stock"][0]` is drawn next); the discard pile bottom
  first (its last card is the top). A stacked deck is dealt one card at a time starting with the
  hand's first player; the rest, in order, is the stock.
- Only the top card of the discard pile may be taken, and only while the pile is not empty.
- The card just taken from the discard pile cannot be discarded in the same turn. With two decks
  a player who holds a second copy of that code may discard it (copies are interchangeable, so
  they discard the other copy).
- The stock is rebuilt only when a player draws from an empty stock: the discard pile except its
  top card is shuffled (engines.rng) into a new stock. A stock draw is legal while the stock or
  the pile under the top card holds a card. If the player to move can draw nothing at all (no
  stock and no discard to take), the hand is drawn: `round_over` with no winner and no crown.
  With 7 or 14 cards per hand this cannot happen in play (at least 26 cards are always outside
  the hands), but the rule is there.
- A Zhol is checked after every discard: the discarder's 7 (14) cards must split entirely into
  groups. A winning small hand always splits as 3 + 4; a run of 7 is shown split that way.
- `round_result`: the hand number, `winner` (seat or None), `winners` ([seat] or []), and every
  seat's cards with their best split into groups (`melds`, `leftover`): the winner's is the
  winning split, the others' are for information only.
- `turn_seconds` is used by the service's clock, not by the engine. When the clock runs out
  (`apply_timeout`): a seat that has not drawn draws from the stock (from the discard pile if
  the stock cannot be drawn from) and discards the card drawn; a seat that has drawn discards
  the card drawn if it came from the stock. Otherwise (the card came from the discard pile and
  may not go back) it discards the card the bot would choose: the one leaving the fewest
  cards outside groups, ties to the highest card in hand order. Those events carry `"auto": true`.
- Resigning: with 2 players the other player wins the match at once. With 4 players the seat is
  marked resigned and play goes on (the service has a bot play it); a resigned seat cannot win:
  a full split after its discard is not called (it does not end the hand), it earns no crown
  and it ranks last. When only one seat has not resigned, that seat wins the match.
- `end_match` (the host ends the match): the winners are the seats, not resigned, with the most
  crowns (several on a tie).
- `{"type": "resign"}` is accepted while the match is active or between hands; it is not listed
  in `legal_actions`.
- A hand is shown sorted by suit (S H D C), then rank (A low … K), jokers last.
- The view's table shows the whole discard pile (`pile`, bottom first) and every discard of the
  hand (`discards`: seat, card and the seat that took it from the pile, or null): each card was
  seen face up by everyone, and the bots use them to count the cards still live.
- An action is checked in the order every game uses (engines/base.py, `Game.apply`): its
  shape (`parse_action`: InvalidAction), the match in play (MatchNotActive), the seat and the
  turn (NotYourTurn), then the rules (`_apply`: IllegalAction).
"""

from __future__ import annotations

from typing import Any

from engines import rng as rngmod
from engines.base import Action, Event, Game, Option, State
from engines.cards import deck
from engines.errors import IllegalAction, InvalidOptions, MatchNotActive, NotYourTurn
from engines.meld_solver import goes_out
from engines.zhol import view
from engines.zhol.rules import (
    RULES,
    VARIANTS,
    choose_discard,
    discardable,
    hand_split,
    parse_action,
    sort_hand,
)


class ZholGame(Game):
    """Zhol for 2 or 4 players, small (7 cards) or large (14 cards), to `target_wins` crowns."""

    bots_module = "engines.zhol.bots"

    def check_options(self, options: dict[str, Any], num_seats: int) -> None:
        if num_seats not in (2, 4):
            raise InvalidOptions("Zhol is played by 2 or 4 players, not 3")
        first = options.get("first_player")
        if first is not None and not 0 <= first < num_seats:
            raise InvalidOptions(f"option first_player must be a seat from 0 to {num_seats - 1}")

    def full_deck(self, options: dict[str, Any]) -> list[str]:
        copies, jokers, _ = VARIANTS[options.get("variant", "small")]
        return deck(copies, jokers)

    # --- life cycle --------------------------------------------------------
    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        if num_seats not in (2, 4):
            raise InvalidOptions("Zhol is played by 2 or 4 players, not 3")
        variant = options.get("variant", "small")
        if variant not in VARIANTS:
            raise InvalidOptions("option variant must be one of small, large")
        first = options.get("first_player")
        return {
            "options": {
                "variant": variant,
                "first_player": 0 if first is None else first,
                "target_wins": options.get("target_wins", 5),
                "turn_seconds": options.get("turn_seconds", 60),
            },
            "num_seats": num_seats,
            "first_player": None,
            "turn": None,
            "phase": None,
            "hands": [[] for _ in range(num_seats)],
            "stock": [],
            "discard": [],
            "taken": None,  # the card the player to move took from the discard pile this turn
            "history": [],  # every discard of the hand: {"seat", "card", "taken_by"}
            "drawn": None,  # {"card", "pile"}: what the player to move drew this turn
            "crowns": [0] * num_seats,
        }

    def _deal(self, state: State, cards: list[str] | None) -> list[Event]:
        """Deal a hand one card at a time from its first player, the option's for the first hand,
        the next seat for each later one (`cards` top first, unshuffled if given)."""
        variant = state["options"]["variant"]
        n = state["num_seats"]
        last = state["first_player"]
        first = state["options"]["first_player"] if last is None else (last + 1) % n
        if cards is None:
            cards = self.full_deck({"variant": variant})
            rngmod.shuffle(state["rng"], cards)
        sealed = rngmod.seal_deck(state["rng"], cards)
        size = VARIANTS[variant][2]
        hands: list[list[str]] = [[] for _ in range(n)]
        for k in range(n * size):
            hands[(first + k) % n].append(cards[k])
        state.update(
            status="active",
            round=state["round"] + 1,
            first_player=first,
            turn=first,
            phase="draw",
            hands=[sort_hand(h) for h in hands],
            stock=cards[n * size :],
            discard=[],
            taken=None,
            drawn=None,
            history=[],
        )
        return [
            {
                "type": "deal",
                "round": state["round"],
                "first_player": first,
                "cards": [size] * n,
                "stock": len(state["stock"]),
                "secret": {str(s): {"hand": list(state["hands"][s])} for s in range(n)},
                **sealed,
            }
        ]

    def all_cards(self, state: State) -> list[str]:
        return [*(c for hand in state["hands"] for c in hand), *state["stock"], *state["discard"]]

    def standing_key(self, state: State, seat: int) -> tuple[Any, ...]:
        # The most crowns are best; resigned seats rank last whatever crowns they had won.
        return (state["resigned"][seat], -state["crowns"][seat])

    # --- views: the envelope is engines/base.py's, the parts engines/zhol/view.py's ---------
    player_view = staticmethod(view.player)
    table_view = staticmethod(view.table)
    scores = staticmethod(view.scores)
    result_view = staticmethod(view.copy_result)

    # --- what may be done --------------------------------------------------
    @staticmethod
    def _can_draw_stock(state: State) -> bool:
        return bool(state["stock"]) or len(state["discard"]) >= 2

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["status"] != "active" or seat != state["turn"]:
            return []
        if state["phase"] == "draw":
            out = []
            if self._can_draw_stock(state):
                out.append({"type": "draw", "pile": "stock"})
            if state["discard"]:
                out.append({"type": "draw", "pile": "discard"})
            return out
        hand = state["hands"][seat]
        return [{"type": "discard", "card": c} for c in discardable(hand, state["taken"])]

    # --- actions -----------------------------------------------------------
    def parse_action(self, state: State, action: Any) -> Action:
        return parse_action(action)

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        if action["type"] == "resign":
            return self._resign(state, seat)
        if action["type"] == "draw":
            return self._draw(state, seat, action["pile"])
        return self._discard(state, seat, action["card"])

    def _draw(self, state: State, seat: int, pile: str, auto: bool = False) -> list[Event]:
        if state["phase"] != "draw":
            raise IllegalAction("you have drawn already: discard a card")
        events: list[Event] = []
        if pile == "discard":
            if not state["discard"]:
                raise IllegalAction("the discard pile is empty: draw from the stock")
            card = state["discard"].pop()
            state["taken"] = card
            history = state.get("history")
            # the top of the pile is always the last discard of the hand
            if history and history[-1]["card"] == card and history[-1]["taken_by"] is None:
                history[-1]["taken_by"] = seat
            events.append({"type": "draw", "seat": seat, "pile": "discard", "card": card})
        else:
            if not self._can_draw_stock(state):
                raise IllegalAction("the stock is empty and there is nothing to shuffle into it")
            if not state["stock"]:
                top = state["discard"].pop()
                stock = state["discard"]
                rngmod.shuffle(state["rng"], stock)
                state["stock"], state["discard"] = stock, [top]
                sealed = rngmod.seal_deck(state["rng"], stock, deal=False)
                events.append({"type": "reshuffle", "seat": seat, "stock": len(stock), **sealed})
            card = state["stock"].pop(0)
            events.append(
                {"type": "draw", "seat": seat, "pile": "stock", "secret": {str(seat): {"card": card}}}
            )
        state["hands"][seat] = sort_hand([*state["hands"][seat], card])
        state["drawn"] = {"card": card, "pile": pile}
        state["phase"] = "discard"
        if auto:
            for event in events:
                event["auto"] = True
        return events

    def _discard(self, state: State, seat: int, card: str, auto: bool = False) -> list[Event]:
        if state["phase"] != "discard":
            raise IllegalAction("draw a card first, from the stock or the discard pile")
        hand = state["hands"][seat]
        if card not in hand:
            raise IllegalAction(f"you do not hold {card}")
        if card == state["taken"] and hand.count(card) < 2:
            raise IllegalAction(f"you cannot discard {card}: you just took it from the discard pile")
        hand.remove(card)
        state["discard"].append(card)
        state.setdefault("history", []).append({"seat": seat, "card": card, "taken_by": None})
        state["taken"] = state["drawn"] = None
        event: Event = {"type": "discard", "seat": seat, "card": card}
        if auto:
            event["auto"] = True
        events = [event]
        if not state["resigned"][seat] and goes_out(hand, RULES):
            events.extend(self._zhol(state, seat))
            return events
        n = state["num_seats"]
        state["turn"] = (seat + 1) % n
        state["phase"] = "draw"
        if not self._can_draw_stock(state) and not state["discard"]:
            events.extend(self._hand_over(state, None))
        return events

    def _zhol(self, state: State, seat: int) -> list[Event]:
        state["crowns"][seat] += 1
        events = self._hand_over(state, seat)
        if state["crowns"][seat] >= state["options"]["target_wins"]:
            events.append(self._finish(state, [seat], "target"))
        return events

    def _hand_over(self, state: State, winner: int | None) -> list[Event]:
        variant = state["options"]["variant"]
        hands = [hand_split(s, cards, winner, variant) for s, cards in enumerate(state["hands"])]
        result = {
            "round": state["round"],
            "first_player": state["first_player"],
            "winner": winner,
            "winners": [] if winner is None else [winner],
            "hands": hands,
            "crowns": view.scores(state),
        }
        state["round_result"] = result
        state["status"] = "round_over"
        state["turn"] = state["phase"] = None
        state["taken"] = state["drawn"] = None
        over: Event = {"type": "round_over", "round": state["round"], "seat": winner, "result": result}
        # The winner's call is the game's own event; every hand, drawn or won, ends in round_over.
        return [{"type": "zhol", "seat": winner}, over] if winner is not None else [over]

    def _resign(self, state: State, seat: int) -> list[Event]:
        if state["resigned"][seat]:
            raise IllegalAction("you have already resigned")
        state["resigned"][seat] = True
        events: list[Event] = [{"type": "resign", "seat": seat}]
        playing = [s for s in range(state["num_seats"]) if not state["resigned"][s]]
        if len(playing) == 1:
            events.append(self._finish(state, playing, "resign"))
        return events

    def _finish(self, state: State, winners: list[int], reason: str) -> Event:
        state["status"] = "finished"
        state["winners"] = list(winners)
        state["turn"] = state["phase"] = None
        state["taken"] = state["drawn"] = None
        return {
            "type": "match_over",
            "winners": list(winners),
            "reason": reason,
            "crowns": view.scores(state),
        }

    def _end_match(self, state: State) -> list[Event]:
        if state["status"] not in ("active", "round_over"):
            raise MatchNotActive("the match is not in play right now")
        playing = [s for s in range(state["num_seats"]) if not state["resigned"][s]]
        most = max(state["crowns"][s] for s in playing)
        return [self._finish(state, [s for s in playing if state["crowns"][s] == most], "ended")]

    def _timeout(self, state: State, seat: int) -> list[Event]:
        if state["status"] != "active":
            raise MatchNotActive("the match is not in play right now")
        if type(seat) is not int or seat != state["turn"]:
            raise NotYourTurn("it is not your turn")
        events: list[Event] = []
        if state["phase"] == "draw":
            pile = "stock" if self._can_draw_stock(state) else "discard"
            events += self._draw(state, seat, pile, auto=True)
        drawn = state["drawn"]
        if drawn["pile"] == "stock":
            card = drawn["card"]
        else:
            card = choose_discard(state["hands"][seat], state["taken"])
        events += self._discard(state, seat, card, auto=True)
        return events


GAME = ZholGame(
    id="zhol",
    move_events=("draw", "reshuffle", "discard", "zhol", "resign"),
    name="Zhol",
    min_seats=2,
    max_seats=4,
    actions={"draw": ("pile",), "discard": ("card",), "resign": ()},
    variants=tuple(VARIANTS),
    options={
        "variant": Option(
            "string",
            "small",
            "small: one deck with 2 jokers, 7 cards; large: two decks, 4 jokers, 14 cards",
            choices=tuple(VARIANTS),
        ),
        "first_player": Option(
            "integer", None, "seat of the first hand's first player (null: seat 0)", minimum=0, maximum=3
        ),
        "target_wins": Option("integer", 5, "crowns (hands won) that win the match", minimum=1, maximum=100),
        # The service's clock option in every game (service/matches/options.py), which Zhol has always had
        # on: here its default is 60 and it runs in matches with several humans unless asked.
        "turn_seconds": Option(
            "integer",
            60,
            "seconds per turn on the clock (up to 14 days): by default with 2+ humans; "
            "asked for, on every human's turn",
            minimum=5,
            maximum=14 * 24 * 3600,
        ),
    },
)
