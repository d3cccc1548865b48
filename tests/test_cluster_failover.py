"""A master of the state cluster is killed (-9) in the middle of a match: its replica takes
over, the API answers 503 + Retry-After meanwhile (never a 500) and the match goes on; with
CARDTABLE_REPLICA_ACKS=1 no move the API acknowledged is lost."""

from __future__ import annotations

import random
import time

import pytest

from engines import bots
from engines.registry import GAMES
from service.config import Config
from service.http.app import create_app
from tests.api_helpers import auth, bot_input
from tests.cluster_helpers import running_cluster

pytestmark = pytest.mark.slow

HUMANS4 = [{"kind": "human", "name": n} for n in ("Ana", "Bo", "Cy", "Di")]


@pytest.fixture(scope="module")
def own_cluster():
    """A cluster of its own: this module kills one of its masters."""
    yield from running_cluster()


class Player:
    """Plays every seat of a Spades match through the API, one move per step(), and records
    what the API acknowledged and every answer that was not a 200."""

    def __init__(self, client, match_id: str, tokens: list[str]):
        self.c, self.match_id, self.tokens = client, match_id, tokens
        self.rng = random.Random(1)
        self.acked = 0  # highest version the API acknowledged
        self.unavailable = 0
        self.others: list[tuple[int, str]] = []

    def _answer(self, resp) -> bool:
        if resp.status_code in (200, 201):
            return True
        body = resp.get_json() or {}
        if resp.status_code == 503:
            assert resp.headers.get("Retry-After") and body.get("error") == "unavailable", body
            self.unavailable += 1
            time.sleep(0.05)
        else:
            self.others.append((resp.status_code, body.get("error", "")))
        return False

    def step(self) -> None:
        resp = self.c.get(f"/v1/matches/{self.match_id}")
        if not self._answer(resp):
            return
        view = resp.get_json()
        assert view["version"] >= self.acked, "an acknowledged move was lost"
        if view["status"] == "round_over":
            resp = self.c.post(f"/v1/matches/{self.match_id}/rounds", headers=auth(self.tokens[0]))
        else:
            token = self.tokens[view["turn"]["seat"]]
            mine = self.c.get(f"/v1/matches/{self.match_id}", headers=auth(token))
            if not self._answer(mine):
                return
            action = bots.decide(GAMES["spades"], bot_input(mine.get_json()), "easy", self.rng)
            version = {"If-Match": f'"{view["version"]}"'}
            headers = {**auth(token), **version}
            resp = self.c.post(f"/v1/matches/{self.match_id}/actions", json=action, headers=headers)
        if self._answer(resp):
            self.acked = max(self.acked, resp.get_json()["version"])


def test_a_match_whose_slot_moves_to_another_master_goes_on(own_cluster, queue_url):
    """Resharding under a live match: the API follows ASK and MOVED and the match plays on at
    every step; a commit refused while keys are half-moved (TRYAGAIN) is a 503, never a 500."""
    config = Config(REDIS_URL=queue_url, STATE_URL=own_cluster.url, RATE_LIMIT=0)
    client = create_app(config).test_client()
    created = client.post("/v1/matches", json={"game": "spades", "seats": HUMANS4, "seed": 4}).get_json()
    match_id = created["id"]
    key = f"ct:{{m:{match_id}}}:match"
    player = Player(client, match_id, [s["token"] for s in created["seats"]])
    while player.acked < 5:
        player.step()
    to = next(p for p in own_cluster.masters() if p != own_cluster.master_of(key))
    seen: dict[str, int] = {}

    def between(step: str) -> None:
        start = player.acked
        for _ in range(6):
            player.step()
        seen[step] = player.acked - start

    own_cluster.migrate_slot(key, to, between)
    assert own_cluster.master_of(key) == to
    # Keys all on the old master, then all on the new one (ASK followed), then MOVED followed.
    assert seen["migrating"] > 0 and seen["moved keys"] > 0 and seen["done"] > 0, seen
    assert {status for status, _ in player.others} <= {412}, player.others
    events = client.get(f"/v1/matches/{match_id}/events").get_json()
    # A refused commit (TRYAGAIN, MOVED, ASK) was not executed: the match is at the last
    # acknowledged version, with one event sequence.
    assert events["version"] == player.acked
    assert [e["seq"] for e in events["events"]] == list(range(1, len(events["events"]) + 1))


def test_a_killed_master_fails_over_and_no_acknowledged_move_is_lost(own_cluster, queue_url):
    config = Config(
        REDIS_URL=queue_url, STATE_URL=own_cluster.url, REPLICA_ACKS=1, RATE_LIMIT=0, ALLOW_STACKED_DECK=True
    )
    client = create_app(config).test_client()
    created = client.post("/v1/matches", json={"game": "spades", "seats": HUMANS4, "seed": 9}).get_json()
    match_id = created["id"]
    player = Player(client, match_id, [s["token"] for s in created["seats"]])
    while player.acked < 20:
        player.step()
    before = player.acked
    master = own_cluster.master_of(f"ct:{{m:{match_id}}}:match")
    own_cluster.kill(master)
    deadline = time.monotonic() + 90
    # Until the replica is promoted, and while the new master has no replica of its own (so
    # no commit can be confirmed by one), moves are answered 503.
    while own_cluster.master_of(f"ct:{{m:{match_id}}}:match") == master:
        assert time.monotonic() < deadline, "the replica was not promoted"
        player.step()
    assert player.acked >= before and player.unavailable > 0  # 503s, while no node had the slot
    own_cluster.restart(master)  # it comes back as the new master's replica
    while player.acked < before + 30:
        assert time.monotonic() < deadline, f"the match did not go on (acknowledged {player.acked})"
        player.step()
    # A move answered 503 may have been stored all the same; its If-Match resend is then a 412.
    assert {status for status, _ in player.others} <= {412}, player.others
    history = client.get(f"/v1/matches/{match_id}/events").get_json()
    assert history["version"] >= player.acked
    assert len({e["seq"] for e in history["events"]}) == len(history["events"])  # no event twice
