"""One player's share (issue 24): the unfinished games a player is seated in
(``UNO_MAX_GAMES``), the waiting games they created (``UNO_MAX_WAITING_GAMES``) and the
bot seats of their unfinished games (``UNO_MAX_BOT_SEATS``).  A refusal is a 409
problem with the ``limit``, and changes nothing; two concurrent requests of one player
cannot both pass a limit."""

from __future__ import annotations

import time

import pytest

from games import services
from games.models import Game, GameStatus, Seat
from tests.games_support import (
    GAMES,
    by_seat,
    clients,  # noqa: F401 (fixture)
    create_game,
    game_url,
    start_table,
)
from tests.helpers import assert_json, assert_problem, at_once, openapi_schema


def _rows() -> tuple[int, int]:
    return Game.objects.count(), Seat.objects.count()


def _refused_create(client, code: str, limit: int, **body) -> dict:
    before = _rows()
    problem = assert_problem(client.post(GAMES, {"ruleset": "standard", **body}, format="json"), 409, code)
    assert problem["limit"] == limit
    assert _rows() == before, "a refused create wrote something"
    return problem


@pytest.mark.django_db
def test_the_defaults_are_documented_values(settings):
    from django.conf import settings as live

    assert (live.UNO_MAX_WAITING_GAMES, live.UNO_MAX_GAMES, live.UNO_MAX_BOT_SEATS) == (20, 50, 30)


@pytest.mark.django_db
def test_waiting_games_created_past_the_limit_are_refused(clients, settings):
    settings.UNO_MAX_WAITING_GAMES = 2
    alice, bob = clients(2)
    first = create_game(alice, max_players=2)["id"]
    create_game(alice)
    problem = _refused_create(alice, "too_many_waiting_games", 2)
    assert "waiting" in problem["detail"]
    create_game(bob)  # another player's share is their own
    # a game that starts is no longer waiting: room for one more
    assert_json(bob.post(game_url(first, "join")), 200)
    assert_json(alice.post(game_url(first, "start")), 200)
    create_game(alice)
    _refused_create(alice, "too_many_waiting_games", 2)
    # so is a waiting game its creator leaves (deleted when alone in it)
    gid = Game.objects.filter(creator=alice.player, status=GameStatus.WAITING).first().pk
    assert alice.post(game_url(gid, "leave")).status_code == 204
    create_game(alice)


@pytest.mark.django_db
def test_unfinished_games_seated_past_the_limit_refuse_create_and_join(clients, settings):
    settings.UNO_MAX_GAMES = 3
    alice, bob, carol = clients(3)
    running = start_table([alice, bob], options={"rounds": 1})  # 1: running
    create_game(alice)  # 2: waiting, created
    theirs = create_game(carol)["id"]
    assert_json(alice.post(game_url(theirs, "join")), 200)  # 3: waiting, joined
    _refused_create(alice, "too_many_games", 3)
    other = create_game(carol)["id"]
    seats = Seat.objects.filter(game_id=other).count()
    problem = assert_problem(alice.post(game_url(other, "join")), 409, "too_many_games")
    assert problem["limit"] == 3 and Seat.objects.filter(game_id=other).count() == seats
    # a running game left for good still counts (its autopilot plays on) ...
    assert_json(alice.post(game_url(running, "leave")), 200)
    _refused_create(alice, "too_many_games", 3)
    # ... until it is finished
    Game.objects.filter(pk=running).update(status=GameStatus.FINISHED)
    assert_json(alice.post(game_url(other, "join")), 200)
    _refused_create(alice, "too_many_games", 3)


@pytest.mark.django_db
def test_bot_seats_past_the_limit_are_refused(clients, settings):
    settings.UNO_MAX_BOT_SEATS = 4
    alice, bob = clients(2)
    three = create_game(alice, bots=[{"level": "hard"}] * 3)["id"]
    _refused_create(alice, "too_many_bots", 4, bots=[{"level": "easy"}] * 2)
    one = create_game(alice, bots=[{"level": "easy"}])["id"]  # 3 + 1 = 4: allowed
    _refused_create(alice, "too_many_bots", 4, bots=[{"level": "random"}])
    create_game(alice)  # a game without bots is no bot seat
    create_game(bob, bots=[{"level": "hard"}] * 4)  # bob's bots are his
    # running games count too; finished ones no more
    assert_json(alice.post(game_url(three, "start")), 200)
    _refused_create(alice, "too_many_bots", 4, bots=[{"level": "random"}])
    Game.objects.filter(pk=three).update(status=GameStatus.FINISHED)
    create_game(alice, bots=[{"level": "random"}] * 3)
    assert Seat.objects.filter(game__creator=alice.player, player__isnull=True,
                               game__status__in=["waiting", "active"]).count() == 4
    assert Game.objects.filter(pk=one).exists()


