"""Rated quick play pairs by rating (issue 27): the closest rating first, a partner too
far away not yet, the allowed range widening with the wait (the full pass seats them);
unrated requests ignore ratings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Seat
from matchmaking import services
from matchmaking.models import Pool, QuickPlayRequest
from standing import ratings
from standing.models import Rating
from standing.services import bucket_of

URL = "/api/v1/quickplay"
RATED = {"rulesets": ["standard"], "seats": [2], "rated": True}

pytestmark = pytest.mark.django_db


def rate(player, mu: float, pool: str = "standard") -> None:
    o = ratings.ordinal(mu, 3.0)
    Rating.objects.create(pool=pool, player=player, mu=mu, sigma=3.0, ordinal=o, bucket=bucket_of(o), games=20)


def ask(client, body) -> dict:
    r = client.post(URL, body, format="json")
    assert r.status_code == 202, r.content
    return r.json()


def players_of(game_id: int) -> set[int]:
    return set(Seat.objects.filter(game_id=game_id).values_list("player_id", flat=True))


def test_the_closest_rating_is_paired_first_and_a_far_one_waits(clients, settings):
    settings.UNO_QUICKPLAY_RATING_RANGE, settings.UNO_QUICKPLAY_RATING_WIDEN = 5.0, 5.0
    strong, weak, close = clients(3)
    rate(strong.player, 35.0)
    rate(weak.player, 15.0)
    rate(close.player, 32.0)
    first = ask(strong, RATED)
    second = ask(weak, RATED)
    assert second["status"] == "waiting"  # 20 apart: too far for now
    third = ask(close, RATED)  # 3 from the strong one, 17 from the weak one
    assert third["status"] == "matched"
    assert players_of(third["game"]) == {strong.player.pk, close.player.pk}
    assert QuickPlayRequest.objects.get(pk=first["id"]).game_id == third["game"]
    assert QuickPlayRequest.objects.get(pk=second["id"]).status == "waiting"


def test_the_range_widens_with_the_wait(clients, settings):
    settings.UNO_QUICKPLAY_RATING_RANGE, settings.UNO_QUICKPLAY_RATING_WIDEN = 5.0, 5.0
    a, b = clients(2)
    rate(a.player, 30.0)
    rate(b.player, 18.0)  # 12 apart: 5 + 5 a minute allows it after 1.4 minutes of the longer wait
    ra, rb = ask(a, RATED), ask(b, RATED)
    assert rb["status"] == "waiting"
    Pool.objects.update(rescanned_at=None)
    assert services.sweep()["rescanned"] == 0  # a minute is not enough yet
    QuickPlayRequest.objects.filter(pk=ra["id"]).update(created_at=timezone.now() - timedelta(seconds=61))
    Pool.objects.update(rescanned_at=None)
    assert services.sweep()["rescanned"] == 0  # 10 allowed, 12 apart
    QuickPlayRequest.objects.filter(pk=ra["id"]).update(created_at=timezone.now() - timedelta(seconds=90))
    Pool.objects.update(rescanned_at=None)
    assert services.sweep()["rescanned"] == 1  # 12.5 allowed
    game = QuickPlayRequest.objects.get(pk=rb["id"]).game_id
    assert game and players_of(game) == {a.player.pk, b.player.pk}


def test_players_without_a_rating_count_as_new_ones(clients, settings):
    settings.UNO_QUICKPLAY_RATING_RANGE, settings.UNO_QUICKPLAY_RATING_WIDEN = 5.0, 5.0
    rated_high, newcomer = clients(2)
    rate(rated_high.player, 40.0)  # 15 from a new rating's mean (25)
    ask(rated_high, RATED)
    assert ask(newcomer, RATED)["status"] == "waiting"
    other = clients(1)[0]  # no rating either: 0 apart from the newcomer
    assert ask(other, RATED)["status"] == "matched"


def test_unrated_requests_ignore_ratings(clients, settings):
    settings.UNO_QUICKPLAY_RATING_RANGE, settings.UNO_QUICKPLAY_RATING_WIDEN = 5.0, 5.0
    a, b = clients(2)
    rate(a.player, 40.0)
    rate(b.player, 10.0)
    ask(a, {**RATED, "rated": False})
    assert ask(b, {**RATED, "rated": False})["status"] == "matched"
