"""Liveness, readiness and Prometheus metrics."""

import marshmallow as ma
from flask import Response, current_app
from flask.views import MethodView

from service.extensions import Blueprint, Schema

blp = Blueprint("service", __name__, description="Health and metrics")


class HealthSchema(Schema):
    status = ma.fields.String(required=True, metadata={"example": "ok"})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(operationId="healthz")
    def get(self):
        """The process is up"""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema, description="Redis or the queue is unreachable")
    @blp.doc(operationId="readyz")
    def get(self):
        """Redis and the job queue are reachable"""
        svc = current_app.extensions["cardtable"]
        from service.matches import ApiError

        try:
            svc.store.ping()
            len(svc.queue.queue)
        except Exception as e:  # any failure to reach Redis means not ready
            raise ApiError(503, "not_ready", f"not ready: {e.__class__.__name__}") from e
        return {"status": "ready"}


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.response(200, content_type="text/plain")
    @blp.doc(operationId="metrics")
    def get(self):
        """Prometheus text metrics"""
        from service.metrics import render

        return Response(render(current_app.extensions["cardtable"]), mimetype="text/plain; version=0.0.4")
