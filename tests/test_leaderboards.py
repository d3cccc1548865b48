"""service/ratings/leaderboards.py against a real private redis-server (and a real Redis Cluster)."""

from __future__ import annotations

import base64
import random
import string
import uuid

import pytest
import redis
from redis.crc import key_slot

from service import errors
from service.ratings.leaderboards import Leaderboards, board_keys, encode_cursor


@pytest.fixture(scope="module")
def boards(redis_url):
    return Leaderboards(redis.Redis.from_url(redis_url))


@pytest.fixture
def app():
    return f"app-{uuid.uuid4().hex[:8]}"  # a board of its own for each test


def fill(boards: Leaderboards, app: str, game: str, ratings: dict[str, float]) -> None:
    for player, rating in ratings.items():
        boards.record(app, game, player, {"player": f"ext-{player}", "name": player.upper()}, rating)


def order(ratings: dict[str, float]) -> list[str]:
    """The board's order: rating, then player id as bytes, highest first (ZREVRANGE's)."""
    return sorted(ratings, key=lambda p: (ratings[p], p.encode()), reverse=True)


def read_all(boards: Leaderboards, app: str, game: str, limit: int) -> list[dict]:
    rows, cursor = [], None
    while True:
        page = boards.page(app, game, limit, cursor)
        rows += page["players"]
        cursor = page["next_cursor"]
        if cursor is None:
            return rows
        assert len(page["players"]) == limit


def test_a_page_is_best_first_with_ties_ordered_by_player_and_ranked_by_position(boards, app):
    fill(boards, app, "spades", {"ann": 12.5, "bob": 30.25, "cy": 12.5, "dee": -3.0, "eve": 12.5})
    page = boards.page(app, "spades", 10)
    assert page["next_cursor"] is None
    assert page["players"] == [
        {"rank": 1, "player": "ext-bob", "name": "BOB", "rating": 30.25},
        {"rank": 2, "player": "ext-eve", "name": "EVE", "rating": 12.5},
        {"rank": 3, "player": "ext-cy", "name": "CY", "rating": 12.5},
        {"rank": 4, "player": "ext-ann", "name": "ANN", "rating": 12.5},
        {"rank": 5, "player": "ext-dee", "name": "DEE", "rating": -3.0},
    ]
    assert boards.page(app, "zhol", 10) == {"players": [], "next_cursor": None}  # another game


def test_recording_again_moves_the_player_and_updates_what_is_shown(boards, app):
    fill(boards, app, "zhol", {"ann": 5.0, "bob": 7.0})
    boards.record(app, "zhol", "ann", {"player": "ext-ann", "name": "Ann B."}, 9.75)
    assert [(p["name"], p["rating"]) for p in boards.page(app, "zhol", 5)["players"]] == [
        ("Ann B.", 9.75),
        ("BOB", 7.0),
    ]


@pytest.mark.parametrize("limit", [1, 3, 4, 100])
def test_pages_read_in_turn_show_the_whole_board_once(boards, app, limit):
    rng = random.Random(limit)
    ratings = {f"p{i:03d}": rng.choice([0.0, 1.5, 2.25, 10.0, -4.5]) for i in range(24)}
    fill(boards, app, "zoliky", ratings)
    rows = read_all(boards, app, "zoliky", limit)  # 24 rows: limits 3 and 4 end on a full page
    assert [r["player"] for r in rows] == [f"ext-{p}" for p in order(ratings)]
    assert [r["rank"] for r in rows] == list(range(1, 25))


def test_a_cursor_resumes_after_its_entry_whatever_changed_meanwhile(boards, app):
    """Random additions, moves and removals between pages, the cursor's own entry among them:
    each page is exactly the entries that now stand after the cursor's (rating, player)."""
    rng = random.Random(7)
    names = iter(f"{rng.choice(string.ascii_letters)}{i}" for i in range(10_000))
    values = [0.0, 0.5, 1.0, 2.0, 3.5]  # few ratings: many ties
    ratings = {next(names): rng.choice(values) for _ in range(60)}
    fill(boards, app, "spades", ratings)
    for _walk in range(6):
        cursor, after = None, None
        while True:
            limit = rng.randint(1, 7)
            page = boards.page(app, "spades", limit, cursor)
            now = order(ratings)
            start = (
                0
                if after is None
                else next((i for i, p in enumerate(now) if (ratings[p], p.encode()) < after), len(now))
            )
            expected = now[start : start + limit]
            assert [r["player"] for r in page["players"]] == [f"ext-{p}" for p in expected]
            assert [r["rank"] for r in page["players"]] == list(range(start + 1, start + 1 + len(expected)))
            if page["next_cursor"] is None:
                assert start + limit >= len(now)
                break
            cursor, last = page["next_cursor"], expected[-1]
            after = (ratings[last], last.encode())
            changes = {next(names): rng.choice(values) for _ in range(rng.randint(0, 3))}
            for p in rng.sample(sorted(ratings), 3) + [last]:
                if rng.random() < 0.5:
                    changes[p] = rng.choice(values)
                elif rng.random() < 0.5 and len(ratings) > 20:
                    boards.remove(app, "spades", p)
                    ratings.pop(p)
            fill(boards, app, "spades", changes)
            ratings.update(changes)


