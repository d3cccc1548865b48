"""A worker asked to stop stops promptly: RQ's command listener must not hold it up.

RQ 3 listens for commands in a redis-py pub/sub thread that blocks up to its `sleep_time` for
a subscription, and redis-py 8.2's `PubSubWorkerThread.stop()` joins that thread with no time
limit. When the thread reads the UNSUBSCRIBE reply before RQ clears its run flag, it goes back
to wait for a subscription for RQ's 60 s, and a SIGTERM'd worker (a deploy, `docker stop`)
took up to a minute to exit. `CardtableWorker` listens in short waits instead (workers/worker.py).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import redis
from rq import Queue, Worker

from service.infra.jobqueue import make_queue
from tests.conftest import ROOT, worker_env
from workers.worker import CardtableWorker

WORKER = [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"]
STOP_WITHIN = 10.0  # seconds: docker's default grace before SIGKILL, and far below RQ's 60 s


def test_worker_teardown_returns_promptly_when_the_listener_already_read_its_unsubscribe(redis_url):
    client = redis.Redis.from_url(redis_url)
    worker = CardtableWorker([Queue("stop-test", connection=client)], connection=client)
    worker.subscribe()
    assert worker.pubsub_thread is not None and worker.pubsub_thread.is_alive()
    # The unlucky order, made certain: the listener reads the UNSUBSCRIBE reply (and goes back
    # to wait for a subscription) before the teardown stops it.
    worker.pubsub.unsubscribe()
    deadline = time.monotonic() + STOP_WITHIN
    while worker.pubsub.subscribed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not worker.pubsub.subscribed
    time.sleep(0.2)
    done = threading.Event()
    stopper = threading.Thread(target=lambda: (worker.unsubscribe(), done.set()), daemon=True)
    started = time.monotonic()
    stopper.start()
    assert done.wait(STOP_WITHIN), f"the worker's teardown still waits after {STOP_WITHIN} s"
    assert not worker.pubsub_thread.is_alive()
    assert time.monotonic() - started < STOP_WITHIN


def test_a_stop_asked_while_rq_starts_up_is_obeyed_before_the_first_job(redis_url):
    # RQ registers a worker before it installs its signal handlers; `cardtable worker` handles
    # the stop signals with `note_stop` until then (a SIGTERM there used to kill the
    # worker and leave it registered). Here that handler is called as the signal would call it.
    client = redis.Redis.from_url(redis_url)
    queue = make_queue(client, "stop-test-early")
    queue.empty()
    job = queue.enqueue("workers.jobs.no_such_job")
    worker = CardtableWorker([queue], connection=client, serializer=queue.serializer)
    worker.note_stop(signal.SIGTERM, None)
    # burst: a worker that ignored the stop would take the job, fail it, and return
    worker.work(burst=True)
    assert worker.stop_asked
    assert queue.job_ids == [job.id]  # no job taken
    assert worker.name not in {w.name for w in Worker.all(connection=client)}  # deregistered


def test_a_worker_sigtermed_as_soon_as_it_registers_exits_cleanly_and_deregisters(redis_url):
    client = redis.Redis.from_url(redis_url)
    before = Worker.count(connection=client)
    for _ in range(5):
        proc = subprocess.Popen(WORKER, env=worker_env(redis_url), cwd=ROOT)
        deadline = time.monotonic() + 30
        while Worker.count(connection=client) == before:
            assert time.monotonic() < deadline and proc.poll() is None, "the worker did not start"
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(STOP_WITHIN) == 0
        assert Worker.count(connection=client) == before
