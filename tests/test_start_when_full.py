"""``start_when_full`` (issue 28): a game created with it starts by itself when its last
free seat is taken (a join, or at creation when the bots fill it), in the same
transaction, exactly as its creator's ``POST /start`` would; without it a full table
still waits for the creator's start.  The race for the last seat lets one player in and
starts the game once (on PostgreSQL and on the embedded SQLite: mark ``concurrency``)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from games import services
from games.models import Game, Move, Round, Seat
from tests.games_support import GAMES, clients, create_game, fix_seeds, game_url  # noqa: F401 (fixture)
from tests.helpers import assert_json, assert_problem
from tests.server_support import Gunicorn


@pytest.fixture
def started_signals(monkeypatch):
    """The games for which the services emitted the "move committed" signal (what runs
    the bots' first move, the countdowns and the notifications), with their versions."""
    seen: list[tuple[int, int, str]] = []
    original = services.signals.on_commit

    def record(game, *args, **kwargs):
        seen.append((game.pk, game.version, game.status))
        return original(game, *args, **kwargs)

    monkeypatch.setattr(services.signals, "on_commit", record)
    return seen


@pytest.mark.django_db
def test_the_join_that_fills_the_table_starts_it(clients, started_signals):
    alice, bob, carol = clients(3)
    g = create_game(alice, max_players=3, start_when_full=True, turn_seconds=60, options={"rounds": 1})
    assert g["status"] == "waiting" and g["start_when_full"] is True
    gid = g["id"]

    # not full yet: the join seats Bob, the game waits
    g = assert_json(bob.post(game_url(gid, "join")), 200)
    assert g["status"] == "waiting" and g["version"] == 0 and len(g["players"]) == 2
    assert not started_signals

    # Carol takes the last seat: her answer is the started game, her hand dealt
    g = assert_json(carol.post(game_url(gid, "join")), 200)
    assert g["status"] == "active" and g["version"] == 1 and g["seat"] == 2 and len(g["hand"]) == 7
    assert g["started_at"] is not None and g["deadline"] is not None and g["start_when_full"] is True
    assert [p["username"] for p in g["players"]] == [c.player.username for c in (alice, bob, carol)]
    # recorded as the creator's Start: one "start" move by seat 0's player, round 1 dealt
    move = Move.objects.get(game_id=gid)
    assert (move.seq, move.action, move.seat, move.player_id) == (1, {"type": "start"}, 0, alice.player.pk)
    assert Round.objects.filter(game_id=gid, number=1).exists()
    assert started_signals == [(gid, 1, "active")]
    # and the lists say it
    listed = assert_json(alice.get(f"{GAMES}?mine=true"), 200)["results"]
    assert [(x["id"], x["status"], x["start_when_full"]) for x in listed] == [(gid, "active", True)]
    # nobody can start it again
    assert_problem(alice.post(game_url(gid, "start")), 409, "game_not_waiting")


@pytest.mark.django_db
def test_a_table_started_by_itself_is_the_one_its_creator_would_have_started(clients, monkeypatch):
    """The same seed, seats and options: started by the last join, or by the creator's
    Start, the game is the same (state, obligations, moves)."""
    games = []
    for by_itself in (True, False):
        fix_seeds(monkeypatch, 2028)
        alice, bob = clients(2)
        gid = create_game(alice, max_players=2, start_when_full=by_itself, turn_seconds=300)["id"]
        g = assert_json(bob.post(game_url(gid, "join")), 200)
        if not by_itself:
            assert g["status"] == "waiting"
            g = assert_json(alice.post(game_url(gid, "start")), 200)
        games.append(Game.objects.get(pk=gid))
    auto, manual = games
    assert auto.state == manual.state and auto.version == manual.version == 1
    assert [(o["seat"], o["decision"], o["kind"]) for o in auto.obligations] == [
        (o["seat"], o["decision"], o["kind"]) for o in manual.obligations]
    assert [(m.seq, m.seat, m.action, m.events) for m in Move.objects.filter(game=auto)] == [
        (m.seq, m.seat, m.action, m.events) for m in Move.objects.filter(game=manual)]


@pytest.mark.django_db
def test_by_default_a_full_table_waits_for_the_creators_start(clients):
    alice, bob = clients(2)
    g = create_game(alice, max_players=2)
    assert g["start_when_full"] is False
    g = assert_json(bob.post(game_url(g["id"], "join")), 200)
    assert g["status"] == "waiting" and g["version"] == 0 and len(g["players"]) == 2
    assert assert_json(alice.post(game_url(g["id"], "start")), 200)["status"] == "active"
    # asked explicitly false: the same
    g = create_game(alice, max_players=2, start_when_full=False)
    assert assert_json(bob.post(game_url(g["id"], "join")), 200)["status"] == "waiting"


@pytest.mark.django_db
def test_a_table_created_full_with_its_bots_starts_at_once(clients, started_signals):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": "standard", "bots": [{"level": "easy"}, {"level": "random"}],
                           "start_when_full": True}, format="json")
    g = assert_json(r, 201)
    assert g["status"] == "active" and g["version"] == 1 and g["max_players"] == 3 and len(g["hand"]) == 7
    assert started_signals == [(g["id"], 1, "active")]  # the bots' first move follows the commit
    # a table with a free seat left waits, even with bots
    g = create_game(alice, bots=[{"level": "easy"}], max_players=3, start_when_full=True)
    assert g["status"] == "waiting"
    # and a full one without the flag waits for Start, as before
    assert create_game(alice, bots=[{"level": "easy"}])["status"] == "waiting"


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_start_when_full_must_be_a_boolean(clients, value):
    (alice,) = clients(1)
    games = Game.objects.count()
    problem = assert_problem(alice.post(GAMES, {"ruleset": "standard", "start_when_full": value}, format="json"),
                             400, "invalid")
    assert list(problem["fields"]) == ["start_when_full"]
    assert Game.objects.count() == games  # nothing created


