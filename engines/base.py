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
import random
from dataclasses import dataclass, field
from typing import Any

from engines import rng as rngmod
from engines.errors import InvalidAction, InvalidOptions, MatchNotActive, NotYourTurn

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

BOT_LEVELS = ("easy", "medium", "hard", "pro")


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

        With `deck` (top card first) the first deal uses it unshuffled. `deal_key` (64 hex
        digits, secret) keys the salts of the deal commitments (`engines.rng.seal_deck`).
        """
        raise NotImplementedError

    def deal_commitment(self, state: State) -> str | None:
        """The commitment to the current round's deck order (docs/api.md, "Fair deals")."""
        return rngmod.deal_commitment(state["rng"])

    def status(self, state: State) -> str:
        """ "active", "round_over" or "finished"."""
        return state["status"]

    def to_move(self, state: State) -> int | None:
        """The seat whose decision the match waits for, or None."""
        raise NotImplementedError

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        raise NotImplementedError

    def resigned_seats(self, state: State) -> set[int]:
        """Seats that have resigned. Engines that keep `state["resigned"]` as one boolean per
        seat get this for free; the fallback asks the public view."""
        flags = state.get("resigned")
        if isinstance(flags, list):
            return {i for i, flag in enumerate(flags) if flag}
        return {p["seat"] for p in self.view(state, None)["players"] if p.get("resigned")}

    def apply(self, state: State, seat: int, action: Action) -> list[Event]:
        """Apply `action` by `seat`, mutating `state`; return the events.

        Raises an EngineError and leaves `state` untouched when the action is refused.
        """
        raise NotImplementedError

    def start_next_round(self, state: State) -> list[Event]:
        """Deal the next round or hand after `round_over`."""
        raise NotImplementedError

    def end_match(self, state: State) -> list[Event]:
        """The host ends the match now (games with `target_wins`); the leader(s) win."""
        raise MatchNotActive(f"{self.name} matches cannot be ended early")

    def apply_timeout(self, state: State, seat: int) -> list[Event]:
        """The turn clock ran out for `seat`: play for it (games with a clock)."""
        raise MatchNotActive(f"{self.name} has no turn clock")

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see: the game part of the view (docs/api.md, "Views")."""
        raise NotImplementedError

    def bot_action(self, view: dict[str, Any], level: str, rng: random.Random) -> Action:
        """A bot's decision from its seat's view only. The default plays a random legal action."""
        return rng.choice(view["legal_actions"])

    # --- helpers for subclasses --------------------------------------------
    @staticmethod
    def require_turn(state: State, seat: int, to_move: int | None) -> None:
        if state["status"] != "active":
            raise MatchNotActive("the match is not in play right now")
        if to_move != seat:
            raise NotYourTurn("it is not your turn")

    @staticmethod
    def require_type(action: Action, allowed: tuple[str, ...]) -> str:
        kind = action.get("type") if isinstance(action, dict) else None
        if kind not in allowed:
            raise InvalidAction(f"unknown action type {kind!r}; this game knows {', '.join(allowed)}")
        return kind

    @staticmethod
    def clone(state: State) -> State:
        return copy.deepcopy(state)
