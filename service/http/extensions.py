"""Api, Blueprint and Schema subclassed once, with the one error shape of docs/api.md."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import marshmallow as ma
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from flask import Response, jsonify, request
from flask_smorest import Api as BaseApi
from flask_smorest import Blueprint as BaseBlueprint
from werkzeug.exceptions import HTTPException

from service.errors import ApiError
from service.http.arguments import loading

# A view function; F: one that a decorator which only documents it hands back as it was.
View = Callable[..., Any]
F = TypeVar("F", bound=View)

# The machine id (docs/api.md) for each status that has no more specific one.
ERROR_IDS = {
    400: "bad_request",
    401: "invalid_token",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "version_conflict",
    413: "payload_too_large",
    415: "bad_request",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


class Schema(ma.Schema):
    class Meta:
        ordered = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # apispec takes a schema's description from Meta, not from its docstring: the docstring
        # is carried over, so /docs describes every schema in the words the code has.
        super().__init_subclass__(**kwargs)
        doc = cls.__dict__.get("__doc__")
        if doc:
            # a subclass of Meta made at run time, which mypy cannot follow
            cls.Meta = type("Meta", (cls.Meta,), {"description": inspect.cleandoc(doc)})  # type: ignore[misc,assignment]

    @classmethod
    def json_schema_extra(cls) -> dict[str, Any]:
        """JSON Schema keywords of the whole object that the fields cannot say (a rule between
        two fields, one game's bounds), added to the schema's component by `ContractPlugin`;
        the schema's own checks (or the engine's) enforce the same."""
        return {}


# Schemas loaded from a JSON request body, and those nested in them (`Blueprint.arguments`).
_BODIES: set[type[ma.Schema]] = set()


def _note_body(schema: ma.Schema) -> None:
    _BODIES.add(type(schema))
    for field in schema.fields.values():
        inner = field.inner if isinstance(field, ma.fields.List) else field
        if isinstance(inner, ma.fields.Nested) and isinstance(inner.schema, ma.Schema):
            _note_body(inner.schema)


class ContractPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, saying in each component what the server enforces.

    - A request body's schema that refuses unknown fields (marshmallow's RAISE, the default)
      gets `additionalProperties: false`. apispec would say so only for schemas without a
      description, and every schema here has one; answers are left open, since clients must
      ignore fields they do not know (docs/api.md, "API stability").
    - `Schema.json_schema_extra` is merged in.
    """

    # `_` as MarshmallowPlugin names it (apispec passes it by position), not BasePlugin's `definition`
    def schema_helper(  # type: ignore[override]
        self, name: str, _: dict[str, Any], schema: Any = None, **kwargs: Any
    ) -> dict[str, Any] | None:
        # MarshmallowPlugin's own is unannotated
        json_schema: dict[str, Any] | None = super().schema_helper(  # type: ignore[no-untyped-call]
            name, _, schema=schema, **kwargs
        )
        if json_schema is None:
            return None
        instance = resolve_schema_instance(schema)
        if type(instance) in _BODIES and instance.unknown == ma.RAISE:
            json_schema["additionalProperties"] = False
        if isinstance(instance, Schema):
            _merge(json_schema, instance.json_schema_extra())
        return json_schema

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        """A text answer without a schema (the event streams, /metrics) is a string: said so, a
        generated client types its body."""
        super().operation_helper(path=path, operations=operations, **kwargs)
        for operation in (operations or {}).values():
            for response in operation.get("responses", {}).values():
                for media, content in (
                    (response.get("content") or {}).items() if isinstance(response, dict) else ()
                ):
                    if media.startswith("text/") and "schema" not in content:
                        content["schema"] = {"type": "string"}


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    """`extra` added to `into`, object into object (a field's keywords join its own); a key
    whose value in `extra` is None is taken out (a schema whose component is a union of named
    schemas drops the fields it documents them with: service/http/contract.py)."""
    for key, value in extra.items():
        if value is None:
            into.pop(key, None)
        elif isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


