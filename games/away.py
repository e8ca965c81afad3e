"""Away: a player's correspondence clocks stand still for a while (a holiday).

A player sets an away period (``PUT /players/me/away``, :func:`set_away`): from now (or
from the start of the period they are in, which this extends or shortens) until a time
they choose, at most ``UNO_AWAY_DAYS_PER_MONTH`` days per calendar month (UTC; a period
that crosses months counts its days in each, the days planned ahead included) and at
most that many days in one period.  Ending it early (``DELETE``, :func:`end_away`)
gives the unused days back.

While a player is away, in every running correspondence game of theirs
(``obligations.is_correspondence``: ``turn_seconds`` at least
``UNO_CORRESPONDENCE_SECONDS``) the clock of each decision their seat owes under the
turn's deadline stands still: its deadline moves past the away period by the time it
had left (``obligations.pause``), and a decision that comes meanwhile starts its clock
at the period's end (``obligations.compute``, from ``Player.away_until`` read with the
seats).  Ending, shortening or extending the period moves those deadlines again by the
difference.  Real-time games, windows with their own deadline (a buzz) and seats a robot
plays are not affected; a bot seat is never away.  The sweeper never times out an away
player's decision in a correspondence game (``robots._enforce``), whatever its stored
deadline says.

Each change runs in one transaction: the player's row locked first (``FOR NO KEY
UPDATE``, as ``services._check_share`` locks it: a seat taken meanwhile, whose game
starts with the new value, waits for it), then the games in id order (two players'
changes never deadlock), their obligations, ``deadline`` and ``updated_at`` (a new
``ETag``, a stream event: the seat's ``away_until``) written in one statement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone as dt_timezone

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from config.problems import ApiError
from games import obligations, selectors, signals
from games.models import Game, GameStatus, Seat
from games.services import update_rows
from players.models import AwayPeriod, Player

DAY = timedelta(days=1)


@dataclass(frozen=True)
class AwayStatus:
    """``GET /players/me/away``."""

    away_until: datetime | None
    days_used_this_month: float
    days_allowed_per_month: int


# --------------------------------------------------------------------------------------
# Reading: the days used per calendar month
# --------------------------------------------------------------------------------------
def month_start(at: datetime) -> datetime:
    """The first instant of ``at``'s calendar month, in UTC."""
    at = at.astimezone(dt_timezone.utc)
    return at.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month(start: datetime) -> datetime:
    return (start + timedelta(days=32)).replace(day=1)


def _overlap(a0: datetime, a1: datetime, b0: datetime, b1: datetime) -> timedelta:
    return max(min(a1, b1) - max(a0, b0), timedelta(0))


def days_used(player_id: int, month: datetime, *, exclude: int | None = None) -> float:
    """Days (24 h each, fractions counted) of ``player_id``'s away periods that fall in
    the calendar month starting at ``month`` (but the period ``exclude``)."""
    end = next_month(month)
    periods = AwayPeriod.objects.filter(player_id=player_id, ends_at__gt=month, starts_at__lt=end)
    if exclude is not None:
        periods = periods.exclude(pk=exclude)
    total = sum((_overlap(p0, p1, month, end) for p0, p1 in periods.values_list("starts_at", "ends_at")),
                timedelta(0))
    return total / DAY


def away_status(player: Player, now: datetime | None = None) -> AwayStatus:
    """The player's away period and this month's count (a read)."""
    now = now or timezone.now()
    until = Player.objects.filter(pk=player.pk).values_list("away_until", flat=True).first()
    return AwayStatus(until if until is not None and until > now else None,
                      round(days_used(player.pk, month_start(now)), 4), settings.UNO_AWAY_DAYS_PER_MONTH)


def _current(player_id: int, now: datetime) -> AwayPeriod | None:
    """The period the player is in at ``now``, if any."""
    return (AwayPeriod.objects.filter(player_id=player_id, starts_at__lte=now, ends_at__gt=now)
            .order_by("-ends_at").first())


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------
def _lock_player(player: Player) -> datetime | None:
    """Lock the player's row (see the module docstring); their ``away_until`` as stored."""
    no_key = connection.features.has_select_for_no_key_update
    row = (Player.objects.select_for_update(no_key=no_key).filter(pk=player.pk)
           .values_list("away_until", "is_bot").first())
    if row is None:
        raise ApiError(404, "not_found", "no such player")
    if row[1]:
        raise ApiError(403, "bot_account", "a bot is never away")
    return row[0]


def _floor(days: float) -> float:
    return math.floor(max(days, 0.0) * 100) / 100


