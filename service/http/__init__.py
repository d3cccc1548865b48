"""HTTP: the Flask app factory (app), who may call (admission: rate limits, credentials) and what
an error answers (statuses), the flask-smorest plumbing and the one error shape (extensions,
arguments), what every resource's routes share (calls, streams), CORS, the pages' headers,
/metrics, the OpenAPI contract's parts (contract, contract_actions, game_parts, game_events,
game_schemas, examples) and the resources, one folder an area (resources/<area>/routes.py and
schemas.py).

May import: everything below it (engines, the kernel, infra, identity, ratings, matches, notify,
tournaments, privacy, bootstrap); never workers/ or cli/ (tests/test_code_shape.py).
"""