@pytest.mark.django_db
def test_a_table_that_would_pass_the_joiners_share_is_not_started(clients, settings):
    """The join is refused (409 ``too_many_games``) before anything starts."""
    alice, bob = clients(2)
    settings.UNO_MAX_GAMES = 1
    create_game(bob, max_players=3)  # Bob holds his one game
    gid = create_game(alice, max_players=2, start_when_full=True)["id"]
    assert_problem(bob.post(game_url(gid, "join")), 409, "too_many_games")
    game = Game.objects.get(pk=gid)
    assert game.status == "waiting" and game.version == 0 and Seat.objects.filter(game=game).count() == 1


# --- the race for the last seat (PostgreSQL, and again on SQLite: `concurrency`) -------------
THREADS = 8


@pytest.mark.django_db(transaction=True)
@pytest.mark.concurrency
def test_players_racing_for_the_last_seat_one_gets_it_and_the_game_starts_once(tmp_path, clients):
    creator, *racers = clients(1 + THREADS)
    gid = create_game(creator, max_players=2, start_when_full=True)["id"]
    barrier = threading.Barrier(THREADS)
    with Gunicorn(tmp_path / "gunicorn.log", workers=2) as server:
        def join(client):
            with requests.Session() as s:
                barrier.wait(timeout=30)
                return client, s.post(server.url + game_url(gid, "join"), timeout=60,
                                      headers={"Authorization": f"Token {client.token}"})

        with ThreadPoolExecutor(THREADS) as pool:
            answers = list(pool.map(join, racers))
    winners = [(c, r) for c, r in answers if r.status_code == 200]
    assert len(winners) == 1, [(r.status_code, r.text) for _, r in answers]
    winner, answer = winners[0]
    assert answer.json()["status"] == "active" and answer.json()["seat"] == 1
    for _, r in answers:
        if r.status_code != 200:
            assert r.status_code == 409 and r.headers["Content-Type"] == "application/problem+json"
            assert r.json()["code"] in ("game_full", "game_not_waiting"), r.text
    game = Game.objects.get(pk=gid)
    assert game.status == "active" and game.version == 1
    assert list(Seat.objects.filter(game=game).values_list("seat", "player_id")) == [
        (0, creator.player.pk), (1, winner.player.pk)]
    assert list(Move.objects.filter(game=game).values_list("seq", "action")) == [(1, {"type": "start"})]
