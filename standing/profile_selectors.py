"""Reading profiles: who a name is, what their profile shows, the games they played and
their rating history, as a given caller may see them.

Whose games a caller sees:

* their own: every game they sat in, whatever its status;
* another player's: only finished games, and when that player hides their games
  (``Profile.games_public`` false) only the finished games the caller sat in with them
  (none for an anonymous caller); the profile's ``last_games`` is then null;
* a bot level's (``bot:<level>``): its finished games.

Lists are newest first by creation (the game's id) and paged by keyset: a cursor is
the last game's id (or the last rating change's), so games created meanwhile neither
repeat nor shift the next page.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from rest_framework.exceptions import NotAuthenticated

from config.problems import ApiError
from games import selectors as game_selectors
from games.models import Game, GameStatus, Seat
from games.services import BOT_LEVELS
from players.models import Player
from players.presence import is_online
from standing.models import Profile, Rating, RatingChange
from standing.selectors import change_entry, changes_of_games, rank_of, rating_numbers, rating_of, ratings_of

#: a bot level's name on profiles and leaderboards (``:`` is no username character)
BOT_PREFIX = "bot:"
#: the profile's ``last_games``
LAST_GAMES = 10
#: a longer ``after`` is no cursor of ours (they are about 20 characters)
CURSOR_MAX_LENGTH = 100


@dataclass(frozen=True)
class Subject:
    """Whose profile: a player, or a bot level (``player`` None)."""

    player: Player | None
    bot_level: str = ""

    @property
    def name(self) -> str:
        return self.player.username if self.player is not None else f"{BOT_PREFIX}{self.bot_level}"

    def is_caller(self, caller) -> bool:
        return self.player is not None and caller.is_authenticated and caller.pk == self.player.pk


def subject_named(name: str, caller, *, me: bool = True) -> Subject:
    """The player (found as log-in finds a name: exactly, else ignoring case and Unicode
    forms) or bot level ``bot:<level>`` called ``name``; ``me`` (when ``me`` is allowed)
    the caller, 401 when anonymous; else 404 ``not_found``."""
    if me and name == "me":
        if not caller.is_authenticated:
            raise NotAuthenticated("me is the caller: send the caller's credentials")
        return Subject(caller)
    if name.startswith(BOT_PREFIX):
        level = name[len(BOT_PREFIX):]
        if level not in BOT_LEVELS:
            raise ApiError(404, "not_found", f"no bot level {level!r}; the levels: {', '.join(BOT_LEVELS)}")
        return Subject(None, level)
    player = _player_named(name)
    if player is None:
        raise ApiError(404, "not_found", f"no player called {name!r}")
    return Subject(player)


def _player_named(name: str) -> Player | None:
    if not name or len(name) > 150 or "\x00" in name:  # (no such name; PostgreSQL refuses NUL in text)
        return None
    try:
        player = Player.objects.get_by_natural_key(name)
    except Player.DoesNotExist:
        return None
    return player if player.is_active else None  # a deactivated account shows nothing


def opponent_named(name: str) -> Subject | None:
    """A list's ``opponent`` filter: a player or ``bot:<level>`` (no ``me``), None for nobody."""
    if name.startswith(BOT_PREFIX):
        level = name[len(BOT_PREFIX):]
        return Subject(None, level) if level in BOT_LEVELS else None
    player = _player_named(name)
    return None if player is None else Subject(player)


def games_public(player: Player) -> bool:
    """Whether ``player`` shows their games to others (no Profile row: the default, yes)."""
    shown = Profile.objects.filter(player=player).values_list("games_public", flat=True).first()
    return True if shown is None else shown


@dataclass(frozen=True)
class Visible:
    """Which of a subject's games a caller is shown: ``statuses`` (None: any), only
    those shared with ``shared_with`` (a player id), or ``nothing``."""

    statuses: tuple[str, ...] | None
    shared_with: int | None = None
    nothing: bool = False
    #: the subject hides their games from this caller
    hidden: bool = False


FINISHED_ONLY = (GameStatus.FINISHED.value,)


