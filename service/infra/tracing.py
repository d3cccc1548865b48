"""OpenTelemetry traces: a move's request, its Redis calls, the bot's job it wakes and that job's
commit, in one trace (docs/architecture.md, "Logs and traces").

Off unless the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
is set and the optional extra is installed (`pip install 'cardtable[otel]'`); the exporter then
reads the other standard `OTEL_*` variables itself (headers, timeout, `OTEL_SERVICE_NAME`).
Spans: every request (Flask's instrumentation), every Redis command (redis-py's), every RQ job
(here: RQ has no instrumentation of its own), each commit, and each webhook delivery's POST.
The trace context crosses the queue in the job's RQ meta (W3C `traceparent`), and reaches a
webhook receiver in the same header.

With tracing off every function here costs an attribute test: `span` hands back one shared
empty context manager, `inject` returns at once.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from service.infra import logs

if TYPE_CHECKING:  # the optional `otel` extra: imported only while tracing is on
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Tracer

log = logging.getLogger("cardtable.tracing")

_NOTHING: AbstractContextManager[None] = nullcontext()


class _State:
    tracer: Tracer | None = None  # while tracing is on
    provider: TracerProvider | None = None


_state = _State()


def wanted() -> bool:
    """Whether the environment asks for traces (the standard OTLP endpoint variables)."""
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def setup_from_env(service_name: str) -> bool:
    """Turn tracing on when the environment asks for it; True if on. A process calls it once,
    after any fork (gunicorn's workers call it from create_app): the exporter's thread does
    not survive a fork."""
    if _state.tracer is not None or not wanted():
        return _state.tracer is not None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but tracing is not installed: pip install 'cardtable[otel]'"
        )
        return False
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are the SDK's to read; the process's
    # kind names it otherwise (an attribute given here would win over theirs).
    named = os.environ.get("OTEL_SERVICE_NAME")
    provider = TracerProvider(resource=Resource.create({} if named else {"service.name": service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    enable(provider)
    traces = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    log.info("tracing to %s", traces or os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"])
    return True


def enable(provider: Any) -> None:
    """Trace into `provider` (an SDK TracerProvider; tests give one with an in-memory
    exporter): Redis commands from now on, and the Flask apps made after this."""
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    if _state.tracer is not None:
        disable()
    RedisInstrumentor().instrument(tracer_provider=provider)
    _state.provider = provider
    _state.tracer = provider.get_tracer("cardtable")


def disable() -> None:
    """Stop tracing (tests): Redis commands are no longer wrapped."""
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    if _state.tracer is None:
        return
    RedisInstrumentor().uninstrument()
    _state.tracer = _state.provider = None


def enabled() -> bool:
    return _state.tracer is not None


def instrument_app(app: Any) -> None:
    """A span for every request of `app`, when tracing is on."""
    if _state.tracer is None:
        return
    from opentelemetry.instrumentation.flask import FlaskInstrumentor

    # /healthz, /readyz and /metrics are probed every few seconds: spans of nothing.
    FlaskInstrumentor.instrument_app(
        app, tracer_provider=_state.provider, excluded_urls="healthz,readyz,metrics"
    )


def span(name: str, **attributes: Any) -> AbstractContextManager[Any]:
    """A span of this process's work (a commit), child of the current one."""
    if _state.tracer is None:
        return _NOTHING
    return _state.tracer.start_as_current_span(name, attributes=_attributes(attributes))


def redis_span(commands: list[tuple[Any, ...]]) -> AbstractContextManager[Any]:
    """A span of one round trip the store makes on its own connections (service/matches/store.py),
    named like redis-py's instrumentation names its spans: the commands, never their values."""
    if _state.tracer is None:
        return _NOTHING
    from opentelemetry.trace import SpanKind

    names = " ".join(c[0].decode() if isinstance(c[0], bytes) else str(c[0]) for c in commands)
    return _state.tracer.start_as_current_span(
        names, kind=SpanKind.CLIENT, attributes={"db.system": "redis", "db.statement": names}
    )


def _attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {f"cardtable.{k}": v for k, v in attributes.items() if v is not None}


def inject(carrier: MutableMapping[str, Any]) -> None:
    """Put the current trace context into `carrier` (a job's meta, a webhook's headers)."""
    if _state.tracer is None:
        return
    from opentelemetry import propagate

    propagate.inject(carrier)


def job_meta() -> dict[str, Any] | None:
    """What a job enqueued now carries in its RQ meta: the request id its lines will log
    (service/infra/logs.py) and the trace it continues. None when there is nothing to carry."""
    meta = logs.carried()
    inject(meta)
    return meta or None


@contextmanager
def job_span(job: Any) -> Iterator[None]:
    """The span of one RQ job, continuing the trace of whoever enqueued it."""
    if _state.tracer is None:
        yield
        return
    from opentelemetry import propagate
    from opentelemetry.trace import SpanKind

    parent = propagate.extract(job.meta or {})
    attributes = {"messaging.system": "rq", "messaging.message.id": job.id, "rq.origin": job.origin}
    with _state.tracer.start_as_current_span(
        f"rq {job.func_name}", context=parent, kind=SpanKind.CONSUMER, attributes=attributes
    ):
        yield
