"""The rule pages' worked examples and option tables, checked against the engines.

Every ```json example``` block of docs/rules/*.md is one test: it states a position and what
the engine does with it, and the test plays it through the engine (or asks the engine's own
scoring), so a page cannot say anything the engine does not do.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from engines.cards import JOKER
from engines.errors import IllegalAction
from engines.meld_solver import best_split
from engines.registry import GAMES
from engines.spades.rules import legal_cards, score_hand, trick_winner
from engines.three_thirteen import rules as tt
from engines.zoliky.rules import card_points, meld_points, read_meld

RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"
PAGES = {
    "zoliky": "zoliky.md",
    "three-thirteen": "three-thirteen.md",
    "zhol": "zhol.md",
    "spades": "spades.md",
}
EXAMPLE = re.compile(r"^```json example\n(.*?)^```", re.M | re.S)


def examples(page: str) -> list[dict]:
    return [json.loads(block) for block in EXAMPLE.findall((RULES / page).read_text())]


def _all_examples():
    for page in sorted(p.name for p in RULES.glob("*.md")):
        for i, ex in enumerate(examples(page)):
            yield pytest.param(ex, id=f"{page}-{i}-{ex['example']}")


def _rest_of_deck(full: list[str], used: list[str]) -> list[str]:
    rest = list(full)
    for card in used:
        rest.remove(card)
    return rest


# --- Žolíky ------------------------------------------------------------------------------


def _zoliky_turn_seven(hand: list[str], opened: bool, table: list[list[str]] = ()) -> dict:
    """A Žolíky state at turn 7 where seat 0 has drawn and holds `hand`; `table` melds owned by
    seat 1. The engine then judges seat 0's next action exactly as in play."""
    game = GAMES["zoliky"]
    state, _ = game.new_match(game.validate_options({}, 2), 2, seed=1)
    melds = []
    for i, cards in enumerate(table, start=1):
        meld = read_meld(cards)
        assert meld is not None, cards
        melds.append(
            {
                "id": f"m{i}",
                "owner": 1,
                "kind": meld.kind,
                "cards": list(meld.cards),
                "stands_for": list(meld.stands_for),
            }
        )
    state.update(turn_seat=0, phase="play", turn_number=7, melds=melds, next_meld=len(melds) + 1)
    state["hands"][0] = list(hand)
    state["opened"] = [opened, True]
    return state


def _refused(state: dict, seat: int, action: dict, reason: str) -> None:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        GAMES["zoliky"].apply(state, seat, action)
    assert reason.lower() in str(refused.value).lower()
    assert state == before, "a refused action changed the match"


def check_zoliky_meld(ex: dict) -> None:
    meld = read_meld(ex["cards"])
    assert meld is not None
    assert (meld.kind, list(meld.stands_for), meld_points(meld)) == (
        ex["kind"],
        ex["stands_for"],
        ex["points"],
    )


def check_zoliky_opening(ex: dict) -> None:
    melds = ex["melds"]
    assert [meld_points(read_meld(m)) for m in melds] == ex["points"]
    state = _zoliky_turn_seven([c for m in melds for c in m] + ["9C"], opened=False)
    action = {"type": "meld", "melds": melds}
    if "refused" in ex:
        _refused(state, 0, action, ex["refused"])
        return
    events = GAMES["zoliky"].apply(state, 0, action).events
    assert [e["type"] for e in events] == ["meld"] * len(melds)
    assert state["opened"][0] and state["hands"][0] == ["9C"]


def check_zoliky_lay_off(ex: dict) -> None:
    state = _zoliky_turn_seven([*ex["cards"], "9C"], opened=True, table=[ex["meld"]])
    action = {"type": "lay_off", "meld": "m1", "cards": ex["cards"]}
    if "refused" in ex:
        _refused(state, 0, action, ex["refused"])
        return
    GAMES["zoliky"].apply(state, 0, action)
    assert state["melds"][0]["cards"] == ex["result"]
    assert state["melds"][0]["stands_for"] == ex["stands_for"]


def check_zoliky_swap_joker(ex: dict) -> None:
    state = _zoliky_turn_seven([ex["card"], "9C"], opened=True, table=[ex["meld"]])
    GAMES["zoliky"].apply(state, 0, {"type": "swap_joker", "meld": "m1", "card": ex["card"]})
    assert state["melds"][0]["cards"] == ex["result"]
    assert sorted(state["hands"][0]) == sorted(["9C", ex["hand_gets"]])


def check_zoliky_cut(ex: dict) -> None:
    game = GAMES["zoliky"]
    # `bottom` lists the stock's last cards, the very last first.
    deck = [*_rest_of_deck(game.full_deck({}), ex["bottom"]), *reversed(ex["bottom"])]
    state, _ = game.new_match(game.validate_options({}, 2), 2, seed=1, deck=deck)
    view = game.view(state, 0)
    assert view["table"]["cut"] == ex["revealed"]
    assert view["table"]["closing_card"] == ex["closing_card"]
    assert view["hand"].count(JOKER) == ex["cutter_jokers"]
    assert [p["cards"] for p in view["players"]] == ex["hands"]


def check_zoliky_hand_points(ex: dict) -> None:
    assert sum(card_points(c) for c in ex["hand"]) == ex["points"]
    # The round result counts the loser's hand the same way: seat 0 closes, seat 1 holds `hand`.
    state = _zoliky_turn_seven(["9C"], opened=True)
    state["hands"][1] = list(ex["hand"])
    GAMES["zoliky"].apply(state, 0, {"type": "discard", "card": "9C"})
    assert state["round_result"]["points"]["1"] == ex["points"]


# --- Three Thirteen ----------------------------------------------------------------------


