"""Privacy: erasing a player (erasure; GDPR art. 17, docs/integrating.md "Erasure"). A player's
export is still served by service/matches/app_matches.py; the tombstones erasure leaves are
identity's (service/identity/tombstones.py).

May import: everything below bootstrap: engines, the kernel, infra, identity, ratings, matches,
notify (tests/test_code_shape.py).
"""
