"""A tournament survives a `kill -9` at each of its steps (service/tournaments/rounds.py): the
process killed between a match's end and the standings' update, the worker killed between
pairing a round and opening it, or while opening round 1, or between the end and telling the
players, loses nothing. The state is then looked at with what the workers run: the relay's
pass, as the housekeeper makes it once its grace has passed (tests/test_cross_slot_writes.py).
The worker's job itself (workers/jobs.py, `advance_tournament`) is `svc.rounds.advance`: run
here by the test where no worker runs, killed in a process of its own where one dies."""

from __future__ import annotations

from service.identity.callers import identify
from tests.test_cross_slot_writes import app_with_players, die_at, relay_now
from tests.test_healing import private_redis, service, spawn_worker
from tests.test_outbox import RELAY_ONLY
from tests.webhook_helpers import until

__all__ = ["private_redis"]  # the fixture this module borrows

PLAYERS = ("ana", "bo", "cy", "di")


def four_player_swiss(svc, name: str, rounds: int = 2, start: bool = True):
    """A Swiss of Zhol between the app's four players: its id, the app's key and their tokens."""
    _, key, tokens = app_with_players(svc, name, *PLAYERS)
    app = identify(svc.apps, svc.players, key, None).require_app()
    body = {
        "game": "zhol",
        "options": {},
        "format": "swiss",
        "rounds": rounds,
        "max_players": 8,
        "round_seconds": 600,
    }
    tournament_id = svc.tournaments.create(app, body)["id"]
    for p in PLAYERS:
        svc.tournaments.join(svc.players.authenticate(tokens[p]), tournament_id)
    if start:
        svc.tournaments.start(app, tournament_id)
        svc.rounds.advance(tournament_id)  # the worker's job: round 1's matches
    return tournament_id, key, tokens


def shown(svc, key: str, tournament_id: str) -> dict:
    app = identify(svc.apps, svc.players, key, None).require_app()
    return svc.tournaments.get(app, None, tournament_id)


def resign_all_but_first(svc, tokens: dict[str, str], match: dict, skip: int = 0) -> None:
    for player in match["players"][1:]:
        svc.act(match["id"], tokens[player], {"type": "resign"})


def round_started(svc, token: str) -> list[int]:
    """The rounds the player's feed says started."""
    player = svc.players.authenticate(token)
    entries, _ = svc.feeds.since(player.id, 0, 100)
    return [e["data"]["round"] for e in entries if e["type"] == "tournament.round_started"]


def test_a_process_killed_between_a_rounds_last_match_end_and_the_standings_loses_nothing(private_redis):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-result")
    first, last = shown(svc, key, tournament_id)["rounds"][0]["matches"]
    resign_all_but_first(svc, tokens, first)
    loser = last["players"][1]
    resign = f"svc.act({last['id']!r}, key, {{'type': 'resign'}})"
    die_at(private_redis, "service.tournaments.store", "TournamentStore.result", resign, tokens[loser])
    before = shown(svc, key, tournament_id)
    # The match ended, but the standings never heard: round 1 still waits for it.
    assert svc.repo.find(last["id"]).status() == "finished"
    assert before["round"] == 1 and before["rounds"][0]["matches"][1]["status"] == "active"
    relay_now(svc)
    after = shown(svc, key, tournament_id)
    assert after["round"] == 2 and after["rounds"][0]["matches"][1]["winners"] == [last["players"][0]]
    assert all(svc.repo.find(m["id"]) is not None for m in after["rounds"][1]["matches"])
    assert all(round_started(svc, t) == [1, 2] for t in tokens.values())


