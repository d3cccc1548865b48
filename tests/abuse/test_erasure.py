"""Issue 39, finding 7, against a live `cardtable serve`: an erased player's name and external id
stay nowhere another caller reads (docs/integrating.md, "Erasure").

- A seat the player handed on by invitation (the claimant gave no name) kept the player's name,
  once the player's own app had listed its matches (`/v1/me/matches` drops a match whose seat
  is no longer the player's, and the erasure looked only there).
- The other player's feed kept `players: {"0": "<external id>"}` of the match's notices.
- A rating handed on after the erasure (the effect of a commit that finished the match just
  before the erasure reached it, in the hands of its committer or of the relay) put the player
  back on the leaderboard. The test stores that effect in the match's outbox after the erasure,
  as such a commit leaves it, and lets the serve's own relay hand it on.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
import redis

from service.identity.players import directory_key
from service.matches.outbox import OUTBOX_KEY, encode
from tests.serve_helpers import cardtable_serve
from tests.test_apps_cli import created
from tests.test_serve import call

NAME, EXTERNAL = "Anastasia Q.", "user-4711"
BOTH = [{"kind": "human", "player": EXTERNAL}, {"kind": "human", "player": "bo"}]


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """(base URL, data directory, the serve's Redis)."""
    data = tmp_path_factory.mktemp("abuse-erasure")
    env = {
        "CARDTABLE_LOG_LEVEL": "WARNING",
        "CARDTABLE_RATE_LIMIT": "0",
        "CARDTABLE_OUTBOX_GRACE": "0.2",
        "CARDTABLE_SWEEP_INTERVAL": "0.2",
    }
    with cardtable_serve(str(data), **env) as (_, base):
        yield base, data, redis.Redis.from_url((data / "redis.url").read_text().strip())


@pytest.fixture
def served(serve):
    """(base URL, app key, app id, the serve's Redis) with an app of its own: its Ana and Bo
    are new."""
    base, data, state = serve
    app = created(None, "Erasure abuse", data_dir=str(data))
    return base, app["key"], app["app"], state


def ok(status: int, answer: dict, want: int = 200) -> dict:
    assert status == want, answer
    return answer


def put_players(base: str, key: str) -> tuple[str, str]:
    """A fresh Ana (the player to erase) and Bo: their tokens."""
    ana = ok(*call(base, "PUT", f"/v1/players/{EXTERNAL}", {"name": NAME}, key))["token"]
    bo = ok(*call(base, "PUT", "/v1/players/bo", {"name": "Bo"}, key))["token"]
    return ana, bo


def new_match(base: str, key: str, **options) -> str:
    body = {"game": "zhol", "seats": BOTH, "options": options}
    return ok(*call(base, "POST", "/v1/matches", body, key), want=201)["id"]


def erase(base: str, key: str) -> None:
    ok(*call(base, "DELETE", f"/v1/players/{EXTERNAL}", None, key))


def names_her(*answers) -> bool:
    text = json.dumps(answers)
    return NAME in text or EXTERNAL in text


def relayed(state: redis.Redis, match_id: str, version: int, effect: dict) -> None:
    """Store `effect` in the match's outbox as a commit of `version` does, and wait until the
    serve's relay has handed it on and removed it."""
    state.rpush(f"ct:{{m:{match_id}}}:outbox", encode(effect))
    state.zadd(OUTBOX_KEY, {f"{match_id}:{version}": time.time()})
    deadline = time.monotonic() + 30
    while state.llen(f"ct:{{m:{match_id}}}:outbox"):
        assert time.monotonic() < deadline, "the relay never handed the effect on"
        time.sleep(0.1)


def test_a_seat_handed_on_keeps_no_name_of_the_erased_player(served):
    base, key, _, _ = served
    ana, bo = put_players(base, key)
    match_id = new_match(base, key)
    code = ok(*call(base, "POST", f"/v1/matches/{match_id}/invite", None, ana))["code"]
    claimant = ok(*call(base, "POST", f"/v1/matches/{match_id}/claim", {"code": code}))
    assert claimant["name"] == NAME  # no name given: the seat keeps hers
    ok(*call(base, "GET", "/v1/me/matches", None, ana))  # her app lists her matches
    assert names_her(ok(*call(base, "GET", f"/v1/matches/{match_id}", None, bo)))

    erase(base, key)
    seen = [
        ok(*call(base, "GET", f"/v1/matches/{match_id}", None, bo)),
        ok(*call(base, "GET", f"/v1/matches/{match_id}/events?after=0", None, bo)),
        ok(*call(base, "GET", f"/v1/matches/{match_id}", None, claimant["token"])),
    ]
    assert not names_her(seen), seen
    ok(*call(base, "POST", f"/v1/matches/{match_id}/actions", {"type": "resign"}, bo))
    history = ok(*call(base, "GET", f"/v1/matches/{match_id}/history", None, bo))
    assert history["events"][-1]["type"] == "match_over" and not names_her(history)


def test_the_other_players_feed_names_the_erased_player_no_more(served):
    base, key, app_id, state = served
    ana, bo = put_players(base, key)
    match_id = new_match(base, key)
    feed = ok(*call(base, "GET", "/v1/me/events?after=0", None, bo))
    assert {"0": EXTERNAL, "1": "bo"} in [e["data"].get("players") for e in feed["events"]]
    bo_id = state.hget(directory_key(app_id), "bo").decode()
    before = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    erase(base, key)
    assert not names_her(ok(*call(base, "GET", "/v1/me/events?after=0", None, bo)))
    # A notice its commit derived before the erasure, handed on after it.
    notice = {
        "id": f"{match_id}-99-match.over",
        "app": app_id,
        "type": "match.over",
        "timestamp": before,
        "data": {"match": match_id, "game": "zhol", "winners": [1], "reason": "resigned"},
        "players": [bo_id],
    }
    notice["data"]["players"] = {"0": EXTERNAL, "1": "bo"}
    relayed(state, match_id, 99, {"kind": "notify", "v": 99, "at": time.time(), "notices": [notice]})
    feed = ok(*call(base, "GET", "/v1/me/events?after=0", None, bo))
    assert "match.over" in [e["type"] for e in feed["events"]]
    assert not names_her(feed), feed


def test_a_rating_handed_on_after_the_erasure_puts_nobody_back_on_the_leaderboard(served):
    base, key, app_id, state = served
    ana, bo = put_players(base, key)
    ids = {p: state.hget(directory_key(app_id), p).decode() for p in (EXTERNAL, "bo")}
    match_id = new_match(base, key, rated=True)
    erase(base, key)
    # The finish of a commit that read the match before the erasure did.
    moved = {"mu": 30.0, "sigma": 7.0, "rating": 9.0}
    players = {
        ids[EXTERNAL]: {**moved, "external": EXTERNAL, "name": NAME},
        ids["bo"]: {**moved, "rating": 1.0, "external": "bo", "name": "Bo"},
    }
    effect = {"kind": "ratings", "v": 5, "match": match_id, "game": "zhol", "app": app_id, "players": players}
    relayed(state, match_id, 5, effect)
    # And the match itself finishing after the erasure.
    ok(*call(base, "POST", f"/v1/matches/{match_id}/actions", {"type": "resign"}, bo))
    board = ok(*call(base, "GET", "/v1/leaderboards/zhol", None, key))
    assert [p["player"] for p in board["players"]] == ["bo"] and not names_her(board)
    assert not state.exists(f"ct:{{pl:{ids[EXTERNAL]}}}")  # nothing stored for her again
