"""Rematch (``meeting``): offered by a seated human of a finished game, accepted by the
others (bots at once), a new game with the same settings and the seats rotated; decline,
expiry, the refusals; the view's ``rematch`` and the ``rematch`` / ``rematch_offer``
events through a real gunicorn."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games import services as games
from games.models import Game, Seat
from meeting import services
from meeting.models import Rematch
from notices.models import Notice

from .helpers import assert_problem
from .server_support import call, gunicorn, register  # noqa: F401 (fixture)
from .sse_support import open_stream

pytestmark = pytest.mark.django_db


def play_out(game_id: int, players: list[APIClient]) -> dict:
    """Play the game to its end: the player in turn posts a legal action (a card when it
    can), as README's curl game does."""
    for _ in range(3000):
        g = players[0].get(f"/api/v1/games/{game_id}").json()
        if g["status"] == "finished":
            return g
        c = players[g["current_seat"]]
        mine = c.get(f"/api/v1/games/{game_id}").json()
        acts = mine["legal_actions"]
        action = next((a for a in acts if a["type"] == "play"), acts[0])
        r = c.post(f"/api/v1/games/{game_id}/actions", {**action, "expected_version": mine["version"]}, format="json")
        assert r.status_code == 200, r.content
    raise AssertionError("the game did not end")


def finished_table(seats, **settings) -> Game:
    with transaction.atomic():
        game = games.create_table(seats=seats, ruleset="standard", options={"rounds": 1}, **settings)
    return game


@pytest.fixture
def three_finished(named_clients):
    """alice, bob and an easy bot at a started game (``turn_seconds`` 600, rated), marked
    finished in the database (no worker here to play the bot's turns; the game played to
    its end is test_a_rematch_of_a_game_played_to_its_end's)."""
    alice, bob = named_clients("alice"), named_clients("bob")
    game = finished_table([alice.player, bob.player, {"level": "easy"}], turn_seconds=600, rated=True)
    Game.objects.filter(pk=game.pk).update(status="finished", finished_at=timezone.now(), winner_seat=0)
    return game, alice, bob


def test_a_rematch_of_a_game_played_to_its_end(named_clients):
    alice, bob = named_clients("alice"), named_clients("bob")
    game = finished_table([alice.player, bob.player], turn_seconds=900)
    end = play_out(game.pk, [alice, bob])
    assert end["rematch"] is None
    r = alice.post(f"/api/v1/games/{game.pk}/rematch")
    assert r.status_code == 200, r.content
    offer = r.json()
    assert offer["status"] == "offered" and offer["offered_by"] == "alice" and offer["accepted"] == ["alice"]
    assert offer["game"] is None
    seen = bob.get(f"/api/v1/games/{game.pk}").json()["rematch"]
    assert seen == offer
    (n,) = Notice.objects.filter(kind="rematch_offer")
    assert n.player_id == bob.player.pk and n.data["game"] == game.pk and n.data["by"] == "alice"
    assert_problem(alice.post(f"/api/v1/games/{game.pk}/rematch"), 409, "already_accepted")
    r = bob.post(f"/api/v1/games/{game.pk}/rematch")
    assert r.status_code == 200 and r.json()["status"] == "started", r.content
    new = Game.objects.get(pk=r.json()["game"])
    assert (new.ruleset, new.options, new.max_players, new.turn_seconds, new.rated, new.status) == \
        ("standard", {"rounds": 1}, 2, 900, False, "active")
    assert [s.player.username for s in Seat.objects.filter(game=new).order_by("seat")] == ["bob", "alice"]
    assert alice.get(f"/api/v1/games/{game.pk}").json()["rematch"]["game"] == new.pk
    assert_problem(bob.post(f"/api/v1/games/{game.pk}/rematch"), 409, "rematch_started")
    assert_problem(bob.delete(f"/api/v1/games/{game.pk}/rematch"), 409, "rematch_started")
    # the running new game has no rematch (and needs no query for it)
    assert alice.get(f"/api/v1/games/{new.pk}").json()["rematch"] is None
    events = [n.data["status"] for n in Notice.objects.filter(kind="rematch", game_id=game.pk).order_by("id")]
    assert events == ["offered", "started"]


def test_bots_accept_at_once_and_keep_their_levels(three_finished, named_clients):
    game, alice, bob = three_finished
    assert alice.post(f"/api/v1/games/{game.pk}/rematch").json()["status"] == "offered"
    r = bob.post(f"/api/v1/games/{game.pk}/rematch").json()
    new = Game.objects.get(pk=r["game"])
    seats = [s.player.username if s.player_id else s.bot_level for s in Seat.objects.filter(game=new).order_by("seat")]
    assert seats == ["bob", "easy", "alice"]
    assert new.rated and new.turn_seconds == 600 and new.creator.username == "bob"


def test_one_human_against_bots_starts_at_once(named_clients):
    alice = named_clients("alice")
    game = finished_table([{"level": "hard"}, alice.player, {"level": "easy"}])
    Game.objects.filter(pk=game.pk).update(status="finished")
    r = alice.post(f"/api/v1/games/{game.pk}/rematch").json()
    assert r["status"] == "started" and r["accepted"] == ["alice"]
    seats = [s.player.username if s.player_id else s.bot_level
             for s in Seat.objects.filter(game_id=r["game"]).order_by("seat")]
    assert seats == ["alice", "easy", "hard"]


