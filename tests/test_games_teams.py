"""Options ``teams``, ``partner_rotation`` and ``scoring: elimination`` over the HTTP API,
with a real Celery worker on Redis (see celery_helpers): created and refused as
documented (an odd count with ``teams``: 400 naming the option; a start with a count the
options cannot play: 409), played to the end by a person and bots of every level, the
view showing each seat's team / status and the winners, every winner's ``games_won``
counted, and the stored game verified by replay.

The engine's side (each RULES.md sentence, the bots' team play, properties over random
games) is tested in tests/engine/test_teams.py.
"""

from __future__ import annotations

import random
import time

import pytest

from games import engine
from games.models import Game, Move, Seat

from .celery_helpers import client_for, requires_redis, worker  # noqa: F401 (fixture)
from .games_support import verified
from .helpers import assert_problem

pytestmark = [requires_redis, pytest.mark.django_db(transaction=True)]

GAMES = "/api/v1/games"
LEVELS = ("random", "easy", "normal", "hard")


def game_json(client, gid: int) -> dict:
    r = client.get(f"{GAMES}/{gid}")
    assert r.status_code == 200, r.content
    return r.json()


@pytest.mark.parametrize("options, max_players, field", [
    ({"teams": True}, 5, "options.teams"),
    ({"teams": True}, 3, "options.teams"),
    ({"partner_rotation": True}, 6, "options.partner_rotation"),
    ({"partner_rotation": True, "rounds": 5}, 4, "options.rounds"),
    ({"teams": True, "scoring": "elimination"}, 4, "options.teams"),
    ({"hands_to_win": 2}, 4, "options.hands_to_win"),
    ({"scoring": "hands_won", "target_score": 100}, 4, "options.target_score"),
    ({"scoring": "elimination", "rounds": 2}, 4, "options.rounds"),
])
def test_nonsense_is_refused_with_a_400_naming_the_option(make_player, options, max_players, field):
    _, token = make_player("ann")
    ann = client_for(token)
    r = ann.post(GAMES, {"ruleset": "standard", "max_players": max_players, "options": options}, format="json")
    problem = assert_problem(r, 400, "invalid_options")
    assert list(problem["fields"]) == [field]