def test_a_round_paired_by_a_worker_killed_before_making_its_matches_is_opened_by_the_housekeeper(
    private_redis,
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-open")
    for match in shown(svc, key, tournament_id)["rounds"][0]["matches"]:
        resign_all_but_first(svc, tokens, match)
    # The round's last move answered; its worker pairs round 2 and is killed before opening it.
    die_at(
        private_redis, "service.tournaments.rounds", "Rounds.open", f"svc.rounds.advance({tournament_id!r})"
    )
    paired = shown(svc, key, tournament_id)
    # Round 2 is paired (its match ids chosen), but none of its matches exists and nobody was told.
    assert paired["round"] == 2
    assert all(svc.repo.find(m["id"]) is None for m in paired["rounds"][1]["matches"])
    assert all(round_started(svc, t) == [1] for t in tokens.values())
    relay_now(svc)
    opened = shown(svc, key, tournament_id)
    assert [m["id"] for m in opened["rounds"][1]["matches"]] == [
        m["id"] for m in paired["rounds"][1]["matches"]
    ]
    for m in opened["rounds"][1]["matches"]:
        match = svc.repo.find(m["id"])
        assert match is not None and match.status() == "active"
        assert [s["external"] for s in match.record["seats"]] == m["players"]
    assert all(round_started(svc, t) == [1, 2] for t in tokens.values())
    assert svc.tournament_store.due(now=float("inf")) == []


def test_round_one_opened_by_a_worker_killed_after_its_first_match_is_finished_by_the_housekeeper(
    private_redis,
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-start", start=False)
    app = identify(svc.apps, svc.players, key, None).require_app()
    svc.tournaments.start(app, tournament_id)
    # The worker makes round 1's first match and is killed before its second.
    opening = "import service.tournaments.rounds as r; made = r.Rounds._create\n"
    first = (
        "calls = []\n"
        "def once(self, *a):\n"
        "    calls.append(1)\n"
        "    if len(calls) > 1: killed()\n"
        "    made(self, *a)\n"
        "r.Rounds._create = once\n"
        f"svc.rounds.advance({tournament_id!r})"
    )
    die_at(private_redis, "service.tournaments.rounds", "Rounds._tell", opening + first)
    started = shown(svc, key, tournament_id)
    found = [svc.repo.find(m["id"]) is not None for m in started["rounds"][0]["matches"]]
    assert started["status"] == "running" and found == [True, False]
    assert not any(round_started(svc, t) for t in tokens.values())
    relay_now(svc)
    assert all(svc.repo.find(m["id"]) is not None for m in started["rounds"][0]["matches"])
    assert all(round_started(svc, t) == [1] for t in tokens.values())


def test_a_rounds_matches_are_made_by_a_real_worker_not_by_the_move_that_ended_the_last_round(
    private_redis, procs
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "made-by-a-worker")
    for match in shown(svc, key, tournament_id)["rounds"][0]["matches"]:
        resign_all_but_first(svc, tokens, match)
    # The move answered; no worker runs yet: round 2 waits in the queue, unpaired.
    assert shown(svc, key, tournament_id)["round"] == 1
    spawn_worker(procs, private_redis, **RELAY_ONLY)
    until(lambda: all(round_started(svc, t) == [1, 2] for t in tokens.values()), 60, "round 2 told")
    second = shown(svc, key, tournament_id)["rounds"][1]["matches"]
    assert all(svc.repo.find(m["id"]).status() == "active" for m in second)


def test_a_tournament_finished_by_a_process_killed_before_telling_its_players_tells_them_by_the_housekeeper(
    private_redis,
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-end", rounds=1)
    for match in shown(svc, key, tournament_id)["rounds"][0]["matches"]:
        resign_all_but_first(svc, tokens, match)
    # The worker finishes the tournament and is killed before telling its players.
    advance = f"svc.rounds.advance({tournament_id!r})"
    die_at(private_redis, "service.tournaments.rounds", "Rounds._tell_over", advance)
    assert shown(svc, key, tournament_id)["status"] == "finished"

    def over(token: str) -> list[dict]:
        entries, _ = svc.feeds.since(svc.players.authenticate(token).id, 0, 100)
        return [e for e in entries if e["type"] == "tournament.over"]

    assert not any(over(t) for t in tokens.values())
    relay_now(svc)
    winners = shown(svc, key, tournament_id)["winners"]
    assert all([e["data"]["winners"] for e in over(t)] == [winners] for t in tokens.values())
    relay_now(svc)  # told once: a second pass tells nobody again
    assert all(len(over(t)) == 1 for t in tokens.values())