def check_three_thirteen_split(ex: dict) -> None:
    options = ex.get("options", {})
    size = ex["cards_dealt"]
    if "wild_rank" in ex:
        assert tt.WILD_RANK[size] == ex["wild_rank"]
    split = best_split(ex["hand"], tt.meld_rules(options, size), tt.points_function(options, size))
    if "melds" in ex:
        assert sorted(list(m.cards) for m in split.melds) == sorted(ex["melds"])
    assert sorted(split.leftover) == sorted(ex["leftover"])
    assert split.points * (2 if tt.doubled(options, size) else 1) == ex["points"]


def check_three_thirteen_round(ex: dict) -> None:
    game = GAMES["three-thirteen"]
    hands, n = ex["hands"], len(ex["hands"])
    options = game.validate_options({"first_dealer": ex["first_dealer"]}, n)
    first = (ex["first_dealer"] + 1) % n
    size = len(hands[0])
    dealt = [hands[(first + k) % n][k // n] for k in range(size * n)]
    top = [*dealt, ex["discard"], *ex["stock"]]
    state, _ = game.new_match(options, n, seed=1, deck=[*top, *_rest_of_deck(game.full_deck(options), top)])
    assert game.view(state, 0)["table"]["wild_rank"] == ex["wild_rank"]
    for seat, action in ex["moves"]:
        game.apply(state, seat, action)
    result = state["round_result"]
    assert (result["wild_rank"], result["went_out"]) == (ex["wild_rank"], ex["went_out"])
    assert [result["points"][str(s)] for s in range(n)] == ex["points"]
    assert result["winners"] == ex["winners"]


# --- Zhol -------------------------------------------------------------------------------


def check_zhol_out(ex: dict) -> None:
    game = GAMES["zhol"]
    options = game.validate_options({"variant": ex["variant"], "first_player": 0}, 2)
    hand = ex["hand"]
    rest = _rest_of_deck(game.full_deck(options), [*hand, ex["draw"]])
    other, rest = rest[-len(hand) :], rest[: -len(hand)]
    deck = [c for pair in zip(hand, other, strict=True) for c in pair] + [ex["draw"], *rest]
    state, _ = game.new_match(options, 2, seed=1, deck=deck)
    game.apply(state, 0, {"type": "draw", "pile": "stock"})
    game.apply(state, 0, {"type": "discard", "card": ex["discard"]})
    result = state["round_result"]
    assert (result is not None and result["winner"] == 0) == ex["zhol"]
    if ex["zhol"]:
        assert [m["cards"] for m in result["hands"][0]["melds"]] == ex["melds"]


# --- Spades -----------------------------------------------------------------------------


def check_spades_trick(ex: dict) -> None:
    assert trick_winner(ex["leader"], ex["cards"]) == ex["winner"]


def check_spades_legal(ex: dict) -> None:
    assert legal_cards(ex["hand"], ex["trick"], ex["spades_broken"]) == ex["legal"]


def check_spades_score(ex: dict) -> None:
    teams = score_hand(ex["bids"], ex["tricks"], ex["bags_before"], ex["totals_before"])
    for key, expected in ex["teams"].items():
        assert {k: teams[key][k] for k in expected} == expected, key


CHECKS = {
    "zoliky.meld": check_zoliky_meld,
    "zoliky.opening": check_zoliky_opening,
    "zoliky.lay_off": check_zoliky_lay_off,
    "zoliky.swap_joker": check_zoliky_swap_joker,
    "zoliky.cut": check_zoliky_cut,
    "zoliky.hand_points": check_zoliky_hand_points,
    "three_thirteen.split": check_three_thirteen_split,
    "three_thirteen.round": check_three_thirteen_round,
    "zhol.out": check_zhol_out,
    "spades.trick": check_spades_trick,
    "spades.legal": check_spades_legal,
    "spades.score": check_spades_score,
}


@pytest.mark.parametrize("example", list(_all_examples()))
def test_rule_page_example_holds_in_the_engine(example):
    CHECKS[example["example"]](example)


def test_every_rule_page_has_its_required_worked_examples():
    zoliky = examples(PAGES["zoliky"])
    assert any(
        e["example"] == "zoliky.opening" and "refused" not in e and sum(e["points"]) == 42 for e in zoliky
    )
    spades = examples(PAGES["spades"])
    assert any(
        e["example"] == "spades.score" and 0 in e["bids"] and any(t.get("bags") for t in e["teams"].values())
        for e in spades
    )
    assert any(e["example"] == "zhol.out" and e["zhol"] for e in examples(PAGES["zhol"]))
    assert any(e["example"] == "three_thirteen.round" for e in examples(PAGES["three-thirteen"]))
    kinds = {e["example"] for page in RULES.glob("*.md") for e in examples(page.name)}
    assert kinds <= set(CHECKS), f"examples of unknown kinds: {kinds - set(CHECKS)}"


def _option_rows(page: str) -> dict[str, list[str]]:
    text = (RULES / page).read_text()
    section = text.split("## Options", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:4]
    return rows


def _range_of(spec) -> str:
    if spec.choices is not None:
        return ", ".join(f"`{c}`" for c in spec.choices)
    if spec.minimum is not None and spec.maximum is not None:
        return f"{spec.minimum}–{spec.maximum}"
    if spec.minimum is not None:
        return f"{spec.minimum} or more"
    return ""


@pytest.mark.parametrize("game_id", sorted(PAGES))
def test_rule_page_lists_every_option_with_the_engines_type_default_and_range(game_id):
    rows = _option_rows(PAGES[game_id])
    options = GAMES[game_id].options
    assert sorted(rows) == sorted(options)
    for name, spec in options.items():
        kind, default, allowed = rows[name]
        assert kind == spec.type, name
        assert json.loads(default.strip("`")) == spec.default, name
        assert allowed == _range_of(spec), name
