"""Tournaments: Swiss and knockout events an app runs over rated matches (docs/api.md,
"Tournaments"): the pairing and standings (pairing.py, no I/O), where a tournament is kept
(store.py), its rounds made of matches and told to its players (rounds.py), and the app's and
players' calls (running.py).

May import: engines, the kernel, infra, identity, ratings, matches (tests/test_code_shape.py).
It tells its players through the repository's notice sinks, never importing notify/.
"""
