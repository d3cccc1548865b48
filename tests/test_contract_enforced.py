"""The contract says what the server enforces (docs/api.md, "API stability"): what the served
OpenAPI document admits the server takes, and what the server refuses the document does not
admit. Bodies are checked with a JSON Schema validator against the served document itself."""

from __future__ import annotations

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.api_helpers import Api
from tests.conftest import UNLIMITED_MATCHES

UNKNOWN = "0123456789abcdef"  # well formed, no such match


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture(scope="module")
def served(app):
    return app.test_client().get("/openapi.json").get_json()


def admits(doc: dict, name: str, value) -> bool:
    """Whether the served document's schema `name` admits `value`."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
    return jsonschema_rs.Draft202012Validator(schema).is_valid(value)


def body_schema(doc: dict, path: str, method: str = "post") -> str:
    ref = doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return ref.rsplit("/", 1)[-1]


def token_operations(doc: dict) -> list[tuple[str, str]]:
    """(method, path) of every operation the document says only a seat's token may call."""
    return [
        (method, path)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and op.get("security") == [{"bearer": []}]
    ]


def test_every_token_call_without_a_token_is_401_whether_or_not_the_match_exists(api, served):
    ops = token_operations(served)
    assert {path.rsplit("/", 1)[-1] for _, path in ops} == {
        "actions",
        "rounds",
        "end",
        "leave",
        "history",
        "hint",
        "invite",
        "rematch",
    }
    created = api.create("spades", [{"kind": "human", "name": "Ana"}] + [{"kind": "bot"}] * 3)
    for method, path in ops:
        for match_id in (UNKNOWN, created["id"]):
            url = path.replace("{match_id}", match_id)
            # A body that does not fit either: the missing token is what the answer names.
            for headers in ({}, {"Authorization": "Basic YW5hOg=="}):
                resp = api.c.open(url, method=method.upper(), json={"type": 7}, headers=headers)
                assert resp.status_code == 401, (method, url, headers, resp.get_json())
                assert resp.get_json()["error"] == "invalid_token"


def test_a_round_asked_of_an_unknown_match_without_a_token_is_401_not_404(api):
    resp = api.c.post(f"/v1/matches/{UNKNOWN}/rounds")
    assert resp.status_code == 401
    assert resp.get_json()["message"] == "this call needs the seat's token: Authorization: Bearer <token>"
    # With a token, the match is looked up: no such match is still 404.
    found = api.c.post(f"/v1/matches/{UNKNOWN}/rounds", headers={"Authorization": "Bearer x"})
    assert found.status_code == 404


# --- request bodies admit no field the server refuses ---------------------------------------

BODIES = [
    ("/v1/matches", {"game": "spades", "seats": [{"kind": "human"}] + [{"kind": "bot"}] * 3}),
    ("/v1/matches/quick", {"game": "zhol"}),
    ("/v1/matches/{match_id}/join", {"name": "Ben"}),
]