def test_limits_and_cursors_the_board_did_not_give_are_refused(boards, app):
    fill(boards, app, "spades", {"ann": 1.0})
    for limit in (0, 101, True, 2.0):
        with pytest.raises(errors.InvalidRequest):
            boards.page(app, "spades", limit)
    forged = [
        "%%%",
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(b'["1.0", "ann"]').decode(),
        base64.urlsafe_b64encode(b"[NaN, 3]").decode(),
        base64.urlsafe_b64encode(b'[1e999, "ann"]').decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
    ]
    for cursor in forged:
        with pytest.raises(errors.InvalidRequest):
            boards.page(app, "spades", 5, cursor)
    # A well-formed cursor the board did not give is just a place in its order.
    assert boards.page(app, "spades", 5, encode_cursor(2.0, "zed"))["players"][0]["player"] == "ext-ann"
    assert boards.page(app, "spades", 5, encode_cursor(1.0, "ann"))["players"] == []


def test_what_a_board_refuses_to_record(boards, app):
    with pytest.raises(ValueError):
        boards.record(app, "spades", "ann", {"name": "Ann"}, float("inf"))
    with pytest.raises(ValueError):
        boards.record(app, "spades", "ann", {"rank": 1}, 3.0)
    with pytest.raises(ValueError):
        boards.record("a}b", "spades", "ann", {"name": "Ann"}, 3.0)


def test_remove_and_remove_everywhere(boards, app):
    other = f"{app}-other"
    for game in ("spades", "zhol", "zoliky"):
        fill(boards, app, game, {"ann": 1.0, "bob": 2.0})
    fill(boards, other, "spades", {"ann": 1.0})
    assert boards.remove(app, "spades", "bob") and not boards.remove(app, "spades", "bob")
    assert boards.remove_everywhere(app, "ann", ["spades", "zhol", "zoliky", "three-thirteen"]) == 3
    assert [p["player"] for p in read_all(boards, app, "spades", 10)] == []
    assert [p["player"] for p in read_all(boards, app, "zhol", 10)] == ["ext-bob"]
    assert [p["player"] for p in read_all(boards, other, "spades", 10)] == ["ext-ann"]  # another app
    client = boards.client
    ratings, players = board_keys(app, "zhol")
    assert client.zcard(ratings) == client.hlen(players) == 1  # nothing of ann's display is left


def test_a_boards_keys_share_one_slot_and_boards_spread():
    ratings, players = board_keys("app1", "three-thirteen")
    assert ratings.startswith("ct:{lb:app1:three-thirteen}:")
    assert key_slot(ratings.encode()) == key_slot(players.encode())
    slots = {key_slot(board_keys(f"app{i}", "spades")[0].encode()) for i in range(50)}
    assert len(slots) > 40


def test_the_boards_work_on_a_redis_cluster(redis_cluster):
    from service.infra.cluster import state_client

    boards = Leaderboards(state_client(redis_cluster.url))
    app = f"app-{uuid.uuid4().hex[:8]}"
    games = ["spades", "zhol", "zoliky", "three-thirteen"]
    for game in games:
        fill(boards, app, game, {f"p{i}": float(i % 5) for i in range(30)})
    for game in games:
        rows = read_all(boards, app, game, 7)
        assert [r["rank"] for r in rows] == list(range(1, 31)) and rows[0]["rating"] == 4.0
    assert boards.remove_everywhere(app, "p4", games) == 4
    assert all(len(read_all(boards, app, game, 100)) == 29 for game in games)
