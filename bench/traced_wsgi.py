"""The service as service/wsgi.py serves it, but tracing every request into an in-memory
exporter (bench/api.py --variants traced): what tracing costs the API, without a collector's
network in the measurement. The exporter keeps at most the last batch of spans, so memory
stays flat over a long run."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from service.infra import tracing  # noqa: E402


class RecentSpans(InMemorySpanExporter):
    """The SDK's in-memory exporter, emptied once it holds 10,000 spans."""

    def export(self, spans):
        if len(self._finished_spans) > 10_000:
            self.clear()
        return super().export(spans)


# As setup_from_env does with an OTLP exporter: the batch processor, the exporter behind it.
provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(RecentSpans()))
tracing.enable(provider)

from service.wsgi import app  # noqa: E402, F401  (made after enable: its requests are traced)
