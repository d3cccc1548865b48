"""Hints for people (docs/api.md "Hints"): the option, the route, the count, and that a hint comes
from the asking seat's own view only."""

from __future__ import annotations

import random

import pytest

from engines import bots
from engines import hints as engine_hints
from engines.spades import GAME as SPADES
from engines.spades import bots as spades_bots
from engines.three_thirteen import GAME as TT
from engines.three_thirteen import bots as tt_bots
from engines.zhol import GAME as ZHOL
from engines.zoliky import GAME as ZOLIKY
from engines.zoliky import bots as zoliky_bots
from tests.api_helpers import Api, auth
from tests.engines import test_spades_bots as spades_tests
from tests.engines import test_three_thirteen_bots as tt_tests
from tests.engines import test_zhol_bots as zhol_tests
from tests.engines.test_zhol import stack

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture
def no_clock(monkeypatch):
    """Hints bounded by samples only, so one view always gets one hint whatever the machine's load."""
    for game_bots in (spades_bots, tt_bots, zoliky_bots):
        monkeypatch.setitem(game_bots.HINT, "time_limit", None)


def error_of(resp, status: int, error: str) -> dict:
    body = resp.get_json()
    assert resp.status_code == status, body
    assert body["error"] == error and body["code"] == status and body["message"], body
    return body


def spades_match(api, hints: bool | None = True):
    options = {"first_dealer": 3, **({} if hints is None else {"hints": hints})}
    created = api.create("spades", HUMANS4, seed=7, options=options)
    return created["id"], [s["token"] for s in created["seats"]]


def hint(api, match_id: str, token: str | None):
    return api.c.get(f"/v1/matches/{match_id}/hint", headers=auth(token))


# --- the engine side: from the seat's view only ------------------------------------------------


def test_a_hint_depends_on_nothing_the_seat_cannot_see(no_clock):
    """States that differ only in the cards the seat to move cannot see (other hands, the stock)
    give that seat the same view and the same hint, in every game."""
    shuffler = random.Random(5)
    zhol_states = zhol_tests.playout_states("small", 2, 300, 8)
    zhol_states += zhol_tests.playout_states("large", 2, 301, 3)
    cases = [(ZHOL, state, zhol_tests.rearranged) for state in zhol_states]
    for state in spades_tests.random_states(8, seed=31):
        cases.append((SPADES, state, spades_tests.reshuffle_hidden))
    for state in tt_tests.playout_states({}, 2, seed=33, rounds=4, every=0.15)[:8]:
        cases.append((TT, state, tt_tests.rearranged))
    changed = 0
    for game, state, rearrange in cases:
        seat = game.to_move(state)
        view = game.view(state, seat)
        other = rearrange(state, seat, shuffler)
        changed += other != state
        assert game.view(other, seat) == view
        assert engine_hints.hint(game.id, game.view(other, seat)) == engine_hints.hint(game.id, view)
    assert changed >= len(cases) // 2


def test_every_hint_is_an_action_the_engine_accepts_with_a_reason_in_words(no_clock):
    rng = random.Random(8)
    for game, options, seats in (
        (ZHOL, {"target_wins": 1}, 2),
        (TT, {}, 2),
        (ZOLIKY, {"target_wins": 1}, 2),
        (SPADES, {"target_score": 100}, 4),
    ):
        state, _ = game.new_match(game.validate_options(options, seats), seats, 4)
        hinted = 0
        for _ in range(60):
            if game.status(state) != "active":
                break
            seat = game.to_move(state)
            view = game.view(state, seat)
            found = engine_hints.hint(game.id, view)
            assert isinstance(found["reason"], str) and found["reason"]
            trial = game.clone(state)
            game.apply(trial, seat, found["action"])  # raises if the engine refuses it
            hinted += 1
            game.apply(state, seat, bots.decide(game, view, rng.choice(("hard", "random")), rng))
        assert hinted >= 20


