"""Bad input of every kind is a clear JSON 4xx that changes nothing (docs/api.md "Limits").

Each crash found by trying the service as an attacker would is one case here.
"""

from __future__ import annotations

import pytest

from engines.registry import GAMES
from tests.api_helpers import Api, auth

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def api(client):
    return Api(client)


def error_of(resp, status, error=None):
    """The answer is the one JSON error shape with this status (and machine id, if given)."""
    assert resp.status_code == status, resp.data[:300]
    assert resp.mimetype == "application/json", resp.data[:300]
    body = resp.get_json()
    assert body["code"] == status and body["message"] and body["status"] and body["error"]
    if error is not None:
        assert body["error"] == error, body
    return body


def new_spades(api):
    created = api.create("spades", HUMANS4, options={"first_dealer": 3})
    return created["id"], [s["token"] for s in created["seats"]]


def post_raw(api, path, text, token=None, **headers):
    return api.c.post(
        path, data=text.encode("utf-8", "surrogatepass"), headers={**JSON, **auth(token), **headers}
    )


# --- JSON the parser must refuse ------------------------------------------------------------


@pytest.mark.parametrize("digits", [4301, 5000, 30000])
def test_huge_json_integers_are_400_not_a_crash(api, digits):
    number = "7" * digits
    error_of(
        post_raw(api, "/v1/matches", f'{{"game": "spades", "seats": [], "seed": {number}}}'),
        400,
        "bad_request",
    )
    match_id, tokens = new_spades(api)
    resp = post_raw(
        api, f"/v1/matches/{match_id}/actions", f'{{"type": "bid", "tricks": {number}}}', tokens[0]
    )
    error_of(resp, 400, "bad_request")
    assert api.view(match_id)["version"] == 0


def test_integers_beyond_64_bits_are_refused_by_the_schema(api):
    """Not a float that would be truncated: 2**64 decodes as a float, whose integer is beyond
    every integer field's bounds."""
    body = f'{{"game": "spades", "seats": {HUMANS4!r}, "seed": {2**64}}}'.replace("'", '"')
    assert "seed" in error_of(post_raw(api, "/v1/matches", body), 422, "validation_error")["errors"]


def test_deeply_nested_json_is_refused(api):
    # 100,000 levels do not fit in the body limit; 30,000 do and are refused by the parser.
    error_of(post_raw(api, "/v1/matches", "[" * 100_000 + "]" * 100_000), 413, "payload_too_large")
    error_of(post_raw(api, "/v1/matches", "[" * 30_000 + "]" * 30_000), 400, "bad_request")
    match_id, tokens = new_spades(api)
    # Within the parser's depth, an action field is still only a few levels deep (an
    # Idempotency-Key makes the service hash the body, which once hit Python's recursion limit).
    deep = '{"type": "play", "card": ' + "[" * 900 + "]" * 900 + "}"
    resp = post_raw(api, f"/v1/matches/{match_id}/actions", deep, tokens[0], **{"Idempotency-Key": "k"})
    assert "card" in error_of(resp, 422, "validation_error")["errors"]
    assert api.view(match_id)["version"] == 0


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN"])
def test_non_json_numbers_are_400_and_create_nothing(api, number):
    # Python's json writes these for float("inf") and float("nan"); they are not JSON.
    listed = api.c.get("/v1/matches?game=spades&limit=100").get_json()["matches"]
    for path in ("/v1/matches", "/v1/matches/quick"):
        body = f'{{"game": "spades", "seats": {HUMANS4!r}, "options": {{"target_score": {number}}}}}'
        error_of(post_raw(api, path, body.replace("'", '"')), 400, "bad_request")
    assert api.c.get("/v1/matches?game=spades&limit=100").get_json()["matches"] == listed


@pytest.mark.parametrize("path", ["/v1/matches", "join"])
def test_lone_surrogate_names_are_refused(api, path):
    if path == "join":
        created = api.create("spades", [HUMANS4[0], {"kind": "open"}, *HUMANS4[2:]])
        path = f"/v1/matches/{created['id']}/join"
        body = '{"name": "\\ud800"}'
    else:
        body = '{"game": "spades", "seats": [{"kind": "human", "name": "A\\udfff"}, ' + '{"kind": "open"}] }'
    error_of(post_raw(api, path, body), 400, "bad_request")


