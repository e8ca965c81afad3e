"""Reading notices (the live hub's catch-up and delivery)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Max, Q

from notices.models import Audience, Notice


def last_id() -> int:
    """The newest notice's id (0: none yet)."""
    return Notice.objects.aggregate(m=Max("id"))["m"] or 0


def after(last: int, *, players: Iterable[int] = (), games: Iterable[int] = (), limit: int = 1000) -> list[Notice]:
    """The notices after id ``last`` for the feeds of ``players`` or the streams of
    ``games``, oldest first (at most ``limit``)."""
    players, games = list(players), list(games)
    if not players and not games:
        return []
    where = Q()
    if players:
        where |= Q(audience=Audience.PLAYER, player_id__in=players)
    if games:
        where |= Q(game_id__in=games)
    return list(Notice.objects.filter(where, id__gt=last).order_by("id")[:limit])


def visible_on_stream(notice: Notice, seated: bool, finished: bool) -> bool:
    """Whether a game stream's viewer (``seated`` in it or not) sees ``notice``: the
    players' channel is the players'; the spectators' is hidden from the players until
    the game is over; both are shown to everyone once it is."""
    if notice.audience == Audience.EVERYONE or finished:
        return True
    if notice.audience == Audience.PLAYERS:
        return seated
    return not seated
