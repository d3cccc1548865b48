"""bench/http_yardstick.py: a level decided in the client plays as a person over HTTP, against the
service's bot seats, on paired deals (issue 43)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import orjson
import pytest
import requests

from bench import http_yardstick
from engines.registry import GAMES
from engines.tournament import wilson
from tests.api_helpers import Api
from tests.serve_helpers import ROOT, cardtable_serve


def test_the_engine_view_made_from_a_seats_api_view_is_the_engines_own_view(client, app):
    """What the client's bot decides from is exactly `Game.view(state, seat)` (as JSON carries
    it), though made from the seat's API view only: every game, every seat of a fresh match."""
    api = Api(client)
    svc = app.extensions["cardtable"]
    for name, (game_id, options) in http_yardstick.GAME_OPTIONS.items():
        seats = http_yardstick.SEATS.get(game_id, 2)
        created = api.create(game_id, [{"kind": "human"}] * seats, options=options, seed=7)
        for entry in created["seats"]:
            for _ in range(20):  # no worker plays here, but one of another test may: same version
                view = api.view(created["id"], entry["token"])
                state = svc.load(created["id"])
                if state.version == view["version"]:
                    break
            engine = orjson.loads(orjson.dumps(GAMES[game_id].view(state.record["state"], entry["seat"])))
            assert http_yardstick.engine_view(view) == engine, name
            assert {"type": "resign"} in view["legal_actions"]  # the service's, left out


def app_key(data_dir: str) -> str:
    """A new app's key, made as docs/integrating.md makes one: `cardtable apps create`."""
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", "create", "yardstick", "--json",
         "--data-dir", data_dir],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, "PYTHONPATH": ROOT},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["key"])


def test_two_paired_deals_over_http_count_as_the_histories_say(tmp_path, capsys):
    """Žolíky, one hand a match, `sound` in the client against the service's `easy`, 2 deals
    played 2 at once on a real `cardtable serve`, with an app's key: 4 matches; the two matches
    of a deal were dealt the same deck with A's seat swapped; A's counted wins are the matches
    whose history names A's seat among the winners; the rate, its interval and the service
    bot's answer time are printed."""
    data = str(tmp_path / "serve")
    with cardtable_serve(data) as (_, base):
        key = app_key(data)
        runs = http_yardstick.main(
            ["--url", base, "--app-key", key, "--games", "zoliky", "--seats", "sound,easy",
             "--deals", "2", "--seed", "500", "--parallel", "2", "--quiet"]
        )  # fmt: skip
        (run,) = runs
        assert [(m.deal, m.seed, m.a_seats) for m in run.matches] == [
            (0, 500, [0]), (0, 500, [1]), (1, 501, [0]), (1, 501, [1]),
        ]  # fmt: skip
        assert [s.matches for s in run.sides] == [4, 4]
        histories = [
            requests.get(
                f"{base}/v1/matches/{m.match_id}/history", headers={"Authorization": f"Bearer {m.token}"}
            )
            for m in run.matches
        ]
        assert all(h.status_code == 200 for h in histories)
        histories = [h.json() for h in histories]

    expected_wins = 0.0
    for m, history in zip(run.matches, histories, strict=True):
        a_seat = m.a_seats[0]
        assert history["seed"] == m.seed and history["options"]["target_wins"] == 1
        assert [s["kind"] for s in history["seats"]] == ["human" if s == a_seat else "bot" for s in range(2)]
        assert history["seats"][1 - a_seat]["level"] == "easy"
        (over,) = [e for e in history["events"] if e["type"] == "match_over"]
        assert over["reason"] == "target" and over["winners"] == m.winners
        if a_seat in over["winners"]:
            expected_wins += 1 / len(over["winners"])
    for first, second in zip(histories[::2], histories[1::2], strict=True):
        assert first["deck"] == second["deck"]  # one deal, played from each seat
    assert run.problems() == []
    assert run.sides[0].wins == expected_wins
    assert run.bot_waits() and all(w > 0 for w in run.bot_waits())

    out = capsys.readouterr().out
    lo, hi = wilson(expected_wins, 4)
    line = (
        rf"zoliky one: sound \(client\) vs easy \(service\) {expected_wins / 4:.1%} of 4"
        rf" \[{lo:.1%}, {hi:.1%}\]; easy .* 4 matches, 2 at once \(process pool\), wall \d+ s"
    )
    assert re.search(line, out), out
    assert re.search(r"service bot answer p50 \d+\.\d{3} s, p95 \d+\.\d{3} s over \d+ hand-overs", out), out
    assert "WARNING" not in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seats", "sound,sound"], "B is the service's bot seat"),
        (["--games", "gin"], "unknown game 'gin'"),
        (["--seats", "sound"], "two levels"),
    ],
)
def test_levels_and_games_the_service_cannot_play_are_refused_before_any_request(args, says, capsys):
    with pytest.raises(SystemExit):
        http_yardstick.main(["--url", "http://127.0.0.1:9", *args])
    assert says in capsys.readouterr().err
