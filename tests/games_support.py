"""Helpers for the games API tests: clients, games in a given state, DB snapshots,
and a quick way to play a game to its end through the services."""

from __future__ import annotations

import functools
import io
import random
import time
from typing import Any, Callable, Iterator

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from rest_framework.test import APIClient

from games import engine, selectors, services
from games.models import Game, GameStatus, Move, MoveBy, Seat
from tests.helpers import assert_json, assert_problem

GAMES = "/api/v1/games"


def game_url(gid: int, tail: str = "") -> str:
    return f"{GAMES}/{gid}{'/' + tail if tail else ''}"


def client_for(player, token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    c.player, c.token = player, token
    return c


@pytest.fixture
def clients(make_player):
    """Factory: ``clients(n)`` -> n APIClients, each signed in as a fresh player."""

    def make(n: int) -> list[APIClient]:
        return [client_for(*make_player()) for _ in range(n)]

    return make


def fix_seeds(monkeypatch, seed: int) -> random.Random:
    """Make the games created from now on deal reproducibly (their seeds drawn from
    ``random.Random(seed)`` instead of ``secrets``); returns that generator.  The seeds
    are 64-bit numbers, as before issue 12 (new games' are 128-bit: ``SEED_BITS``), so
    that each test deals the games it was written for."""
    rng = random.Random(seed)
    monkeypatch.setattr(services.secrets, "randbits", lambda bits: rng.getrandbits(64))
    return rng


def create_game(client: APIClient, **body: Any) -> dict:
    body.setdefault("ruleset", "standard")
    r = client.post(GAMES, body, format="json")
    assert r.status_code == 201, r.content
    return r.json()


def options_refused(client: APIClient, body: dict) -> list[str]:
    """A game created with ``body`` is refused: a 400 problem ``invalid_options``.
    Returns the fields it names."""
    return list(assert_problem(client.post(GAMES, body, format="json"), 400, "invalid_options")["fields"])


def start_table(players: list[APIClient], **body: Any) -> int:
    """players[0] creates a game for exactly these players, the others join, it starts."""
    body.setdefault("max_players", len(players) + len(body.get("bots", [])))
    gid = create_game(players[0], **body)["id"]
    for c in players[1:]:
        r = c.post(game_url(gid, "join"))
        assert r.status_code == 200, r.content
    r = players[0].post(game_url(gid, "start"))
    assert r.status_code == 200, r.content
    return gid


def by_seat(gid: int, players: list[APIClient]) -> dict[int, APIClient]:
    ids = {c.player.pk: c for c in players}
    return {s.seat: ids[s.player_id] for s in Seat.objects.filter(game_id=gid, player__isnull=False)}


def snapshot(gid: int) -> tuple:
    g = Game.objects.get(pk=gid)
    return g.version, Move.objects.filter(game_id=gid).count(), g.status, g.state


def assert_unchanged(gid: int, snap: tuple) -> None:
    assert snapshot(gid) == snap, "a rejected request changed the game"


def refused(client: APIClient, gid: int, body: Any, status: int, code: str, *, raw: bool = False,
            **headers: str) -> dict:
    """POST an action that must be refused with ``status``/``code`` and change nothing."""
    snap = snapshot(gid)
    if raw:
        r = client.post(game_url(gid, "actions"), body, content_type="application/json", **headers)
    else:
        r = client.post(game_url(gid, "actions"), body, format="json", **headers)
    problem = assert_problem(r, status, code)
    assert_unchanged(gid, snap)
    return problem


def assert_move_statements(lock: str, seats: str, insert: str, update: str, *, lock_tail: str) -> None:
    """The statements of a move (or of a batch of moves) on the games' tables, in order:
    the games read and locked (``lock`` ends with ``lock_tail`` where the database has
    row locks), their seats read, the moves inserted, the games updated."""
    assert lock.startswith("SELECT") and '"games_game"' in lock
    if connection.features.has_select_for_update:
        assert lock.endswith(lock_tail)
    assert seats.startswith("SELECT") and '"games_seat"' in seats
    assert insert.startswith('INSERT INTO "games_move"')
    assert update.startswith('UPDATE "games_game"')


def true_state(gid: int) -> engine.State:
    return engine.State.from_dict(Game.objects.get(pk=gid).state)


def running_states(gid: int, most: int) -> Iterator[engine.State]:
    """The game's true state before each of its next moves (``most`` at the most) while it
    runs: a loop's body makes one move each time."""
    for _ in range(most):
        state = true_state(gid)
        if state.status == "finished":
            return
        yield state


def actor(gid: int) -> int:
    return Game.objects.get(pk=gid).current_seat


def quick_policy(legal: list[dict], rng: random.Random) -> dict:
    """Random, but shortens games: plays (and colour choices) over anything else."""
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    return rng.choice(plays or legal)


def play_out(gid: int, rng: random.Random | None = None, max_actions: int = 20_000) -> Game:
    """Play ``gid`` to its end through the services (fast; no HTTP)."""
    rng = rng or random.Random(0)
    players = {s.seat: s.player for s in Seat.objects.filter(game_id=gid).select_related("player")}
    for _ in range(max_actions):
        game = Game.objects.get(pk=gid)
        if game.status == GameStatus.FINISHED:
            return game
        state = engine.State.from_dict(game.state)
        seat = state.actor()
        action = quick_policy(engine.legal_actions(state, seat), rng)
        services.act(game_id=gid, player=players[seat], action=action)
    raise AssertionError("the game did not finish")


def play_out_every_seat(gid: int, rng: random.Random | None = None, max_actions: int = 20_000) -> Game:
    """Play ``gid`` to its end through the services, every seat (a person's, a bot's, a
    left one's) by the same quick policy: a bot's or a left seat's moves are recorded
    as the bots' (fast; no HTTP, no bot policy)."""
    rng = rng or random.Random(0)
    for _ in range(max_actions):
        with transaction.atomic():
            game = selectors.load_seats(selectors.read_game(gid, lock=True))
            if game.status == GameStatus.FINISHED:
                return game
            state = engine.State.from_dict(game.state)
            seat = selectors.seats_of(game)[state.actor()]
            robot = seat.is_bot or seat.left
            services.apply_and_record(game, state, seat.seat, quick_policy(engine.legal_actions(state, seat.seat), rng),
                                      MoveBy.BOT if robot else MoveBy.PLAYER, None if robot else seat.player)
    raise AssertionError("the game did not finish")


def all_moves(client: APIClient, gid: int, after: int = 0, limit: int = 500) -> list[dict]:
    """Every move of ``gid`` with ``seq > after`` as ``client`` may see them: each page
    of ``GET /moves`` (``limit`` moves a page), following ``next`` to the end."""
    page = assert_json(client.get(game_url(gid, "moves") + f"?after={after}&limit={limit}"), 200)
    moves = page["results"]
    while page["next"]:
        page = assert_json(client.get(page["next"]), 200)
        moves += page["results"]
    return moves


def walk(value: Any) -> Iterator[Any]:
    """Every dict and list nested in ``value`` (itself included)."""
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def play_seat_zero_to_the_end(client: APIClient, gid: int, choose: Callable[[dict], dict], *, seconds: float,
                              turn_timeout: float = 30) -> dict:
    """Play seat 0 of game ``gid`` over HTTP while the worker's bots play the others:
    whenever seat 0 owes the decision, post ``choose(view)`` (one of its
    ``legal_actions``) with ``expected_version`` (409: a bot acted out of turn in
    between, and the next view decides again), until the game is finished, within
    ``seconds``.  Returns the finished game's view.  (It looks every 20 ms: the worker's
    threads share this process, and a look every 10 ms kept the interpreter from them.)"""
    from tests.celery_helpers import wait_for

    url = f"/api/v1/games/{gid}"
    started = time.monotonic()
    while True:
        g = wait_for(lambda: (lambda g: g if g["status"] == "finished" or g["current_seat"] == 0 else None)(
            client.get(url).json()), timeout=turn_timeout, interval=0.05, message="seat 0's turn")
        if g["status"] == "finished":
            return g
        r = client.post(f"{url}/actions", {**choose(g), "expected_version": g["version"]}, format="json")
        assert r.status_code in (200, 409), r.content
        assert time.monotonic() - started < seconds, f"game {gid} not over within {seconds} s"


#: one bot of each level, seats 1-4 of the HTTP games against bots
EVERY_BOT_LEVEL = ("random", "easy", "normal", "hard")


def start_against_bots(client: APIClient, ruleset: str, options: dict, levels=EVERY_BOT_LEVEL) -> int:
    """Create a game of ``ruleset`` with ``options`` for the caller (seat 0) and a bot of
    each of ``levels`` (seats 1, 2, ...) over HTTP, start it and return its id."""
    r = client.post(GAMES, {"ruleset": ruleset, "options": options, "bots": [{"level": lv} for lv in levels]},
                    format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert client.post(game_url(gid, "start")).status_code == 200
    return gid


def start_against_every_bot_level(client: APIClient, ruleset: str, options: dict) -> int:
    """:func:`start_against_bots` with a bot of each level (seats 1-4)."""
    return start_against_bots(client, ruleset, options)


def assert_every_bot_moved_without_the_timer(gid: int, bots: int = len(EVERY_BOT_LEVEL)) -> None:
    """Every bot seat (1 to ``bots``) of ``gid`` recorded moves, and no move was the
    timer's (no bot ever needed the fallback)."""
    moves = list(Move.objects.filter(game_id=gid).values_list("seat", "by"))
    assert {seat for seat, by in moves if by == "bot"} == set(range(1, bots + 1))
    assert "timer" not in {by for _, by in moves}


def chooser(pick: Callable[[list[dict], Any, random.Random], dict], about_game: Callable[[int], Any],
            seed: int) -> Callable[[dict], dict]:
    """A person's choice for :func:`play_against_bots`: ``pick(legal actions, what
    about_game(the game's id) says, rng)``, ``about_game`` asked once per game and the
    rng seeded ``seed``."""
    about = functools.cache(about_game)
    rng = random.Random(seed)
    return lambda g: pick(g["legal_actions"], about(g["id"]), rng)


def play_against_bots(worker, client: APIClient, ruleset: str, options: dict, choose: Callable[[dict], dict], *,
                      seconds: float, levels=EVERY_BOT_LEVEL) -> tuple[int, dict]:
    """The one arrangement of a game between a person and bots over HTTP: the worker
    started, ``client`` (seat 0) against a bot of each of ``levels`` in a game of
    ``ruleset`` with ``options`` (:func:`start_against_bots`), seat 0 playing
    ``choose(view)`` while the worker's bots play the others, to the end within
    ``seconds`` (:func:`play_seat_zero_to_the_end`).  Then every bot moved, the timer
    never did, and the game verifies from its log.  Returns (its id, its finished view)."""
    worker.start()
    gid = start_against_bots(client, ruleset, options, levels)
    g = play_seat_zero_to_the_end(client, gid, choose, seconds=seconds)
    assert g["status"] == "finished"
    assert_every_bot_moved_without_the_timer(gid, len(levels))
    assert f"game {gid}: OK" in verified(gid)
    return gid, g


def verified(gid: int) -> str:
    """``manage.py verify_game``'s output for game ``gid`` (``game N: OK`` when its log
    replays to what is stored)."""
    out = io.StringIO()
    call_command("verify_game", str(gid), stdout=out, stderr=out)
    return out.getvalue()