def test_decline_ends_the_offer(three_finished, named_clients):
    game, alice, bob = three_finished
    assert_problem(bob.post(f"/api/v1/games/{game.pk}/rematch/decline"), 409, "no_rematch_offer")
    alice.post(f"/api/v1/games/{game.pk}/rematch")
    r = bob.post(f"/api/v1/games/{game.pk}/rematch/decline")
    assert r.status_code == 200 and r.json()["status"] == "declined" and r.json()["declined_by"] == "bob"
    before = Game.objects.count()
    assert_problem(bob.post(f"/api/v1/games/{game.pk}/rematch"), 409, "rematch_declined")
    assert_problem(alice.delete(f"/api/v1/games/{game.pk}/rematch"), 409, "rematch_declined")
    assert Game.objects.count() == before
    assert alice.get(f"/api/v1/games/{game.pk}").json()["rematch"]["status"] == "declined"


def test_refusals(three_finished, named_clients):
    game, alice, bob = three_finished
    carol = named_clients("carol")
    assert_problem(carol.post(f"/api/v1/games/{game.pk}/rematch"), 403, "not_seated")
    assert_problem(carol.post("/api/v1/games/999999/rematch"), 404, "not_found")
    running = finished_table([alice.player, carol.player])
    assert_problem(alice.post(f"/api/v1/games/{running.pk}/rematch"), 409, "game_not_finished")
    Seat.objects.filter(game=game, player=bob.player).update(left=True)
    assert_problem(bob.post(f"/api/v1/games/{game.pk}/rematch"), 403, "left_game")
    assert_problem(alice.post(f"/api/v1/games/{game.pk}/rematch"), 409, "player_left")
    assert not Rematch.objects.exists() and not Notice.objects.filter(kind__startswith="rematch").exists()


def test_an_offer_expires(three_finished, named_clients):
    game, alice, bob = three_finished
    offer = alice.post(f"/api/v1/games/{game.pk}/rematch").json()
    left = Rematch.objects.get().expires_at - timezone.now()
    assert timedelta(minutes=14) < left <= timedelta(minutes=15)
    assert offer["expires_at"]
    Rematch.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_problem(bob.post(f"/api/v1/games/{game.pk}/rematch"), 409, "rematch_expired")
    assert bob.get(f"/api/v1/games/{game.pk}").json()["rematch"]["status"] == "expired"
    assert services.expire_overdue() == 1 and services.expire_overdue() == 0
    assert Rematch.objects.get().status == "expired"
    assert Notice.objects.filter(kind="rematch", game_id=game.pk).last().data["status"] == "expired"


def test_the_etag_changes_with_the_rematch(three_finished):
    game, alice, bob = three_finished
    first = alice.get(f"/api/v1/games/{game.pk}")
    assert alice.get(f"/api/v1/games/{game.pk}", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    alice.post(f"/api/v1/games/{game.pk}/rematch")
    r = alice.get(f"/api/v1/games/{game.pk}", HTTP_IF_NONE_MATCH=first["ETag"])
    assert r.status_code == 200 and r.json()["rematch"]["status"] == "offered"


@pytest.mark.django_db(transaction=True)
@pytest.mark.concurrency
def test_the_stream_and_the_feed_tell_the_rematch(gunicorn):
    from django.contrib.auth import get_user_model

    (alice, a), (bob, b) = register(gunicorn), register(gunicorn)
    _, c = register(gunicorn)
    Player = get_user_model()
    game = finished_table([Player.objects.get(username=alice), Player.objects.get(username=bob)])
    Game.objects.filter(pk=game.pk).update(status="finished", finished_at=timezone.now(), winner_seat=0)
    spectator = open_stream(gunicorn.port, f"/api/v1/games/{game.pk}/events", c)
    feed = open_stream(gunicorn.port, "/api/v1/players/me/events", b)
    try:
        call(gunicorn, "GET", "/api/v1/players/me", token=a)
        status, offer, _ = call(gunicorn, "POST", f"/api/v1/games/{game.pk}/rematch", None, a)
        assert status == 200, offer
        got = feed.until(lambda e: e.event == "rematch_offer")[-1].data
        assert got["game"] == game.pk and got["by"] == alice
        seen = []

        def both(e):  # the rematch event, and a game event whose view shows the offer (in either order)
            seen.append(e)
            return {"rematch", "game"} <= {x.event for x in seen if x.event == "rematch" or (
                x.event == "game" and (x.data["game"].get("rematch") or {}).get("status") == "offered")}

        spectator.until(both)
        ev = next(e.data for e in seen if e.event == "rematch")
        assert ev["status"] == "offered" and ev["offered_by"] == alice and ev["game"] is None
        status, started, _ = call(gunicorn, "POST", f"/api/v1/games/{game.pk}/rematch", None, b)
        assert status == 200 and started["game"]
        ev = spectator.until(lambda e: e.event == "rematch" and e.data["status"] == "started")[-1].data
        assert ev["game"] == started["game"]
        feed.until(lambda e: e.event == "game_started")
    finally:
        spectator.close()
        feed.close()
