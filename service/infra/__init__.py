"""Infrastructure: the adapters every capability above stands on, and nothing of any capability.

Owns the Redis clients and the hot path's round trips (roundtrips), cluster routing (cluster), a
list's items rewritten in place (lists), the waiters' hub (waiters) and a waiter, its kinds and
their counts (waiter), the RQ job queue (jobqueue), the /metrics counters (counters), the rate
limit and the open-waits quota (rate_limit, wait_quota), the due index (due_index), paged cursors
(cursors), traces and logs (tracing, logs) and the embedded Redis (embedded).

May import: engines and the kernel (service.errors, service.config, service.codec). Nothing of
identity, ratings, matches, notify, privacy, bootstrap, http or cli (tests/test_code_shape.py).
"""