def test_body_over_64_kb_is_a_json_413(api):
    match_id, tokens = new_spades(api)
    padding = "x" * (64 * 1024)
    body = error_of(post_raw(api, "/v1/matches", f'{{"game": "spades", "pad": "{padding}"}}'), 413)
    assert body["error"] == "payload_too_large" and "65536" in body["message"]
    resp = post_raw(api, f"/v1/matches/{match_id}/actions", f'{{"type": "{padding}"}}', tokens[0])
    error_of(resp, 413, "payload_too_large")
    assert api.view(match_id)["version"] == 0


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Ana\x00",
        "\x07bell",
        "two\nlines",
        "esc\x1b[31m",
        "del\x7f",
        "c1\x85",
        "\u202eevil",
        "a\u2066b\u2069",
        "  ",
        "",
    ],
)
def test_names_with_control_or_bidi_characters_are_422(api, name):
    seats = [{"kind": "human", "name": name}, *HUMANS4[1:]]
    body = error_of(
        api.c.post("/v1/matches", json={"game": "spades", "seats": seats}), 422, "validation_error"
    )
    assert "seats" in body["errors"]
    created = api.create("spades", [HUMANS4[0], {"kind": "open"}, *HUMANS4[2:]])
    resp = api.c.post(f"/v1/matches/{created['id']}/join", json={"name": name})
    assert "name" in error_of(resp, 422, "validation_error")["errors"]
    assert api.view(created["id"])["status"] == "waiting"


def test_names_in_any_script_and_up_to_40_characters_are_kept(api):
    names = ["Žofie Nováková", "明美", "Ахмед 🂡", "x" * 40]
    created = api.create("spades", [{"kind": "human", "name": n} for n in names])
    assert [p["name"] for p in api.view(created["id"])["players"]] == names
    resp = api.c.post(
        "/v1/matches", json={"game": "spades", "seats": [{"kind": "human", "name": "x" * 41}] * 4}
    )
    error_of(resp, 422, "validation_error")


# --- strict, bounded numbers ----------------------------------------------------------------


@pytest.mark.parametrize("seed", [1.5, "42", True, -1, 2**63, 1e30])
def test_seed_is_a_strict_bounded_integer(api, seed):
    resp = api.c.post("/v1/matches", json={"game": "spades", "seats": HUMANS4, "seed": seed})
    assert "seed" in error_of(resp, 422, "validation_error")["errors"]


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("spades", {"target_score": 10**30}),
        ("spades", {"target_score": 10**9 + 1}),
        ("spades", {"target_score": 10_001}),
        ("spades", {"target_score": 500.5}),
        ("spades", {"target_score": True}),
        ("spades", {"target_score": "500"}),
        ("spades", {"first_dealer": [3]}),
        ("zoliky", {"target_wins": 101}),
        ("zhol", {"turn_seconds": 14 * 24 * 3600 + 1}),
        ("zhol", {"target_wins": 10**6}),
    ],
)
def test_out_of_range_or_mistyped_options_are_422_and_nothing_is_stored(api, game, options):
    seats = HUMANS4[: GAMES[game].min_seats]
    body = error_of(api.c.post("/v1/matches", json={"game": game, "seats": seats, "options": options}), 422)
    assert body["error"] in ("validation_error", "invalid_options"), body


def test_every_integer_option_of_every_game_is_bounded_and_listed(api):
    listed = {g["id"]: g for g in api.c.get("/v1/games").get_json()["games"]}
    for game in GAMES.values():
        for name, option in game.options.items():
            if option.type == "integer":
                assert option.minimum is not None and option.maximum is not None, (game.id, name)
                shown = listed[game.id]["options"][name]
                assert (shown["minimum"], shown["maximum"]) == (option.minimum, option.maximum)


@pytest.mark.parametrize("tricks", ["3", 3.5, 14, -1, True, 10**20, 13.000001])
def test_bids_are_strict_integers_from_0_to_13(api, tricks):
    match_id, tokens = new_spades(api)
    seat = api.view(match_id)["turn"]["seat"]
    resp = api.act(match_id, tokens[seat], {"type": "bid", "tricks": tricks})
    assert "tricks" in error_of(resp, 422, "validation_error")["errors"]
    assert api.view(match_id)["version"] == 0


def test_integral_numbers_written_with_a_fraction_are_the_integers(api):
    """JSON Schema's integer takes 3.0, and Swift's JSONEncoder writes a Double so: a seed, an
    option, a table size and a bid so written are the integers (docs/api.md, "Limits")."""
    seats = [HUMANS4[0], *[{"kind": "bot", "level": "easy"}] * 3]
    body = {"game": "spades", "seats": seats, "seed": 7.0, "options": {"target_score": 500.0}}
    created = api.c.post("/v1/matches", json=body)
    assert created.status_code == 201, created.get_json()
    assert api.view(created.get_json()["id"])["options"]["target_score"] == 500
    quick = api.c.post("/v1/matches/quick", json={"game": "zhol", "players": 4.0})
    assert quick.status_code == 200, quick.get_json()
    assert len(api.view(quick.get_json()["id"])["players"]) == 4
    match_id, tokens = new_spades(api)
    seat = api.view(match_id)["turn"]["seat"]
    resp = api.act(match_id, tokens[seat], {"type": "bid", "tricks": 3.0})
    assert resp.status_code == 200, resp.get_json()
    assert api.view(match_id, tokens[seat])["players"][seat]["bid"] == 3


