"""Writing notices: call these inside the transaction of the change they tell of."""

from __future__ import annotations

from typing import Any

from notices.models import Audience, Notice


def to_player(player_id: int, kind: str, data: dict[str, Any]) -> Notice:
    """A ``kind`` event on ``player_id``'s feed (``data``: its JSON body; the hub adds
    nothing to it but ``notice``, the notice's id)."""
    return Notice.objects.create(audience=Audience.PLAYER, player_id=player_id, kind=kind, data=data)


def to_players(player_ids, kind: str, data: dict[str, Any]) -> list[Notice]:
    """The same event on each of ``player_ids``' feeds (one row each)."""
    return Notice.objects.bulk_create(
        [Notice(audience=Audience.PLAYER, player_id=p, kind=kind, data=data) for p in sorted(set(player_ids))]
    )


def to_game(game_id: int, kind: str, data: dict[str, Any], audience: str = Audience.EVERYONE,
            author_id: int | None = None) -> Notice:
    """A ``kind`` event on game ``game_id``'s stream, for ``audience`` (:class:`Audience`:
    ``players``, ``spectators`` or ``everyone``).  ``author_id``: the player who wrote
    what it tells (a chat message): viewers blocked either way with them are not sent it
    (the id itself is never sent)."""
    if audience == Audience.PLAYER:
        raise ValueError("a game's notice is for its players, its spectators or everyone")
    return Notice.objects.create(audience=audience, game_id=game_id, kind=kind, data=data, author_id=author_id)
