"""schemathesis against a live service (gunicorn, its own Redis and RQ worker) from the committed
openapi/openapi.json, with every check the installed schemathesis has: no 5xx, every response
fits its schema, status codes, content types and headers; what the schema admits is taken and
what it does not is refused; required headers, methods and `Allow`; the token's enforcement.
The few exclusions are each one check for named operations, with its reason (`EXCLUDED`); a
move may be refused by the match it is sent to (`STATUSES`, held to its reasons by a check of
tests/schemathesis_hooks.py).

Bounded so CI spends about a minute or two here: a fixed seed, 25 examples per operation, every
phase (examples, coverage, fuzzing, and stateful runs that follow the spec's links from a
created match to join, view, act and the rest).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

SPEC = os.path.join(ROOT, "openapi", "openapi.json")

# The calls whose token the stateful phase takes from a link (seat 0's on create, the joiner's
# on join): docs/api.md, "Generated clients".
LINKED_TOKEN_CALLS = ["playAction", "startRound", "endMatch", "leaveMatch", "inviteToSeat", "getHistory"]

# (check, operations, phase or None for all, why). Nothing else is left out.
EXCLUDED = [
    (
        "ignored_auth",
        LINKED_TOKEN_CALLS,
        "stateful",
        # schemathesis counts a header filled in from a link as generated, so a seat's real
        # token answered 200 reads as made-up credentials accepted. The other phases still
        # check that a missing or made-up token is refused (401), and so does
        # tests/test_contract_enforced.py.
        "a link's real token is taken for a generated one",
    ),
]
# (check, operations, statuses taken besides the check's own, why).
STATUSES = [
    (
        "positive_data_acceptance",
        ["playAction"],
        ["412", "422"],
        # A move the schema admits (one of some game's actions, with an If-Match of the right
        # form) can still be refused by the match it is sent to: the rules forbid it now (422
        # illegal_action), it is another game's move (422 validation_error: Action is any
        # game's), or If-Match names a version the match is not at (412). No schema of a body
        # says whose turn it is, what the hand holds or which game the match is.
        # tests/schemathesis_hooks.py's move_refused_by_the_match_only holds each 422 to those
        # reasons: a move of the match's own game's schema is never refused as malformed.
        "a schema-valid move may break the rules, fit another game, or be stale",
    ),
]
# Not enabled: max_response_time, the one check with a limit to set. Tests here assert no
# timings (two shared cores), and long-polls and streams wait by design.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def live_service(tmp_path):
    """`cardtable serve` on a free port with an embedded Redis and worker; rate limit off (the
    fuzzer sends hundreds of requests a second from one address)."""
    port = free_port()
    env = dict(os.environ, CARDTABLE_RATE_LIMIT="0", CARDTABLE_LOG_LEVEL="WARNING")
    # The fuzzer follows listed match ids into long-polls and streams: keep each one short, or
    # every such request waits out schemathesis' own 10 s read timeout.
    env.update(CARDTABLE_MAX_WAIT="1", CARDTABLE_STREAM_SECONDS="2")
    env.pop("REDIS_URL", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-m", "service.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--data-dir", str(tmp_path / "data"), "--workers", "1", "--threads", "4"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, "cardtable serve exited"
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            pass
        assert time.monotonic() < deadline, "cardtable serve did not become ready"
        time.sleep(0.3)
    yield url
    # serve stops gunicorn, the worker and Redis itself on SIGTERM.
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def all_checks() -> list[str]:
    """Every check of the installed schemathesis (its CLI's `--checks` choices but `all`)."""
    import schemathesis.cli  # noqa: F401  (registers the built-in checks)
    from schemathesis.checks import CHECKS

    return CHECKS.get_all_names()


def config_file(path) -> str:
    """schemathesis.toml: every check on, and the exclusions of `EXCLUDED`."""
    lines = [f"[checks.{name}]\nenabled = true\n" for name in all_checks()]
    for check, operations, phase, _ in EXCLUDED:
        assert check in all_checks(), check
        where = f"phases.{phase}.checks" if phase else "checks"
        lines.append(f"[[operations]]\ninclude-operation-id = {json.dumps(operations)}")
        lines.append(f"{where}.{check}.enabled = false\n")
    for check, operations, statuses, _ in STATUSES:
        assert check in all_checks(), check
        taken = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx", *statuses]
        lines.append(f"[[operations]]\ninclude-operation-id = {json.dumps(operations)}")
        lines.append(f"checks.{check}.expected-statuses = {json.dumps(taken)}\n")
    path.write_text("\n".join(lines), encoding="utf-8")
    return str(path)


def test_every_check_is_run_but_the_written_exclusions(tmp_path):
    checks = all_checks()
    assert len(checks) >= 14 and {
        "positive_data_acceptance",
        "ignored_auth",
        "allow_header_conformance",
    } <= set(checks)
    text = open(config_file(tmp_path / "schemathesis.toml"), encoding="utf-8").read()
    assert all(f"[checks.{name}]\nenabled = true" in text for name in checks)
    assert text.count("enabled = false") == len(EXCLUDED)


def test_schemathesis_finds_no_failure_in_the_committed_contract(live_service, tmp_path):
    # One worker thread: on Python 3.11 the ast module's recursion bookkeeping is shared by all
    # threads, so two threads compiling at once (hypothesis does, for its strategies) fail with
    # "SystemError: AST constructor recursion depth mismatch" (seen in CI with --workers 2);
    # the deeper recursion limit is for the deeply nested strategies of the Action schema.
    launch = "import sys, schemathesis.cli; sys.setrecursionlimit(20000); schemathesis.cli.schemathesis()"
    # The checks come from the config file alone: a `--checks` on the command line would win
    # over its per-operation exclusions.
    config = config_file(tmp_path / "schemathesis.toml")
    command = [sys.executable, "-c", launch, "--config-file", config, "run", SPEC, "--url", live_service]
    command += ["--max-examples", "25", "--seed", "2026", "--workers", "1"]
    command += ["--no-color", "--generation-database", "none"]
    # The body filter and the moves' check of tests/schemathesis_hooks.py.
    env = dict(os.environ, SCHEMATHESIS_HOOKS="tests.schemathesis_hooks")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=480)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-12000:]
    counts = re.search(r"Selected: (\d+)/\d+\s+Tested: (\d+)", out)
    assert counts and counts.group(1) == counts.group(2), out[-3000:]
    # The stateful phase ran and followed links from a created match.
    links = re.search(r"API Links:\s+(\d+) covered", out)
    assert links and int(links.group(1)) >= 2, out[-3000:]