@pytest.mark.parametrize(("path", "body"), BODIES)
def test_a_body_with_a_field_the_server_refuses_is_outside_the_contract(api, served, path, body):
    name = body_schema(served, path)
    assert served["components"]["schemas"][name]["additionalProperties"] is False
    assert admits(served, name, body)
    assert not admits(served, name, {**body, "colour": "blue"})
    url = path.replace(
        "{match_id}",
        api.create("spades", [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot"}] * 2)["id"],
    )
    refused = api.c.post(url, json={**body, "colour": "blue"})
    assert refused.status_code == 422 and refused.get_json()["errors"] == {"colour": ["Unknown field."]}
    assert api.c.post(url, json=body).status_code in (200, 201)


def test_a_seat_with_a_field_the_server_refuses_is_outside_the_contract(api, served):
    assert served["components"]["schemas"]["SeatIn"]["additionalProperties"] is False
    seats = [{"kind": "human", "colour": "blue"}] + [{"kind": "bot"}] * 3
    assert not admits(served, "CreateMatch", {"game": "spades", "seats": seats})
    assert api.c.post("/v1/matches", json={"game": "spades", "seats": seats}).status_code == 422


def test_a_join_without_a_body_is_in_the_contract_and_taken(api, served):
    join = served["paths"]["/v1/matches/{match_id}/join"]["post"]
    assert join["requestBody"]["required"] is False
    match_id = api.create("spades", [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot"}] * 2)["id"]
    joined = api.c.post(f"/v1/matches/{match_id}/join")
    assert joined.status_code == 200 and joined.get_json()["seat"] == 1


def test_answers_stay_open_to_new_fields(served):
    # Clients ignore fields they do not know (docs/api.md, "API stability"): no answer's schema
    # forbids one.
    schemas = served["components"]["schemas"]
    for name in ("View", "Created", "Joined", "LobbyPage", "Events", "History", "Hint", "Error"):
        assert "additionalProperties" not in schemas[name], name


# --- names ----------------------------------------------------------------------------------


def test_the_name_pattern_refuses_exactly_the_names_the_server_refuses(served):
    import re
    import sys

    from marshmallow import ValidationError

    from service.http.resources.matches.fields import NAME_PATTERN, check_name

    pattern = served["components"]["schemas"]["Join"]["properties"]["name"]["pattern"]
    assert pattern == NAME_PATTERN
    compiled = re.compile(pattern)

    def server_takes(name: str) -> bool:
        try:
            check_name(name)
        except ValidationError:
            return False
        return True

    # Every character alone, and beside a letter (lone surrogates never get past the JSON
    # parser: left out).
    for point in range(sys.maxunicode + 1):
        if 0xD800 <= point <= 0xDFFF:
            continue
        char = chr(point)
        for name in (char, "a" + char):
            assert bool(compiled.fullmatch(name)) == server_takes(name), hex(point)


@pytest.mark.parametrize("name", ["\u0086Ana", "Ana\n", "\u202eAna", "   ", "\u3000\u00a0"])
def test_a_name_the_server_refuses_is_outside_the_contract(api, served, name):
    assert not admits(served, "Join", {"name": name})
    match_id = api.create("spades", [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot"}] * 2)["id"]
    assert api.c.post(f"/v1/matches/{match_id}/join", json={"name": name}).status_code == 422
    assert admits(served, "Join", {"name": " Ana Bø 🂡 "})


# --- the lobby's cursor ---------------------------------------------------------------------


def cursor_schema(doc: dict) -> dict:
    params = doc["paths"]["/v1/matches"]["get"]["parameters"]
    return next(p["schema"] for p in params if p["name"] == "cursor")


@pytest.mark.parametrize(
    "cursor", ["AAAA", "bm9wZQ", "__-_", "_w", "AAE=", "MDE3OTYyMjY1MTY0ODY6", "A" * 200]
)
def test_every_cursor_of_the_contracts_form_gets_a_page(api, served, cursor):
    assert jsonschema_rs.Draft202012Validator(cursor_schema(served)).is_valid(cursor)
    resp = api.c.get("/v1/matches", query_string={"cursor": cursor, "limit": 2})
    assert resp.status_code == 200, resp.get_json()
    assert len(resp.get_json()["matches"]) <= 2


@pytest.mark.parametrize("cursor", ["0", "AAAAA", "AA=A", "bm9wZQ!", "AAAA\n", "A" * 201])
def test_a_cursor_outside_the_contracts_form_is_refused(api, served, cursor):
    assert not jsonschema_rs.Draft202012Validator(cursor_schema(served)).is_valid(cursor)
    resp = api.c.get("/v1/matches", query_string={"cursor": cursor})
    assert resp.status_code == 422 and set(resp.get_json()["errors"]) == {"cursor"}


def test_the_cursors_the_lobby_gives_are_of_the_contracts_form(api, served):
    for _ in range(3):
        api.create("zhol", [{"kind": "human"}, {"kind": "open"}], listed=True)
    page = api.c.get("/v1/matches?game=zhol&limit=1").get_json()
    assert page["next_cursor"] is not None
    assert jsonschema_rs.Draft202012Validator(cursor_schema(served)).is_valid(page["next_cursor"])
    follow = api.c.get(
        "/v1/matches", query_string={"game": "zhol", "limit": 1, "cursor": page["next_cursor"]}
    )
    assert follow.status_code == 200 and follow.get_json()["matches"][0]["id"] != page["matches"][0]["id"]


# --- actions --------------------------------------------------------------------------------


def spades_match(api):
    created = api.create(
        "spades", [{"kind": "human", "name": "Ana"}] + [{"kind": "bot"}] * 3, options={"first_dealer": 3}
    )
    return created["id"], created["seats"][0]["token"]


def test_the_action_schema_takes_the_types_and_fields_the_engines_declare(served):
    from engines.registry import GAMES
    from service.http.contract_actions import game_action_name

    schemas = served["components"]["schemas"]
    assert schemas["Action"]["anyOf"] == [
        {"$ref": f"#/components/schemas/{game_action_name(g)}"} for g in GAMES.values()
    ]
    for game in GAMES.values():
        union = schemas[game_action_name(game)]
        assert set(union["discriminator"]["mapping"]) == set(game.actions)
        for kind, fields in game.actions.items():
            one = schemas[union["discriminator"]["mapping"][kind].rsplit("/", 1)[-1]]
            assert one["additionalProperties"] is False and one["description"]
            # Besides the game's fields, `template`: the mark of a legal action to fill in.
            assert set(one["properties"]) == {"type", "template", *fields}, (game.id, kind)
            assert one["properties"]["type"]["const"] == kind
    types = {t for g in GAMES.values() for t in g.actions}
    assert all(admits(served, "Action", {"type": t}) for t in ("draw", "resign", "end_turn"))
    assert not any(admits(served, "Action", {"type": t + "s"}) for t in types)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "tricks": 3, "colour": "blue"},  # a field no game takes
        {"type": "fly"},  # a type no game has
        {"type": "play", "card": 5000},  # numbers in an action lie from 0 to 1,000
        {"type": "play", "card": -1},
        {"type": "play", "card": 2.5},
        {"type": "play", "card": None},
        {"type": "bid", "tricks": 14},
        {"type": "meld", "melds": [[[[["QH"]]]]]},  # nested 5 levels deep
        {"type": "meld", "lay_offs": {"a": {"b": {"c": {"d": {"e": 1}}}}}},
        {"type": "play", "card": "QH", "template": "yes"},  # the mark is a boolean
        {"type": "play", "card": "QH", "template": 1},
    ],
)
def test_an_action_the_server_refuses_is_outside_the_contract(api, served, action):
    assert not admits(served, "Action", action)
    match_id, token = spades_match(api)
    refused = api.act(match_id, token, action)
    assert refused.status_code == 422, refused.get_json()
    assert refused.get_json()["error"] == "validation_error"


def test_the_legal_actions_of_every_view_are_inside_the_contract(api, served):
    match_id, token = spades_match(api)
    view = api.view(match_id, token)
    assert view["legal_actions"]
    for action in view["legal_actions"]:
        assert admits(served, "Action", action), action
        assert admits(served, "SpadesAction", action), action
    # What no engine takes is outside the contract since #33: a meld is a list of card codes.
    assert not admits(served, "Action", {"type": "meld", "melds": [[None, ["QH", 3]], [{"x": [[]]}]]})


SCALARS = st.none() | st.booleans() | st.integers(-5, 1005) | st.text(max_size=3)
JSON_VALUES = st.recursive(
    SCALARS | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(value=JSON_VALUES)
def test_the_action_value_schema_admits_what_the_server_takes(served, value):
    from marshmallow import ValidationError

    from service.http.contract import action_value_components
    from service.http.resources.matches.fields import check_action_value

    def whole_floats(v) -> bool:
        # JSON Schema calls 1.0 an integer; the server's parser reads it as a float and refuses
        # it. Clients write whole numbers without a fraction: such values are left out.
        if isinstance(v, float):
            return v.is_integer()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else []
        return any(whole_floats(i) for i in items)

    assume(not whole_floats(value))
    try:
        check_action_value(value)
        takes = value is not None  # the top of a field is never null (allow_none off)
    except ValidationError:
        takes = False
    # The action values describe the fields of a game that service/http/contract.py does not type
    # (none of the four): checked as they would be served.
    from service.http.resources.matches.fields import ACTION_DEPTH, ACTION_INT

    doc = {"components": {"schemas": action_value_components(ACTION_INT, ACTION_DEPTH)}}
    assert admits(doc, "ActionValue", value) == takes, value


# --- each game's seat counts and options --------------------------------------------------------


def seats_of(n: int) -> list[dict]:
    # One human and open seats: the match waits, nothing is dealt, yet everything is checked.
    return [{"kind": "human"}] + [{"kind": "open"}] * (n - 1)


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("zhol", 1, {}),  # Zhol is played by 2 or 4
        ("zhol", 3, {}),
        ("spades", 2, {}),
        ("zhol", 2, {"first_player": 2}),  # a seat of a 2-seat match is 0 or 1
        ("three-thirteen", 3, {"first_dealer": 3}),
        ("zhol", 2, {"colour": "blue"}),  # no such option
        ("spades", 4, {"target_score": 10001}),
        ("zhol", 4, {"variant": "medium"}),
        ("three-thirteen", 2, {"joker_dump": True}),  # needs jokers_wild
        ("three-thirteen", 2, {"extra_rounds": True, "up_and_down": True}),
        ("three-thirteen", 7, {"extra_rounds": True}),  # 7 x 15 cards need the jokers
        ("spades", 4, {"hints": None}),
    ],
)
def test_a_table_the_server_refuses_is_outside_the_contract(api, served, game, seats, options):
    body = {"game": game, "seats": seats_of(seats), "options": options}
    assert not admits(served, "CreateMatch", body)
    refused = api.c.post("/v1/matches", json=body)
    assert refused.status_code == 422, refused.get_json()


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("zhol", 2, {"first_player": 1}),
        ("zhol", 4, {"first_player": 3, "variant": "large", "hints": True}),
        ("three-thirteen", 7, {"extra_rounds": True, "jokers_wild": True}),
        ("three-thirteen", 2, {"joker_dump": True, "jokers_wild": True, "first_dealer": None}),
        ("spades", 4, {"target_score": 10000, "first_dealer": 0}),
        ("zoliky", 2, {}),
    ],
)
def test_a_table_the_server_takes_is_inside_the_contract(api, served, game, seats, options):
    body = {"game": game, "seats": seats_of(seats), "options": options}
    assert admits(served, "CreateMatch", body)
    assert api.c.post("/v1/matches", json=body).status_code == 201


