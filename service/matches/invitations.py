"""Invitation codes, kept beside a match and never in it (docs/api.md, "Invitations").

An invitation changes nothing another seat sees: no version, no event. So its code's hash is
not part of the match's record but a field of the match's own Redis hash (`i<seat>` in
`ct:{m:<id>}:match`, beside `v`, `n` and `data`): in the match's Cluster slot, gone with the
match when it expires, and never written by a commit (the commit script sets its own fields
only). A seat has one field, so a new invitation replaces its last one.

The field holds the code's hash and who held the seat when it was made (`holder`): a claim is
taken only while the seat's holder is still that one, so an invitation made by a holder who
has since left, or whose seat was claimed meanwhile, hands on nothing. A claim first takes the
field (compare-and-delete, one script: of two claims of one code one wins), then commits the
hand-over at the version it checked the holder against; should that commit fail, the field is
put back unless a new invitation took its place.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

# KEYS[1] the match hash. ARGV[1] the seat's field, ARGV[2] its value. Written only while the
# match exists: a field on an expired match would make a hash of its own that never expires.
PUT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# KEYS[1] the match hash. ARGV[1] the field, ARGV[2] the value read: deleted only if unchanged.
TAKE = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
"""
# KEYS[1] the match hash. ARGV[1] the field, ARGV[2] the value taken: back, unless replaced.
RESTORE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
"""


def holder(seat: dict[str, Any]) -> str:
    """Who holds the seat now: its token's hash or its player, and the join that seated them
    (the same player seated again after leaving a waiting match is another holding)."""
    who = seat.get("token") or f"p:{seat.get('player')}"
    return hashlib.sha256(f"{seat.get('joined')}|{who}".encode()).hexdigest()[:32]


def _field(seat: int) -> str:
    return f"i{seat}"


class Invitations:
    def __init__(self, client: Any, key: Any):
        self.client = client
        self._key = key  # (match id, part) -> the match's key of that part
        self._put = client.register_script(PUT)
        self._take = client.register_script(TAKE)
        self._restore = client.register_script(RESTORE)

    def put(self, match_id: str, seat: int, digest: str, held_by: str) -> bool:
        """Store the seat's invitation (replacing its last one); False: the match is gone."""
        key = self._key(match_id, "match")
        return bool(self._put(keys=[key], args=[_field(seat), f"{digest} {held_by}"]))

    def find(self, match_id: str, seats: int, digest: str) -> tuple[int, str, str] | None:
        """(seat, holder, stored value) of the invitation with this code's hash, if any."""
        stored = self.client.hmget(self._key(match_id, "match"), [_field(s) for s in range(seats)])
        found = None
        for seat, raw in enumerate(stored):
            if raw is None:
                continue
            value = raw.decode()
            made_for, _, held_by = value.partition(" ")
            # Every seat is compared, so timing says nothing about which one matched.
            if hmac.compare_digest(made_for, digest):
                found = (seat, held_by, value)
        return found

    def take(self, match_id: str, seat: int, value: str) -> bool:
        """Take the invitation (once: of two claims at once, one gets True)."""
        return bool(self._take(keys=[self._key(match_id, "match")], args=[_field(seat), value]))

    def restore(self, match_id: str, seat: int, value: str) -> None:
        """Put back an invitation taken by a claim that was not committed after all."""
        self._restore(keys=[self._key(match_id, "match")], args=[_field(seat), value])
