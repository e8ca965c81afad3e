"""Notices (``notices``): what the meeting layer tells a player's feed or a game's stream
beside the moves, written in a service's transaction and sent by the live hub of every
web process, through the real server, on PostgreSQL (the notices table's trigger) and,
marked ``concurrency``, on the embedded default (SQLite's data_version)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from notices import services
from notices.models import Audience, Notice
from tests.server_support import call, gunicorn, register, two_player_game  # noqa: F401 (fixture)
from tests.sse_support import open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]


def player_id(name: str) -> int:
    return get_user_model().objects.get(username=name).pk


def test_a_players_notice_reaches_their_feeds_only(gunicorn):
    (alice, a), (_, b) = register(gunicorn), register(gunicorn)
    feeds = [open_stream(gunicorn.port, "/api/v1/players/me/events", a) for _ in range(2)]
    other = open_stream(gunicorn.port, "/api/v1/players/me/events", b)
    try:
        assert all(f.status == 200 for f in [*feeds, other])
        # the hub's first look sets where it reads from: a notice before it is not for these feeds
        call(gunicorn, "GET", "/api/v1/players/me", token=a)
        with transaction.atomic():
            notice = services.to_player(player_id(alice), "challenge", {"challenge": 7, "from": "bob"})
        for feed in feeds:
            got = feed.until(lambda e: e.event == "challenge")[-1]
            assert got.data == {"challenge": 7, "from": "bob", "notice": notice.pk}
            assert got.id is None  # a feed's notice does not move Last-Event-ID
        assert other.nothing_within(1.0)
    finally:
        for s in [*feeds, other]:
            s.close()


def test_a_rolled_back_notice_is_never_sent(gunicorn):
    alice, a = register(gunicorn)
    feed = open_stream(gunicorn.port, "/api/v1/players/me/events", a)
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            services.to_player(player_id(alice), "challenge", {"challenge": 1})
            raise RuntimeError("the service failed after writing its notice")
        with transaction.atomic():
            kept = services.to_player(player_id(alice), "challenge", {"challenge": 2})
        got = feed.until(lambda e: e.event == "challenge")
        assert [e.data["challenge"] for e in got if e.event == "challenge"] == [2]
        assert got[-1].data["notice"] == kept.pk
        assert feed.nothing_within(1.0)
    finally:
        feed.close()


def test_a_games_notices_reach_its_streams_by_channel(gunicorn):
    """The players' channel is for the seated, the spectators' for the others; everyone's
    for all."""
    game_id, a, b = two_player_game(gunicorn)
    _, c = register(gunicorn)
    seated = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a)
    spectator = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", c)
    try:
        assert seated.status == spectator.status == 200
        call(gunicorn, "GET", "/api/v1/players/me", token=a)
        for audience in (Audience.PLAYERS, Audience.SPECTATORS, Audience.EVERYONE):
            services.to_game(game_id, "chat", {"text": audience.value}, audience)
        def texts(stream):
            got = stream.until(lambda e: e.event == "chat" and e.data["text"] == "everyone")
            return [e.data["text"] for e in got if e.event == "chat"]
        got_seated = texts(seated)
        assert got_seated == ["players", "everyone"]
        assert texts(spectator) == ["spectators", "everyone"]
    finally:
        seated.close()
        spectator.close()


def test_a_game_notice_names_a_game_and_a_feed_notice_a_player():
    from django.db import IntegrityError

    alice = get_user_model().objects.create_user("alice", password="a-long-password-1")
    with pytest.raises(ValueError):
        services.to_game(1, "chat", {}, audience=Audience.PLAYER)
    with pytest.raises(IntegrityError), transaction.atomic():
        Notice.objects.create(audience=Audience.PLAYER, player=alice, game_id=3, kind="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Notice.objects.create(audience=Audience.PLAYERS, kind="x")
    assert [n.player_id for n in services.to_players([alice.pk, alice.pk], "x", {})] == [alice.pk]


def test_a_registered_kind_is_documented_among_its_streams_events():
    """``notices.kinds``: the schema lists a feed kind among the feed's events and
    ``FeedEvent``'s variants, a game kind among the game stream's, each with its data's
    component (``notice`` added)."""
    import jsonschema

    from notices import kinds
    from drf_spectacular.generators import SchemaGenerator

    from tests.test_schema_options import json_schema

    added = [kinds.register("test_poke", stream="feed", schema="FeedTestPoke", description="a poke.",
                            properties={"by": {"type": "string"}}),
             kinds.register("test_wave", stream="game", schema="GameTestWave", description="a wave.",
                            properties={"to": {"type": "string"}, "loud": {"type": "boolean"}}, required=["to"])]
    try:
        schema = SchemaGenerator().get_schema(request=None, public=True)  # (not the tests' cached one)
    finally:
        for kind in added:
            kinds._kinds.pop(kind.name)
    feed = schema["paths"]["/api/v1/players/me/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]
    game = schema["paths"]["/api/v1/games/{game_id}/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert ["test_poke"] in [v["properties"]["event"]["enum"] for v in feed["schema"]["oneOf"]]
    assert ["test_wave"] in [v["properties"]["event"]["enum"] for v in game["schema"]["oneOf"]]
    components = schema["components"]["schemas"]
    assert {"$ref": "#/components/schemas/FeedTestPoke"} in components["FeedEvent"]["oneOf"]
    assert components["GameTestWave"]["required"] == ["to", "notice"]
    check = jsonschema.Draft7Validator({"components": json_schema(schema["components"]),
                                        "$ref": "#/components/schemas/FeedEvent"})
    assert check.is_valid({"by": "ann", "notice": 4})
    assert not check.is_valid({"by": "ann"})  # every notice carries its id
    with pytest.raises(ValueError):
        kinds.register("x", stream="elsewhere", schema="X", description="", properties={})
