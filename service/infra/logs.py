"""Logging for every cardtable process: quiet by default, plain text or one JSON object a line,
each line with the ids of what it concerns (docs/architecture.md, "Logs and traces").

A process prints a line when it starts, stops or meets a problem; what happens on every request
or job (the API's request lines, RQ's five lines a job) is DEBUG. `CARDTABLE_LOG_LEVEL` sets the
level, `CARDTABLE_LOG_FORMAT=json` the format (python-json-logger).

The ids come from a context variable, so whatever logs during a request or a job carries them
without being passed them: `request_id` (the caller's `X-Request-Id`, or one made here),
`match_id`, `seat`, `version`, and in a worker `job_id`. A request's id travels with the jobs it
enqueues (their RQ meta, `carried`), so a bot's turn logs the id of the move that woke it; and
a bot turn that enqueues the next one passes the same id on.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, TextIO

from pythonjsonlogger.json import JsonFormatter

# The ids a line may carry, in the order a text line shows them.
FIELDS = ("request_id", "match_id", "seat", "version", "job_id")
FORMATS = ("text", "json")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# RQ's loggers: every job is five INFO lines there (dequeued, started, done, result kept, ...).
RQ_LOGGERS = ("rq.worker", "rq.queue", "rq.job", "rq.scheduler", "rq.registry")
# A caller's X-Request-Id is taken as it is when it is a plain token of at most 128 characters
# (a UUID, nginx's $request_id, Heroku's); anything else gets an id of ours instead, so a log
# line never holds a stranger's control characters or kilobytes.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:+/=@-]{1,128}")

_context: ContextVar[dict[str, Any]] = ContextVar("cardtable_log_context", default={})  # noqa: B039


def bind(**fields: Any) -> Token[dict[str, Any]]:
    """Add `fields` to what this context's lines carry, until `reset(token)`."""
    return _context.set({**_context.get(), **{k: v for k, v in fields.items() if v is not None}})


def reset(token: Token[dict[str, Any]]) -> None:
    _context.reset(token)


def update(**fields: Any) -> None:
    """Add `fields` for the rest of the current request or job (whose `bind` is reset at its
    end): a request learns its seat and the version it made as it goes. Outside a request or
    job (a housekeeper's thread) nothing is added: nothing would take it away again."""
    if _context.get():
        bind(**fields)


@contextmanager
def bound(**fields: Any) -> Iterator[None]:
    token = bind(**fields)
    try:
        yield
    finally:
        _context.reset(token)


def current(name: str) -> Any:
    return _context.get().get(name)


def request_id(given: str | None) -> str:
    """The id of a request: the caller's (a proxy's) X-Request-Id when it is a plain token,
    else a new one."""
    if given and REQUEST_ID.fullmatch(given):
        return given
    return secrets.token_hex(16)


def carried() -> dict[str, Any]:
    """What a job enqueued now carries of this context (its RQ meta): the request id."""
    rid = _context.get().get("request_id")
    return {"request_id": rid} if rid else {}


class ContextFilter(logging.Filter):
    """Puts the context's ids on every record its handler writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in _context.get().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class TextFormatter(logging.Formatter):
    """`time level logger: message [request_id=… match_id=…]`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = " ".join(f"{k}={getattr(record, k)}" for k in FIELDS if getattr(record, k, None) is not None)
        return f"{line} [{ids}]" if ids else line


def json_formatter() -> logging.Formatter:
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, and the ids."""
    return JsonFormatter(
        "%(levelname)s %(name)s %(message)s",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",
        json_ensure_ascii=False,
    )


def formatter(fmt: str) -> logging.Formatter:
    return json_formatter() if fmt == "json" else TextFormatter()


class Settings:
    """The level and format from the environment, checked: a typo is a clear error at start."""

    def __init__(self, level: str | None = None, fmt: str | None = None):
        self.level = (level or os.environ.get("CARDTABLE_LOG_LEVEL") or "INFO").upper()
        self.format = (fmt or os.environ.get("CARDTABLE_LOG_FORMAT") or "text").lower()
        if self.level not in LEVELS:
            raise ValueError(f"CARDTABLE_LOG_LEVEL is one of {', '.join(LEVELS)}, not {self.level!r}")
        if self.format not in FORMATS:
            raise ValueError(f"CARDTABLE_LOG_FORMAT is one of {', '.join(FORMATS)}, not {self.format!r}")

    @property
    def rq_level(self) -> str:
        """RQ's per-job lines only at DEBUG; its warnings and errors always."""
        return "DEBUG" if self.level == "DEBUG" else max(self.level, "WARNING", key=LEVELS.index)


def configure(level: str | None = None, fmt: str | None = None, stream: TextIO | None = None) -> Settings:
    """Set up this process's logging: one handler on the root logger (replacing the one an
    earlier call made), RQ's loggers quiet unless DEBUG. Idempotent."""
    settings = Settings(level, fmt)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "cardtable", False)]:
        root.removeHandler(old)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.cardtable = True  # type: ignore[attr-defined]
    handler.setFormatter(formatter(settings.format))
    handler.addFilter(ContextFilter())
    root.addHandler(handler)
    root.setLevel(settings.level)
    for name in RQ_LOGGERS:
        logging.getLogger(name).setLevel(settings.rq_level)
    return settings
