"""docs/webhooks.md, run as its reader would: the page's Python receiver, started as written, gets
a real delivery from a real `cardtable worker --webhooks`, verifies it and acts on it, takes a
retry as a repeat and refuses a forged request; and what the page says of event types, headers,
retries and the safety switches is what the code does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from service.config import Config
from service.http.app import create_app
from service.infra.embedded import free_port
from service.notify.webhooks import EVENT_TYPES
from tests.api_helpers import auth
from tests.test_players import new_app
from tests.webhook_helpers import LOCAL, until, webhook_worker
from workers.webhooks import JITTER, SCHEDULE

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "webhooks.md"
TEXT = PAGE.read_text(encoding="utf-8")


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", TEXT, re.M | re.S)


@pytest.fixture(scope="module")
def local(config):
    return create_app(
        Config(**{**config.__dict__, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True})
    )


def start_receiver(tmp_path: Path, secret: str) -> tuple[subprocess.Popen, int]:
    (code,) = python_blocks()
    script = tmp_path / "receiver.py"
    script.write_text(code, encoding="utf-8")
    port = free_port()
    env = dict(os.environ, CARDTABLE_WEBHOOK_SECRET=secret, PORT=str(port))
    proc = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, "the page's receiver exited"
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return proc, port  # it answers (404 on /): up
        except OSError:
            assert time.monotonic() < deadline, "the page's receiver did not start"
            time.sleep(0.1)


def test_the_pages_receiver_verifies_a_real_delivery_and_refuses_a_forged_one(local, redis_url, tmp_path):
    client, svc = local.test_client(), local.extensions["cardtable"]
    key = new_app(svc)
    with webhook_worker(redis_url, **LOCAL):
        # The endpoint first (its secret is the receiver's), at the port the receiver then takes.
        port_hint = free_port()
        made = client.post(
            "/v1/webhooks",
            json={"url": f"http://127.0.0.1:{port_hint}/hooks/cardtable", "events": ["turn.started"]},
            headers=auth(key),
        ).get_json()
        proc, port = start_receiver(tmp_path, made["secret"])
        try:
            base = f"/v1/webhooks/{made['id']}"
            url = f"http://127.0.0.1:{port}/hooks/cardtable"
            assert client.patch(base, json={"url": url}, headers=auth(key)).status_code == 200
            sent = client.post(f"{base}/test", headers=auth(key)).get_json()
            done = until(
                lambda: [
                    d
                    for d in client.get(f"{base}/deliveries", headers=auth(key)).get_json()["deliveries"]
                    if d["status"] != "pending"
                ]
            )
            assert done[0]["status"] == "delivered" and done[0]["status_code"] == 200, done
            assert json.loads(done[0]["response"]) == {"ok": True}
            # A retry comes with the same webhook-id: the receiver takes it as a repeat.
            client.post(f"{base}/deliveries/{sent['id']}/retry", headers=auth(key))
            until(
                lambda: (
                    client.get(f"{base}/deliveries", headers=auth(key)).get_json()["deliveries"][0][
                        "attempts"
                    ]
                    == 2
                )
            )
            forged = urllib.request.Request(
                url,
                data=b'{"type": "turn.started", "timestamp": "x", "data": {}}',
                headers={
                    "content-type": "application/json",
                    "webhook-id": "forged",
                    "webhook-timestamp": str(int(time.time())),
                    "webhook-signature": "v1,bm90IGEgc2lnbmF0dXJl",
                },
                method="POST",
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(forged, timeout=10)
            assert refused.value.code == 400
        finally:
            proc.terminate()
            out, _ = proc.communicate(timeout=10)
    assert [line for line in out.splitlines() if line.startswith("reminding")] == [
        "reminding user-4711: your turn in 0000000000000000"
    ]


def test_the_page_says_what_the_code_does():
    for kind in EVENT_TYPES:
        assert f"| `{kind}` |" in TEXT, kind
    for header in ("webhook-id", "webhook-timestamp", "webhook-signature"):
        assert f"| `{header}` |" in TEXT, header
    for flag in (
        "CARDTABLE_WEBHOOK_ALLOW_HTTP",
        "CARDTABLE_WEBHOOK_ALLOW_PRIVATE",
        "CARDTABLE_WEBHOOK_RETRY_SCALE",
    ):
        assert flag in TEXT, flag
    # The retry table is the schedule the workers keep.
    row = re.search(r"^\| next try in \|(.*)\|$", TEXT, re.M)
    assert row, "no retry table"
    seconds = {"s": 1, "min": 60, "h": 3600}
    shown = [int(n) * seconds[unit] for n, unit in re.findall(r"(\d+) (s|min|h)", row.group(1))]
    assert tuple(shown) == SCHEDULE
    assert f"±{JITTER:.0%}".replace("%", " %") in TEXT
    assert f"{len(SCHEDULE) + 1} attempts" in TEXT


def test_the_api_contract_and_readme_lead_to_the_page():
    for page in (ROOT / "docs" / "api.md", ROOT / "README.md"):
        assert re.search(r"\]\((docs/)?webhooks\.md\)", page.read_text(encoding="utf-8")), page.name
