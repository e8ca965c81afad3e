"""Presence: ``last_seen_at`` written at most once a minute by authenticated requests and
every minute for open streams and feeds (the live hub), ``online`` on /players/me and a
game's human seats (in its ETag), and ``players.selectors.online_ids``."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services as game_services
from players.models import Player
from players.selectors import online_ids
from tests.helpers import assert_json
from tests.server_support import call, register, served
from tests.sse_support import open_stream

ME = "/api/v1/players/me"


def seen(player: Player):
    return Player.objects.values_list("last_seen_at", flat=True).get(pk=player.pk)


def test_a_request_marks_the_player_seen_at_most_once_a_minute(auth_client):
    player = auth_client.player
    assert seen(player) is None
    assert assert_json(auth_client.get(ME), 200)["online"] is True
    first = seen(player)
    assert first is not None and timezone.now() - first < timedelta(seconds=10)
    with CaptureQueriesContext(connection) as queries:
        auth_client.get(ME)
    assert seen(player) == first  # fresh: nothing written
    assert not [q for q in queries.captured_queries if q["sql"].startswith("UPDATE") and "last_seen_at" in q["sql"]]
    stale = timezone.now() - timedelta(minutes=5)
    Player.objects.filter(pk=player.pk).update(last_seen_at=stale)
    auth_client.get(ME)
    assert seen(player) > stale + timedelta(minutes=4)


def test_a_refused_token_marks_nobody(auth_client, api):
    api.credentials(HTTP_AUTHORIZATION="Token " + "x" * 64)
    assert api.get(ME).status_code == 401
    assert seen(auth_client.player) is None


def test_online_on_a_games_seats_and_in_its_etag(make_player, settings):
    (alice, a), (bob, _) = make_player(), make_player()
    game = game_services.create_table(seats=[alice, bob, {"level": "easy"}], ruleset="standard")
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {a}")
    url = f"/api/v1/games/{game.pk}"
    response = client.get(url)
    body = assert_json(response, 200)
    assert [p["online"] for p in body["players"]] == [True, False, None]  # alice (this request), bob, the bot
    etag = response["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    Player.objects.filter(pk=bob.pk).update(last_seen_at=timezone.now())
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert [p["online"] for p in response.json()["players"]] == [True, True, None]
    # seen longer ago than UNO_PRESENCE_SECONDS: offline
    settings.UNO_PRESENCE_SECONDS = 120
    Player.objects.filter(pk=bob.pk).update(last_seen_at=timezone.now() - timedelta(seconds=121))
    assert [p["online"] for p in client.get(url).json()["players"]] == [True, False, None]


def test_online_ids(make_player):
    (a, _), (b, _), (c, _) = make_player(), make_player(), make_player()
    now = timezone.now()
    Player.objects.filter(pk=a.pk).update(last_seen_at=now - timedelta(seconds=5))
    Player.objects.filter(pk=b.pk).update(last_seen_at=now - timedelta(minutes=10))
    assert online_ids([a.pk, b.pk, c.pk]) == {a.pk}
    assert online_ids([]) == set()


@pytest.fixture(scope="module")
def quick_presence(django_db_setup, tmp_path_factory):
    yield from served(tmp_path_factory, "presence", LIVE_PRESENCE_TOUCH_SECONDS=1)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_an_open_feed_or_stream_keeps_its_player_online(quick_presence):
    (alice, a), (bob, b), (carol, _) = register(quick_presence), register(quick_presence), register(quick_presence)
    status, game, _ = call(quick_presence, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, a)
    assert status == 201
    feed = open_stream(quick_presence.port, "/api/v1/players/me/events", a)
    stream = open_stream(quick_presence.port, f"/api/v1/games/{game['id']}/events", b)
    try:
        assert feed.status == stream.status == 200
        long_ago = timezone.now() - timedelta(hours=1)
        Player.objects.filter(username__in=[alice, bob, carol]).update(last_seen_at=long_ago)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            marked = dict(Player.objects.filter(username__in=[alice, bob, carol]).values_list("username", "last_seen_at"))
            if marked[alice] > long_ago and marked[bob] > long_ago:
                break
            time.sleep(0.2)
        assert marked[alice] > long_ago and marked[bob] > long_ago, marked
        assert marked[carol] == long_ago  # nothing of hers is open
    finally:
        feed.close()
        stream.close()