def test_quick_play_for_a_table_the_server_refuses_is_outside_the_contract(api, served):
    for body in (
        {"game": "zhol", "players": 3},
        {"game": "spades"} | {"players": 2},
        {"game": "zoliky", "options": {"x": 1}},
    ):
        assert not admits(served, "QuickPlay", body), body
        assert api.c.post("/v1/matches/quick", json=body).status_code == 422, body
    for body in ({"game": "zhol"}, {"game": "spades"}, {"game": "three-thirteen", "players": 7}):
        assert admits(served, "QuickPlay", body), body
        assert api.c.post("/v1/matches/quick", json=body).status_code == 200, body


def option_sets(game_id: str):
    from engines.registry import GAMES

    values = {}
    for name, option in GAMES[game_id].options.items():
        if option.type == "boolean":
            values[name] = st.booleans() | st.none()
        elif option.choices is not None:
            values[name] = st.sampled_from([*option.choices, "other"])
        else:
            values[name] = st.integers(option.minimum - 2, option.maximum + 2) | st.none()
    values["hints"] = st.booleans() | st.none()
    values["colour"] = st.just("blue")
    return st.fixed_dictionaries({}, optional=values)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_contract_admits_exactly_the_tables_the_server_takes(client, served, data):
    from engines.registry import GAMES

    game = data.draw(st.sampled_from(sorted(GAMES)))
    seats = data.draw(st.integers(1, 8))
    options = data.draw(option_sets(game))
    body = {"game": game, "seats": seats_of(seats), "options": options}
    resp = client.post("/v1/matches", json=body)
    assert resp.status_code in (201, 422), resp.get_json()
    assert admits(served, "CreateMatch", body) == (resp.status_code == 201), (body, resp.get_json())


