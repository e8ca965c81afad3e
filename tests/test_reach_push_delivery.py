"""Web Push from a move to a browser's subscription, through the product's outbox and
delivery (reach/delivery.py, reach/push.py) to a real local HTTPS push service
(tests/push_endpoint.py) that verifies the VAPID signature and decrypts the payload with
the subscription's keys (RFC 8291), as the issue's proof asks: the message is the game's
"your turn" with its link and no card; a push service that fails (500) keeps the message
for a retry and the subscription; one that answers 410 gets the subscription removed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from players.models import Player
from reach import delivery, push
from reach.models import Message, PushSubscription, Status
from tests.push_endpoint import PushCA, WebPushService
from tests.test_reach import correspondence_game, play_one, player_at, start

pytestmark = pytest.mark.django_db
SUBSCRIPTIONS = "/api/v1/players/me/push-subscriptions"


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return PushCA(tmp_path_factory.mktemp("push-ca"))


@pytest.fixture
def service(ca, settings):
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_PUBLIC_KEY = push.generate_vapid_keys()
    settings.UNO_VAPID_SUBJECT = "mailto:ops@example.org"
    settings.UNO_PUSH_CA_BUNDLE = str(ca.ca_file)
    settings.UNO_PUSH_ALLOW_PRIVATE = True
    settings.UNO_PUBLIC_URL = "http://uno.test"
    settings.UNO_REACH_YOUR_TURN_DELAY_SECONDS = 0
    settings.UNO_REACH_RETRY_SECONDS = 0
    with WebPushService(ca) as s:
        yield s


def away(player) -> None:
    Player.objects.filter(pk=player.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))


def test_a_move_reaches_the_browser_and_a_410_removes_the_subscription(clients, service):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    client = by_id[waiting.pk]
    # the browser subscribes with the key the settings give it, and registers the subscription
    key = client.get("/api/v1/players/me/notifications").json()["push"]["webpush_public_key"]
    subscription = service.subscribe(key)
    r = client.post(SUBSCRIPTIONS, {"platform": "webpush", **subscription.info(), "label": "test browser"},
                    format="json")
    assert r.status_code == 201, r.content

    away(waiting)
    play_one(gid)
    assert delivery.deliver_player(waiting.pk) == 1
    [request] = service.requests
    assert request["error"] is None, request["error"]
    message = request["message"]
    assert set(message) == {"title", "body", "url", "kind", "tag"}
    assert message["kind"] == "your_turn" and message["url"] == f"http://uno.test/#/game/{gid}"
    assert str(gid) in message["title"] + message["body"]
    assert Message.objects.get(player=waiting, kind="your_turn").status == Status.SENT
    assert delivery.deliver_player(waiting.pk) == 0 and len(service.requests) == 1  # once

    # the push service fails: the next message waits for a retry, the subscription stays
    play_one(gid)  # the waiting player's own turn (through the services)
    away(waiting)
    play_one(gid)  # the other's: the waiting player's turn again
    service.status = 500
    delivery.deliver_player(waiting.pk)
    assert len(service.requests) == 2 and service.requests[1]["error"] is None
    pending = Message.objects.filter(player=waiting, kind="your_turn", status=Status.PENDING)
    assert pending.count() == 1
    assert PushSubscription.objects.filter(player=waiting).count() == 1

    # the subscription is gone at the push service: the server removes it
    service.status = 410
    Message.objects.filter(pk=pending.get().pk).update(due_at=timezone.now() - timedelta(seconds=1))
    delivery.deliver_player(waiting.pk)
    assert len(service.requests) == 3 and service.requests[2]["message"]["kind"] == "your_turn"
    assert PushSubscription.objects.filter(player=waiting).count() == 0
    assert client.get("/api/v1/players/me/notifications").json()["push_subscriptions"] == []