class ErrorSchema(Schema):
    """The one error shape of every refusal (docs/api.md, "Errors"): `error` is the machine id
    to branch on, `message` is for people."""

    code = ma.fields.Integer(required=True, metadata={"description": "HTTP status"})
    status = ma.fields.String(required=True, metadata={"description": "HTTP reason phrase"})
    message = ma.fields.String(required=True, metadata={"description": "What went wrong, for people"})
    error = ma.fields.String(required=True, metadata={"description": "Machine id, e.g. illegal_action"})
    errors = ma.fields.Dict(
        metadata={
            "description": "Field details for validation errors",
            # By location (json, headers, query), then field: messages or a nested part.
            "additionalProperties": {
                "anyOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"$ref": "#/components/schemas/ValidationMessages"},
                ]
            },
        }
    )
    quota = ma.fields.String(
        metadata={"description": "With quota_exceeded: the quota that refused, e.g. bot_matches"}
    )


# One typical message per status, for the examples of the declared error answers.
ERROR_EXAMPLES = {
    400: "the request body is not valid JSON",
    401: "this call needs the seat's token: Authorization: Bearer <token>",
    403: "hints are off in this match (create it with options.hints = true)",
    404: "no match with id '0123456789abcdef'",
    409: "it is not your turn",
    412: "the match is at version 18, not 17",
    413: "the request body is over the 65536 bytes this service takes",
    422: "the request does not fit the schema: seats: Missing data for required field.",
    429: "more than 100 requests a second; slow down",
    503: "the match store is unreachable; try again shortly",
}


def error_example(code: int) -> dict[str, Any]:
    from http import HTTPStatus

    error = "not_your_turn" if code == 409 else ERROR_IDS[code]
    return {"code": code, "status": HTTPStatus(code).phrase, "message": ERROR_EXAMPLES[code], "error": error}


def declare_errors(blp: Blueprint, *codes: int) -> Callable[[F], F]:
    """Declare the error answers an operation can give, each an `Error` (docs/api.md, "Errors")."""

    def deco(fn: F) -> F:
        for code in sorted(set(codes)):
            fn = blp.alt_response(code, schema=ErrorSchema, example=error_example(code))(fn)
        return fn

    return deco


