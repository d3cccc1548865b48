"""Three Thirteen (docs/rules/three-thirteen.md): deal, draw and discard, going out, scoring, variations.

Decisions the rules leave open (each also written in place in docs/rules/three-thirteen.md):

- `jokers_wild` adds 4 jokers (two decks with two jokers each): 108 cards.
- Contradictory options are refused: `joker_dump` needs `jokers_wild`; `extra_rounds` and
  `up_and_down` both redefine the round list (12th/13th rounds after the 13-card round against
  exactly 22 rounds 3→13→3), so they cannot be combined. Every round must leave at least two
  cards besides the hands (the first discard and one stock card), counting dumped jokers as gone:
  7 players cannot play `extra_rounds` (15 × 7 = 105 cards) unless `jokers_wild` is on and
  `joker_dump` off. `all_wild_melds` is accepted without jokers but changes nothing there: cards
  of the wild rank alone already form a plain set of that rank.
- `up_and_down` deals 3, 4, …, 13, 13, 12, …, 3 cards (22 rounds); `extra_rounds` plays 13
  rounds, the 12th with 14 cards (aces wild) and the 13th with 15 (2s wild).
- A player may take the top discard and discard that same card again.
- The stock is renewed when a turn begins with it empty: the discard pile except its top card is
  shuffled (seeded) into a new stock.
- Going out: the player's hand is laid face up on the table as melds (the engine's minimal split)
  and stays visible in `table.melds` for the final turns. The other players take their final
  turns in seat order from the player after the one who went out; nobody else can go out then,
  but a final hand that melds completely scores 0 anyway.
- `joker_dump`: `{"type": "discard", "card": "JK", "onto": <seat>}` puts a joker face up in front
  of another player instead of on the discard pile. It is out of play for the round and counts
  nothing for anybody; it ends the turn like any discard (going out included). A joker may still
  be discarded on the pile the ordinary way.
- `false_out_penalty`: going out is no longer detected; the player declares it with
  `"declare_out": true` on their discard. A correct declaration goes out; a wrong one adds 20
  points to that player's round score (never doubled), the discard stands and play goes on. A
  declaration is possible only while nobody has gone out, as often as the player likes.
- `redemption_round`: each final turn is draw, discard, then a "lay_off" phase: the player may lay
  off any cards of their hand, one at a time (`{"type": "lay_off", "card": "9H", "meld": "m2"}`),
  onto the melds on the table (those of the player who went out and of players whose final turn
  is over; a wild card in a table meld may change what it stands for), and ends the phase with
  `{"type": "end_turn"}`. The engine then lays the rest of the hand's minimal split on the table,
  where later players may lay off onto it. The phase is skipped when no lay-off is possible. A
  player left with no unmatched card scores 0.
- Unmatched cards: ace 1 (15 with `aces_high_low`), 2–10 face value, J Q K 10 (11/12/13 with
  `face_cards_11_12_13`), a card of the wild rank 15 (whatever its rank), a joker 20;
  `double_face_rounds` doubles the round's points of every J, Q and K round (both passes of
  `up_and_down`), but not a false-out penalty.
- `{"type": "resign"}` is accepted while the match is active or between rounds and is not listed
  in `legal_actions`. With 3+ players the seat keeps playing (a bot plays it) and ranks last; when
  fewer than two seats have not resigned, the match ends and the one left wins.
- The winners are the seats that have not resigned with the lowest total; `round_result.winners`
  are the seats with the round's lowest points.
- An action is checked in the order every game shares (engines/base.py, `Game.apply`): its
  shape (InvalidAction), the match in play (MatchNotActive), the seat and its turn (NotYourTurn),
  then the rules (IllegalAction). A field only an option allows (`onto`, `declare_out: true`) is
  an IllegalAction when the option is off.
- Hands in views are sorted by suit (S H D C), then rank A…K, jokers last.
- Views carry the round's public history for the bots: `table.discard_pile` (the pile, bottom
  first, as everyone saw it built) and `table.taken` (per seat, the cards it took from the pile
  this round and has neither discarded, laid off nor laid down since).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engines import rng as rngmod
from engines.base import Action, Event, Game, Option, State, json_copy
from engines.errors import IllegalAction, InvalidOptions
from engines.meld_solver import Split, best_split, goes_out
from engines.melds import Meld, MeldRules, classify
from engines.three_thirteen import rules as tt
from engines.three_thirteen import view
from engines.three_thirteen.rules import BOOLEAN_OPTIONS, FIELDS, MAX_SEATS, MIN_SEATS, meld_view


class ThreeThirteenGame(Game):
    """Three Thirteen for 2–7 players with every variation of the seed as an option."""

    bots_module = "engines.three_thirteen.bots"

    # --- options -----------------------------------------------------------
    def check_options(self, options: dict[str, Any], num_seats: int) -> None:
        tt.check_options(options, num_seats)

    def full_deck(self, options: dict[str, Any]) -> list[str]:
        return tt.full_deck(options)

    # --- life cycle --------------------------------------------------------
    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        options = dict(options)
        for name in BOOLEAN_OPTIONS:
            options.setdefault(name, False)
        options.setdefault("first_dealer", None)
        if not MIN_SEATS <= num_seats <= MAX_SEATS:
            raise InvalidOptions(f"Three Thirteen is played by {MIN_SEATS} to {MAX_SEATS} players")
        self.check_options(options, num_seats)
        dealer = options["first_dealer"]
        if dealer is None:
            dealer = rngmod.randbelow(rng, num_seats)
        return {
            "options": options,
            "num_seats": num_seats,
            "schedule": tt.schedule(options),
            # _deal passes the deal on, so the first dealer is stored one seat back.
            "dealer": (dealer - 1) % num_seats,
            "turn": None,
            "phase": None,
            "hands": [[] for _ in range(num_seats)],
            "stock": [],
            "discard": [],
            **tt.fresh_round(num_seats),
            "scores": [0] * num_seats,
            "round_points": [],
        }

    def _deal(self, state: State, deck: list[str] | None) -> list[Event]:
        """Pass the deal on and deal one card at a time from dealer+1 (`deck` unshuffled if given)."""
        n = state["num_seats"]
        options = state["options"]
        if deck is None:
            deck = tt.full_deck(options)
            rngmod.shuffle(state["rng"], deck)
        sealed = rngmod.seal_deck(state["rng"], deck)
        rnd = state["round"] + 1
        size = state["schedule"][rnd - 1]
        dealer = (state["dealer"] + 1) % n
        hands: list[list[str]] = [[] for _ in range(n)]
        for k in range(size * n):
            hands[(dealer + 1 + k) % n].append(deck[k])
        state.update(
            status="active",
            round=rnd,
            dealer=dealer,
            hands=[tt.sorted_cards(h) for h in hands],
            discard=[deck[size * n]],
            stock=deck[size * n + 1 :],
            **tt.fresh_round(n),
        )
        events: list[Event] = [
            {
                "type": "deal",
                "round": rnd,
                "dealer": dealer,
                "cards": size,
                "wild_rank": tt.WILD_RANK[size],
                "discard": deck[size * n],
                "secret": {str(s): {"hand": list(state["hands"][s])} for s in range(n)},
                **sealed,
            }
        ]
        events.extend(self._begin_turn(state, (dealer + 1) % n))
        return events

    def all_cards(self, state: State) -> list[str]:
        table = [c for meld in state["melds"] for c in meld["cards"]]
        dumped = [c for jokers in state["dumped"] for c in jokers]  # out of play for the round
        held = [c for hand in state["hands"] for c in hand]
        return [*held, *state["stock"], *state["discard"], *table, *dumped]

    # --- helpers -------------------------------------------------------------
    @staticmethod
    def _size(state: State) -> int:
        return cast(int, state["schedule"][state["round"] - 1])  # State is JSON-ish

    def _rules(self, state: State) -> MeldRules:
        return tt.meld_rules(state["options"], self._size(state))

    def _points(self, state: State) -> Callable[[str], int]:
        return tt.points_function(state["options"], self._size(state))

    def _split(self, state: State, cards: list[str]) -> Split:
        return best_split(cards, self._rules(state), self._points(state))

    def _begin_turn(self, state: State, seat: int) -> list[Event]:
        state["turn"] = seat
        state["phase"] = "draw"
        stock, discard = state["stock"], state["discard"]
        if stock or len(discard) < 2:
            return []
        # The stock is exhausted: everything under the top discard becomes the new stock.
        renewed = discard[:-1]
        del discard[:-1]
        rngmod.shuffle(state["rng"], renewed)
        state["stock"] = renewed
        return [
            {
                "type": "reshuffle",
                "stock": len(renewed),
                **rngmod.seal_deck(state["rng"], renewed, deal=False),
            }
        ]

    @staticmethod
    def _forget_taken(state: State, seat: int, cards: list[str]) -> None:
        """Cards that left the hand in public no longer count as taken and held."""
        taken = state.get("taken")
        if taken:
            for card in cards:
                if card in taken[seat]:
                    taken[seat].remove(card)

    def _lay_offs(self, state: State, seat: int) -> list[tuple[str, str]]:
        """Every (card, meld id) the seat may lay off now, one card at a time."""
        rules = self._rules(state)
        out = []
        for card in sorted(set(state["hands"][seat]), key=tt.sort_key):
            for meld in state["melds"]:
                if meld["owner"] != seat and classify([*meld["cards"], card], rules) is not None:
                    out.append((card, meld["id"]))
        return out

    def _lay_down(self, state: State, seat: int, melds: tuple[Meld, ...]) -> list[dict[str, Any]]:
        laid = []
        for meld in melds:
            entry = {"id": f"m{state['next_meld']}", "owner": seat, **meld_view(meld)}
            state["next_meld"] += 1
            state["melds"].append(entry)
            laid.append(json_copy(entry))
        state["laid_down"][seat] = laid
        return laid

    # --- legal actions -------------------------------------------------------
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["status"] != "active" or seat != state["turn"]:
            return []
        phase = state["phase"]
        if phase == "draw":
            piles = [p for p, cards in (("stock", state["stock"]), ("discard", state["discard"])) if cards]
            return [{"type": "draw", "pile": p} for p in piles]
        if phase == "lay_off":
            actions: list[Action] = [
                {"type": "lay_off", "card": c, "meld": m} for c, m in self._lay_offs(state, seat)
            ]
            return [*actions, {"type": "end_turn"}]
        return tt.discard_actions(
            state["hands"][seat], seat, state["num_seats"], state["options"], state["went_out"] is None
        )

    # --- actions -----------------------------------------------------------
    def parse_action(self, state: State, action: Any) -> Action:
        return tt.parse_action(action, state["num_seats"])

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        kind = action["type"]
        if kind == "resign":
            return self._resign(state, seat)
        phase = state["phase"]
        if kind == "draw":
            if phase != "draw":
                raise IllegalAction(
                    "you have drawn already: discard a card"
                    if phase == "discard"
                    else "your turn is nearly over: lay off cards or end your turn"
                )
            return self._draw(state, seat, action["pile"])
        if phase == "draw":
            raise IllegalAction("draw first: take the top card of the stock or of the discard pile")
        if kind == "discard":
            if phase != "discard":
                raise IllegalAction("you have discarded already: lay off cards or end your turn")
            return self._discard(state, seat, action)
        if phase != "lay_off":
            raise IllegalAction(
                "laying off comes only after the discard of a final turn in a redemption round"
            )
        if kind == "lay_off":
            return self._lay_off(state, seat, action["card"], action["meld"])
        return self._end_turn(state, seat)

    def _draw(self, state: State, seat: int, pile: str) -> list[Event]:
        source = state[pile]
        if not source:
            raise IllegalAction(f"the {'stock' if pile == 'stock' else 'discard pile'} is empty")
        hand = state["hands"][seat]
        if pile == "stock":
            card = source.pop(0)
            event: Event = {
                "type": "draw",
                "seat": seat,
                "pile": "stock",
                "secret": {str(seat): {"card": card}},
            }
        else:
            card = source.pop()
            event = {"type": "draw", "seat": seat, "pile": "discard", "card": card}
            # Everyone saw it taken: bots may remember it (states from before this key lack it).
            state.setdefault("taken", [[] for _ in range(state["num_seats"])])[seat].append(card)
        hand.append(card)
        state["phase"] = "discard"
        return [event]

    def _discard(self, state: State, seat: int, action: Action) -> list[Event]:
        options = state["options"]
        card = action["card"]
        onto = action.get("onto")
        declare = action.get("declare_out", False)
        hand = state["hands"][seat]
        if card not in hand:
            raise IllegalAction(f"you do not hold {card}")
        tt.check_discard(options, seat, card, onto, declare, state["went_out"] is None)
        rest = list(hand)
        rest.remove(card)
        out = False
        if state["went_out"] is None and (declare or not options["false_out_penalty"]):
            out = goes_out(rest, self._rules(state))
        hand.remove(card)
        self._forget_taken(state, seat, [card])
        event: Event = {"type": "discard", "seat": seat, "card": card}
        if onto is not None:
            state["dumped"][onto].append(card)
            event["onto"] = onto
        else:
            state["discard"].append(card)
        if declare:
            event["declare_out"] = True
        events = [event]
        if state["went_out"] is None:
            if out:
                return events + self._go_out(state, seat)
            if declare:
                state["penalties"][seat] += tt.FALSE_OUT_PENALTY
                events.append({"type": "false_out", "seat": seat, "penalty": tt.FALSE_OUT_PENALTY})
            return events + self._begin_turn(state, (seat + 1) % state["num_seats"])
        # A final turn.
        state["shown"][seat] = tt.sorted_cards(hand)
        if options["redemption_round"] and self._lay_offs(state, seat):
            state["phase"] = "lay_off"
            return events
        return events + self._finish_final_turn(state, seat)

    def _go_out(self, state: State, seat: int) -> list[Event]:
        hand = state["hands"][seat]
        state["shown"][seat] = tt.sorted_cards(hand)
        split = self._split(state, hand)
        laid = self._lay_down(state, seat, split.melds)
        state["hands"][seat] = []
        self._forget_taken(state, seat, list(hand))
        n = state["num_seats"]
        state["went_out"] = seat
        state["final_turns"] = [(seat + i) % n for i in range(1, n)]
        events: list[Event] = [{"type": "went_out", "seat": seat, "melds": laid}]
        return events + self._begin_turn(state, state["final_turns"][0])

    def _lay_off(self, state: State, seat: int, card: str, meld_id: str) -> list[Event]:
        hand = state["hands"][seat]
        if card not in hand:
            raise IllegalAction(f"you do not hold {card}")
        meld = next((m for m in state["melds"] if m["id"] == meld_id), None)
        if meld is None:
            raise IllegalAction(f"there is no meld {meld_id} on the table")
        if meld["owner"] == seat:
            raise IllegalAction("cards are laid off onto other players' melds")
        reading = classify([*meld["cards"], card], self._rules(state))
        if reading is None:
            raise IllegalAction(f"{card} does not fit meld {meld_id}")
        hand.remove(card)
        self._forget_taken(state, seat, [card])
        meld.update(meld_view(reading))
        state["laid_off"][seat].append(card)
        events: list[Event] = [{"type": "lay_off", "seat": seat, "card": card, "meld": json_copy(meld)}]
        if hand and self._lay_offs(state, seat):
            return events
        return events + self._finish_final_turn(state, seat)

    def _end_turn(self, state: State, seat: int) -> list[Event]:
        return self._finish_final_turn(state, seat)

    def _finish_final_turn(self, state: State, seat: int) -> list[Event]:
        events: list[Event] = []
        if state["options"]["redemption_round"]:
            hand = state["hands"][seat]
            split = self._split(state, hand)
            laid = self._lay_down(state, seat, split.melds)
            state["hands"][seat] = tt.sorted_cards(list(split.leftover))
            self._forget_taken(state, seat, [c for m in split.melds for c in m.cards])
            events.append({"type": "lay_down", "seat": seat, "melds": laid, "leftover": len(split.leftover)})
        state["final_turns"].pop(0)
        if state["final_turns"]:
            return events + self._begin_turn(state, state["final_turns"][0])
        return events + self._score_round(state)

    def _score_round(self, state: State) -> list[Event]:
        n = state["num_seats"]
        options = state["options"]
        size = self._size(state)
        double = tt.doubled(options, size)
        players = []
        points = []
        for s in range(n):
            entry = tt.score_seat(state, s, self._split(state, state["hands"][s]), double)
            state["scores"][s] = entry["total"]
            points.append(entry["points"])
            players.append(entry)
        state["round_points"].append(points)
        low = min(points)
        result = {
            "round": state["round"],
            "cards_dealt": size,
            "wild_rank": tt.WILD_RANK[size],
            "dealer": state["dealer"],
            "went_out": state["went_out"],
            "doubled": double,
            "players": players,
            "points": {str(s): points[s] for s in range(n)},
            "table": json_copy(state["melds"]),
            "scores": view.scores(state),
            "winners": [s for s in range(n) if points[s] == low],
        }
        state["round_result"] = result
        state["turn"] = state["phase"] = None
        events: list[Event] = [{"type": "round_over", "round": state["round"], "result": json_copy(result)}]
        if state["round"] < len(state["schedule"]):
            state["status"] = "round_over"
            return events
        playing = [s for s in range(n) if not state["resigned"][s]]
        best = min(state["scores"][s] for s in playing)
        events.append(self._finish(state, [s for s in playing if state["scores"][s] == best], "rounds"))
        return events

    def _resign(self, state: State, seat: int) -> list[Event]:
        n = state["num_seats"]
        if state["resigned"][seat]:
            raise IllegalAction("you have resigned already")
        state["resigned"][seat] = True
        events: list[Event] = [{"type": "resign", "seat": seat}]
        playing = [s for s in range(n) if not state["resigned"][s]]
        if len(playing) < 2:
            state["turn"] = state["phase"] = None
            events.append(self._finish(state, playing, "resign"))
        return events

    def _finish(self, state: State, winners: list[int], reason: str) -> Event:
        state["status"] = "finished"
        state["winners"] = list(winners)
        return {
            "type": "match_over",
            "winners": list(winners),
            "reason": reason,
            "scores": view.scores(state),
        }

    def standing_key(self, state: State, seat: int) -> tuple[Any, ...]:
        # The lowest total is best; resigned seats rank last whatever their total.
        return (state["resigned"][seat], state["scores"][seat])

    # --- views: the envelope is engines/base.py's, the parts engines/three_thirteen/view.py's ---
    player_view = staticmethod(view.player)

    def hand_view(self, state: State, seat: int) -> list[str]:
        return tt.sorted_cards(state["hands"][seat])

    table_view = staticmethod(view.table)
    scores = staticmethod(view.scores)


GAME = ThreeThirteenGame(
    id="three-thirteen",
    move_events=("draw", "reshuffle", "discard", "lay_off", "went_out", "false_out", "lay_down", "resign"),
    name="Three Thirteen",
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    actions={kind: tuple(sorted(allowed)) for kind, (_, allowed) in FIELDS.items()},
    options={
        "first_dealer": Option(
            "integer",
            None,
            "seat of the first dealer (null: drawn at random from the seed)",
            minimum=0,
            maximum=6,
        ),
        **{name: Option("boolean", False, text) for name, text in BOOLEAN_OPTIONS.items()},
    },
)
