"""Traces (service/infra/tracing.py): one trace from a move's request through the bot's RQ job it wakes to
that job's commit, recorded by the OpenTelemetry SDK's in-memory exporter.

The API (a Flask app of this process) and a real RQ worker (CardtableWorker, which runs its jobs
in-process) both trace into the same exporter; the worker takes the bot's job from a queue of
this test's own, against the run's private Redis."""

from __future__ import annotations

import uuid

import pytest
import redis
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from service.config import Config
from service.http.app import create_app
from service.infra import tracing
from service.infra.jobqueue import make_queue, queue_names
from tests.webhook_helpers import receiver
from workers import jobs
from workers.worker import CardtableWorker


@pytest.fixture
def traced(config, monkeypatch):
    """An API app and the worker's job service traced into an in-memory exporter, on a queue of
    their own; tracing off again afterwards."""
    queue = f"trace-{uuid.uuid4().hex[:8]}"
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    monkeypatch.setenv("REDIS_URL", config.REDIS_URL)
    monkeypatch.setenv("CARDTABLE_QUEUE", queue)
    monkeypatch.setenv("CARDTABLE_BOT_DELAY", "0")
    jobs.service.cache_clear()  # the worker's service, built from this environment
    app = create_app(Config(**{**config.__dict__, "QUEUE": queue}))
    try:
        yield app.test_client(), queue, exporter
    finally:
        tracing.disable()
        jobs.service.cache_clear()


def _work_once(url: str, queue: str) -> None:
    connection = redis.Redis.from_url(url)
    queues = [make_queue(connection, n) for n in queue_names(queue)]
    worker = CardtableWorker(queues, connection=connection, serializer=queues[0].serializer)
    worker.work(burst=True, max_jobs=1, logging_level="WARNING")


def test_one_trace_runs_from_a_move_through_the_bots_job_to_its_commit(traced, config):
    client, queue, exporter = traced
    created = client.post(
        "/v1/matches",
        json={"game": "spades", "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3},
    ).get_json()
    match_id, token = created["id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # Bots bid before seat 0 when the deal puts it later: let them, until seat 0 is to bid.
    for _ in range(4):
        view = client.get(f"/v1/matches/{match_id}", headers=auth).get_json()
        if view["turn"]["seat"] == 0:
            break
        _work_once(config.REDIS_URL, queue)
    exporter.clear()

    moved = client.post(f"/v1/matches/{match_id}/actions", json={"type": "bid", "tricks": 3}, headers=auth)
    assert moved.status_code == 200, moved.get_data(as_text=True)
    version = moved.get_json()["version"]
    _work_once(config.REDIS_URL, queue)

    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    (request,) = [s for s in spans if s.kind == SpanKind.SERVER and s.name.endswith("/actions")]
    trace = [s for s in spans if s.context.trace_id == request.context.trace_id]

    def ancestors(span):
        while span.parent is not None and span.parent.span_id in by_id:
            span = by_id[span.parent.span_id]
            yield span

    (job,) = [s for s in trace if s.name == "rq workers.jobs.bot_turn"]
    assert job.kind == SpanKind.CONSUMER
    assert job.attributes["messaging.message.id"] == f"bot-{match_id}-{version}"
    commits = {s.attributes["cardtable.version"]: s for s in trace if s.name == "match commit"}
    # The request's commit is under the request, and enqueued the job; the bot's commit is
    # under the job.
    assert request in ancestors(commits[version])
    assert job.parent.span_id == commits[version].context.span_id
    assert job in ancestors(commits[version + 1])
    assert commits[version + 1].attributes["cardtable.match_id"] == match_id
    # Redis commands are spans of the same trace, on both sides of the queue: redis-py's (the
    # job's enqueue) and the store's own round trips (the match's load and commit script).
    redis_spans = [s for s in trace if s.kind == SpanKind.CLIENT and s.attributes.get("db.system") == "redis"]
    assert any(request in ancestors(s) for s in redis_spans)
    assert any(job in ancestors(s) for s in redis_spans)
    assert any("EVALSHA" in s.name.split() and commits[version + 1] in ancestors(s) for s in redis_spans)


def test_a_webhook_post_carries_its_traces_context_to_the_receiver(traced, config):
    from service.notify.delivery_record import Delivery
    from service.notify.webhooks import Endpoint
    from workers.webhooks import attempt

    app = create_app(Config(**{**config.__dict__, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True}))
    svc = app.extensions["cardtable"]
    _, _, exporter = traced
    with receiver(200) as hook:
        endpoint = Endpoint(
            "ep_1", hook.url, ["turn.started"], "", 0.0, "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        )
        body = '{"type": "turn.started", "timestamp": "2026-12-05T09:30:12.345Z", "data": {}}'
        delivery = Delivery(
            "dl_1", "ep_1", "m-3-turn.started", "turn.started", 0.0, "pending", 0, 0, 0, None, None, None, "",
            None, body,
        )  # fmt: skip
        with tracing.span("rq workers.webhooks.deliver"):
            outcome = attempt(svc, endpoint, delivery)
        (got,) = hook.wait_for(1)
    assert outcome.status == 200
    (post,) = [s for s in exporter.get_finished_spans() if s.name == "webhook POST"]
    version, trace_id, span_id, flags = got.headers["traceparent"].split("-")
    assert (int(trace_id, 16), int(span_id, 16)) == (post.context.trace_id, post.context.span_id)


def test_tracing_stays_off_without_an_otlp_endpoint(monkeypatch):
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    assert tracing.setup_from_env("cardtable-test") is False
    assert not tracing.enabled()
    carrier: dict = {}
    tracing.inject(carrier)
    assert carrier == {}
