"""A tournament survives a `kill -9` at each of its steps (service/tournaments/rounds.py): the
process killed between a match's end and the standings' update, between pairing a round and
opening it, between a start and round 1's matches, and between the end and telling the players
loses nothing. The state is then looked at with what the workers run: the relay's pass, as the
housekeeper makes it once its grace has passed (tests/test_cross_slot_writes.py)."""

from __future__ import annotations

from service.identity.callers import identify
from tests.test_cross_slot_writes import app_with_players, die_at, relay_now
from tests.test_healing import private_redis, service

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


def test_a_round_paired_by_a_process_killed_before_making_its_matches_is_opened_by_the_housekeeper(
    private_redis,
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-open")
    first, last = shown(svc, key, tournament_id)["rounds"][0]["matches"]
    resign_all_but_first(svc, tokens, first)
    resign = f"svc.act({last['id']!r}, key, {{'type': 'resign'}})"
    die_at(private_redis, "service.tournaments.rounds", "Rounds.open", resign, tokens[last["players"][1]])
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


def test_a_start_killed_before_round_ones_matches_are_made_is_finished_by_the_housekeeper(private_redis):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-start", start=False)
    start = f"svc.tournaments.start(caller.require_app(), {tournament_id!r})"
    die_at(private_redis, "service.tournaments.rounds", "Rounds.open", start, key)
    started = shown(svc, key, tournament_id)
    assert started["status"] == "running" and started["round"] == 1
    assert all(svc.repo.find(m["id"]) is None for m in started["rounds"][0]["matches"])
    relay_now(svc)
    assert all(svc.repo.find(m["id"]) is not None for m in started["rounds"][0]["matches"])
    assert all(round_started(svc, t) == [1] for t in tokens.values())


def test_a_tournament_finished_by_a_process_killed_before_telling_its_players_tells_them_by_the_housekeeper(
    private_redis,
):
    svc = service(private_redis)
    tournament_id, key, tokens = four_player_swiss(svc, "killed-at-end", rounds=1)
    first, last = shown(svc, key, tournament_id)["rounds"][0]["matches"]
    resign_all_but_first(svc, tokens, first)
    resign = f"svc.act({last['id']!r}, key, {{'type': 'resign'}})"
    die_at(
        private_redis, "service.tournaments.rounds", "Rounds._tell_over", resign, tokens[last["players"][1]]
    )
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
