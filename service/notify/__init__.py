"""Notify: the subscribers of a commit's notices. Players' feeds and following them (feeds,
feed_following), an app's webhook endpoints and their deliveries (webhooks, deliveries,
delivery_record, delivery_sends: starting a delivery and sending one again), where a webhook
may be sent (url_guard) and the webhooks' notice sink (webhook_sink).

May import: engines, the kernel, infra, identity, ratings, matches (tests/test_code_shape.py).
"""
