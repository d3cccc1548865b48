"""What a bot's moves give away (docs/api.md, "Hidden information"): its randomness is a secret of
its match, so nobody can replay its random choices or deliberate mistakes from what the API
shows; and a pro's forced move is held to the time its searched ones take (docs/bots.md,
"Forced moves")."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import tempfile
from collections.abc import Callable
from typing import Any

import pytest

from engines import bots
from engines.registry import GAMES
from service.bootstrap import build_service
from service.config import Config
from service.infra.embedded import start_redis
from service.matches.bots import PRO_FLOOR
from service.matches.repository import Write
from tests.api_helpers import Api, auth, playable

SPADES = GAMES["spades"]


@pytest.fixture(scope="module")
def svc():
    """The service on a Redis of its own, which no worker reads: the tests play every bot turn
    themselves, through the service's own `play_bot`, one version at a time."""
    proc, url = start_redis(tempfile.mkdtemp(prefix="cardtable-test-bot-secrets-"), persist=False)
    yield build_service(Config(REDIS_URL=url, RATE_LIMIT=0))
    proc.terminate()
    proc.wait(10)


def _seeded(key: bytes, version: int, seat: int) -> random.Random:
    """The derivation docs/api.md states: HMAC-SHA256 under the key of "bot:<version>:<seat>"."""
    digest = hmac.new(key, f"bot:{version}:{seat}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _same_state(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _outcome(before: dict[str, Any], seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The state after the bot of `level` decided for `seat` with `rng`."""
    state = copy.deepcopy(before)
    SPADES.apply(state, seat, bots.decide(SPADES, SPADES.view(state, seat), level, rng))
    return json.loads(json.dumps(state))


def play_bots(
    svc, match_id: str, token: str | None, decisions: int, holds: list[float] | None = None
) -> list[dict[str, Any]]:
    """Play the match on until `decisions` bot decisions were made: seat 0 (a person, when
    `token` is given) plays its first legal action, and each bot turn runs `play_bot` as a
    worker would. Returns, for each bot decision, the record and version before it, the engine
    state it left, and the waits it asked for before its commit (when `holds` collects them)."""
    made: list[dict[str, Any]] = []
    while len(made) < decisions:
        loaded = svc.load(match_id)
        record = loaded.record
        status = loaded.status()
        if status == "round_over":
            svc.start_round(match_id, token) if token else svc.play_bot(match_id, loaded.version)
            continue
        assert status == "active", status
        seat = SPADES.to_move(record["state"])
        if token and seat == 0:
            svc.act(match_id, token, SPADES.legal_actions(record["state"], 0)[0])
            continue
        before = len(holds) if holds is not None else 0
        assert svc.play_bot(match_id, loaded.version) == "moved"
        after = svc.store.load(match_id).record["state"]
        held = holds[before:] if holds is not None else []
        made.append({"record": record, "version": loaded.version, "seat": seat, "after": after, "held": held})
    return made


class Recorder:
    """A holder (service/matches/bots.py) that notes each wait asked for and commits at once."""

    def __init__(self, holds: list[float]):
        self.holds = holds

    def hold(self, seconds: float, then: Callable[[], str]) -> str:
        self.holds.append(seconds)
        return then()


def forced(decision: dict[str, Any]) -> bool:
    return len(SPADES.legal_actions(decision["record"]["state"], decision["seat"])) == 1


def test_heuristic_bots_cannot_be_replayed_from_the_match_id_and_version(svc):
    """Easy bots overlook 35% of their decisions at random. Seeded as before from the public match
    id and version, an opponent could tell every one of them in advance; seeded by the match's
    secret key, only someone holding the key reproduces them."""
    seats = [{"kind": "human"}, *({"kind": "bot", "level": "easy"} for _ in range(3))]
    created = svc.create({"game": "spades", "seats": seats, "options": {"first_dealer": 3}})
    match_id, token = created["id"], created["seats"][0]["token"]
    key = bytes.fromhex(svc.store.load(match_id).record["bot_key"])
    assert len(key) == 32
    made = play_bots(svc, match_id, token, decisions=45)
    public_matches = 0
    for d in made:
        before, seat, version = d["record"]["state"], d["seat"], d["version"]
        # The secret derivation gives exactly what the service's bot did, every time...
        assert _same_state(_outcome(before, seat, "easy", _seeded(key, version, seat)), d["after"])
        # ... and the public one, the former seed, only where the decision did not hang on chance.
        public = random.Random(f"bot:{match_id}:{version}")
        public_matches += _same_state(_outcome(before, seat, "easy", public), d["after"])
    assert public_matches < len(made)


def test_a_match_stored_before_bot_keys_keys_its_bots_from_its_deal_key(svc):
    """A record without `bot_key` (created before this key existed) still plays, its bots keyed
    from the engine state's deal key, a 256-bit secret that no view, event or history shows."""
    seats = [{"kind": "human"}, *({"kind": "bot", "level": "easy"} for _ in range(3))]
    created = svc.create({"game": "spades", "seats": seats, "options": {"first_dealer": 3}})
    match_id, token = created["id"], created["seats"][0]["token"]

    def forget_key(loaded):
        del loaded.record["bot_key"]
        return Write([], None)

    svc.update(match_id, None, forget_key)  # as the record of an older match is stored
    deal_key = bytes.fromhex(svc.store.load(match_id).record["state"]["rng"]["deal_key"])
    key = hmac.new(deal_key, b"cardtable-bot-key", hashlib.sha256).digest()
    made = play_bots(svc, match_id, token, decisions=12)
    assert "bot_key" not in svc.store.load(match_id).record
    for d in made:
        outcome = _outcome(d["record"]["state"], d["seat"], "easy", _seeded(key, d["version"], d["seat"]))
        assert _same_state(outcome, d["after"])


def test_the_bot_key_appears_in_no_answer_of_the_api(app, client, worker):
    """Creation, the lobby, joining, every seat's and the spectator's views and events, the
    stream, a hint, a resignation and the history: the key is in none of them."""
    api = Api(client)
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "bot", "level": "easy"},
        {"kind": "open"},
        {"kind": "bot", "level": "pro"},
    ]
    answers: list[str] = []

    def keep(resp):
        answers.append(resp.get_data(as_text=True))
        return resp

    created = keep(client.post("/v1/matches", json={"game": "spades", "seats": seats, "listed": True}))
    match_id, t0 = created.get_json()["id"], created.get_json()["seats"][0]["token"]
    svc = app.extensions["cardtable"]
    key = svc.store.load(match_id).record["bot_key"]
    keep(client.get("/v1/matches?game=spades"))
    t2 = keep(client.post(f"/v1/matches/{match_id}/join", json={"name": "Cy"})).get_json()["token"]
    # The people make four moves, whoever of them is to move; the bots move in between.
    tokens = {0: t0, 2: t2}
    for _ in range(4):
        seat = api.wait_for(match_id, None, lambda v: v["turn"]["seat"] in tokens)["turn"]["seat"]
        view = api.view(match_id, tokens[seat])
        assert api.act(match_id, tokens[seat], playable(view)[0]).status_code == 200
    assert any(e.get("bot") for e in api.events(match_id)["events"])
    for token in (t0, t2, None):
        keep(client.get(f"/v1/matches/{match_id}", headers=auth(token)))
        keep(client.get(f"/v1/matches/{match_id}/events?after=0", headers=auth(token)))
    stream = client.get(f"/v1/matches/{match_id}/stream", headers=auth(t0), buffered=False)
    chunks: list[str] = []
    for chunk in stream.response:
        chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        if "".join(chunks).count("\nevent: ") >= 10:
            break
    stream.close()
    answers.append("".join(chunks))
    keep(client.get(f"/v1/matches/{match_id}/hint", headers=auth(t0)))
    keep(api.act(match_id, t0, {"type": "resign"}))  # Spades: the team loses, the match is over
    history = keep(client.get(f"/v1/matches/{match_id}/history", headers=auth(t0)))
    assert history.status_code == 200 and history.get_json()["events"]
    assert len(answers) == 13
    leaked = [a for a in answers if key in a or key.upper() in a]
    assert leaked == []


