"""Žolíky (docs/rules/zoliky.md): two players, 108 cards, a 42-point first meld with a pure run.

Decisions the rules leave open (each also written in place in docs/rules/zoliky.md):

- Cut: cards are revealed from the bottom of the shuffled stock (last card first) until
  three are revealed and a normal card has shown; so exactly three, or more only when all
  three were jokers (then up to the first normal card, at most 5 with 4 jokers). Every
  revealed joker goes to the cutter, the first revealed normal card is the closing card,
  other revealed normal cards stay in place at the bottom. `table.cut` lists them all.
- Deal: one card at a time from the top, cutter first, skipping a full hand; the cutter's
  jokers (cut and carried over) count toward 13.
- An action carrying melds puts its new melds down first (ids m1, m2, … in order), then
  applies its lay-offs in the listed order; a lay-off names a new meld by its position or any
  table meld by id. A meld action without melds but with lay-offs lays off several at once.
- The pure run of the opening is judged on the new melds as put down, before the action's
  lay-offs (which come after the opening and may then touch any meld). A joker in a set
  whose suit is still open counts as its rank's value.
- Cards that can be read as a meld in more than one way take the reading worth most points.
- A lay-off keeps the meld's kind: a set stays a set of its rank, a run stays a run.
- A joker on the table keeps the card it stands for: lay-offs (also inside meld, take_discard
  and take_closing) are read against the meld as it lies, each joker of a run fixed; the card a
  joker stands for goes in only by swap_joker (rules.lay_off_reading). Set jokers keep their rank.
- A joker swap takes one joker per action, from any table meld (either player's); a joker
  standing for an open suit may be replaced by a card of any suit missing from the set.
- A turn must end with a discard: a meld, lay-off or take_discard action may not use up the
  whole hand (at least one card, possibly a joker, must stay). A joker swap leaves the hand
  size unchanged.
- Jokers may be discarded. A discard that leaves only jokers (or nothing) in hand closes the
  round; the closer keeps those jokers for the next round.
- "Using" the taken discard or closing card means that the action's melds/lay-offs use a
  card of that code (copies are interchangeable). The closing card may also be laid off
  (after the player's opening), like the discard.
- take_closing is one action: take, meld/lay off, discard; it is refused unless that
  discard leaves no normal card in hand.
- The stock is refilled when a player draws from an empty stock: the discard pile except
  its top card is shuffled into it. It cannot happen that even this leaves no card: hands
  and table melds together never hold more than 26 cards, so stock plus discard pile hold
  at least 81. A draw would be refused (never crash) if it did.
- Round result: every hand and its points left (2–10 face, J Q K 10, ace 11, joker 0: a
  joker in hand stands for no card), the table melds and the winner; the match tally is
  rounds won. `end_match` makes the seat(s) with most rounds won the winners (a tie: both).
- Resigning ends the match at once (two players); the other seat wins. It is allowed while
  the match is active or between rounds (`Game.anytime`), and is not listed in legal_actions.
- An action is checked in the order every game uses (engines/base.py, `Game.apply`): its
  shape (`parse_action`), the match in play, the seat, the turn, then the rules (`_apply`:
  the phase, the melding turn, the action's own rules).
- legal_actions: complete draw/discard lists; one template per meld-type action when the
  rules allow that type now (turn 7+, phase, opening, a table meld to lay off on, a table
  joker to swap) and the hand has enough cards for it; a template is no promise that a
  fitting meld exists. Each template carries `"template": True` (engines/legal.py): its
  empty fields are the player's to fill in, so it cannot be applied as it is.
- Hands in views are sorted by suit (S H D C), then rank A…K, jokers last.
- Each player's view entry also shows the round's public discard history (for the bots, who
  are stateless): `discards`, that player's cards in the discard pile (bottom first), and
  `taken`, the discards they took. A refill of the stock leaves only the top card's owner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engines import rng as rng_mod
from engines.base import Action, Event, Game, Option, State, json_copy
from engines.cards import JOKER, deck
from engines.errors import IllegalAction, InvalidOptions, MatchNotActive
from engines.zoliky import view
from engines.zoliky.rules import (
    ACTION_FIELDS,
    FIRST_MELDING_TURN,
    Plan,
    card_points,
    copy_meld,
    copy_melds,
    cut_stock,
    deal,
    describe,
    discard_problem,
    find_meld,
    make_plan,
    melding_turn_problem,
    parse_action,
    phase_problem,
    read_meld,
    require_used,
    sort_key,
    swap_problem,
)


def _discard_seats(state: State) -> list[int | None]:
    """Who discarded each card of the discard pile (parallel to it); for a state saved before
    this was kept, the owners of the cards already there are unknown (None)."""
    if "discard_seats" not in state:
        state["discard_seats"] = [None] * len(state["discard"])
    return cast(list[int | None], state["discard_seats"])  # State is JSON-ish


def _plan(
    state: State,
    seat: int,
    hand: list[str],
    meld_lists: list[list[str]],
    lay_offs: list[dict[str, Any]],
    keep_card: bool = True,
) -> Plan:
    """The action's melds then lay-offs checked against `hand` and the table, and (`keep_card`)
    that a card is left for the discard; IllegalAction."""
    opened = state["opened"][seat]
    plan = make_plan(state["melds"], state["next_meld"], opened, seat, hand, meld_lists, lay_offs)
    if keep_card and not plan.hand:
        raise IllegalAction("you must keep a card: every turn ends with a discard")
    return plan


# --- the game ------------------------------------------------------------------------


class ZolikyGame(Game):
    """Žolíky for two players."""

    bots_module = "engines.zoliky.bots"

    def full_deck(self, options: dict[str, Any]) -> list[str]:
        return deck(copies=2, jokers=4)

    # --- life cycle ----------------------------------------------------------------

    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        if num_seats != 2:
            raise InvalidOptions("Žolíky is played by 2 players")
        return {
            "options": dict(options),
            "cutter": options["first_cutter"],
            "wins": [0, 0],
            "carried_jokers": 0,
        }

    def _deal(self, state: State, stacked: list[str] | None) -> list[Event]:
        cutter = state["cutter"]
        carried = state["carried_jokers"]
        if stacked is not None:
            stock = stacked
        else:
            # The winner's carried jokers stay in their hand; everything else is shuffled.
            stock = deck(copies=2, jokers=4 - carried)
            rng_mod.shuffle(state["rng"], stock)
        # Committed as shuffled, before the cut takes cards from its bottom.
        sealed = rng_mod.seal_deck(state["rng"], stock)
        revealed, closing, cut_jokers = cut_stock(stock)
        hands = deal(stock, cutter, carried + cut_jokers)
        state.update(
            {
                "status": "active",
                "round": state["round"] + 1,
                "hands": hands,
                "stock": stock,
                "discard": [],
                "closing_card": closing,
                "cut": revealed,
                "melds": [],
                "next_meld": 1,
                "opened": [False, False],
                "turn_number": 1,
                "turn_seat": cutter,
                # The cutter already holds 13: their first turn only discards.
                "phase": "discard",
                "carried_jokers": 0,
                # Public history for the view (and the bots): who discarded each card of the
                # pile, and which discards each player took.
                "discard_seats": [],
                "taken": [[], []],
            }
        )
        return [
            {
                "type": "cut",
                "seat": cutter,
                "revealed": list(revealed),
                "closing_card": closing,
                "jokers": cut_jokers,
            },
            {
                "type": "deal",
                "round": state["round"],
                "cutter": cutter,
                "carried_jokers": carried,
                "cards": {str(s): len(hands[s]) for s in (0, 1)},
                "secret": {str(s): {"hand": sorted(hands[s], key=sort_key)} for s in (0, 1)},
                **sealed,
            },
        ]

    def all_cards(self, state: State) -> list[str]:
        table = [c for meld in state["melds"] for c in meld["cards"]]
        closing = [] if state["closing_card"] is None else [state["closing_card"]]
        held = [c for hand in state["hands"] for c in hand]
        return [*held, *state["stock"], *state["discard"], *table, *closing]

    turn_key = "turn_seat"

    # --- legal actions -----------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["status"] != "active" or state["turn_seat"] != seat:
            return []
        hand = state["hands"][seat]
        phase = state["phase"]
        may_meld = state["turn_number"] >= FIRST_MELDING_TURN
        opened = state["opened"][seat]
        out: list[Action] = []
        if phase == "draw":
            out.append({"type": "draw"})
            if may_meld and state["discard"] and (opened or len(hand) >= 3):
                out.append({"type": "take_discard", "melds": [], "lay_offs": [], "template": True})
            if may_meld and state["closing_card"] is not None and (opened or len(hand) >= 3):
                out.append(
                    {"type": "take_closing", "melds": [], "lay_offs": [], "discard": "", "template": True}
                )
            return out
        # Only an unopened hand could be refused a discard (closing needs the opening).
        check = not opened and sum(c != JOKER for c in hand) < 2
        out.extend(
            {"type": "discard", "card": c}
            for c in sorted(set(hand), key=sort_key)
            if not check or discard_problem(hand, opened, c) is None
        )
        if phase == "play" and may_meld:
            if len(hand) >= 4:
                out.append({"type": "meld", "melds": [], "lay_offs": [], "template": True})
            if opened and state["melds"] and len(hand) >= 2:
                out.append({"type": "lay_off", "meld": "", "cards": [], "template": True})
            if opened and any(JOKER in m["cards"] for m in state["melds"]) and any(c != JOKER for c in hand):
                out.append({"type": "swap_joker", "meld": "", "card": "", "template": True})
        return out

    # --- actions -----------------------------------------------------------------------

    def parse_action(self, state: State, action: Any) -> Action:
        return parse_action(action)

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        if action["type"] == "resign":
            return self._resign(state, seat)
        kind = action["type"]
        problem = phase_problem(kind, state["phase"]) or melding_turn_problem(kind, state["turn_number"])
        if problem:
            raise IllegalAction(problem)
        handler: Callable[[State, int, Action], list[Event]] = getattr(self, f"_do_{kind}")
        return handler(state, seat, action)

    def _resign(self, state: State, seat: int) -> list[Event]:
        state["resigned"][seat] = True
        state["status"] = "finished"
        state["winners"] = [1 - seat]
        return [{"type": "resign", "seat": seat}, self._match_over(state, "resign")]

    def _do_draw(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        if not state["stock"]:
            refill = state["discard"][:-1]
            if not refill:
                raise IllegalAction("the stock and the discard pile are both exhausted")
            rng_mod.shuffle(state["rng"], refill)
            state["stock"] = refill
            state["discard"] = state["discard"][-1:]
            state["discard_seats"] = _discard_seats(state)[-1:]
            sealed = rng_mod.seal_deck(state["rng"], refill, deal=False)
            events.append({"type": "reshuffle", "count": len(refill), **sealed})
        card = state["stock"].pop(0)
        state["hands"][seat].append(card)
        state["phase"] = "play"
        events.append({"type": "draw", "seat": seat, "pile": "stock", "secret": {str(seat): {"card": card}}})
        return events

    def _do_meld(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        if not action["melds"] and not action["lay_offs"]:
            raise IllegalAction("put down at least one meld or lay-off")
        plan = _plan(state, seat, state["hands"][seat], action["melds"], action["lay_offs"])
        self._commit(state, seat, plan)
        return plan.events

    def _do_lay_off(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        if not state["opened"][seat]:
            raise IllegalAction("you may lay off only after your own first meld")
        plan = _plan(
            state, seat, state["hands"][seat], [], [{"meld": action["meld"], "cards": action["cards"]}]
        )
        self._commit(state, seat, plan)
        return plan.events

    def _do_swap_joker(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        if not state["opened"][seat]:
            raise IllegalAction("you may swap a joker only after your own first meld")
        card = action["card"]
        if card == JOKER:
            raise IllegalAction("a joker is swapped for the normal card it stands for, not for another joker")
        index = find_meld(state["melds"], action["meld"])
        meld = state["melds"][index]
        if JOKER not in meld["cards"]:
            raise IllegalAction(f"meld {meld['id']} ({describe(meld['cards'])}) has no joker to swap")
        if card not in state["hands"][seat]:
            raise IllegalAction(f"you do not hold {card}")
        problem = swap_problem(meld, card)
        if problem:
            raise IllegalAction(problem)
        cards = list(meld["cards"])
        cards.remove(JOKER)
        cards.append(card)
        result = read_meld(cards, kind=meld["kind"])
        if result is None:  # pragma: no cover - the checks above make the swap valid
            raise IllegalAction(f"{card} cannot replace the joker in {meld['id']}")
        hand = state["hands"][seat]
        hand.remove(card)
        hand.append(JOKER)
        meld["cards"] = list(result.cards)
        meld["stands_for"] = list(result.stands_for)
        return [
            {"type": "swap_joker", "seat": seat, "meld": meld["id"], "card": card, "result": copy_meld(meld)}
        ]

    def _do_take_discard(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        if not state["discard"]:
            raise IllegalAction("the discard pile is empty")
        top = state["discard"][-1]
        require_used(action, top, "the top discard", "take it")
        plan = _plan(state, seat, [*state["hands"][seat], top], action["melds"], action["lay_offs"])
        _discard_seats(state).pop()
        state["discard"].pop()
        state.setdefault("taken", [[], []])[seat].append(top)
        state["phase"] = "play"
        self._commit(state, seat, plan)
        return [{"type": "take_discard", "seat": seat, "card": top}, *plan.events]

    def _do_take_closing(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        closing = state["closing_card"]
        if closing is None:  # pragma: no cover - the closing card is set aside every round
            raise IllegalAction("there is no closing card this round")
        require_used(action, closing, "the closing card", "take it")
        hand = [*state["hands"][seat], closing]
        plan = _plan(state, seat, hand, action["melds"], action["lay_offs"], keep_card=False)
        card = action["discard"]
        if card not in plan.hand:
            raise IllegalAction(f"you cannot discard {card}: you would not hold it after melding")
        rest = list(plan.hand)
        rest.remove(card)
        left = [c for c in rest if c != JOKER]
        if left:
            raise IllegalAction(
                "you may take the closing card only to close the round in the same turn; "
                f"after discarding {card} you would still hold {describe(sorted(left, key=sort_key))}"
            )
        state["closing_card"] = None
        self._commit(state, seat, plan)
        events = [{"type": "take_closing", "seat": seat, "card": closing}, *plan.events]
        events.extend(self._discard(state, seat, card))
        return events

    def _do_discard(self, state: State, seat: int, action: dict[str, Any]) -> list[Event]:
        card = action["card"]
        problem = discard_problem(state["hands"][seat], state["opened"][seat], card)
        if problem:
            raise IllegalAction(problem)
        return self._discard(state, seat, card)

    # --- shared steps ------------------------------------------------------------------

    @staticmethod
    def _commit(state: State, seat: int, plan: Plan) -> None:
        state["hands"][seat] = plan.hand
        state["melds"] = plan.table
        state["next_meld"] = plan.next_meld
        state["opened"][seat] = plan.opened

    def _discard(self, state: State, seat: int, card: str) -> list[Event]:
        hand = state["hands"][seat]
        hand.remove(card)
        _discard_seats(state).append(seat)
        state["discard"].append(card)
        events: list[Event] = [{"type": "discard", "seat": seat, "card": card}]
        if all(c == JOKER for c in hand):
            events.extend(self._end_round(state, seat))
        else:
            state["turn_number"] += 1
            state["turn_seat"] = 1 - seat
            state["phase"] = "draw"
        return events

    def _end_round(self, state: State, winner: int) -> list[Event]:
        state["wins"][winner] += 1
        state["carried_jokers"] = state["hands"][winner].count(JOKER)
        state["cutter"] = winner
        hands = {str(s): sorted(state["hands"][s], key=sort_key) for s in (0, 1)}
        result = {
            "round": state["round"],
            "winners": [winner],
            "winner": winner,
            "hands": hands,
            "points": {s: sum(card_points(c) for c in h) for s, h in hands.items()},
            "melds": copy_melds(state["melds"]),
            "carried_jokers": state["carried_jokers"],
            "wins": {str(s): state["wins"][s] for s in (0, 1)},
        }
        state["round_result"] = result
        state["turn_seat"] = None
        state["phase"] = None
        events: list[Event] = [{"type": "round_over", **json_copy(result)}]
        if state["wins"][winner] >= state["options"]["target_wins"]:
            state["status"] = "finished"
            state["winners"] = [winner]
            events.append(self._match_over(state, "target"))
        else:
            state["status"] = "round_over"
        return events

    def _end_match(self, state: State) -> list[Event]:
        if state["status"] not in ("active", "round_over"):
            raise MatchNotActive("the match is not in play right now")
        best = max(state["wins"])
        winners = [s for s in (0, 1) if state["wins"][s] == best]
        state["status"] = "finished"
        state["winners"] = winners
        state["turn_seat"] = None
        state["phase"] = None
        return [{**self._match_over(state, "ended"), "ended_by_host": True}]

    @staticmethod
    def _match_over(state: State, reason: str) -> Event:
        """The match's last event, shaped as in every game (docs/api.md, "Events")."""
        return {
            "type": "match_over",
            "winners": list(state["winners"]),
            "reason": reason,
            "scores": view.scores(state),
        }

    # --- views (the parts engines/base.py's envelope asks for) ---------------------------
    player_view = staticmethod(view.player)
    hand_view = staticmethod(view.hand)
    table_view = staticmethod(view.table)
    scores = staticmethod(view.scores)


GAME = ZolikyGame(
    id="zoliky",
    move_events=(
        "cut",
        "draw",
        "reshuffle",
        "take_discard",
        "take_closing",
        "meld",
        "lay_off",
        "swap_joker",
        "discard",
        "resign",
    ),
    name="Žolíky",
    min_seats=2,
    max_seats=2,
    actions=ACTION_FIELDS,
    options={
        "first_cutter": Option(
            "integer", 0, "the seat that cuts (and starts) the first round", minimum=0, maximum=1
        ),
        "target_wins": Option(
            "integer", 5, "rounds a player must win to win the match", minimum=1, maximum=100
        ),
    },
)

__all__ = ["GAME", "ZolikyGame", "parse_action"]
