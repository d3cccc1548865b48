"""docs/api.md is the contract: its examples are the OpenAPI examples (which
tests/test_contract_examples.py checks against schemas and live answers), every endpoint has
one, and its table of errors names every `error` id the code can give, with its status."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import jsonschema_rs

import engines.errors
import service.errors
from service.http.extensions import ERROR_IDS
from service.http.statuses import STATUS
from tests.test_contract_examples import DOC, operations
from tests.test_docs_guides import matches

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)


def labelled_blocks() -> dict[tuple[str, str], tuple[str, str]]:
    """(operationId, "request" or status) → (kind, body) of every ```json/```text block so labelled."""
    out = {}
    for info, body in FENCE.findall(PAGE.read_text(encoding="utf-8")):
        parts = info.split()
        if len(parts) == 3 and parts[0] in ("json", "text"):
            key = (parts[1], parts[2])
            assert key not in out, f"two blocks for {key}"
            out[key] = (parts[0], body)
    return out


def documented_examples() -> dict[tuple[str, str], object]:
    out = {}
    for _, _, op in operations():
        for content in op.get("requestBody", {}).get("content", {}).values():
            if "example" in content:
                out[(op["operationId"], "request")] = content["example"]
        for status, response in op["responses"].items():
            if status.startswith("2"):
                for content in response.get("content", {}).values():
                    if "example" in content:
                        out[(op["operationId"], status)] = content["example"]
    return out


def test_every_endpoint_has_its_request_and_answer_examples_in_the_page():
    blocks = labelled_blocks()
    for _, _, op in operations():
        name = op["operationId"]
        if "requestBody" in op:
            assert (name, "request") in blocks, f"docs/api.md has no request example of {name}"
        assert any(key[0] == name and key[1].startswith("2") for key in blocks), (
            f"docs/api.md has no answer example of {name}"
        )


def test_each_example_of_the_page_is_the_openapi_example_of_its_endpoint():
    expected = documented_examples()
    blocks = labelled_blocks()
    assert len(blocks) >= 20
    for key, (kind, body) in blocks.items():
        assert key in expected, f"docs/api.md shows {key}, which the OpenAPI document has no example of"
        if kind == "text":
            # A fenced block cannot end in blank lines; the rest is the same.
            assert body.rstrip("\n") == expected[key].rstrip("\n"), key
        else:
            # "…" stands for what the page leaves out; everything else is the same.
            assert matches(json.loads(body), expected[key]), f"docs/api.md's {key} is not the OpenAPI example"


def test_the_page_example_check_refuses_a_changed_value():
    kind, body = labelled_blocks()[("getHint", "200")]
    changed = json.loads(body) | {"hints_used": 7}
    assert not matches(changed, documented_examples()[("getHint", "200")])


def test_the_error_example_of_the_page_fits_the_error_schema():
    section = PAGE.read_text(encoding="utf-8").split("\n## Errors\n", 1)[1]
    info, body = FENCE.findall(section)[0]
    assert info.strip() == "json"
    schema = {"$ref": "#/components/schemas/Error", "components": DOC["components"]}
    assert jsonschema_rs.Draft202012Validator(schema).is_valid(json.loads(body))


def error_ids_of_the_code() -> set[tuple[str, int]]:
    """(id, status) of every error the service and the engines can answer with."""
    found = {(error, status) for status, error in ERROR_IDS.items() if status != 500}
    found.add(("internal_error", 500))
    literal = re.compile(r'(?:ApiError|error_response)\(\s*(\d{3}),\s*"([a-z_]+)"', re.S)
    for path in (ROOT / "service").rglob("*.py"):
        found |= {(error, int(status)) for status, error in literal.findall(path.read_text(encoding="utf-8"))}
    # Domain and engine errors carry their id; their status is service/http/statuses.py's one table.
    for module, base in (
        (service.errors, service.errors.DomainError),
        (engines.errors, engines.errors.EngineError),
    ):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, base):
                found.add((cls.error, next(STATUS[c] for c in cls.__mro__ if c in STATUS)))
    return found


def error_table() -> dict[str, set[int]]:
    section = PAGE.read_text(encoding="utf-8").split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| ([0-9, ]+) \| (.+) \|$", section, re.M)
    return {error: {int(s) for s in statuses.split(",")} for error, statuses, _ in rows}


def test_every_error_id_the_code_gives_is_in_the_table_with_its_status():
    table = error_table()
    code = error_ids_of_the_code()
    assert len(code) >= 15
    missing = sorted(f"{error} {status}" for error, status in code if status not in table.get(error, set()))
    assert missing == [], "docs/api.md, Errors, lacks: " + ", ".join(missing)
    # Nor does the table name an id the code never gives.
    assert set(table) == {error for error, _ in code}
