"""Presence: when a player was last seen, and whether they are ``online``.

``Player.last_seen_at`` is written at most once every ``SEEN_RESOLUTION`` per player:

* by every authenticated request (``players.authentication``: one conditional UPDATE,
  which matches nothing while the stored time is fresh, as ``ApiToken.mark_used``);
* while any stream or feed of the player's is open (``games.live``'s hub: one UPDATE a
  minute for every player subscribed in that process), so that a client that only
  listens stays online.

A player is ``online`` while ``last_seen_at`` is within the last ``UNO_PRESENCE_SECONDS``
(120 by default: more than the hub's minute, so an open stream never flickers off).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from players.models import Player

#: ``last_seen_at`` is written at most this often per player
SEEN_RESOLUTION = timedelta(minutes=1)


def presence_window() -> timedelta:
    return timedelta(seconds=settings.UNO_PRESENCE_SECONDS)


def is_online(last_seen_at: datetime | None, now: datetime | None = None) -> bool:
    """Whether a player last seen at ``last_seen_at`` counts as online at ``now``."""
    if last_seen_at is None:
        return False
    return (now or timezone.now()) - last_seen_at < presence_window()


def _stale(now: datetime) -> Q:
    return Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=now - SEEN_RESOLUTION)


def mark_seen(player: Player, now: datetime | None = None) -> None:
    """Record that ``player`` was just seen (an authenticated request): nothing while
    their ``last_seen_at`` (as loaded) is fresh, else one conditional UPDATE (of
    concurrent requests that find it stale, one matches the row)."""
    now = now or timezone.now()
    if player.last_seen_at is not None and now - player.last_seen_at < SEEN_RESOLUTION:
        return
    Player.objects.filter(_stale(now), pk=player.pk).update(last_seen_at=now)
    player.last_seen_at = now


def mark_seen_ids(player_ids: Iterable[int], now: datetime | None = None) -> int:
    """Record that the players ``player_ids`` are seen now (their streams are open): one
    UPDATE for all, of those not seen in the last minute; how many rows it wrote."""
    ids = sorted(set(player_ids))
    if not ids:
        return 0
    now = now or timezone.now()
    return Player.objects.filter(_stale(now), pk__in=ids).update(last_seen_at=now)
