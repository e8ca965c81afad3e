"""Reading ratings: a game's rating changes, a player's ratings, the leaderboard.

The leaderboard is a pool's established ratings ordered by ``ordinal`` (best first),
then by id (the older rating first on a tie): ``rating_board`` serves every page as a
range of the index, whatever the page's depth (keyset paging, no OFFSET), and a rank
is counted from the RankBuckets above plus the ratings above in the rating's own bucket
(:func:`rank_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet, Sum

from games.models import Game, GameStatus, Seat
from standing.models import RankBucket, Rating, RatingChange
from standing.services import BUCKETS_PER_POINT


def display_name(rating: Rating) -> str:
    """A rating's name on the board: the player's username, or ``bot:<level>`` (a name no
    player can register: ``:`` is not a username character)."""
    return rating.player.username if rating.player_id else f"bot:{rating.bot_level}"


def rating_numbers(rating: Rating) -> dict[str, Any]:
    """What a rating is, as the board and a profile show it."""
    return {
        "rating": round(rating.ordinal, 2),
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "games": rating.games,
        "wins": rating.wins,
        "provisional": not rating.established,
    }


def rating_entry(rating: Rating, rank: int | None = None) -> dict[str, Any]:
    """A leaderboard entry."""
    return {
        "rank": rank,
        "username": display_name(rating),
        "is_bot": rating.player_id is None,
        "bot_level": rating.bot_level or None,
        **rating_numbers(rating),
    }


def board(pool: str) -> QuerySet[Rating]:
    """The pool's established ratings, best first."""
    return (Rating.objects.filter(pool=pool, established=True).select_related("player")
            .order_by("-ordinal", "id"))


def rank_of(rating: Rating) -> int | None:
    """``rating``'s rank on its pool's board (1: the best), None while provisional."""
    if not rating.established:
        return None
    above = RankBucket.objects.filter(pool=rating.pool, bucket__gt=rating.bucket).aggregate(n=Sum("count"))["n"] or 0
    # the ratings above it in its own bucket: a short range of the board's index
    top = (rating.bucket + 1) / BUCKETS_PER_POINT + 1e-6
    beside = (Rating.objects.filter(pool=rating.pool, established=True, bucket=rating.bucket,
                                    ordinal__gte=rating.ordinal, ordinal__lt=top)
              .filter(Q(ordinal__gt=rating.ordinal) | Q(id__lt=rating.pk)).count())
    return above + beside + 1


def after(pool: str, ordinal: float, rating_id: int) -> QuerySet[Rating]:
    """The board below the entry (``ordinal``, ``rating_id``), best first.  (The bound
    ``ordinal <= ...`` says nothing the OR does not, but PostgreSQL starts the index scan
    there only with it: without, it reads the board from the top and filters, which
    costs the depth of the page.)"""
    return board(pool).filter(Q(ordinal__lt=ordinal) | Q(ordinal=ordinal, id__gt=rating_id), ordinal__lte=ordinal)


def before(pool: str, ordinal: float, rating_id: int) -> QuerySet[Rating]:
    """The board above the entry, nearest first (worst first); bounded as :func:`after`."""
    return (Rating.objects.filter(pool=pool, established=True).select_related("player")
            .filter(Q(ordinal__gt=ordinal) | Q(ordinal=ordinal, id__lt=rating_id), ordinal__gte=ordinal)
            .order_by("ordinal", "-id"))


def ranked_count(pool: str) -> int:
    """How many ratings ``pool``'s board ranks (its RankBuckets' sum)."""
    return RankBucket.objects.filter(pool=pool).aggregate(n=Sum("count"))["n"] or 0


@dataclass
class Around:
    me: Rating
    rank: int | None
    entries: list[dict[str, Any]]
    #: the ratings listed below ``me``, best first (the last one: where the board goes on)
    below: list[Rating] = field(default_factory=list)


def around(rating: Rating, span: int) -> Around:
    """``rating``'s entry with up to ``span`` entries above and below it (ranked
    ratings only: a provisional one gets its entry alone)."""
    rank = rank_of(rating)
    if rank is None:
        return Around(rating, None, [rating_entry(rating)])
    above = list(before(rating.pool, rating.ordinal, rating.pk)[:span])
    below = list(after(rating.pool, rating.ordinal, rating.pk)[:span])
    entries = [rating_entry(r, rank - i - 1) for i, r in enumerate(above)][::-1]
    entries.append(rating_entry(rating, rank))
    entries += [rating_entry(r, rank + i + 1) for i, r in enumerate(below)]
    return Around(rating, rank, entries, below)


def rating_of(pool: str, *, player=None, bot_level: str = "") -> Rating | None:
    q = Rating.objects.filter(pool=pool).select_related("player")
    q = q.filter(player=player) if player is not None else q.filter(player__isnull=True, bot_level=bot_level)
    return q.first()


def means_of(player_ids: set[int], pools: set[str]) -> dict[tuple[int, str], float]:
    """(player id, pool) -> the rating's mean, for the players' ratings in ``pools``
    (quick play's pairing by rating)."""
    rows = Rating.objects.filter(player_id__in=player_ids, pool__in=pools).values_list("player_id", "pool", "mu")
    return {(p, pool): mu for p, pool, mu in rows}


def ratings_of(*, player=None, bot_level: str = "") -> list[Rating]:
    """Every rating of a player or a bot level, by pool."""
    q = Rating.objects.select_related("player").order_by("pool")
    return list(q.filter(player=player) if player is not None else q.filter(player__isnull=True, bot_level=bot_level))


def change_entry(change: RatingChange) -> dict[str, Any]:
    return {
        "seat": change.seat,
        "place": change.place + 1,
        "rating_before": round(change.ordinal_before, 2),
        "rating_after": round(change.ordinal_after, 2),
        "change": round(change.ordinal_after - change.ordinal_before, 2),
        "mu_before": round(change.mu_before, 3),
        "sigma_before": round(change.sigma_before, 3),
        "mu_after": round(change.mu_after, 3),
        "sigma_after": round(change.sigma_after, 3),
    }


def changes_of_games(game_ids: list[int]) -> dict[int, dict[int, dict[str, Any]]]:
    """game id -> seat -> its rating change (:func:`change_entry`), for rated finished games."""
    out: dict[int, dict[int, dict[str, Any]]] = {}
    for c in RatingChange.objects.filter(game_id__in=game_ids).order_by("game_id", "seat"):
        out.setdefault(c.game_id, {})[c.seat] = change_entry(c)
    return out


def game_rating_changes(game: Game, seats: list[Seat]) -> list[dict[str, Any]] | None:
    """The game view's ``rating_changes``: each seat's, once a rated game is finished
    and rated (null otherwise: no query for the others)."""
    if not game.rated or game.status != GameStatus.FINISHED:
        return None
    changes = changes_of_games([game.pk]).get(game.pk)
    return None if changes is None else [changes[s] for s in sorted(changes)]