def test_the_seat_counts_in_the_contract_are_the_engines(served):
    from engines.registry import GAMES
    from service.http.contract import seat_counts

    assert seat_counts(GAMES["zhol"]) == [2, 4]
    for game in GAMES.values():
        for n in range(1, 9):
            body = {"game": game.id, "seats": seats_of(n)}
            assert admits(served, "CreateMatch", body) == (n in seat_counts(game)), (game.id, n)


def test_a_seed_with_an_open_seat_and_a_level_for_a_person_are_outside_the_contract(redis_url, served):
    from service.config import Config
    from service.http.app import create_app

    # A server as deployed: no stacked decks, so no seed of the creator's while a seat is open.
    plain = create_app(Config(REDIS_URL=redis_url, RATE_LIMIT=0, **UNLIMITED_MATCHES)).test_client()
    seeded = {"game": "zhol", "seats": seats_of(2), "seed": 7}
    assert not admits(served, "CreateMatch", seeded)
    assert plain.post("/v1/matches", json=seeded).status_code == 422
    full = {**seeded, "seats": [{"kind": "human"}, {"kind": "bot"}]}
    assert admits(served, "CreateMatch", full) and admits(served, "CreateMatch", {**seeded, "seed": None})
    assert plain.post("/v1/matches", json=full).status_code == 201
    person = {"game": "zhol", "seats": [{"kind": "human", "level": "easy"}, {"kind": "bot", "level": "easy"}]}
    assert not admits(served, "CreateMatch", person)
    assert plain.post("/v1/matches", json=person).status_code == 422


