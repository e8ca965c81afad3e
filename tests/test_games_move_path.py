"""The move path's reads and writes (GET of a game, POST of an action): what they cost
in statements, and that what they read without the ORM is what the ORM reads."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services, signals
from games.models import Game, Seat
from players.models import Webhook
from tests.games_support import assert_move_statements, by_seat, clients, game_url, start_table  # noqa: F401 (fixture)
from tests.helpers import assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.concurrency]

GAME_TABLES = re.compile(r'"?games_\w+"?')


def game_statements(captured: CaptureQueriesContext) -> list[str]:
    """The statements of a request on the games' tables (authentication and rate
    limiting are not the move path's: they read players' and counters' tables)."""
    return [q["sql"] for q in captured.captured_queries if GAME_TABLES.search(q["sql"])]


def duel(clients) -> tuple[int, dict]:
    players = clients(2)
    gid = start_table(players)
    return gid, by_seat(gid, players)


def legal_move(client, gid: int) -> dict:
    view = client.get(game_url(gid)).json()
    action = dict(view["legal_actions"][0])
    action["expected_version"] = view["version"]
    return action


def test_a_get_reads_the_game_and_its_seats_in_one_statement(clients):
    gid, seats = duel(clients)
    with CaptureQueriesContext(connection) as captured:
        r = seats[0].get(game_url(gid))
    assert r.status_code == 200
    statements = game_statements(captured)
    assert len(statements) == 1, statements
    assert "games_game" in statements[0] and "games_seat" in statements[0]
    assert [p["username"] for p in r.json()["players"]] == [seats[0].player.username, seats[1].player.username]


def test_a_move_locks_reads_seats_records_and_saves_in_four_statements(clients):
    """A move in a game of humans with no deadline and no webhook: nothing runs after
    its commit (after_move would find nothing to do)."""
    gid, seats = duel(clients)
    client = seats[Game.objects.get(pk=gid).current_seat]
    action = legal_move(client, gid)
    with CaptureQueriesContext(connection) as captured:
        r = client.post(game_url(gid, "actions"), action, format="json")
    assert r.status_code == 200, r.content
    statements = game_statements(captured)
    assert len(statements) == 4, statements
    lock, seat_read, insert, update = statements
    assert_move_statements(lock, seat_read, insert, update, lock_tail="FOR UPDATE")
    # the columns that do not change with a move are not rewritten
    for unchanged in ("options", "resolved_options", "seed", "creator_id", "ruleset", "created_at"):
        assert f'"{unchanged}" =' not in update


@pytest.mark.parametrize("read", ["get_game", "read_game+load_seats"])
def test_the_rows_read_without_the_orm_are_the_orms(clients, read):
    gid, seats = duel(clients)
    Webhook.objects.create(player=seats[1].player, url="https://example.com/hook", secret="s" * 32)
    if read == "get_game":
        fast = selectors.get_game(gid)
    else:
        fast = selectors.load_seats(selectors.read_game(gid))
    orm = Game.objects.get(pk=gid)
    for field in Game._meta.concrete_fields:
        assert getattr(fast, field.attname) == getattr(orm, field.attname), field.name
    assert fast.state == orm.state and isinstance(fast.created_at, type(orm.created_at))
    expected = list(Seat.objects.filter(game_id=gid).select_related("player").order_by("seat"))
    assert [(s.pk, s.seat, s.player_id, s.bot_level, s.timeouts, s.autopilot) for s in fast.seat_list] == [
        (s.pk, s.seat, s.player_id, s.bot_level, s.timeouts, s.autopilot) for s in expected
    ]
    assert all(type(s.autopilot) is bool for s in fast.seat_list)  # (SQLite stores 0 / 1)
    assert [s.player.username for s in fast.seat_list] == [s.player.username for s in expected]
    assert [s.webhook_id is not None for s in fast.seat_list] == [False, True]
    # the rest of a player's row loads on access
    assert fast.seat_list[0].player.date_joined == expected[0].player.date_joined


def test_an_id_out_of_the_columns_range_is_not_found_and_a_game_without_seats_has_none(clients):
    client = clients(1)[0]
    gid = client.post("/api/v1/games", {"ruleset": "standard"}, format="json").json()["id"]
    Seat.objects.filter(game_id=gid).delete()  # (no API leaves a game seatless: the join must still find it)
    assert selectors.get_game(gid).seat_list == []
    assert_problem(client.get(game_url(2**70)), 404, "not_found")
    assert_problem(client.post(game_url(2**70, "actions"), {"type": "draw"}, format="json"), 404, "not_found")


