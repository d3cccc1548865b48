"""Workers: the RQ processes that run beside the API, outside its request path. The jobs (jobs:
bot turns and turn clocks; webhooks: a commit's fan-out and each delivery's attempts, sent by
webhook_sender), the decisions a bot's job holds for later (held), and the housekeeper every
worker runs (housekeeping: RQ's scheduler, the outbox relay, the sweeper of matches and
deliveries overdue); worker is `cardtable worker`'s process.

May import: everything below bootstrap and bootstrap itself (engines, the kernel, infra, identity,
ratings, matches, notify, tournaments, privacy, bootstrap); never http or cli, which share or hold its rank
(tests/test_code_shape.py).
"""
