"""`leave` checks its token on the match as each attempt of its compare-and-set loaded it: two
concurrent leaves with one token never free or resign the seat of someone who took it meanwhile."""

from __future__ import annotations

import threading

from service import errors

ROUNDS = 60
WAITING = [{"kind": "human", "name": "Ana"}] + [{"kind": "open"}] * 3


def test_concurrent_leaves_around_a_join_never_touch_the_newcomers_seat(app):
    svc = app.extensions["cardtable"]
    spoiled = sum(_race(svc) for _ in range(ROUNDS))
    assert spoiled == 0, f"{spoiled} of {ROUNDS} rounds freed the newcomer's seat or kept the leaver's"


def _race(svc) -> int:
    """One round: a seat's two leaves and a newcomer's join at once; the count of broken
    promises (the newcomer not holding its seat, the leaver still holding one)."""
    match_id = svc.create({"game": "spades", "seats": WAITING})["id"]
    leaver = svc.join(match_id, "Bo")
    start = threading.Barrier(3)
    joined: list[dict] = []

    def leave() -> None:
        start.wait()
        try:
            svc.leave(match_id, leaver["token"])
        except (errors.InvalidToken, errors.VersionConflict):
            pass  # the other leave got there first: this token holds no seat any more

    def join() -> None:
        start.wait()
        joined.append(svc.join(match_id, "Cy"))

    threads = [threading.Thread(target=f) for f in (leave, leave, join)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    match = svc.load(match_id)
    newcomer = joined[0]
    return (_seat_of(svc, match, newcomer["token"]) != newcomer["seat"]) + (
        _seat_of(svc, match, leaver["token"]) is not None
    )


def _seat_of(svc, match, token: str) -> int | None:
    try:
        return svc.authenticate(match, token)
    except errors.InvalidToken:
        return None
