"""Issue 24's account and share rules as a client meets them, through the real server
(gunicorn + uvicorn, as `make run` serves): password guesses for one account from many
addresses, look-alike and invisible usernames, one player's caps on games and bots, and
JSON nested too deep.  (The rules' details are tested in-process: test_login_lockout,
test_username_confusables, test_games_share, test_json_depth; bodies cut short and the
slow clients in test_front_door.)"""

from __future__ import annotations

import http.client
import json
import time
import uuid
from collections.abc import Iterator
from http.cookies import SimpleCookie

import pytest

from games.models import Game, Move
from players.lockout import DEVICE_COOKIE_PREFIX
from players.models import Player
from tests.server_support import Gunicorn, call, register, served, two_player_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]

PASSWORD = "a-long-password-1"  # tests.server_support.register's


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory) -> Iterator[Gunicorn]:
    """Five guesses a day per account; small caps on one player's games and bots."""
    yield from served(tmp_path_factory, "hardening", UNO_LOGIN_LOCKOUT="5/1d", UNO_MAX_WAITING_GAMES=2,
                      UNO_MAX_GAMES=4, UNO_MAX_BOT_SEATS=4)


def send(server, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
         source: str = "127.0.0.1") -> tuple[int, dict, dict]:
    """One request from ``source``: its status, headers and JSON body (or {})."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60, source_address=(source, 0))
    try:
        conn.request(method, path, body, {"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        raw = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(raw) if raw else {}
    finally:
        conn.close()


def log_in(server, username: str, password: str, source: str = "127.0.0.1", cookie: str | None = None):
    headers = {"Cookie": cookie} if cookie else {}
    return send(server, "POST", "/api/v1/auth/token", json.dumps({"username": username, "password": password}).encode(),
                headers, source)


def device_cookie(headers: dict) -> str:
    jar = SimpleCookie(headers["set-cookie"])
    (name,) = [name for name in jar if name.startswith(DEVICE_COOKIE_PREFIX)]
    return f"{name}={jar[name].value}"


def test_guesses_from_many_addresses_lock_the_account_but_not_its_owner(server):
    if 86400 - time.time() % 86400 < 60:  # the day's window is about to turn: wait for the new one
        time.sleep(86400 - time.time() % 86400 + 1)
    name, _ = register(server)
    status, headers, _ = log_in(server, name, PASSWORD)  # the owner's phone, before the attack
    assert status == 200
    phone = device_cookie(headers)

    guesses = [log_in(server, name, f"guess-{i}", source=f"127.0.0.{2 + i % 8}") for i in range(40)]
    # 1 log-in + 4 guesses fill the day's 5; every later guess is refused before the password is checked
    assert [status for status, _, _ in guesses] == [400] * 4 + [429] * 36
    assert all(body["code"] == "throttled" and int(headers["retry-after"]) >= 1 for _, headers, body in guesses[4:])
    # the right password from a new device waits too: a guesser cannot tell it is right
    assert log_in(server, name, PASSWORD, source="127.0.0.20")[0] == 429
    # the owner's phone is counted on its own: it still logs in
    status, _, body = log_in(server, name, PASSWORD, source="127.0.0.30", cookie=phone)
    assert status == 200 and body["token"]
    assert send(server, "GET", "/api/v1/players/me", headers={"Authorization": f"Token {body['token']}"})[2][
        "username"] == name


@pytest.mark.parametrize("first, second", [("al{}", "\u0430l{}"), ("Ivan{}", "lvan{}"), ("bob{}", "B0B{}")])
def test_a_look_alike_name_is_refused(server, first, second):
    tail = uuid.uuid4().hex[:8]
    body = {"username": first.format(tail), "password": PASSWORD}
    assert call(server, "POST", "/api/v1/auth/register", body)[0] == 201
    status, problem, _ = call(server, "POST", "/api/v1/auth/register", {**body, "username": second.format(tail)})
    assert status == 400 and problem["code"] == "invalid" and "username" in problem["fields"], problem
    assert not Player.objects.filter(username=second.format(tail)).exists()


@pytest.mark.parametrize("invisible", ["\u3164", "\u115f", "\u200b", "\u202e"])
def test_an_invisible_character_in_a_name_is_refused(server, invisible):
    name = f"in{invisible}{uuid.uuid4().hex[:8]}"
    status, problem, _ = call(server, "POST", "/api/v1/auth/register", {"username": name, "password": PASSWORD})
    assert status == 400 and "username" in problem["fields"], problem
    assert not Player.objects.filter(username=name).exists()


def test_one_players_caps_on_waiting_games_games_and_bots(server):
    """4 bot seats, 2 waiting games created, 4 unfinished games seated in (the fixture's)."""
    _, alice = register(server)
    _, bob = register(server)

    def create(token=alice, **body):
        return call(server, "POST", "/api/v1/games", {"ruleset": "standard", **body}, token)

    games = Game.objects.count()
    status, problem, _ = create(bots=[{"level": "easy"}] * 5, max_players=6, start_when_full=True)
    assert (status, problem["code"], problem["limit"]) == (409, "too_many_bots", 4)
    assert Game.objects.count() == games
    status, game, _ = create(bots=[{"level": "easy"}] * 3, max_players=4, start_when_full=True)
    assert status == 201 and game["status"] == "active", game
    status, problem, _ = create(bots=[{"level": "easy"}] * 2, max_players=3, start_when_full=True)
    assert (status, problem["code"], problem["limit"]) == (409, "too_many_bots", 4)
    assert create(max_players=2)[0] == 201
    assert create(max_players=2)[0] == 201
    status, problem, _ = create(max_players=2)
    assert (status, problem["code"], problem["limit"]) == (409, "too_many_waiting_games", 2)
    # seats in others' games: the fourth unfinished game is the last
    first, second = create(bob, max_players=2)[1], create(bob, max_players=2)[1]
    assert call(server, "POST", f"/api/v1/games/{first['id']}/join", None, alice)[0] == 200
    status, problem, _ = call(server, "POST", f"/api/v1/games/{second['id']}/join", None, alice)
    assert (status, problem["code"], problem["limit"]) == (409, "too_many_games", 4)
    assert Game.objects.count() == games + 5
    assert len(call(server, "GET", f"/api/v1/games/{second['id']}", token=bob)[1]["players"]) == 1


@pytest.mark.parametrize("depth", [33, 1000, 100_000])
def test_json_nested_too_deep_is_refused_and_changes_nothing(server, depth):
    name = f"deep{uuid.uuid4().hex[:8]}"
    body = '{"username": "%s", "password": "%s", "x": %s}' % (name, PASSWORD, "[" * depth + "]" * depth)
    status, _, problem = send(server, "POST", "/api/v1/auth/register", body.encode())
    assert status == 400 and problem["code"] == "malformed_json", problem
    assert not Player.objects.filter(username=name).exists()
    # on a game's action too
    game_id, a, _ = two_player_game(server)
    assert call(server, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
    version, moves = Game.objects.get(pk=game_id).version, Move.objects.filter(game_id=game_id).count()
    status, _, problem = send(server, "POST", f"/api/v1/games/{game_id}/actions", ("[" * depth).encode(),
                              {"Authorization": f"Token {a}"})
    assert status == 400 and problem["code"] == "malformed_json", problem
    assert (Game.objects.get(pk=game_id).version, Move.objects.filter(game_id=game_id).count()) == (version, moves)
