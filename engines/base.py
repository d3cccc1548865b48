"""The engine interface shared by all four games (docs/architecture.md, "Engines").

A match state is a plain JSON-serialisable dict owned by the engine. The
service never reads inside it except through the methods below; `view()` is
the only way data leaves an engine (HTTP responses, events, logs, bot input).

Events are dicts with at least `type`. Fields only some seats may see go under
`secret`, a mapping from seat number (as a string, for JSON) to the extra
fields that seat sees; `redact_event` is the one place that applies it. What no
seat may see before the match is over (a deal's salt and deck order) goes under
`sealed`, which `redact_event` always strips and only `/history` publishes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, TypedDict, cast

from engines import rng as rngmod
from engines.cards import same_multiset
from engines.errors import InvalidAction, InvalidOptions, MatchNotActive, NotYourTurn

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]


class Turn(TypedDict):
    seat: int | None
    phase: str | None
    deadline: float | None


class View(TypedDict):
    """The game part of a seat's view (docs/api.md, "Views"); the service adds the match's own
    fields (id, version, host, options, ...) around it. `Game.view` builds it: a game supplies
    only its table and what it shows of each player besides cards and resignation."""

    status: str
    round: int
    turn: Turn
    players: list[dict[str, Any]]
    hand: list[str] | None
    stock: int
    discard: dict[str, Any] | None
    table: dict[str, Any]
    scores: dict[str, int]
    legal_actions: list[Action]
    round_result: dict[str, Any] | None
    winners: list[int] | None


class Step(NamedTuple):
    """What one change did, read once by the service: the events, the match's status after it,
    the seat it now waits for (None between rounds and at the end), the seats that have resigned,
    and the round's result when the change ended a round.

    A named tuple, not a frozen dataclass: one is built for every move, and a frozen
    dataclass's __init__ (one object.__setattr__ a field) cost a fifth of a Spades move in
    bench/engine.py."""

    events: list[Event]
    status: str
    to_move: int | None
    resigned: frozenset[int]
    result: dict[str, Any] | None = None


NO_SEATS: frozenset[int] = frozenset()
_new_step = tuple.__new__


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars), several times faster than deepcopy;
    a view never shares a mutable part with the state it was built from."""
    if type(value) is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [json_copy(v) for v in value]
    return value


# The levels offered to clients. The bots know three more (engines/bots.py): `random`, and the ladder's
# measuring rungs `solver` and `sound` (engines.solver_level.LADDER_ONLY_LEVELS, for tournaments only).
BOT_LEVELS = ("easy", "medium", "hard", "pro")

# One event vocabulary in every game (docs/api.md, "Events"). The service writes the match's own events
# (`timed_out`: a turn clock ran out); every engine starts a round with `deal` and ends it with `round_over`,
# and ends the match with `match_over`. Between them each game emits its own move events (`move_events`).
SERVICE_EVENTS = ("match_created", "join", "leave", "claim", "match_started", "rematch", "timed_out")
ROUND_EVENTS = ("deal", "round_over", "match_over")


@dataclass(frozen=True)
class Option:
    """One match option: its JSON type, default and allowed values."""

    type: str  # "integer" | "boolean" | "string"
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "default": self.default, "description": self.description}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


def redact_event(event: Event, seat: int | None) -> Event:
    """The event as `seat` may see it (None: a spectator)."""
    secret = event.get("secret")
    out = {k: v for k, v in event.items() if k not in ("secret", "sealed")}
    if secret and seat is not None:
        out.update(secret.get(str(seat), {}))
    return out


