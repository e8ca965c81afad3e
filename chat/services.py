"""Writing table talk: a message (with its ``chat`` event on the game's stream), a
report, and the staff's moderation (hiding a message, muting a player)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from chat import selectors
from chat.models import Message, Mute, Report, Room
from chat.text import clean
from config.problems import ApiError
from games import selectors as games
from games.services import json_safe
from notices import services as notices
from notices.models import Audience

#: why a message may be reported (``POST .../report``)
REPORT_REASONS = ("spam", "abuse", "cheating", "other")
#: the notices' audience of each room
AUDIENCE = {Room.PLAYERS: Audience.PLAYERS, Room.SPECTATORS: Audience.SPECTATORS}


def post_message(*, player, game_id: int, text: str, room: str | None = None) -> Message:
    """``player`` writes ``text`` to game ``game_id``'s table: to the players' room if
    seated, else the spectators' (``room``, if given, must be that one).  The message and
    its ``chat`` event commit together; refusals change nothing.  The game's row is locked,
    so that a game's messages commit in the order of their ids (the cursor's order)."""
    now = timezone.now()
    with transaction.atomic():
        game = games.load_seats(games.read_game(game_id, lock=True))  # 404 not_found
        until = selectors.muted_until(player.pk, now)
        if until is not None:
            raise ApiError(403, "muted", f"the staff muted the caller's table talk until {until.isoformat()}",
                           until=until.isoformat())
        seat = selectors.seat_of(game.seat_list, player.pk)
        own = Room.PLAYERS if seat is not None else Room.SPECTATORS
        if room is not None and room != own:
            raise ApiError(403, "wrong_room", f"the caller writes to the {own} room of this game, not the {room} one",
                           room=own)
        if seat is not None and seat.left:
            raise ApiError(403, "left_game", "the caller left this game: they may no longer write to its players")
        cleaned = clean(text)
        if not cleaned:
            raise ApiError(400, "invalid", "the text is empty once cleaned (white space and invisible characters)",
                           fields={"text": ["empty once cleaned"]})
        limit = settings.UNO_CHAT_MAX_LENGTH
        if len(cleaned) > limit:
            raise ApiError(400, "invalid", f"the text is longer than {limit} characters once cleaned",
                           fields={"text": [f"at most {limit} characters once cleaned ({len(cleaned)})"]})
        message = Message.objects.create(game_id=game.pk, room=own, author=player, text=cleaned, created_at=now,
                                         seat=seat.seat if seat is not None else None)
        notices.to_game(game.pk, "chat", json_safe(selectors.message_data(message, player.username)), AUDIENCE[own],
                        author_id=player.pk)
    return message


def report_message(*, player, game_id: int, message_id: int, reason: str, comment: str = "") -> Report:
    """``player`` reports message ``message_id`` of game ``game_id`` to the staff (the
    admin): a message they are shown, not their own, once."""
    with transaction.atomic():
        game = games.get_game(game_id)  # 404 not_found
        message = (selectors.visible_messages(game, player.pk, selectors.rooms_shown(game, player.pk))
                   .filter(pk=message_id).first())
        if message is None:
            raise ApiError(404, "not_found", f"no message {message_id} shown to the caller in game {game_id}")
        if message.author_id == player.pk:
            raise ApiError(403, "own_message", "a player cannot report their own message")
        try:
            with transaction.atomic():
                return Report.objects.create(message=message, reporter=player, reason=reason, comment=comment)
        except IntegrityError:
            raise ApiError(409, "already_reported", "the caller already reported this message") from None


def hide_messages(message_ids, *, resolve_reports: bool = True) -> int:
    """The staff hides messages: no longer shown (``GET``), and a ``chat_hidden`` event
    on their game's stream tells the room to remove them; their reports are resolved.
    How many were hidden (those hidden already are left as they are)."""
    now = timezone.now()
    hidden = 0
    with transaction.atomic():
        for message in Message.objects.select_for_update().filter(pk__in=list(message_ids), hidden_at__isnull=True):
            message.hidden_at = now
            message.save(update_fields=["hidden_at"])
            notices.to_game(message.game_id, "chat_hidden", {"id": message.pk, "room": message.room},
                            AUDIENCE[message.room])
            hidden += 1
        if resolve_reports:
            Report.objects.filter(message_id__in=list(message_ids)).update(resolved=True)
    return hidden


def mute(player_id: int, until: datetime, reason: str = "") -> Mute:
    """The staff mutes ``player_id``'s table talk until ``until`` (403 ``muted``)."""
    with transaction.atomic():
        return Mute.objects.create(player_id=player_id, until=until, reason=reason)