def test_a_team_game_started_with_an_odd_count_is_refused(make_player):
    """Created for 4, started with 3 seated: the options cannot play 3 (409, nothing starts)."""
    _, token = make_player("ann")
    ann = client_for(token)
    r = ann.post(GAMES, {"ruleset": "standard", "max_players": 4, "options": {"teams": True},
                         "bots": [{"level": "easy"}, {"level": "normal"}]}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert r.json()["options"]["teams"] is True and r.json()["winners"] == []
    problem = assert_problem(ann.post(f"{GAMES}/{gid}/start"), 409, "wrong_player_count")
    assert "teams" in problem["detail"] and "3 seated" in problem["detail"]
    assert game_json(ann, gid)["status"] == "waiting"


def play_to_the_end(client, gid: int, seat: int, seed: int) -> tuple[dict, list[dict]]:
    """The person plays random listed actions (plays preferred) while the bots play;
    returns the finished view and every view seen on the way."""
    rng = random.Random(seed)
    seen = []
    started = time.monotonic()
    while True:
        g = game_json(client, gid)
        seen.append(g)
        if g["status"] == "finished":
            return g, seen
        assert time.monotonic() - started < 240, "the game did not end"
        legal = g["legal_actions"]
        if g["current_seat"] == seat and legal:
            plays = [a for a in legal if a["type"] in ("play", "choose_color")]
            action = rng.choice(plays or legal)
        elif any(a["type"] == "catch_uno" for a in legal):
            action = next(a for a in legal if a["type"] == "catch_uno")
        else:
            time.sleep(0.01)
            continue
        r = client.post(f"{GAMES}/{gid}/actions", action, format="json")
        if r.status_code != 200:  # a bot acted meanwhile (a catch, the round ended...)
            assert r.json()["code"] in ("illegal_move", "not_your_turn", "game_finished", "stale_version"), r.content


def verify(gid: int) -> None:
    report = verified(gid)
    assert report.startswith(f"game {gid}: OK"), report


def test_a_person_and_bots_of_every_level_play_a_team_game_to_its_end(worker, make_player):
    """Six seats (a person, random, easy, normal, hard, normal): three teams of partners
    sitting opposite; the finished game names both winning partners, and each of them
    counts the game won."""
    player, token = make_player("tess")
    tess = client_for(token)
    r = tess.post(GAMES, {"ruleset": "standard", "options": {"teams": True, "target_score": 100},
                          "bots": [{"level": lv} for lv in (*LEVELS, "normal")]}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert tess.post(f"{GAMES}/{gid}/start").status_code == 200
    g = game_json(tess, gid)
    assert [p["team"] for p in g["players"]] == [0, 1, 2, 0, 1, 2]
    assert {p["status"] for p in g["players"]} == {"active"}
    worker.start()
    g, _ = play_to_the_end(tess, gid, 0, 1)
    winners = [w["seat"] for w in g["winners"]]
    assert len(winners) == 2 and winners[1] == winners[0] + 3  # partners sit opposite
    assert g["winner"]["seat"] in winners
    assert g["players"][winners[0]]["score"] == g["players"][winners[1]]["score"] >= 100
    won = set(Seat.objects.filter(game_id=gid, won=True).values_list("seat", flat=True))
    assert won == set(winners)
    scores = tess.get(f"{GAMES}/{gid}/scores").json()
    assert scores["winner_seats"] == winners and scores["winner_seat"] == g["winner"]["seat"]
    me = tess.get("/api/v1/players/me").json()
    assert me["games_played"] == 1 and me["games_won"] == (1 if 0 in winners else 0)
    ended = [e for m in Move.objects.filter(game_id=gid) for e in m.events if e["type"] == "game_ended"]
    assert len(ended) == 1 and ended[0]["winners"] == winners
    verify(gid)


def test_a_person_and_bots_of_every_level_play_an_elimination_game_to_its_end(worker, make_player):
    """Five seats: a seat reaching the target is shown eliminated and acts no more; the
    last one left wins."""
    _, token = make_player("elle")
    elle = client_for(token)
    r = elle.post(GAMES, {"ruleset": "standard", "options": {"scoring": "elimination", "target_score": 80},
                          "bots": [{"level": lv} for lv in LEVELS]}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert elle.post(f"{GAMES}/{gid}/start").status_code == 200
    worker.start()
    g, seen = play_to_the_end(elle, gid, 0, 2)
    statuses = [p["status"] for p in g["players"]]
    assert statuses.count("active") == 1 and statuses.count("eliminated") == 4
    last = statuses.index("active")
    assert g["winner"]["seat"] == last and [w["seat"] for w in g["winners"]] == [last]
    assert all(p["team"] is None for p in g["players"])
    # while running, an eliminated seat was shown so, held no cards and owed nothing
    for view in seen:
        for p in view["players"]:
            if p["status"] == "eliminated" and view["status"] == "active":
                assert p["hand_count"] == 0 and view["current_seat"] != p["seat"]
                assert all(o["seat"] != p["seat"] for o in view["obligations"])
    if statuses[0] == "eliminated":
        assert game_json(elle, gid)["legal_actions"] == []
    assert any(e["type"] == "seats_eliminated" for m in Move.objects.filter(game_id=gid) for e in m.events)
    verify(gid)


def test_the_engine_view_and_the_api_agree_on_teams(make_player):
    """The API's per-seat ``team`` is the engine's ``State.teams`` of the round."""
    _, token = make_player("ann")
    ann = client_for(token)
    gid = ann.post(GAMES, {"ruleset": "standard", "options": {"partner_rotation": True},
                           "bots": [{"level": "easy"}] * 3}, format="json").json()["id"]
    assert ann.post(f"{GAMES}/{gid}/start").status_code == 200
    g = game_json(ann, gid)
    assert g["options"]["rounds"] == 3
    assert [p["team"] for p in g["players"]] == [0, 1, 0, 1]
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    assert state.teams == [0, 1, 0, 1]
