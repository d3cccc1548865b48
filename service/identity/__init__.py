"""Identity: who calls and who plays. Apps and their keys (apps), players and their tokens
(players), telling a caller by its credential (callers), live-match quotas (quotas), token hashing
and making (tokens), and the tombstones an erasure leaves (tombstones: every writer above reads
them, the erasure in privacy/ writes them).

May import: engines, the kernel, infra (tests/test_code_shape.py).
"""