@pytest.mark.django_db
def test_a_limit_of_zero_is_no_limit(clients, settings):
    settings.UNO_MAX_WAITING_GAMES = settings.UNO_MAX_GAMES = settings.UNO_MAX_BOT_SEATS = 0
    (alice,) = clients(1)
    for _ in range(25):
        create_game(alice, bots=[{"level": "random"}] * 2)
    assert Game.objects.filter(creator=alice.player).count() == 25


@pytest.mark.django_db
def test_the_schema_documents_the_refusals(api):
    schema = openapi_schema(api)
    create = schema["paths"]["/api/v1/games"]["post"]["responses"]["409"]
    join = schema["paths"]["/api/v1/games/{game_id}/join"]["post"]["responses"]["409"]
    for response, codes in ((create, ("too_many_games", "too_many_waiting_games", "too_many_bots")),
                            (join, ("too_many_games", "game_full"))):
        assert all(f"`{code}`" in response["description"] for code in codes)
        ref = response["content"]["application/problem+json"]["schema"]["$ref"]
        assert ref == "#/components/schemas/ShareLimitConflict"
    assert "limit" in schema["components"]["schemas"]["ShareLimitConflict"]["properties"]


# --- concurrency -----------------------------------------------------------------------
THREADS = 6


def _slow_check(monkeypatch, seconds: float = 0.3) -> None:
    """Hold every checked request between its check and its write for ``seconds``: two
    requests of one player that both counted before either wrote would both pass."""
    check = services._check_share

    def slow(*args, **kwargs):
        check(*args, **kwargs)
        time.sleep(seconds)

    monkeypatch.setattr(services, "_check_share", slow)


def _at_once(work) -> list[BaseException | object]:
    """``work(i)`` in THREADS threads released together; each result or exception."""
    return at_once(work, THREADS, wait=60)


def _codes(results) -> list[str]:
    return sorted("created" if isinstance(r, Game) else getattr(r, "code", repr(r)) for r in results)


@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_cannot_both_pass_the_limit(make_player, settings, monkeypatch):
    settings.UNO_MAX_WAITING_GAMES = 2
    alice, _ = make_player()
    create_game_ = services.create_game
    create_game_(creator=alice, ruleset="standard")  # one already: room for one more
    _slow_check(monkeypatch)

    results = _at_once(lambda i: create_game_(creator=alice, ruleset="standard"))

    assert _codes(results) == ["created"] + ["too_many_waiting_games"] * (THREADS - 1), results
    assert Game.objects.filter(creator=alice).count() == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_and_creates_cannot_pass_the_games_limit(make_player, settings, monkeypatch):
    alice, _ = make_player()
    hosts = [make_player()[0] for _ in range(THREADS - 1)]
    waiting = [services.create_game(creator=host, ruleset="standard").pk for host in hosts]
    settings.UNO_MAX_GAMES = 1
    _slow_check(monkeypatch)

    def one(i):
        if i == 0:
            return services.create_game(creator=alice, ruleset="standard")
        return services.join_game(player=alice, game_id=waiting[i - 1])

    results = _at_once(one)

    assert sum(isinstance(r, Game) for r in results) == 1, results
    assert all(getattr(r, "code", None) == "too_many_games" for r in results if not isinstance(r, Game)), results
    assert Seat.objects.filter(player=alice).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_bot_games_cannot_pass_the_bot_seats_limit(make_player, settings, monkeypatch):
    settings.UNO_MAX_BOT_SEATS = 5
    alice, _ = make_player()
    _slow_check(monkeypatch)

    results = _at_once(lambda i: services.create_game(creator=alice, ruleset="standard", bots=[{"level": "easy"}] * 2))

    assert _codes(results) == ["created"] * 2 + ["too_many_bots"] * (THREADS - 2), results
    assert Seat.objects.filter(game__creator=alice, player__isnull=True).count() == 4


@pytest.mark.django_db
def test_a_refused_join_keeps_the_players_other_seats(clients, settings):
    # (the join's checks come after the game's lock; a refused one changes nothing)
    settings.UNO_MAX_GAMES = 1
    alice, bob, carol = clients(3)
    gid = start_table([alice, bob], options={"rounds": 1})
    target = create_game(carol)["id"]
    assert_problem(alice.post(game_url(target, "join")), 409, "too_many_games")
    assert sorted(by_seat(gid, [alice, bob])) == [0, 1]
    assert list(Seat.objects.filter(game_id=target).values_list("player_id", flat=True)) == [carol.player.pk]
