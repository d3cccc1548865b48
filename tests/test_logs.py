"""Logs as an operator reads them (service/infra/logs.py, docs/architecture.md "Logs and traces"): quiet
by default, one JSON object a line with CARDTABLE_LOG_FORMAT=json, and a request's id on its own
line and on the line of the bot turn it caused."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest
import requests

from tests.serve_helpers import ROOT, cardtable_serve

ZHOL_VS_BOT = {
    "game": "zhol",
    "options": {"target_wins": 1},
    "seats": [{"kind": "human", "name": "ana"}, {"kind": "bot", "level": "easy"}],
}


def _view(base: str, match_id: str, token: str) -> dict:
    return requests.get(f"{base}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}).json()


def _hand_the_turn_to_the_bot(base: str, match_id: str, token: str, prefix: str) -> tuple[str, int]:
    """Post legal moves, each with its own X-Request-Id, until one passes the turn to the bot;
    that move's request id and the version it made."""
    for i in range(40):
        view = _view(base, match_id, token)
        action = next(a for a in view["legal_actions"] if not a.get("template"))
        rid = f"{prefix}-{i}"
        resp = requests.post(
            f"{base}/v1/matches/{match_id}/actions",
            json=action,
            headers={"Authorization": f"Bearer {token}", "X-Request-Id": rid},
        )
        assert resp.status_code == 200, resp.text
        assert resp.headers["X-Request-Id"] == rid
        moved = resp.json()
        if moved["turn"]["seat"] == 1:
            return rid, moved["version"]
    raise AssertionError("forty moves never handed the turn to the bot")


def _wait_for_the_bot(base: str, match_id: str, token: str, version: int) -> None:
    """Until the bot has moved past `version` and it is seat 0's turn again (or the round is
    over)."""
    deadline = time.monotonic() + 20
    while True:
        view = _view(base, match_id, token)
        if view["version"] > version and (view["status"] != "active" or view["turn"]["seat"] == 0):
            return
        assert time.monotonic() < deadline, "the bot never moved"
        time.sleep(0.05)


def test_json_logs_carry_a_moves_request_id_to_the_bot_turn_it_caused(tmp_path):
    log_path = tmp_path / "serve.log"
    with (
        open(log_path, "w") as out,
        cardtable_serve(
            str(tmp_path / "data"), out, CARDTABLE_LOG_FORMAT="json", CARDTABLE_LOG_LEVEL="DEBUG"
        ) as (_, base),
    ):
        created = requests.post(f"{base}/v1/matches", json=ZHOL_VS_BOT).json()
        match_id, token = created["id"], created["seats"][0]["token"]
        rid, version = _hand_the_turn_to_the_bot(base, match_id, token, "move")
        _wait_for_the_bot(base, match_id, token, version)
    lines = [json.loads(line) for line in log_path.read_text().splitlines()]  # every line parses
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    api = [ln for ln in lines if ln.get("request_id") == rid and ln["logger"] == "cardtable.app"]
    assert [ln["message"].split()[:3] for ln in api] == [["POST", f"/v1/matches/{match_id}/actions", "200"]]
    assert (api[0]["match_id"], api[0]["seat"], api[0]["version"]) == (match_id, 0, version)
    job_id = f"bot-{match_id}-{version}"
    bot = [ln for ln in lines if ln.get("request_id") == rid and ln.get("job_id") == job_id]
    done = [ln for ln in bot if ln["logger"] == "cardtable.worker"]
    assert len(done) == 1 and done[0]["message"].startswith("job workers.jobs.bot_turn done")
    assert (done[0]["match_id"], done[0]["version"]) == (match_id, version + 1)
    # RQ's own lines of that job carry the ids too.
    assert any(ln["logger"].startswith("rq.") for ln in bot)


def test_by_default_moves_and_bot_turns_print_nothing(tmp_path):
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as out, cardtable_serve(str(tmp_path / "data"), out) as (_, base):
        started = log_path.read_text().splitlines()
        created = requests.post(f"{base}/v1/matches", json=ZHOL_VS_BOT).json()
        match_id, token = created["id"], created["seats"][0]["token"]
        for turn in range(3):
            _, version = _hand_the_turn_to_the_bot(base, match_id, token, f"turn{turn}")
            _wait_for_the_bot(base, match_id, token, version)
            if _view(base, match_id, token)["status"] != "active":
                break
        played = log_path.read_text().splitlines()
    # Only lines of processes starting: the API, gunicorn, two workers, Redis.
    assert len(started) <= 20, "\n".join(started)
    assert played == started, "\n".join(played[len(started) :])
    assert any("serving on http://" in line for line in started)
    assert any("bot worker started" in line for line in started)


def test_request_id_is_the_callers_when_plain_else_made_here(client):
    given = client.get("/v1/games", headers={"X-Request-Id": "edge-7f3a.1"})
    assert given.headers["X-Request-Id"] == "edge-7f3a.1"
    made = client.get("/v1/games")
    assert re.fullmatch("[0-9a-f]{32}", made.headers["X-Request-Id"])
    for bad in ("x" * 129, "two words", "new\tline"):
        replaced = client.get("/v1/games", headers={"X-Request-Id": bad})
        assert re.fullmatch("[0-9a-f]{32}", replaced.headers["X-Request-Id"])


def test_errors_carry_the_request_id_too(client):
    resp = client.post("/v1/matches", json={"game": "chess"}, headers={"X-Request-Id": "bad-create-1"})
    assert resp.status_code == 422
    assert resp.headers["X-Request-Id"] == "bad-create-1"


@pytest.mark.parametrize(
    "command, setting, value, message",
    [
        (
            "openapi",
            "CARDTABLE_LOG_FORMAT",
            "xml",
            "cardtable: CARDTABLE_LOG_FORMAT is one of text, json, not 'xml'",
        ),
        (
            "worker",
            "CARDTABLE_RATE_LIMIT",
            "many",
            "cardtable: CARDTABLE_RATE_LIMIT must be an integer, not 'many'",
        ),
        (
            "serve",
            "CARDTABLE_BOT_DELAY",
            "soon",
            "cardtable: CARDTABLE_BOT_DELAY must be a number, not 'soon'",
        ),
    ],
)
def test_a_mistyped_setting_stops_the_command_with_one_clear_line(command, setting, value, message):
    env = {**os.environ, setting: value, "PYTHONPATH": ROOT, "REDIS_URL": "redis://127.0.0.1:1/0"}
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", command], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [message]
