"""Webhook notifications for correspondence players.

``after_move`` (a listener of the "move committed" signal, ``games.signals``) decides
who is told what and enqueues one delivery task per notification: ``game_started``,
``game_finished``, and ``your_turn`` to every human seat that newly owes a decision
(``games.obligations``: the turn, or a window such as a buzz), once per new
obligation; the task POSTs the JSON body signed
with HMAC-SHA256 and retries with exponential backoff (network errors, 5xx, 408,
425, 429; other 4xx answers, redirects and URLs that lead to a non-public address
are final).  The POST, its signature and its outcome are players/webhooks.py (through
players/outbound.py: no request forgery against our own network).  Nothing here can
delay or fail a move.
"""

from __future__ import annotations

import logging
import uuid

from celery import current_app
from django.core.cache import cache
from django.utils import timezone

from games import obligations
from games.models import Game, GameStatus, Move, MoveBy
from players import webhooks
from players.webhooks import (  # noqa: F401 (the generic part, named here as before)
    MAX_RETRIES,
    RETRY_BACKOFF_MAX_SECONDS,
    RETRY_BACKOFF_SECONDS,
    RETRY_STATUSES,
    USER_AGENT,
    PermanentFailure,
    TemporaryFailure,
    max_retries,
    retry_delay,
    sign,
)

log = logging.getLogger(__name__)
#: a notification already queued for (game, version, event, player) is not queued again
DEDUPE_SECONDS = 24 * 3600
DELIVERY_NAMESPACE = uuid.UUID("0f6f2a7e-5a3c-4d8e-9a39-7f1b6c2d4e10")


def delivery_id(game: Game, event: str, player_id: int, about: str = "") -> str:
    """The same notification always gets the same id (receivers may deduplicate);
    ``about`` tells apart two of one event at one version (two decisions owed)."""
    tail = f":{about}" if about else ""
    return str(uuid.uuid5(DELIVERY_NAMESPACE, f"{game.pk}:{game.version}:{event}:{player_id}{tail}"))


def _first_time(key: str) -> bool:
    try:
        return bool(cache.add(f"webhook-queued:{key}", 1, DEDUPE_SECONDS))
    except Exception:  # no cache: better a duplicate than a lost notification
        log.warning("webhook deduplication unavailable", exc_info=True)
        return True


def _notify(player_id: int, event: str, game: Game, about: str = "", deadline=None, **extra) -> None:
    """Queue ``event`` for ``player_id`` (once per game version, event, player and
    ``about``).  ``deadline``: the one the notification is about (default: the game's
    earliest)."""
    key = delivery_id(game, event, player_id, about)
    if not _first_time(key):
        return  # queued already (after_move ran twice for this version)
    deadline = game.deadline if deadline is None else deadline
    payload = {
        "event": event,
        "game": game.pk,
        "version": game.version,
        "status": game.status,
        "deadline": deadline.isoformat() if deadline else None,
        "sent_at": timezone.now().isoformat(),
        **extra,
    }
    try:
        # by name: games.tasks imports this module
        current_app.send_task("games.tasks.deliver_webhook", (player_id, event, payload, key))
    except Exception:
        log.exception("could not queue webhook %s (%s) for player %s", key, event, player_id)


def newly_owed(game: Game) -> list[obligations.Obligation]:
    """The obligations the move that brought ``game`` to its version began, but those
    its player's own action brought on their seat (a player who just acted is not told
    that they owe the next step of their turn, or the buzz of their own Buzzer: the
    answer to their request says so).  A new round, or the game's start, tells
    everyone; a move of the timer's or a bot's tells the seat it acted for too."""
    new = [o for o in obligations.current(game) if o.since == game.version]
    if not new or game.version == 1:
        return new
    last = Move.objects.filter(game=game, seq=game.version).values("seat", "round", "by").first()
    if last is None or last["round"] != game.round or last["by"] != MoveBy.PLAYER:
        return new
    return [o for o in new if o.seat != last["seat"]]


def wants(game: Game, seats) -> bool:
    """The listener's test (``signals.Listener.wants``): a seated player has a webhook
    (``webhook_id``, read with the seats by ``selectors.load_seats``)."""
    return any(s.webhook_id is not None for s in seats)


def after_move(game: Game) -> None:
    """Queue the notifications that the move that brought ``game`` to its version
    calls for.  Running it twice for one version queues nothing more."""
    seats = {
        s.seat: s
        for s in game.seats.filter(player__isnull=False, player__webhook__isnull=False)
    }
    if not seats:
        return
    if game.version == 1:
        for s in seats.values():
            _notify(s.player_id, "game_started", game)
    if game.status == GameStatus.FINISHED:
        for s in seats.values():
            _notify(s.player_id, "game_finished", game, winner_seat=game.winner_seat)
        return
    if game.status != GameStatus.ACTIVE:
        return
    for o in newly_owed(game):
        seat = seats.get(o.seat)
        if seat is not None and not seat.autopilot:
            _notify(seat.player_id, "your_turn", game, about=o.decision, deadline=o.deadline, seat=o.seat,
                    decision=o.decision)


def _still_your_turn(payload: dict) -> bool:
    """Whether the decision a ``your_turn`` is about is still owed by its seat."""
    game = Game.objects.filter(pk=payload.get("game"), status=GameStatus.ACTIVE).first()
    if game is None:
        return False
    decision = payload.get("decision")
    return any(o.seat == payload.get("seat") and (decision is None or o.decision == decision)
               for o in obligations.current(game))


def deliver(player_id: int, event: str, payload: dict, delivery_id: str) -> int | None:
    """POST one notification (``players.webhooks.deliver``).  Returns the HTTP status, or
    None when there is nothing to send (the player no longer has a webhook; a
    "your_turn" whose turn is over).  Raises PermanentFailure for an answer not worth
    retrying, any other exception for one that is (the task retries)."""
    if event == "your_turn" and not _still_your_turn(payload):
        log.info("webhook %s: your_turn of game %s is stale, dropped", delivery_id, payload.get("game"))
        return None
    return webhooks.deliver(player_id, event, payload, delivery_id)
