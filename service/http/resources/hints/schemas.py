"""The hint's response schema (part of the OpenAPI contract)."""

import marshmallow as ma

from service.http.extensions import Schema
from service.http.resources.matches.fields import AsIs


class HintSchema(Schema):
    """The pro bot's action for your seat now, why, and the hint count after this one."""

    action = AsIs(
        "ActionSchema",
        required=True,
        allow_none=True,
        metadata={"description": "the action the pro bot would take now, postable as it is to /actions"},
    )
    reason = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "why, in words, where the bot has a reason"}
    )
    seat = ma.fields.Integer(required=True)
    hints_used = ma.fields.Integer(
        required=True, metadata={"description": "hints this seat has used, this one included"}
    )
    version = ma.fields.Integer(
        required=True, metadata={"description": "the match version after counting this hint"}
    )
