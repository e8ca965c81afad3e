"""Writing notices: call these inside the transaction of the change they tell of."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import current_app
from django.db import transaction

from config import fanout
from notices.models import Audience, Notice
from players.models import Webhook

log = logging.getLogger(__name__)

#: called with the notices just written for players' feeds, inside the transaction that
#: wrote them (apps above this one register: ``reach`` writes its outbox from them)
_listeners: dict[str, Callable[[list[Notice]], None]] = {}


def on_player_notices(name: str, run: Callable[[list[Notice]], None]) -> None:
    """Register (or replace) ``run(notices)``: called with every batch of player notices
    written (:func:`to_player`, :func:`to_players`), inside the writer's transaction, in a
    savepoint of its own; its exception is logged, never raised to the writer."""
    _listeners[name] = run


def _written(notices: list[Notice]) -> None:
    for name, run in _listeners.items():
        try:
            with transaction.atomic():
                run(notices)
        except Exception:
            log.exception("notices %s: %s failed", [n.pk for n in notices], name)


def to_player(player_id: int, kind: str, data: dict[str, Any], *, webhook: bool = False) -> Notice:
    """A ``kind`` event on ``player_id``'s feed (``data``: its JSON body; the hub adds
    nothing to it but ``notice``, the notice's id).  ``webhook``: also POSTed to the
    player's webhook, if they have one, once the transaction commits (``notices.tasks``)."""
    fanout.notices_written([(None, player_id)])  # (the live hubs wake after the commit)
    notice = Notice.objects.create(audience=Audience.PLAYER, player_id=player_id, kind=kind, data=data)
    _written([notice])
    if webhook:
        _to_webhooks([notice])
    return notice


def to_players(player_ids, kind: str, data: dict[str, Any], *, webhook: bool = False) -> list[Notice]:
    """The same event on each of ``player_ids``' feeds (one row each); ``webhook`` as
    :func:`to_player`'s."""
    ids = sorted(set(player_ids))
    fanout.notices_written((None, p) for p in ids)
    notices = Notice.objects.bulk_create(
        [Notice(audience=Audience.PLAYER, player_id=p, kind=kind, data=data) for p in ids]
    )
    _written(notices)
    if webhook:
        _to_webhooks(notices)
    return notices


def _to_webhooks(notices: list[Notice]) -> None:
    """Queue the delivery of ``notices`` to their players' webhooks after the commit
    (none if the transaction rolls back; one query for who has a webhook)."""
    hooked = set(Webhook.objects.filter(player_id__in={n.player_id for n in notices}).values_list("player_id", flat=True))
    ids = [n.pk for n in notices if n.player_id in hooked and n.pk is not None]
    if ids:
        transaction.on_commit(lambda: _queue(ids))


def _queue(notice_ids: list[int]) -> None:
    for notice_id in notice_ids:
        try:  # by name: notices.tasks imports this module's app
            current_app.send_task("notices.tasks.deliver_notice", (notice_id,))
        except Exception:  # the notice stands on the feed; a webhook is best effort
            log.exception("could not queue the webhook of notice %s", notice_id)


def to_game(game_id: int, kind: str, data: dict[str, Any], audience: str = Audience.EVERYONE,
            author_id: int | None = None) -> Notice:
    """A ``kind`` event on game ``game_id``'s stream, for ``audience`` (:class:`Audience`:
    ``players``, ``spectators`` or ``everyone``).  ``author_id``: the player who wrote
    what it tells (a chat message): viewers blocked either way with them are not sent it
    (the id itself is never sent)."""
    if audience == Audience.PLAYER:
        raise ValueError("a game's notice is for its players, its spectators or everyone")
    fanout.notices_written([(game_id, None)])
    return Notice.objects.create(audience=audience, game_id=game_id, kind=kind, data=data, author_id=author_id)