def test_acting_again_shows_the_seat_off_autopilot_in_the_answer(clients):
    gid, seats = duel(clients)
    seat = Game.objects.get(pk=gid).current_seat
    Seat.objects.filter(game_id=gid, seat=seat).update(autopilot=True, timeouts=2)
    r = seats[seat].post(game_url(gid, "actions"), legal_move(seats[seat], gid), format="json")
    assert r.status_code == 200, r.content
    assert r.json()["game"]["players"][seat]["autopilot"] is False
    assert Seat.objects.filter(game_id=gid, seat=seat, autopilot=False, timeouts=0).exists()


def test_the_creator_is_named_even_when_not_seated(clients, make_player):
    gid, seats = duel(clients)
    outsider, _ = make_player("outsider")
    Game.objects.filter(pk=gid).update(creator=outsider)
    assert seats[0].get(game_url(gid)).json()["creator"] == "outsider"


def test_follow_ups_are_skipped_only_when_after_move_has_nothing_to_do(clients, make_player, settings):
    gid, seats = duel(clients)

    def follow_ups() -> bool:
        game = selectors.get_game(gid)
        return signals.has_follow_ups(game, game.seat_list)

    assert not follow_ups()  # humans, no deadline, no webhook, game running
    Game.objects.filter(pk=gid).update(turn_seconds=60, deadline=Game.objects.get(pk=gid).updated_at)
    assert not follow_ups()  # a deadline: the sweeper's (no countdown task by default)
    settings.UNO_TIMER_FAST_PATH_SECONDS = 300
    assert follow_ups()  # a deadline with the fast path on: a countdown task
    Game.objects.filter(pk=gid).update(turn_seconds=None, deadline=None)
    Seat.objects.filter(game_id=gid, seat=1).update(autopilot=True)
    assert follow_ups()  # a robot seat: a bot step
    Seat.objects.filter(game_id=gid, seat=1).update(autopilot=False)
    Webhook.objects.create(player=seats[0].player, url="https://example.com/hook", secret="s" * 32)
    assert follow_ups()  # a subscriber: notifications
    Webhook.objects.all().delete()
    Game.objects.filter(pk=gid).update(status="finished")
    assert not follow_ups()


def test_a_move_skips_after_move_only_when_it_has_nothing_to_do(clients, django_capture_on_commit_callbacks):
    gid, seats = duel(clients)
    for robot_seat, registered in ((None, 0), ("other", 1)):
        current = Game.objects.get(pk=gid).current_seat
        if robot_seat == "other":
            Seat.objects.filter(game_id=gid).exclude(seat=current).update(autopilot=True)
        action = legal_move(seats[current], gid)
        version = action.pop("expected_version")
        with django_capture_on_commit_callbacks() as callbacks:
            services.act(game_id=gid, player=seats[current].player, action=action, expected_version=version)
        assert len(callbacks) == registered


ON_POSTGRES = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only")


def prepared_statements() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return {statement for (statement,) in cursor.fetchall()}


@ON_POSTGRES
def test_the_move_paths_own_statements_are_prepared_and_logged_with_their_values(clients, settings):
    """Run DB_PREPARE_THRESHOLD times on a connection, the move path's own SQL stays
    prepared there (PostgreSQL no longer plans it); the query log shows each statement
    with its values, prepared or not; Django's own statements are never prepared."""
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    if threshold is None:
        pytest.skip("DB_PREPARE_THRESHOLD=0: nothing is prepared")
    gid, seats = duel(clients)
    for _ in range(threshold + 1):
        with CaptureQueriesContext(connection) as captured:
            assert seats[0].get(game_url(gid)).status_code == 200
        (read,) = game_statements(captured)
        assert read.endswith(f"WHERE g.id = {gid} ORDER BY s.seat"), read
    prepared = prepared_statements()
    assert any('FROM "games_game" g LEFT JOIN "games_seat" s' in s and "g.id = $1" in s for s in prepared), prepared
    assert not any("players_apitoken" in s for s in prepared)  # authentication's (the ORM's)


@ON_POSTGRES
def test_a_game_rows_state_is_compressed_with_lz4(clients):
    """Migration 0006: a move rewrites the game row's state (longer than PostgreSQL's
    toast threshold) compressed with lz4, where the server has it."""
    gid, seats = duel(clients)
    client = seats[Game.objects.get(pk=gid).current_seat]
    assert client.post(game_url(gid, "actions"), legal_move(client, gid), format="json").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        if "lz4" not in cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without lz4")
        cursor.execute('SELECT pg_column_compression("state") FROM "games_game" WHERE "id" = %s', [gid])
        assert cursor.fetchone() == ("lz4",)
