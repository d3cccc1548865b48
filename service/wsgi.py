"""WSGI entry point for gunicorn: `gunicorn service.wsgi:app`."""

import gc

from service.http.app import create_app

app = create_app()

# Everything loaded so far (Flask, marshmallow, the OpenAPI spec, the engines' tables: about
# 58,000 objects) lives as long as the worker. Left in the collector's care, each full
# collection walks all of it: about 80 ms on the benchmark machine with every thread of the
# worker stopped, five times in 20 s under load, which made a good part of the slowest 1% of
# requests (bench/api.py: 387 ms of full collections a worker before, 13 ms after; p99 81 ->
# 68 ms). Frozen objects are never walked again; they are still freed by reference counting.
gc.freeze()

# Full collections are rare: after 1,000 middle-generation collections (Python's default is
# 10), a few minutes apart at full load instead of seconds. A worker holding thousands of
# waiting requests (about 50 tracked objects each) spent 100-150 ms of CPU on each full
# collection, with every request of the worker stopped, several times in a 15 s benchmark
# phase, and each found only 50-450 unreachable objects: request cycles are freed by the young
# collections, which are left as they are (docs/performance.md, "Waiting clients").
gc.set_threshold(700, 10, 1000)
