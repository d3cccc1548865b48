"""Privacy: a player's data, exported (export; GDPR art. 15 and 20) and erased (erasure; GDPR
art. 17, docs/integrating.md "Erasure"). The tombstones erasure leaves are identity's
(service/identity/tombstones.py).

May import: everything below bootstrap: engines, the kernel, infra, identity, ratings, matches,
notify, tournaments (tests/test_code_shape.py).
"""
