"""WSGI entry point for gunicorn: `gunicorn service.wsgi:app`."""

import gc

from service.app import create_app

app = create_app()

# Everything loaded so far (Flask, marshmallow, the OpenAPI spec, the engines' tables: about
# 58,000 objects) lives as long as the worker. Left in the collector's care, each full
# collection walks all of it: about 80 ms on the benchmark machine with every thread of the
# worker stopped, five times in 20 s under load, which made a good part of the slowest 1% of
# requests (bench/api.py: 387 ms of full collections a worker before, 13 ms after; p99 81 ->
# 68 ms). Frozen objects are never walked again; they are still freed by reference counting.
gc.freeze()
