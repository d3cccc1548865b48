"""The service's errors: domain errors with their machine id (docs/api.md), and `ApiError`.

`MatchService`, the lobby and hints raise `DomainError`s, which know nothing of HTTP; the
one table from error class to HTTP status is `STATUS` in service/http/statuses.py, beside the
error handler that answers with it. `ApiError` stays for the HTTP layer's own refusals (a
malformed header, an unknown file), where the status is the point.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An HTTP error with its machine id (docs/api.md)."""

    def __init__(self, status: int, error: str, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.errors = errors


class DomainError(Exception):
    """A refusal of the match domain: `error` is its machine id, the message is for people,
    `errors` the field details of a validation error. A subclass names its id in its header:
    `class NotFound(DomainError, error="not_found")`."""

    error = "conflict"

    def __init_subclass__(cls, error: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.error = error or cls.error

    def __init__(self, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors


# fmt: off
class NotFound(DomainError, error="not_found"): ...
class InvalidToken(DomainError, error="invalid_token"): ...
class Forbidden(DomainError, error="forbidden"): ...
class Conflict(DomainError, error="conflict"): ...
class MatchNotActive(DomainError, error="match_not_active"): ...
class NotYourTurn(DomainError, error="not_your_turn"): ...
class IdempotencyInProgress(DomainError, error="idempotency_in_progress"): ...
class IdempotencyKeyReused(DomainError, error="idempotency_key_reused"): ...
# The request fits the schema but not the service's rules (a stacked deck, a seed, a cursor).
class InvalidRequest(DomainError, error="validation_error"): ...
# The client's If-Match names a version the match is no longer at.
class StaleVersion(DomainError, error="version_conflict"): ...
# A webhook URL this server will not call: not https, or a host on a private address.
class UrlNotAllowed(InvalidRequest, error="url_not_allowed"): ...
# fmt: on


class QuotaExceeded(DomainError, error="quota_exceeded"):
    """A caller holds as much of something as it may (live bot-only matches, waiting matches):
    `quota` names it, `retry_after` says when to look again."""

    def __init__(self, quota: str, message: str, retry_after: int = 60):
        super().__init__(message)
        self.quota = quota
        self.retry_after = retry_after


class VersionConflict(DomainError, error="version_conflict"):
    """Other writers kept getting in first: the retries ran out."""

    def __init__(self, message: str = "the match is changing too fast; try again"):
        super().__init__(message)
