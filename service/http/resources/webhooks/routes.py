"""An app's webhook endpoints and their deliveries, with the app's key (docs/webhooks.md).
Another app's endpoint or delivery answers 404, as one that never was."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service import errors
from service.http import examples
from service.http.calls import APP_KEY, current_caller, service
from service.http.extensions import Blueprint, declare_errors
from service.http.resources.webhooks.schemas import (
    CreatedWebhookSchema,
    CreateWebhookSchema,
    DeletedWebhookSchema,
    DeliveriesSchema,
    DeliverySchema,
    SendTestSchema,
    UpdateWebhookSchema,
    WebhookSchema,
    WebhooksSchema,
)
from service.infra.jobqueue import JobQueue
from service.notify import delivery_sends
from service.notify.delivery_record import DELIVERY_ID
from service.notify.url_guard import UrlPolicy
from service.notify.webhooks import Endpoint, example_notice

blp = Blueprint(
    "webhooks", __name__, url_prefix="/v1", description="Your app's webhook endpoints and their deliveries"
)
BODY_ERRORS = (400, 401, 413, 422, 429, 503)


@blp.after_request
def _never_stored(resp: Response) -> Response:
    # Each answer is one app's, and a new endpoint's holds its secret: no cache keeps it.
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _policy() -> UrlPolicy:
    config = service().config
    return UrlPolicy(config.WEBHOOK_ALLOW_HTTP, config.WEBHOOK_ALLOW_PRIVATE)


def own_endpoint(webhook_id: str) -> tuple[str, Endpoint]:
    """The app key's app and its endpoint `webhook_id`; 404 for one it does not have."""
    app = current_caller().require_app()
    endpoint = service().webhooks.get(app.id, webhook_id)
    if endpoint is None:
        raise errors.NotFound(f"no webhook endpoint {webhook_id!r} in this app")
    return app.id, endpoint


def _jobs() -> JobQueue:
    queue = service().repo.queue
    assert isinstance(queue, JobQueue), "the API is wired to RQ (build_service)"
    return queue


def _failing(endpoint: Endpoint) -> frozenset[str]:
    """The endpoint, when its deliveries are failing: its sends wait behind healthy endpoints'."""
    return frozenset({endpoint.id}) if endpoint.failing_since is not None else frozenset()


def _started(app_id: str, delivery_id: str) -> dict[str, Any]:
    delivery = service().deliveries.get(app_id, delivery_id)
    assert delivery is not None  # just written
    return delivery.public()