# --- headers and query parameters ----------------------------------------------------------


@pytest.mark.parametrize("value", ["²", "1²", "9" * 5000, "-1", "1e3", '"1-"', "W/"])
def test_malformed_if_match_is_412(api, value):
    match_id, tokens = new_spades(api)
    seat = api.view(match_id)["turn"]["seat"]
    resp = api.act(match_id, tokens[seat], {"type": "bid", "tricks": 2}, **{"If-Match": value})
    error_of(resp, 412, "version_conflict")
    assert api.view(match_id)["version"] == 0


@pytest.mark.parametrize("after", [str(2**63), str(10**25), "1e20", "²", "-1", str(2**31)])
def test_events_and_stream_refuse_out_of_range_positions_with_422(api, after):
    match_id, _ = new_spades(api)
    error_of(api.c.get(f"/v1/matches/{match_id}/events?after={after}"), 422, "validation_error")
    error_of(api.c.get(f"/v1/matches/{match_id}/stream?after={after}"), 422, "validation_error")
    resp = api.c.get(f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": after})
    assert "Last-Event-ID" in error_of(resp, 422, "validation_error")["errors"]


def test_query_parameters_name_their_field_and_unknown_ones_are_ignored(api):
    match_id, _ = new_spades(api)
    body = error_of(api.c.get(f"/v1/matches/{match_id}/events?after=x&wait=0"), 422, "validation_error")
    assert set(body["errors"]) == {"after"}
    ok = api.c.get(f"/v1/matches/{match_id}/events?after=0&wait=0&colour=blue&after=5")
    assert ok.status_code == 200 and len(ok.get_json()["events"]) >= 1  # the first `after` counts
    assert api.c.get("/v1/matches?limit=0").status_code == 422
    assert api.c.get("/v1/matches?limit=2&page=9").status_code == 200


def test_the_largest_position_allowed_answers_with_no_events(api):
    match_id, _ = new_spades(api)
    assert api.events(match_id, after=2**31 - 1)["events"] == []


# --- methods -------------------------------------------------------------------------------


def test_405_is_json_and_names_the_allowed_methods(api):
    for method, path in [("delete", "/v1/games"), ("put", "/v1/matches"), ("patch", "/openapi.json")]:
        resp = getattr(api.c, method)(path)
        error_of(resp, 405, "method_not_allowed")
        assert "GET" in resp.headers["Allow"] or "POST" in resp.headers["Allow"]


def test_options_answers_json_with_the_allowed_methods(api):
    resp = api.c.options("/v1/matches/0123456789abcdef/actions")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.get_json() == {"allow": ["OPTIONS", "POST"]}
    assert resp.headers["Allow"] == "OPTIONS, POST"


def test_options_lists_every_method_of_a_url_served_by_two_blueprints(api):
    # GET /v1/matches is the lobby's, POST /v1/matches creates: one URL, two rules.
    resp = api.c.options("/v1/matches")
    assert resp.status_code == 200
    assert resp.get_json() == {"allow": ["GET", "HEAD", "OPTIONS", "POST"]}
    assert resp.headers["Allow"] == "GET, HEAD, OPTIONS, POST"
    # A method neither rule takes names both in its 405.
    refused = api.c.delete("/v1/matches")
    error_of(refused, 405, "method_not_allowed")
    assert {"GET", "POST"} <= set(refused.headers["Allow"].split(", "))


def test_a_long_poll_longer_than_max_wait_is_cut_to_it(config):
    """CARDTABLE_MAX_WAIT caps `wait`: asked for 30 s on a quiet match, the answer (no events)
    comes after the 1 s cap, far sooner than the 30 s asked for."""
    import dataclasses
    import time

    from service.http.app import create_app

    capped = Api(create_app(dataclasses.replace(config, MAX_WAIT=1)).test_client())
    match_id, _ = new_spades(capped)
    after = len(capped.events(match_id)["events"])
    start = time.monotonic()
    resp = capped.c.get(f"/v1/matches/{match_id}/events?after={after}&wait=30")
    assert resp.status_code == 200 and resp.get_json()["events"] == []
    assert time.monotonic() - start < 15
