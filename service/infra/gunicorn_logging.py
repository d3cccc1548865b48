"""gunicorn's own lines (starting, listening, booting and stopping workers, a worker that died)
in the format of every other cardtable line (service/infra/logs.py): `cardtable serve` runs gunicorn
with `--logger-class service.infra.gunicorn_logging.Logger`."""

from __future__ import annotations

from typing import Any

from gunicorn import glogging

from service.infra import logs


class Logger(glogging.Logger):  # type: ignore[misc]  # gunicorn ships no types
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        fmt = logs.Settings().format
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(logs.formatter(fmt))
                handler.addFilter(logs.ContextFilter())