@blp.route("/webhooks")
class Webhooks(MethodView):
    @blp.arguments(CreateWebhookSchema(), example=examples.CREATE_WEBHOOK)
    @blp.response(201, CreatedWebhookSchema, example=examples.WEBHOOK_CREATED)
    @declare_errors(blp, 409, *BODY_ERRORS)
    @blp.doc(operationId="createWebhook", security=APP_KEY)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a webhook endpoint: your app's notices of the types in `events` are POSTed to it

        Answers the endpoint with its signing `secret` (`whsec_...`), shown only this once:
        verify every delivery with it (docs/webhooks.md, "Signatures"). The URL must be https
        and its host a public address: 422 `url_not_allowed` says why one is refused. An app
        has at most 20 endpoints (409 `conflict` past that).
        """
        app = current_caller().require_app()
        url = _policy().check(body["url"])
        endpoint = service().webhooks.create(app.id, url, body["events"], body.get("description", ""))
        return {**endpoint.public(), "secret": endpoint.secret}

    @blp.response(200, WebhooksSchema, example=examples.WEBHOOKS)
    @declare_errors(blp, 401, 429, 503)
    @blp.doc(operationId="listWebhooks", security=APP_KEY)
    def get(self) -> dict[str, Any]:
        """Your app's webhook endpoints, oldest first

        Each with the types it wants, whether it is enabled and, when disabled, why
        (`manual`, `gone`, `failing`). Secrets are never shown again.
        """
        app = current_caller().require_app()
        return {"webhooks": [e.public() for e in service().webhooks.list(app.id)]}


@blp.route("/webhooks/<webhook_id>")
class Webhook(MethodView):
    @blp.response(200, WebhookSchema, example=examples.WEBHOOK)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="getWebhook", security=APP_KEY)
    def get(self, webhook_id: str) -> dict[str, Any]:
        """One of your app's webhook endpoints

        Another app's endpoint answers 404 like one that never was.
        """
        return own_endpoint(webhook_id)[1].public()

    @blp.arguments(UpdateWebhookSchema(), example=examples.UPDATE_WEBHOOK)
    @blp.response(200, WebhookSchema, example=examples.WEBHOOK)
    @declare_errors(blp, 404, *BODY_ERRORS)
    @blp.doc(operationId="updateWebhook", security=APP_KEY)
    def patch(self, body: dict[str, Any], webhook_id: str) -> dict[str, Any]:
        """Change an endpoint's URL, types or description, or disable or enable it

        `enabled: false` stops its deliveries (`disabled_reason` `manual`); `enabled: true`
        starts them again and clears `disabled_reason`, also after the service disabled it
        (`gone`, `failing`), but not its failures: still failing, its next failed attempt
        disables it again. A new URL is checked as on creation (422 `url_not_allowed`).
        """
        app_id, endpoint = own_endpoint(webhook_id)
        if "url" in body:
            body["url"] = _policy().check(body["url"])
        return service().webhooks.update(app_id, endpoint.id, **body).public()

    @blp.response(200, DeletedWebhookSchema, example=examples.WEBHOOK_DELETED)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="deleteWebhook", security=APP_KEY)
    def delete(self, webhook_id: str) -> dict[str, Any]:
        """Delete an endpoint: nothing more is delivered to it

        Its deliveries still pending stop at their next attempt.
        """
        app_id, endpoint = own_endpoint(webhook_id)
        svc = service()
        if not svc.webhooks.delete(app_id, endpoint.id):
            raise errors.NotFound(f"no webhook endpoint {webhook_id!r} in this app")
        svc.deliveries.drop_endpoint(app_id, endpoint.id)
        return {"id": endpoint.id, "deleted": True}


@blp.route("/webhooks/<webhook_id>/test")
class SendTest(MethodView):
    @blp.arguments(SendTestSchema(), example=examples.TEST_WEBHOOK, required=False)
    @blp.response(202, DeliverySchema, example=examples.DELIVERY)
    @declare_errors(blp, 404, 409, *BODY_ERRORS)
    @blp.doc(operationId="testWebhook", security=APP_KEY)
    def post(self, body: dict[str, Any], webhook_id: str) -> dict[str, Any]:
        """Send an example notice to an endpoint now, marked `"test": true` in its data

        Of the body's `type`, else the first type the endpoint wants. Answers the delivery at
        once (202, `pending`); follow it in the endpoint's deliveries. 409 `conflict` for a
        disabled endpoint: enable it first. Tests and retries: 10 a minute an app (429
        `quota_exceeded`, `webhook_sends`); none while the app holds its most pending
        deliveries (429, `webhook_pending`).
        """
        app_id, endpoint = own_endpoint(webhook_id)
        if not endpoint.enabled:
            raise errors.Conflict(f"webhook endpoint {webhook_id} is disabled ({endpoint.disabled_reason})")
        svc = service()
        svc.deliveries.count_manual(app_id)
        notice = example_notice(app_id, body.get("type") or endpoint.events[0])
        (made,) = delivery_sends.start(
            svc.deliveries,
            _jobs(),
            svc.config.SWEEP_GRACE,
            app_id,
            [(endpoint.id, notice)],
            _failing(endpoint),
            delivery_id=svc.deliveries.new_id(),
            pending_limit=svc.config.WEBHOOK_PENDING,
            refuse=True,
        )
        return _started(app_id, made)


@blp.route("/webhooks/<webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.response(200, DeliveriesSchema, example=examples.DELIVERIES)
    @declare_errors(blp, 401, 404, 429, 503)
    @blp.doc(operationId="listDeliveries", security=APP_KEY)
    def get(self, webhook_id: str) -> dict[str, Any]:
        """An endpoint's last 100 deliveries, newest first

        Each with its status (`pending`, `delivered`, `failed`), attempts so far, the last
        attempt's HTTP status, latency and error, the next try while pending, and the first
        1 KB of the receiver's last answer.
        """
        app_id, endpoint = own_endpoint(webhook_id)
        return {"deliveries": [d.public() for d in service().deliveries.listed(app_id, endpoint.id)]}


@blp.route("/webhooks/<webhook_id>/deliveries/<delivery_id>/retry")
class RetryDelivery(MethodView):
    @blp.response(202, DeliverySchema, example=examples.DELIVERY)
    @declare_errors(blp, 401, 404, 409, 429, 503)
    @blp.doc(operationId="retryDelivery", security=APP_KEY)
    def post(self, webhook_id: str, delivery_id: str) -> dict[str, Any]:
        """Send a delivery again now, with its schedule of retries from the start

        Any delivery of the last 100, failed, delivered or still pending; it is sent with its
        first webhook-id, so a receiver that has it already can tell. 409 `conflict` for a
        disabled endpoint: enable it first. Counted with the tests: 10 a minute an app (429
        `quota_exceeded`, `webhook_sends`); none while the app holds its most pending
        deliveries (429, `webhook_pending`).
        """
        app_id, endpoint = own_endpoint(webhook_id)
        svc = service()
        known = DELIVERY_ID.fullmatch(delivery_id)
        delivery = svc.deliveries.get(app_id, delivery_id) if known else None
        if delivery is None or delivery.endpoint != endpoint.id:
            raise errors.NotFound(f"no delivery {delivery_id!r} of webhook endpoint {webhook_id}")
        if not endpoint.enabled:
            raise errors.Conflict(f"webhook endpoint {webhook_id} is disabled ({endpoint.disabled_reason})")
        svc.deliveries.count_manual(app_id)
        sent = delivery_sends.retry(
            svc.deliveries,
            _jobs(),
            svc.config.SWEEP_GRACE,
            app_id,
            delivery.id,
            failing=endpoint.failing_since is not None,
            pending_limit=svc.config.WEBHOOK_PENDING,
        )
        if not sent:
            raise errors.NotFound(f"no delivery {delivery_id!r} of webhook endpoint {webhook_id}")
        return _started(app_id, delivery.id)
