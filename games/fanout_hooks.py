"""The games' and seats' rows written through the ORM (``save``, ``create``, ``delete``
and the deletes it cascades to), named for the live fan-out (``config.fanout``) before
they are written; ``services.insert_rows``/``update_rows`` and the few bulk inserts and
queryset updates name theirs where they write them."""

from __future__ import annotations

from django.db.models.signals import pre_delete, pre_save

from config import fanout
from games.models import Game, Seat


def _game(sender, instance: Game, using: str = "default", raw: bool = False, **kwargs) -> None:
    fanout.games_written([instance.pk], using)  # (a new game: no id yet, nobody follows it)


def _seat(sender, instance: Seat, using: str = "default", raw: bool = False, **kwargs) -> None:
    fanout.seats_written([(instance.game_id, instance.player_id)], using)


def connect() -> None:
    for signal in (pre_save, pre_delete):
        signal.connect(_game, sender=Game, dispatch_uid=f"uno-fanout-game-{signal is pre_save}")
        signal.connect(_seat, sender=Seat, dispatch_uid=f"uno-fanout-seat-{signal is pre_save}")