def test_hint_reasons_name_the_meld_a_taken_card_completes():
    """Zhol: 5H on the pile completes 5S 5D 5H beside the 7H-TH run; the hint takes it and says so,
    then throws KD to win."""
    hands = [["7H", "8H", "9H", "TH", "5S", "5D", "KD"], ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]]
    opts = ZHOL.validate_options({"variant": "small", "first_player": 0}, 2)
    state, _ = ZHOL.new_match(opts, 2, 5, stack("small", hands, 0, ["2C", "3D"]))
    for seat, action in ((0, ("stock", "2C")), (1, ("stock", "5H"))):
        ZHOL.apply(state, seat, {"type": "draw", "pile": action[0]})
        ZHOL.apply(state, seat, {"type": "discard", "card": action[1]})
    found = engine_hints.hint("zhol", ZHOL.view(state, 0))
    assert found == {"action": {"type": "draw", "pile": "discard"}, "reason": "5H completes a set 5S-5H-5D"}
    ZHOL.apply(state, 0, found["action"])
    found = engine_hints.hint("zhol", ZHOL.view(state, 0))
    assert found == {"action": {"type": "discard", "card": "KD"}, "reason": "throwing KD completes the Zhol"}


# --- the API --------------------------------------------------------------------------------------


def test_hints_are_off_by_default_and_then_refused_with_403(api):
    match_id, tokens = spades_match(api, hints=None)
    view = api.view(match_id)
    assert view["options"]["hints"] is False
    assert [p["hints_used"] for p in view["players"]] == [0, 0, 0, 0]
    seat = view["turn"]["seat"]
    error_of(hint(api, match_id, tokens[seat]), 403, "forbidden")
    assert api.view(match_id)["version"] == view["version"]


def test_the_option_must_be_a_boolean_and_is_listed_for_every_game(api):
    resp = api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4, "options": {"hints": "yes"}})
    error_of(resp, 422, "validation_error")
    games = api.c.get("/v1/games").get_json()["games"]
    for game in games:
        assert game["options"]["hints"] == {
            "type": "boolean",
            "default": False,
            "description": game["options"]["hints"]["description"],
        }


def test_a_hint_needs_the_seats_token(api):
    match_id, _ = spades_match(api)
    error_of(hint(api, match_id, None), 401, "invalid_token")
    error_of(hint(api, match_id, "not-a-token"), 401, "invalid_token")
    error_of(hint(api, "0123456789abcdef", "x"), 404, "not_found")


def test_a_hint_off_turn_is_409_not_your_turn_and_counts_nothing(api):
    match_id, tokens = spades_match(api)
    view = api.view(match_id)
    other = (view["turn"]["seat"] + 1) % 4
    error_of(hint(api, match_id, tokens[other]), 409, "not_your_turn")
    after = api.view(match_id)
    assert after["version"] == view["version"]
    assert after["players"][other]["hints_used"] == 0


def test_a_hint_is_the_seats_legal_move_and_its_count_is_public(api, no_clock):
    match_id, tokens = spades_match(api)
    before = api.view(match_id)
    seat = before["turn"]["seat"]
    own = api.view(match_id, tokens[seat])
    resp = hint(api, match_id, tokens[seat])
    assert resp.status_code == 200, resp.get_json()
    assert resp.headers["Cache-Control"] == "no-store"
    body = resp.get_json()
    assert body["action"] in own["legal_actions"]
    assert body["reason"].startswith("bids ")
    assert body["seat"] == seat and body["hints_used"] == 1 and body["version"] == before["version"] + 1
    # Public: the spectator sees the count and a hint event without the hinted move.
    public = api.view(match_id)
    assert public["players"][seat]["hints_used"] == 1
    assert [p["hints_used"] for p in public["players"] if p["seat"] != seat] == [0, 0, 0]
    event = api.events(match_id, after=0)["events"][-1]
    assert event == {"seq": event["seq"], "type": "hint", "seat": seat, "hints_used": 1}
    # The hinted action can be posted as it is.
    played = api.act(match_id, tokens[seat], body["action"], **{"If-Match": f'"{body["version"]}"'})
    assert played.status_code == 200, played.get_json()
    assert hint(api, match_id, tokens[seat]).status_code == 409  # no longer that seat's turn


