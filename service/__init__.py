"""The cardtable service: a package per capability, each importing only those below it
(docs/architecture.md, "The layout"; tests/test_code_shape.py checks the order):

    engines/ <- kernel <- infra <- identity <- ratings <- matches <- notify <- privacy
             <- bootstrap <- http, workers/ <- cli (and service/wsgi.py, gunicorn's entry)

The kernel is the three modules at this level: errors (domain errors and `ApiError`), config
(every CARDTABLE_* setting) and codec (the hot path's JSON). They import engines/ only.
"""