def bearer_or_none() -> str | None:
    """The bearer token of the request, or None (no header, or not 'Bearer <token>')."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def bearer_token() -> str | None:
    """The bearer token of the request; None without an Authorization header, and 401 for one
    that is not 'Bearer <token>'."""
    token = bearer_or_none()
    if token is None and "Authorization" in request.headers:
        raise ApiError(401, "invalid_token", "Authorization must be 'Bearer <token>'")
    return token


def error_response(
    status: int,
    error: str,
    message: str,
    errors: Any = None,
    headers: dict[str, str] | None = None,
    quota: str | None = None,
) -> Response:
    from http import HTTPStatus

    payload = {"code": status, "status": HTTPStatus(status).phrase, "message": message, "error": error}
    if errors:
        payload["errors"] = errors
    if quota:
        payload["quota"] = quota
    resp = jsonify(payload)
    resp.status_code = status
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


class Api(BaseApi):  # type: ignore[misc]  # flask-smorest ships no types
    ERROR_SCHEMA = ErrorSchema

    def __init__(self, app: Any = None, *, spec_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        spec_kwargs = {"marshmallow_plugin": ContractPlugin(), **(spec_kwargs or {})}
        super().__init__(app, spec_kwargs=spec_kwargs, **kwargs)

    def handle_http_exception(self, error: HTTPException) -> Response:
        data = getattr(error, "data", None) or {}
        errors = data.get("errors") or data.get("messages")
        # webargs nests body errors under the location name; clients want the fields.
        if isinstance(errors, dict) and set(errors) <= {"json", "query", "headers"} and len(errors) == 1:
            inner = next(iter(errors.values()))
            # Field messages come as an object; a body that does not decode has only a list of
            # messages, kept under its location so `errors` is always an object.
            errors = inner if isinstance(inner, dict) else errors
        message = data.get("message") or error.description or error.name
        if error.code == 422 and errors and "message" not in data:
            message = "the request does not fit the schema: " + _flatten(errors)
        if error.code == 400 and errors:
            message = "the request body is not valid JSON"
        code = error.code or 500
        headers = dict(data.get("headers") or {})
        if error.code == 405:
            # Werkzeug's own 405 names the methods the URL takes; keep that header (RFC 9110).
            headers.update((k, v) for k, v in error.get_headers() if k == "Allow")
        if error.code == 413:
            message = f"the request body is over the {request.max_content_length} bytes this service takes"
        return error_response(code, ERROR_IDS.get(code, "error"), message, errors, headers)


def _flatten(errors: Any, prefix: str = "") -> str:
    parts = []
    if isinstance(errors, dict):
        for k, v in errors.items():
            parts.append(_flatten(v, f"{prefix}{k}."))
    elif isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        parts.append(f"{prefix.rstrip('.')}: {' '.join(errors)}")
    elif isinstance(errors, list):
        parts.extend(_flatten(e, prefix) for e in errors)
    else:
        parts.append(f"{prefix.rstrip('.')}: {errors}")
    return "; ".join(p for p in parts if p)


class Blueprint(BaseBlueprint):  # type: ignore[misc]  # flask-smorest ships no types
    # flask-smorest's alt_response and doc only record documentation, yet each also wraps the
    # view in one more call layer (with an ensure_sync check) on every request; keep their
    # record and drop the layer.
    if TYPE_CHECKING:  # flask-smorest's, as typed here

        def response(self, status_code: int, schema: Any = None, **kwargs: Any) -> Callable[[View], View]: ...

        def after_request(self, f: F) -> F: ...

    def alt_response(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        return _doc_only(super().alt_response(*args, **kwargs))

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        # No blueprint's own: shared decorators (service/http/calls.py) use it unbound.
        return _doc_only(BaseBlueprint.doc(**kwargs))

    def view_response(self, status_code: int, schema: Any, **kwargs: Any) -> Callable[[F], F]:
        """`response` for views that build their own `Response` (flask-smorest then returns it
        untouched): the same OpenAPI entry, without the wrapper's call on every request."""
        return _doc_only(super().response(status_code, schema, **kwargs))

    def arguments(
        self, schema: ma.Schema, *, location: str = "json", **kwargs: Any
    ) -> Callable[[View], View]:
        """flask-smorest's decorator, documented the same, parsing a JSON body or headers itself.

        webargs' general machinery (location proxies, hooks, nested wrappers) cost about 0.1 ms
        a request on the move path, a sixth of the app's own time there (bench/api.py). A JSON
        body, a few headers or a query string of single values need only `schema.load`; the
        errors are webargs' own (400 for unreadable JSON, 422 with the messages under the
        location), and names the schema does not know are left out as webargs leaves them, so
        clients see no change. Other locations, and queries with list fields, keep webargs.
        """
        documented: Callable[[View], View] = super().arguments(schema, location=location, **kwargs)
        if location == "json":
            _note_body(schema)
        if location not in ("json", "headers", "query") or "error_status_code" in kwargs:
            return documented
        if location == "query" and any(isinstance(f, ma.fields.List) for f in schema.fields.values()):
            return documented

        def decorator(func: View) -> View:
            wrapper = loading(func, schema, location)
            # The OpenAPI entry exactly as flask-smorest writes it.
            wrapper._apidoc = documented(func)._apidoc  # type: ignore[attr-defined]  # flask-smorest's record
            return wrapper

        return decorator


def _doc_only(document: Callable[[Any], Any]) -> Callable[[F], F]:
    def decorator(func: F) -> F:
        func._apidoc = document(func)._apidoc  # type: ignore[attr-defined]  # flask-smorest's record
        return func

    return decorator
