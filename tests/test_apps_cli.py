"""`cardtable apps`: an operator makes, lists, rotates, limits and revokes apps against the
Redis the service uses, and the API takes or refuses their keys accordingly."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.api_helpers import auth
from tests.conftest import ROOT


def apps(redis_url: str | None, *args: str, data_dir: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDTABLE_STATE_URL")}
    if redis_url:
        env["REDIS_URL"] = redis_url
    extra = ["--data-dir", data_dir] if data_dir else []
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", *args, *extra],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def created(redis_url: str | None, *args: str, data_dir: str | None = None) -> dict:
    done = apps(redis_url, "create", *args, "--json", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_created_app_key_works_once_and_its_rotation_replaces_it(redis_url, client):
    made = created(redis_url, "Ana's Cards", "--matches", "5", "--origin", "https://cards.example")
    assert made["name"] == "Ana's Cards" and made["key"].startswith(f"ctk_{made['app']}.")
    assert made["quotas"]["matches"] == 5 and made["origins"] == ["https://cards.example"]
    put = client.put("/v1/players/u1", json={"name": "Ana"}, headers=auth(made["key"]))
    assert put.status_code == 200
    listed = apps(redis_url, "list", "--json")
    assert made["app"] in [a["app"] for a in json.loads(listed.stdout)]
    assert "key" not in listed.stdout  # a key is shown once, at its making
    rotated = apps(redis_url, "rotate", made["app"], "--json")
    new_key = json.loads(rotated.stdout)["key"]
    assert client.get("/v1/players/u1", headers=auth(made["key"])).status_code == 401
    assert client.get("/v1/players/u1", headers=auth(new_key)).status_code == 200
    limited = json.loads(apps(redis_url, "set", made["app"], "--bot-matches", "0", "--json").stdout)
    assert limited["quotas"]["bot_matches"] == 0
    revoked = apps(redis_url, "revoke", made["app"])
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert client.get("/v1/players/u1", headers=auth(new_key)).status_code == 401


def test_the_command_finds_a_running_serves_redis_through_its_data_dir(redis_url, tmp_path):
    (tmp_path / "redis.url").write_text(redis_url + "\n")
    made = created(None, "Found", data_dir=str(tmp_path))
    assert made["app"] in apps(redis_url, "list").stdout


def test_the_command_says_what_is_missing(tmp_path):
    done = apps(None, "list", data_dir=str(tmp_path))
    assert done.returncode != 0 and "REDIS_URL" in done.stderr
    unknown = apps(None, "revoke", "000000000000", data_dir=str(tmp_path))
    assert unknown.returncode != 0