def visible_to(subject: Subject, caller, public: bool | None = None) -> Visible:
    """What ``caller`` is shown of ``subject``'s games (see the module's docstring);
    ``public``: the subject's ``games_public`` if already read."""
    if subject.player is None:
        return Visible(FINISHED_ONLY)
    if subject.is_caller(caller):
        return Visible(None)
    if games_public(subject.player) if public is None else public:
        return Visible(FINISHED_ONLY)
    if not caller.is_authenticated:
        return Visible(FINISHED_ONLY, nothing=True, hidden=True)
    return Visible(FINISHED_ONLY, shared_with=caller.pk, hidden=True)


# --- cursors ---------------------------------------------------------------------------


def cursor_of(kind: str, pk: int) -> str:
    """A keyset position (the last row's id) of the list ``kind``: base64url of JSON,
    opaque to clients, naming its list so that another list's cursor is refused."""
    raw = json.dumps([kind, pk], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def position_of(kind: str, cursor: str, field: str = "after") -> int:
    """The id a cursor of list ``kind`` names, else 400 ``invalid`` naming ``field``."""
    try:
        if len(cursor) > CURSOR_MAX_LENGTH:
            raise ValueError
        name, pk = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if name != kind or type(pk) is not int or not 0 < pk < 2**63:
            raise ValueError
    except (ValueError, TypeError, binascii.Error):
        raise ApiError(400, "invalid", f"{field} must be the next_cursor of an earlier answer of this list",
                       fields={field: ["the next_cursor of an earlier answer of this list"]}) from None
    return pk


GAMES_CURSOR, HISTORY_CURSOR = "player_games", "rating_history"


# --- games -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GameFilters:
    """A game list's filters (already checked by the view)."""

    ruleset: str | None = None
    status: str | None = None
    rated: bool | None = None
    #: the listed player's result: True won, False lost (finished games only)
    won: bool | None = None
    opponent: Subject | None = None
    since: datetime | None = None
    until: datetime | None = None


def games_of(subject: Subject, visible: Visible, filters: GameFilters = GameFilters(), *,
             after: int | None = None) -> QuerySet[Seat]:
    """The subject's seats in the games ``visible`` shows, newest game first, filtered
    (``games.selectors.seated_games``; empty when ``visible.nothing``)."""
    statuses = visible.statuses
    if filters.status is not None:
        statuses = tuple(s for s in (statuses or (filters.status,)) if s == filters.status)
    if visible.nothing:
        return Seat.objects.none()
    opponent = filters.opponent
    return game_selectors.seated_games(
        player_id=subject.player.pk if subject.player is not None else None, bot_level=subject.bot_level,
        statuses=statuses, ruleset=filters.ruleset, rated=filters.rated, won=filters.won,
        opponent_id=opponent.player.pk if opponent is not None and opponent.player is not None else None,
        opponent_level=opponent.bot_level if opponent is not None else "",
        shared_with=visible.shared_with, since=filters.since, until=filters.until, before_game=after)


def game_page(subject: Subject, visible: Visible, filters: GameFilters, *, after: int | None,
              limit: int) -> dict[str, Any]:
    """One page of :func:`games_of`: ``results`` (:func:`game_entries`) and
    ``next_cursor`` (null at the end).  Three queries: the page, its seats, its rating
    changes (none when the page has no rated finished game)."""
    rows = list(games_of(subject, visible, filters, after=after)[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "username": subject.name,
        "results": game_entries(rows),
        "next_cursor": cursor_of(GAMES_CURSOR, rows[-1].game_id) if more else None,
    }


def last_games(subject: Subject, visible: Visible) -> list[dict[str, Any]] | None:
    """The profile's last finished games (:data:`LAST_GAMES`), null when hidden from the caller."""
    if visible.hidden:
        return None
    return game_entries(list(games_of(subject, visible, GameFilters(status=GameStatus.FINISHED))[:LAST_GAMES]))


def game_entries(rows: list[Seat]) -> list[dict[str, Any]]:
    """Each game of ``rows`` (the subject's seat in it, its ``game`` loaded): its seats
    (one query for all), each with its rating change (one query for all), and the
    subject's result and rating change."""
    games: list[Game] = [row.game for row in rows]
    game_selectors.load_seats_of(games)
    rated = [g.pk for g in games if g.rated and g.status == GameStatus.FINISHED]
    changes = changes_of_games(rated) if rated else {}
    out = []
    for row, game in zip(rows, games):
        finished = game.status == GameStatus.FINISHED
        of_game = changes.get(game.pk, {})
        seats = game.seat_list
        if row.player_id is not None:
            won = row.won
        else:  # a bot level: any of its seats won
            won = any(s.won for s in seats if s.player_id is None and s.bot_level == row.bot_level)
        out.append({
            "id": game.pk,
            "ruleset": game.ruleset,
            "status": game.status,
            "rated": game.rated,
            "created_at": game.created_at,
            "finished_at": game.finished_at,
            "seats": [{
                "seat": s.seat,
                "username": s.player.username if s.player_id is not None else None,
                "is_bot": s.is_bot,
                "bot_level": s.bot_level or None,
                "won": s.won,
                "rating_change": of_game.get(s.seat),
            } for s in seats],
            "result": ("won" if won else "lost") if finished else None,
            "rating_change": of_game.get(row.seat),
        })
    return out


# --- profiles --------------------------------------------------------------------------


def rating_summary(rating: Rating) -> dict[str, Any]:
    """A rating as a profile lists it (with its rank on the board: 2 queries)."""
    return {"ruleset": rating.pool, **rating_numbers(rating), "rank": rank_of(rating)}


def profile(subject: Subject, caller) -> dict[str, Any]:
    """``GET /players/{username}``: the subject as ``caller`` may see it."""
    player = subject.player
    ratings = ratings_of(player=player) if player is not None else ratings_of(bot_level=subject.bot_level)
    if player is not None:
        by_ruleset = game_selectors.finished_by_ruleset(player.pk)
        public = games_public(player)
    else:  # a bot level plays far too many games to count: its rated games
        by_ruleset = [(r.pool, r.games, r.wins) for r in ratings]
        public = True
    return {
        "username": subject.name,
        "is_bot": player.is_bot if player is not None else True,
        "bot_level": subject.bot_level or None,
        "joined": player.date_joined if player is not None else None,
        "online": is_online(player.last_seen_at) if player is not None else None,
        "games": {
            "played": sum(n for _, n, _ in by_ruleset),
            "won": sum(w for _, _, w in by_ruleset),
            "by_ruleset": [{"ruleset": r, "played": n, "won": w} for r, n, w in by_ruleset],
        },
        "ratings": [rating_summary(r) for r in ratings],
        "games_public": public,
        "last_games": last_games(subject, visible_to(subject, caller, public)),
    }


# --- rating history --------------------------------------------------------------------


def subject_rating(subject: Subject, pool: str) -> Rating | None:
    if subject.player is not None:
        return rating_of(pool, player=subject.player)
    return rating_of(pool, bot_level=subject.bot_level)


def history_page(rating: Rating, *, after: int | None, limit: int) -> dict[str, Any]:
    """``rating``'s changes, newest first, a page of ``limit`` after the change ``after``:
    a range of ``rating_change_history``.  A bot level that held several seats of a game
    has one change per seat, each with the same before and after: its first seat's
    stands for the game."""
    rows = RatingChange.objects.filter(rating=rating)
    if rating.player_id is None:
        rows = rows.filter(~Exists(RatingChange.objects.filter(game_id=OuterRef("game_id"), rating_id=rating.pk,
                                                               seat__lt=OuterRef("seat"))))
    if after is not None:
        rows = rows.filter(id__lt=after)
    found = list(rows.order_by("-id")[: limit + 1])
    more = len(found) > limit
    found = found[:limit]
    return {
        "results": [{"game": c.game_id, "at": c.created_at, **change_entry(c)} for c in found],
        "next_cursor": cursor_of(HISTORY_CURSOR, found[-1].pk) if more else None,
    }
