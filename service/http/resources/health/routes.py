"""Liveness, readiness and Prometheus metrics."""

import hmac

import marshmallow as ma
from flask import Response, current_app
from flask.views import MethodView

from service.errors import ApiError
from service.http import examples
from service.http.extensions import Blueprint, Schema, bearer_or_none, declare_errors

blp = Blueprint("service", __name__, description="Health and metrics")


class HealthSchema(Schema):
    """A probe's answer: `ok` (the process is up), `ready`, or a reason it is not."""

    status = ma.fields.String(required=True, metadata={"example": "ok"})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema, example=examples.HEALTHY)
    @blp.doc(operationId="healthz")
    def get(self) -> dict[str, str]:
        """The process is up

        Needs nothing else (not Redis): a liveness probe. Never rate limited.
        """
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthSchema, example=examples.READY)
    @blp.alt_response(
        503,
        schema=HealthSchema,
        description="Redis or the queue is unreachable",
        example=examples.NOT_READY,
    )
    @blp.doc(operationId="readyz")
    def get(self) -> dict[str, str]:
        """Redis and the job queue are reachable

        A readiness probe: 503 `not_ready` while either is away. Never rate limited.
        """
        svc = current_app.extensions["cardtable"]

        try:
            svc.trips.ping()
            svc.rq.ping()
        except Exception as e:  # any failure to reach Redis means not ready
            raise ApiError(503, "not_ready", f"not ready: {e.__class__.__name__}") from e
        return {"status": "ready"}


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.response(200, content_type="text/plain", example=examples.METRICS)
    # The counters live in Redis: while it is away the scrape is a 503.
    @declare_errors(blp, 401, 429, 503)
    @blp.doc(security=[{}, {"bearer": []}])
    @blp.doc(operationId="metrics")
    def get(self) -> Response:
        """Prometheus text metrics

        Counters live in Redis, so every API process shows the same figures (docs/api.md,
        "Metrics"). When the server sets `CARDTABLE_METRICS_TOKEN`, a scrape needs
        `Authorization: Bearer <that token>` (401 without it) and is never rate limited; without
        it `/metrics` is rate limited like any call (429 `rate_limited`).
        """
        from service.http.metrics import render

        expected = current_app.extensions["cardtable"].config.METRICS_TOKEN
        if expected and not hmac.compare_digest((bearer_or_none() or "").encode(), expected.encode()):
            raise ApiError(
                401, "invalid_token", "/metrics needs the metrics token: Authorization: Bearer <token>"
            )
        return Response(render(current_app.extensions["cardtable"]), mimetype="text/plain; version=0.0.4")
