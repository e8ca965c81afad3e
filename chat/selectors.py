"""Reading table talk: which room a viewer is in, and the messages a viewer may see."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from chat.models import Message, Mute, Room
from config.problems import ApiError
from games import selectors as games
from games.models import Game, GameStatus, Seat
from players.selectors import blocked_either_way


def seat_of(seats: list[Seat], player_id: int) -> Seat | None:
    return next((s for s in seats if s.player_id == player_id), None)


def room_of(seats: list[Seat], player_id: int) -> str:
    """The room ``player_id`` writes to: ``players`` if seated (the game lists them), else
    ``spectators``."""
    return Room.PLAYERS if seat_of(seats, player_id) is not None else Room.SPECTATORS


def rooms_shown(game: Game, player_id: int) -> list[str]:
    """The rooms ``player_id`` reads: their own, and both once the game is finished."""
    if game.status == GameStatus.FINISHED:
        return [Room.PLAYERS, Room.SPECTATORS]
    return [room_of(game.seat_list, player_id)]


def muted_until(player_id: int, now) -> Any:
    """The end of the longest mute of ``player_id`` still running at ``now`` (None: not muted)."""
    mute = Mute.objects.filter(player_id=player_id, until__gt=now).order_by("-until").first()
    return mute.until if mute else None


def message_data(message: Message, username: str) -> dict[str, Any]:
    """A message as the API shows it (``GET /games/{id}/chat``, the stream's ``chat``)."""
    return {
        "id": message.pk,
        "game": message.game_id,
        "room": message.room,
        "username": username,
        "seat": message.seat,
        "text": message.text,
        "created_at": message.created_at,
    }


def visible_messages(game: Game, player_id: int, rooms: list[str]) -> QuerySet[Message]:
    """The messages of ``rooms`` of ``game`` that ``player_id`` is shown: not hidden by
    the staff, and not written by a player blocked either way with them."""
    return (Message.objects.filter(game_id=game.pk, room__in=rooms, hidden_at__isnull=True)
            .exclude(author_id__in=blocked_either_way(player_id)))


def chat_page(game_id: int, player_id: int, *, room: str | None, after: int | None, before: int | None,
              limit: int) -> dict[str, Any]:
    """A page of game ``game_id``'s table talk for ``player_id``, oldest first (newest
    last): after message ``after``, else before message ``before``, else the newest
    ``limit``.  ``next_cursor`` (for ``after``): the last message's id when newer ones
    exist; ``previous_cursor`` (for ``before``): the first's when older ones exist."""
    game = games.get_game(game_id)
    shown = rooms_shown(game, player_id)
    if room is not None:
        if room not in shown:
            raise ApiError(403, "room_hidden", f"the {room} room of game {game_id} is not shown to the caller "
                           "(the spectators' room is hidden from the players until the game is finished)")
        shown = [room]
    qs = visible_messages(game, player_id, shown).select_related("author").only(
        "id", "game_id", "room", "seat", "text", "created_at", "author__username")
    if after is not None:
        page = list(qs.filter(id__gt=after).order_by("id")[: limit + 1])
        more_after, page = len(page) > limit, page[:limit]
        more_before = bool(page) and qs.filter(id__lt=page[0].pk).exists()
    else:
        older = qs.filter(id__lt=before) if before is not None else qs
        page = list(older.order_by("-id")[: limit + 1])
        more_before, page = len(page) > limit, page[:limit][::-1]
        more_after = before is not None and bool(page) and qs.filter(id__gt=page[-1].pk).exists()
    return {
        "results": [message_data(m, m.author.username) for m in page],
        "next_cursor": page[-1].pk if more_after else None,
        "previous_cursor": page[0].pk if more_before else None,
    }
