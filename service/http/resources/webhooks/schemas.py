"""Schemas of webhook endpoints and deliveries (docs/webhooks.md)."""

import marshmallow as ma

from service.http.extensions import Schema
from service.notify.delivery_record import STATUSES
from service.notify.url_guard import MAX_URL
from service.notify.webhooks import DISABLED_REASONS, EVENT_TYPES

MAX_DESCRIPTION = 200


def _events(required: bool) -> ma.fields.List[str]:
    return ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(EVENT_TYPES)),
        required=required,
        validate=ma.validate.Length(min=1, max=len(EVENT_TYPES)),
        metadata={"description": 'the notice types this endpoint gets (docs/webhooks.md, "Events")'},
    )


def _url(required: bool) -> ma.fields.String:
    return ma.fields.String(
        required=required,
        validate=ma.validate.Length(min=1, max=MAX_URL),
        metadata={
            "description": "where deliveries are POSTed: https, on a public address (docs/webhooks.md)",
            "example": "https://game.example.com/hooks/cardtable",
        },
    )


def _description() -> ma.fields.String:
    return ma.fields.String(
        validate=ma.validate.Length(max=MAX_DESCRIPTION),
        metadata={"description": "your note on the endpoint"},
    )


class CreateWebhookSchema(Schema):
    """A new endpoint: its URL and the notice types it wants."""

    url = _url(required=True)
    events = _events(required=True)
    description = _description()


class UpdateWebhookSchema(Schema):
    """What to change of an endpoint; `enabled: true` also clears why it was disabled."""

    url = _url(required=False)
    events = _events(required=False)
    description = _description()
    enabled = ma.fields.Boolean(
        metadata={"description": "false stops its deliveries; true starts them again"}
    )


class WebhookSchema(Schema):
    """A webhook endpoint of the app."""

    id = ma.fields.String(required=True, metadata={"description": "wh_ and 16 hex digits"})
    url = ma.fields.String(required=True)
    events = ma.fields.List(ma.fields.String(validate=ma.validate.OneOf(EVENT_TYPES)), required=True)
    description = ma.fields.String(required=True)
    enabled = ma.fields.Boolean(required=True)
    disabled_reason = ma.fields.String(
        required=True,
        allow_none=True,
        validate=ma.validate.OneOf(DISABLED_REASONS),
        metadata={
            "description": "null while enabled; `manual` (you disabled it), `gone` (it answered 410) or "
            "`failing` (its deliveries failed for 24 h with no success)"
        },
    )
    created = ma.fields.Float(required=True, metadata={"description": "Unix time it was made"})


class CreatedWebhookSchema(WebhookSchema):
    """A new endpoint, with its signing secret (shown only this once)."""

    secret = ma.fields.String(
        required=True,
        metadata={"description": "the Standard Webhooks signing secret, whsec_<base64>: keep it; shown once"},
    )


class WebhooksSchema(Schema):
    """The app's webhook endpoints, oldest first."""

    webhooks = ma.fields.List(ma.fields.Nested(WebhookSchema), required=True)


class DeletedWebhookSchema(Schema):
    """The endpoint is gone, and with it the deliveries not yet made."""

    id = ma.fields.String(required=True)
    deleted = ma.fields.Boolean(required=True)


class SendTestSchema(Schema):
    """Which type of example notice to send (by default the first the endpoint wants)."""

    type = ma.fields.String(validate=ma.validate.OneOf(EVENT_TYPES))


class DeliverySchema(Schema):
    """One notice to one endpoint, and how its attempts went."""

    id = ma.fields.String(required=True, metadata={"description": "dl_ and 24 hex digits"})
    message = ma.fields.String(
        required=True, metadata={"description": "the notice's id: the webhook-id header of every attempt"}
    )
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(EVENT_TYPES))
    created = ma.fields.Float(required=True, metadata={"description": "Unix time it was made"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(STATUSES))
    attempts = ma.fields.Integer(required=True, metadata={"description": "attempts made so far"})
    status_code = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the last attempt's HTTP status; null: none came"},
    )
    latency_ms = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "how long the last attempt took"}
    )
    next_try = ma.fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Unix time of the next attempt while pending"},
    )
    response = ma.fields.String(
        required=True, metadata={"description": "the first 1 KB of the receiver's last answer"}
    )
    error = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "why the last attempt got no answer (timeout, refused address, ...)"},
    )


class DeliveriesSchema(Schema):
    """An endpoint's last 100 deliveries, newest first."""

    deliveries = ma.fields.List(ma.fields.Nested(DeliverySchema), required=True)