def _check_allowance(player_id: int, start: datetime, until: datetime, exclude: int | None, now: datetime) -> None:
    """Refuse a period from ``start`` to ``until`` past the maximum: 400 ``invalid``
    (``fields.until``) longer than ``UNO_AWAY_DAYS_PER_MONTH`` days, 409
    ``away_days_exhausted`` when a calendar month it touches would count more than that
    (with ``month``, ``days_left`` in it and ``days_allowed_per_month``)."""
    allowed = settings.UNO_AWAY_DAYS_PER_MONTH
    if allowed and (until - start) / DAY > allowed:  # (0: nobody may be away, a 409 below)
        detail = (f"an away period lasts at most {allowed} days (UNO_AWAY_DAYS_PER_MONTH); this one would last "
                  f"{(until - start) / DAY:.2f} days from its start, {start.isoformat()}")
        raise ApiError(400, "invalid", detail, fields={"until": [detail]},
                       days_left=_floor(allowed - (now - start) / DAY), days_allowed_per_month=allowed)
    month = month_start(start)
    while month < until:
        others = days_used(player_id, month, exclude=exclude)
        this = _overlap(start, until, month, next_month(month)) / DAY
        if others + this > allowed + 1e-6:
            left = _floor(allowed - others)
            raise ApiError(409, "away_days_exhausted",
                           f"{month:%Y-%m}: {left} of the {allowed} days a player may be away per month are left "
                           f"({others:.2f} used or planned); this period would count {this:.2f} days in that month",
                           month=f"{month:%Y-%m}", days_left=left, days_allowed_per_month=allowed)
        month = next_month(month)


def set_away(*, player: Player, until: datetime, now: datetime | None = None) -> AwayStatus:
    """Be away from now until ``until``, or move the end of the current period to it
    (shorter or longer); 400 for a time not ahead or too long, 409
    ``away_days_exhausted`` past the monthly maximum.  Moves the player's correspondence
    deadlines (see the module docstring).  ``now``: the time it happens (default: the
    clock's, read once the player's row is locked)."""
    with transaction.atomic():
        _lock_player(player)
        now = now or timezone.now()
        if until <= now:
            raise ApiError(400, "invalid", "`until` must be in the future (DELETE ends an away period now)",
                           fields={"until": ["must be in the future"]})
        current = _current(player.pk, now)
        start = current.starts_at if current is not None else now
        _check_allowance(player.pk, start, until, current.pk if current is not None else None, now)
        if current is None:
            AwayPeriod.objects.create(player=player, starts_at=now, ends_at=until)
        else:
            AwayPeriod.objects.filter(pk=current.pk).update(ends_at=until)
        Player.objects.filter(pk=player.pk).update(away_until=until)
        _move_clocks(player, until, now)
    player.away_until = until
    return away_status(player, now)


def end_away(*, player: Player, now: datetime | None = None) -> AwayStatus:
    """End the player's away period now (nothing when they are not away): its unused
    days are given back, and their correspondence clocks run again with the time each
    had left.  ``now``: as :func:`set_away`'s."""
    with transaction.atomic():
        stored = _lock_player(player)
        now = now or timezone.now()
        current = _current(player.pk, now)
        if current is not None:
            AwayPeriod.objects.filter(pk=current.pk).update(ends_at=now)
        if stored is not None:
            Player.objects.filter(pk=player.pk).update(away_until=None)
            if stored > now:
                _move_clocks(player, None, now)
    player.away_until = None
    return away_status(player, now)


def _move_clocks(player: Player, until: datetime | None, now: datetime) -> int:
    """Every running correspondence game where ``player`` holds a seat, locked in id
    order: the clocks of what their seat owes under the turn's deadline pause until
    ``until`` (None: run again from ``now``), each keeping the time it had left; the
    game's ``deadline`` follows, and its ``updated_at`` is now (its view shows the seat's
    ``away_until``).  Returns how many games were written."""
    threshold = settings.UNO_CORRESPONDENCE_SECONDS
    mine = Seat.objects.filter(player=player, left=False).values("game_id")
    games = list(Game.objects.select_for_update()
                 .filter(pk__in=mine, status=GameStatus.ACTIVE, turn_seconds__gte=threshold).order_by("pk"))
    if not games:
        return 0
    selectors.load_seats_of(games)
    for game in games:
        seat = next((s for s in game.seat_list if s.player_id == player.pk), None)
        owed = obligations.current(game, game.seat_list)
        if seat is not None and not obligations.is_robot(seat):
            owed = [obligations.pause(o, until, now) if o.seat == seat.seat else o for o in owed]
        game.obligations = [o.to_json() for o in owed]
        game.deadline = obligations.earliest(owed)
        game.updated_at = now
    update_rows(games, ("obligations", "deadline", "updated_at"))
    for game in games:  # what commits with the moved clocks (reach's reminders for the new deadlines)
        signals.move_recorded(game, game.seat_list, None)
    return len(games)
