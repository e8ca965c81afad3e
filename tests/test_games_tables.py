"""``games.services.create_table``: a game created and started at once for given players
and bots (what challenges, quick play and rematches build on)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from config.problems import ApiError
from games import services
from games.models import Game, GameStatus, Move

pytestmark = pytest.mark.django_db


def players(n: int):
    return [get_user_model().objects.create_user(f"t{i}", password="a-long-password-1") for i in range(n)]


def test_a_table_is_seated_in_order_started_and_rated_as_asked():
    a, b, c = players(3)
    game = services.create_table(seats=[b, {"level": "easy"}, a, c], ruleset="standard", turn_seconds=60, rated=True)
    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE and game.version == 1 and game.rated and game.turn_seconds == 60
    assert game.creator == b and game.max_players == 4
    seats = list(game.seats.order_by("seat").values_list("seat", "player__username", "bot_level"))
    assert seats == [(0, "t1", ""), (1, None, "easy"), (2, "t0", ""), (3, "t2", "")]
    start = Move.objects.get(game=game)
    assert start.action == {"type": "start"} and start.seat == 0


def test_a_refused_table_leaves_nothing():
    a, b = players(2)
    for seats, code in (([a, a], "already_seated"), ([a], "invalid_options")):
        with pytest.raises(ApiError) as refused:
            services.create_table(seats=seats, ruleset="standard")
        assert refused.value.code == code
    with pytest.raises(ApiError) as refused:
        services.create_table(seats=[a, b], ruleset="standard", options={"no_such_option": True})
    assert refused.value.code == "invalid_options"
    with pytest.raises(RuntimeError), transaction.atomic():  # the caller's transaction fails after it
        services.create_table(seats=[a, b], ruleset="standard")
        raise RuntimeError
    assert not Game.objects.exists()