def test_a_forced_pro_move_waits_out_the_floor_before_it_is_committed(svc, monkeypatch):
    """Seat 1 is a pro. Its forced moves (one legal card: the last trick's at least) are held
    to the Spades floor before the commit, where they would be answered at once; the easy bots
    beside it are never held. The waits are read through the service's one holding seam."""
    holds: list[float] = []
    monkeypatch.setattr(svc.bots, "holder", Recorder(holds))
    # A floor no move comes near however loaded the machine (nothing sleeps through it).
    monkeypatch.setitem(PRO_FLOOR, "spades", 5.0)
    seats = [
        {"kind": "human"},
        {"kind": "bot", "level": "pro"},
        *({"kind": "bot", "level": "easy"} for _ in range(2)),
    ]
    created = svc.create({"game": "spades", "seats": seats, "options": {"first_dealer": 3}})
    made = play_bots(svc, created["id"], created["seats"][0]["token"], decisions=42, holds=holds)
    pro = [d for d in made if d["seat"] == 1]
    assert len(pro) == 14 and any(forced(d) for d in pro)  # a bid and 13 cards, the last forced
    for d in pro:
        if forced(d):
            # Held for the floor less the moment the move took, never for the whole floor or more.
            assert len(d["held"]) == 1 and 0 < d["held"][0] < 5.0, d["held"]
        else:
            # A search shorter than the floor waits out the rest of it, as a forced move does.
            assert len(d["held"]) == 1 and 0 < d["held"][0] < 5.0, d["held"]
    assert all(d["held"] == [] for d in made if d["seat"] != 1)


def test_matches_of_bots_only_are_not_held(svc, monkeypatch):
    """Nobody at the table, nobody to tell: a pro among bots plays at its own pace."""
    holds: list[float] = []
    monkeypatch.setattr(svc.bots, "holder", Recorder(holds))
    seats = [{"kind": "bot", "level": "pro"}, *({"kind": "bot", "level": "easy"} for _ in range(3))]
    created = svc.create({"game": "spades", "seats": seats, "options": {"first_dealer": 3}})
    # The whole first hand (4 bids and 52 cards): the pro's last card is always a forced move,
    # whatever the deal (52 decisions stopped a trick short of it, and some deals force none
    # before it).
    made = play_bots(svc, created["id"], None, decisions=56, holds=holds)
    assert any(forced(d) for d in made if d["seat"] == 0)
    assert holds == []