# --- match ids and booleans -----------------------------------------------------------------


def test_a_match_id_is_16_hex_digits_in_the_contract_and_in_the_urls(api, served):
    for path, item in served["paths"].items():
        if "{match_id}" in path:
            (param,) = [p for p in item["parameters"] if p["name"] == "match_id"]
            assert param["schema"]["pattern"] == "^[0-9a-f]{16}$", path
    assert api.c.get("/v1/matches/not-an-id").status_code == 404
    assert api.c.post("/v1/matches/0123456789ABCDEF/rounds").status_code == 404
    # /v1/matches/quick is quick play's alone: no match's GET answers there.
    resp = api.c.options("/v1/matches/quick")
    assert resp.headers["Allow"] == "OPTIONS, POST" and resp.get_json() == {"allow": ["OPTIONS", "POST"]}
    assert api.c.get("/v1/matches/quick").status_code == 405


@pytest.mark.parametrize("listed", [0, 1, "true", "yes", None])
def test_listed_is_true_or_false_only(api, served, listed):
    body = {"game": "zhol", "seats": seats_of(2), "listed": listed}
    assert not admits(served, "CreateMatch", body)
    assert api.c.post("/v1/matches", json=body).status_code == 422
    assert api.c.post("/v1/matches", json={**body, "listed": True}).status_code == 201
