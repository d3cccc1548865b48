# The cardtable API (gunicorn) as a non-root user. Run workers from the same image
# with `cardtable worker`; see docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engines ./engines
COPY service ./service
COPY workers ./workers
# The otel extra: traces once OTEL_EXPORTER_OTLP_ENDPOINT is set (docker-compose.yml).
RUN pip install --no-cache-dir '.[otel]' && useradd --create-home --uid 10001 cardtable
USER cardtable
EXPOSE 8000
# REDIS_URL must point at Redis; `cardtable serve` then runs gunicorn only.
CMD ["cardtable", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "4"]