def test_api_hint_is_the_same_when_only_hidden_cards_differ(api):
    """Two Zhol matches dealt alike for seat 0 (its hand, the card it draws) but with a different
    hand for seat 1 and a different stock below: seat 0 gets the same hint in both."""
    mine = ["7H", "8H", "9H", "TH", "5S", "5D", "KD"]
    theirs = [["5H", "AH", "AD", "QD", "8D", "TC", "JD"], ["2S", "3S", "4S", "6C", "7C", "9C", "JC"]]
    answers = []
    for other in theirs:
        created = api.create(
            "zhol",
            [{"kind": "human"}, {"kind": "human"}],
            seed=3,
            options={"first_player": 0, "target_wins": 1, "hints": True},
            deck=stack("small", [mine, other], 0, ["2C"]),
        )
        match_id, token = created["id"], created["seats"][0]["token"]
        assert api.act(match_id, token, {"type": "draw", "pile": "stock"}).status_code == 200
        body = hint(api, match_id, token).get_json()
        answers.append((body["action"], body["reason"]))
    assert answers[0] == answers[1]
    assert answers[0][0]["type"] == "discard" and answers[0][0]["card"] in [*mine, "2C"]


def test_under_gevent_a_hint_computed_in_the_thread_pool_is_the_same(tmp_path):
    """A gevent worker computes hints in gevent's thread pool (service.matches.hints.compute): the answer
    is the one computed directly. Run in a child process, as monkey-patching is for good."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    hands = [["7H", "8H", "9H", "TH", "5S", "5D", "KD"], ["5H", "AH", "AD", "QD", "8D", "TC", "JD"]]
    opts = ZHOL.validate_options({"variant": "small", "first_player": 0}, 2)
    state, _ = ZHOL.new_match(opts, 2, 5, stack("small", hands, 0, ["2C", "3D"]))
    ZHOL.apply(state, 0, {"type": "draw", "pile": "stock"})
    view = ZHOL.view(state, 0)
    (tmp_path / "view.json").write_text(json.dumps(view))
    script = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import json, sys\n"
        "from service.matches.hints import compute\n"
        "view = json.load(open(sys.argv[1]))\n"
        "print(json.dumps(compute('zhol', view)))\n"
    )
    root = str(Path(__file__).resolve().parent.parent)
    command = [sys.executable, "-c", script, str(tmp_path / "view.json")]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=root)
    assert json.loads(out.stdout) == engine_hints.hint("zhol", view)


def test_a_hint_is_given_once_a_move_whatever_else_changes_meanwhile(api):
    match_id, tokens = spades_match(api)
    seat = api.view(match_id)["turn"]["seat"]
    other = (seat + 1) % 4
    first = hint(api, match_id, tokens[seat]).get_json()
    for _ in range(3):
        # Another seat handed on: a change of the match, not a move.
        code = api.c.post(f"/v1/matches/{match_id}/invite", headers=auth(tokens[other])).get_json()["code"]
        tokens[other] = api.c.post(f"/v1/matches/{match_id}/claim", json={"code": code}).get_json()["token"]
        version = api.view(match_id)["version"]
        again = hint(api, match_id, tokens[seat]).get_json()
        assert {k: again[k] for k in ("action", "reason", "hints_used")} == {
            k: first[k] for k in ("action", "reason", "hints_used")
        }
        assert again["version"] == version == api.view(match_id)["version"]  # nothing committed
    assert [e["type"] for e in api.events(match_id)["events"]].count("hint") == 1
    # The hint given before the claims is still a move the seat may play.
    assert api.act(match_id, tokens[seat], first["action"]).status_code == 200