@dataclass
class Game:
    """Static description of a game plus its rules. Subclasses implement the rules."""

    id: str
    name: str
    min_seats: int
    max_seats: int
    options: dict[str, Option] = field(default_factory=dict)
    variants: tuple[str, ...] = ()
    schema_version: int = 1
    move_events: tuple[str, ...] = ()  # the game's own event types besides the shared vocabulary
    # Each action type and the fields it may carry besides `type`: what `parse_action` takes at
    # most. The contract's Action schema is made from these (service/http/contract.py), and
    # tests/test_conformance.py checks that every listed action fits and an extra field is refused.
    actions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Python 3.11 specialises a read of an attribute the instance holds, not of one only its
        # class holds: the two class settings read on every move are copied onto the instance
        # (200 machine instructions a read saved, bench/engine.py under callgrind).
        for name in ("turn_key", "anytime"):
            object.__setattr__(self, name, getattr(type(self), name))

    def event_types(self) -> tuple[str, ...]:
        """Every event type a match of this game may hold, in docs/api.md's order."""
        return (*SERVICE_EVENTS, ROUND_EVENTS[0], *self.move_events, *ROUND_EVENTS[1:])

    # --- description -----------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "players": {"min": self.min_seats, "max": self.max_seats},
            "variants": list(self.variants),
            "options": {k: o.describe() for k, o in self.options.items()},
            "bot_levels": list(BOT_LEVELS),
        }

    def validate_options(self, options: dict[str, Any] | None, num_seats: int) -> dict[str, Any]:
        """Options completed with defaults; raises InvalidOptions on anything else."""
        options = dict(options or {})
        if not self.min_seats <= num_seats <= self.max_seats:
            raise InvalidOptions(
                f"{self.name} is played by {self.min_seats}"
                + (f" to {self.max_seats}" if self.max_seats != self.min_seats else "")
                + f" players, not {num_seats}"
            )
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise InvalidOptions(f"unknown option(s) for {self.name}: {', '.join(unknown)}")
        out = {}
        for name, spec in self.options.items():
            value = options.get(name, spec.default)
            if spec.type == "boolean" and not isinstance(value, bool):
                raise InvalidOptions(f"option {name} must be true or false")
            if spec.type == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
                if not (value is None and spec.default is None):
                    raise InvalidOptions(f"option {name} must be an integer")
            if spec.type == "string" and not isinstance(value, str):
                raise InvalidOptions(f"option {name} must be a string")
            if spec.choices is not None and value not in spec.choices:
                raise InvalidOptions(f"option {name} must be one of {', '.join(map(str, spec.choices))}")
            if isinstance(value, int) and not isinstance(value, bool):
                if spec.minimum is not None and value < spec.minimum:
                    raise InvalidOptions(f"option {name} must be at least {spec.minimum}")
                if spec.maximum is not None and value > spec.maximum:
                    raise InvalidOptions(f"option {name} must be at most {spec.maximum}")
            out[name] = value
        self.check_options(out, num_seats)
        return out

    def check_options(self, options: dict[str, Any], num_seats: int) -> None:
        """Cross-option checks (contradictions, seat-dependent values). Raise InvalidOptions."""

    def full_deck(self, options: dict[str, Any]) -> list[str]:
        """Every card of the game, for checking that a stacked deck is a permutation."""
        raise NotImplementedError

    # --- life cycle --------------------------------------------------------
    def new_match(
        self,
        options: dict[str, Any],
        num_seats: int,
        seed: int,
        deck: list[str] | None = None,
        deal_key: str | None = None,
    ) -> tuple[State, list[Event]]:
        """A match with its first round dealt. `options` are already validated.

        With `deck` (top card first) the first deal uses it unshuffled; it must hold exactly the
        cards of `full_deck` (InvalidOptions). `deal_key` (64 hex digits, secret) keys the salts of
        the deal commitments (`engines.rng.seal_deck`). A game supplies the match before its first
        deal (`_new_state`) and the deal (`_deal`).
        """
        rng = rngmod.new_rng_state(seed, deal_key)
        state: State = {
            "schema_version": 1,
            "status": "active",
            "rng": rng,
            "round": 0,
            **self._new_state(options, num_seats, rng),
            "resigned": [False] * num_seats,
            "round_result": None,
            "winners": None,
        }
        if deck is not None:
            full = self.full_deck(state["options"])
            if not (
                isinstance(deck, list) and all(type(c) is str for c in deck) and same_multiset(deck, full)
            ):
                raise InvalidOptions(
                    f"a stacked deck must hold exactly the {len(full)} cards of this {self.name} match"
                )
            deck = list(deck)
        return state, self._deal(state, deck)

    def _new_state(self, options: dict[str, Any], num_seats: int, rng: dict[str, Any]) -> State:
        """The game's own fields of the match before its first deal, `options` among them as the
        match keeps them (the base adds `schema_version`, `status`, `rng`, `round` 0, `resigned`,
        `round_result` and `winners`); InvalidOptions for options or a seat count the game cannot
        start with. `rng` (`engines.rng`) may draw what the options leave to chance."""
        raise NotImplementedError

    def _deal(self, state: State, deck: list[str] | None) -> list[Event]:
        """Deal the next round (the first when `state["round"]` is 0): from `deck` (top card first,
        already checked) unshuffled, else from the full deck shuffled by `engines.rng`; every deal
        is sealed with `engines.rng.seal_deck`, which its `deal` event carries."""
        raise NotImplementedError

    def all_cards(self, state: State) -> list[str]:
        """Every card of the match wherever the state holds it now (hands, stock, discard pile,
        table melds, tricks, cards set aside), in no set order. No card is ever made or lost, so
        this is always `full_deck(options)` as a multiset; tests/test_conformance.py checks it
        after every change."""
        raise NotImplementedError

    def deal_commitment(self, state: State) -> str | None:
        """The commitment to the current round's deck order (docs/api.md, "Fair deals")."""
        return rngmod.deal_commitment(state["rng"])

    def status(self, state: State) -> str:
        """ "active", "round_over" or "finished"."""
        return cast(str, state["status"])  # State is JSON-ish

    # The state key holding the seat to move while the match is active. A game sets this rather
    # than overriding `to_move`: `apply` reads the key directly for the usual move's Step.
    turn_key: ClassVar[str] = "turn"
    # Events after which the seat to move starts a new turn though it moved last (Spades' trick).
    turn_ends: ClassVar[frozenset[str]] = frozenset()

    def to_move(self, state: State) -> int | None:
        """The seat whose decision the match waits for, or None."""
        return state[self.turn_key] if state["status"] == "active" else None

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        raise NotImplementedError

    def resigned_seats(self, state: State) -> set[int]:
        """Seats that have resigned (`state["resigned"]`, one boolean a seat, kept by `new_match`
        and each game's resign)."""
        return {i for i, flag in enumerate(state["resigned"]) if flag}

    # --- moves: the template every game fills in --------------------------------------
    # Actions a seat may take out of turn, and the statuses in which each is accepted.
    anytime: ClassVar[dict[str, tuple[str, ...]]] = {"resign": ("active", "round_over")}

    def apply(self, state: State, seat: int, action: Action) -> Step:
        """Apply `action` by `seat`, mutating `state`; one `Step` says what changed.

        The checks run in this order for every game, each with its error and HTTP answer
        (docs/api.md, "Errors"):

        1. the shape: a JSON object of a known type with well-formed fields
           (`parse_action`; InvalidAction, 422 `validation_error`);
        2. the match is in play: active, or for `anytime` actions any status listed there
           (MatchNotActive, 409);
        3. the seat plays in this match (NotYourTurn, 409);
        4. it is the seat's turn, unless the action is one of `anytime` (NotYourTurn, 409);
        5. the rules of the game, in `_apply` (IllegalAction, 422).

        A refused action raises before anything in `state` changes.
        """
        action = self.parse_action(state, action)
        turn_key = self.turn_key
        if action["type"] not in self.anytime:
            if state["status"] != "active":
                raise MatchNotActive("the match is not in play right now")
            # One comparison for the usual move: the seat to move is always one of the match's.
            if seat != state[turn_key] or type(seat) is not int:
                self._check_seat(state, seat)
                raise NotYourTurn("it is not your turn")
        else:
            if state["status"] not in self.anytime[action["type"]]:
                raise MatchNotActive("the match is not in play right now")
            self._check_seat(state, seat)
        events = self._apply(state, seat, action)
        if state["status"] == "active" and True not in state["resigned"]:
            # The usual move (no round over, nobody resigned) without the calls of `step`: this
            # is every playout's and every request's hot path (bench/engine.py).
            return _new_step(Step, (events, "active", state[turn_key], NO_SEATS, None))
        return self.step(state, events)

    @staticmethod
    def _check_seat(state: State, seat: Any) -> None:
        if type(seat) is not int or not 0 <= seat < len(state["hands"]):
            raise NotYourTurn(f"seat {seat!r} does not play in this match")

    def parse_action(self, state: State, action: Any) -> Action:
        """`action` checked against the game's action shapes and returned normalised;
        InvalidAction on anything else (step 1 of `apply`)."""
        raise NotImplementedError

    def _apply(self, state: State, seat: int, action: Action) -> list[Event]:
        """The game's rules for a well-formed action by the seat whose turn it is (or an
        `anytime` action): mutate `state` and return the events, or raise IllegalAction
        leaving `state` untouched."""
        raise NotImplementedError

    def step(self, state: State, events: list[Event]) -> Step:
        """The `Step` for `events` just applied to `state`."""
        status = state["status"]
        result = None
        if status != "active":  # only a change that ends a round or the match has a result
            for event in events:
                if event["type"] == "round_over":
                    result = event.get("result")
        if True not in state["resigned"]:
            resigned = NO_SEATS  # the usual case, without building a set a move
        else:
            resigned = frozenset(self.resigned_seats(state))
        # tuple.__new__ directly: the named tuple's own __new__ is one more Python call a move.
        return _new_step(Step, (events, status, self.to_move(state), resigned, result))

    def start_next_round(self, state: State) -> Step:
        """Deal the next round or hand after `round_over`."""
        if state["status"] != "round_over":
            raise MatchNotActive("the next round can be dealt only when a round is over")
        return self.step(state, self._next_round(state))

    def _next_round(self, state: State) -> list[Event]:
        return self._deal(state, None)

    def end_match(self, state: State) -> Step:
        """The host ends the match now (games with `target_wins`); the leader(s) win."""
        return self.step(state, self._end_match(state))

    def _end_match(self, state: State) -> list[Event]:
        raise MatchNotActive(f"{self.name} matches cannot be ended early")

    def apply_timeout(self, state: State, seat: int) -> Step:
        """The turn clock ran out for `seat`: play for it (games with a clock)."""
        return self.step(state, self._timeout(state, seat))

    def _timeout(self, state: State, seat: int) -> list[Event]:
        raise MatchNotActive(f"{self.name} has no turn clock")

    # --- the end of a match: what ratings are computed from (service/ratings/model.py) ----------
    def standings(self, state: State) -> list[int]:
        """Each seat's place in the finished match (MatchNotActive before): the winners share 0,
        the others follow by `standing_key`, a place counting the seats ahead (0, 1, 1, 3)."""
        if state["status"] != "finished":
            raise MatchNotActive("a match has standings only once it is finished")
        won = state["winners"]
        keys = [(0,) if s in won else (1, *self.standing_key(state, s)) for s in range(len(state["hands"]))]
        return [sum(k < key for k in keys) for key in keys]

    def standing_key(self, state: State, seat: int) -> tuple[Any, ...]:
        """The order of the seats that did not win, lower first (here: the resigned last)."""
        return (state["resigned"][seat],)

    def teams(self, num_seats: int, options: dict[str, Any]) -> list[list[int]] | None:
        """The seats that win or lose together (Spades' partnerships); None: every seat alone."""
        return None

    # --- views: the envelope is built here, a game supplies its parts ----------------
    def view(self, state: State, seat: int | None) -> View:
        """What `seat` (None: a spectator) may see: the game part of the view (docs/api.md,
        "Views"). A seat number that does not play here sees what a spectator sees."""
        hands = state["hands"]
        viewer = seat if type(seat) is int and 0 <= seat < len(hands) else None
        mover = self.to_move(state)
        resigned = state["resigned"]
        winners = state["winners"]
        return {
            "status": state["status"],
            "round": state["round"],
            "turn": {"seat": mover, "phase": state["phase"] if mover is not None else None, "deadline": None},
            "players": [
                {"seat": s, "cards": len(hand), "resigned": resigned[s], **self.player_view(state, s)}
                for s, hand in enumerate(hands)
            ],
            "hand": self.hand_view(state, viewer) if viewer is not None else None,
            "stock": self.stock_view(state),
            "discard": self.discard_view(state),
            "table": self.table_view(state, viewer),
            "scores": self.scores(state),
            "legal_actions": self.legal_actions(state, viewer) if viewer is not None else [],
            "round_result": self.result_view(state["round_result"]),
            "winners": list(winners) if winners is not None else None,
        }

    @staticmethod
    def waiting_view(num_seats: int, seat: int | None) -> View:
        """The view of a match still waiting for players: the envelope with nothing dealt."""
        return {
            "status": "waiting",
            "round": 0,
            "turn": {"seat": None, "phase": None, "deadline": None},
            "players": [{"seat": s, "cards": 0, "resigned": False} for s in range(num_seats)],
            "hand": [] if seat is not None else None,
            "stock": 0,
            "discard": None,
            "table": {},
            "scores": {},
            "legal_actions": [],
            "round_result": None,
            "winners": None,
        }

    def player_view(self, state: State, seat: int) -> dict[str, Any]:
        """What everyone sees of `seat` besides its card count and resignation."""
        return {}

    def hand_view(self, state: State, seat: int) -> list[str]:
        """The viewer's own hand, in the order the game shows it."""
        return list(state["hands"][seat])

    def stock_view(self, state: State) -> int:
        return len(state["stock"])

    def discard_view(self, state: State) -> dict[str, Any] | None:
        discard = state["discard"]
        return {"top": discard[-1] if discard else None, "count": len(discard)}

    def table_view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The game's public table, as `seat` may see it."""
        raise NotImplementedError

    def scores(self, state: State) -> dict[str, int]:
        """The match score by seat (or partnership) number as a string."""
        raise NotImplementedError

    def result_view(self, result: dict[str, Any] | None) -> dict[str, Any] | None:
        """A copy of the last round's result for a view (a game with a fixed shape may copy faster)."""
        return cast(dict[str, Any] | None, json_copy(result))

    # --- bots: the module whose import registers this game's bots (engines/bots.py); no game
    # imports its bots, so the rules never depend on them. None: every level plays at random.
    bots_module: ClassVar[str | None] = None

    # --- helpers for subclasses --------------------------------------------
    @staticmethod
    def one_field(action: Action, name: str, shape: str) -> Any:
        """`name`'s value if it is the action's one field but `type`; else InvalidAction(`shape`)."""
        if len(action) != 2 or name not in action:
            raise InvalidAction(shape)
        return action[name]

    @staticmethod
    def check_resign(action: Action) -> None:
        """A resignation carries no field besides `type`; InvalidAction otherwise."""
        if len(action) != 1:
            raise InvalidAction('resigning is {"type": "resign"} with no other field')

    @staticmethod
    def require_type(action: Action, allowed: tuple[str, ...]) -> str:
        kind = action.get("type") if isinstance(action, dict) else None
        if kind not in allowed:
            raise InvalidAction(f"unknown action type {kind!r}; this game knows {', '.join(allowed)}")
        return cast(str, kind)  # one of `allowed`

    @staticmethod
    def clone(state: State) -> State:
        return copy.deepcopy(state)
