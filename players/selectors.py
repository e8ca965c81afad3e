"""Read operations on players."""

from collections.abc import Iterable
from importlib import import_module
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from players.models import ApiToken, Block, Player
from players.presence import is_online, presence_window

NO_STATS = {"games_played": 0, "games_won": 0}


def player_stats(player: Player) -> dict[str, int]:
    """{"games_played": int, "games_won": int}, from the games app when it provides them."""
    try:
        games_selectors = import_module("games.selectors")
    except ModuleNotFoundError as exc:
        if exc.name != "games.selectors":
            raise
        return dict(NO_STATS)
    stats_for_player = getattr(games_selectors, "stats_for_player", None)
    if stats_for_player is None:
        return dict(NO_STATS)
    stats = stats_for_player(player)
    return {"games_played": stats["games_played"], "games_won": stats["games_won"]}


def player_profile(player: Player) -> dict[str, Any]:
    return {
        "id": player.id,
        "username": player.username,
        "date_joined": player.date_joined,
        "online": is_online(player.last_seen_at),
        **player_stats(player),
    }


def player_tokens(player: Player) -> QuerySet[ApiToken]:
    """The player's tokens that still authenticate (not expired), newest first."""
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return ApiToken.objects.filter(live, user=player).order_by("-created", "-id")


def live_token_ids(token_ids: set[int]) -> set[int]:
    """Those of ``token_ids`` that still authenticate: not revoked, not expired, their
    player active (``games.live`` ends the streams opened with the others)."""
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return set(ApiToken.objects.filter(live, pk__in=token_ids, user__is_active=True).values_list("pk", flat=True))


def blocked_between(a: int, b: int) -> bool:
    """Whether either of players ``a`` and ``b`` blocked the other."""
    return Block.objects.filter(Q(blocker_id=a, blocked_id=b) | Q(blocker_id=b, blocked_id=a)).exists()


def blocks_among(blockers: Iterable[int], authors: Iterable[int]) -> set[tuple[int, int]]:
    """The pairs (viewer, author) of ``blockers`` and ``authors`` between whom a block
    stands, either way (one query): a viewer is not shown the table talk of a player
    they blocked or who blocked them (the live hub's chat notices)."""
    blockers, authors = set(blockers), set(authors)
    if not blockers or not authors:
        return set()
    rows = Block.objects.filter(
        Q(blocker_id__in=blockers, blocked_id__in=authors) | Q(blocker_id__in=authors, blocked_id__in=blockers)
    ).values_list("blocker_id", "blocked_id")
    pairs = set()
    for blocker, blocked in rows:
        if blocker in blockers and blocked in authors:
            pairs.add((blocker, blocked))
        if blocked in blockers and blocker in authors:
            pairs.add((blocked, blocker))
    return pairs


def blocked_either_way(player_id: int) -> set[int]:
    """The ids of the players ``player_id`` blocked or who blocked ``player_id``."""
    rows = Block.objects.filter(Q(blocker_id=player_id) | Q(blocked_id=player_id)).values_list("blocker_id", "blocked_id")
    return {b if a == player_id else a for a, b in rows}


def online_ids(player_ids: Iterable[int]) -> set[int]:
    """Those of ``player_ids`` who are online (players.presence): seen in the last
    UNO_PRESENCE_SECONDS (one query; quick play's real-time tables)."""
    ids = set(player_ids)
    if not ids:
        return set()
    since = timezone.now() - presence_window()
    return set(Player.objects.filter(pk__in=ids, last_seen_at__gt=since).values_list("pk", flat=True))


def blocked_by(player_id: int) -> set[int]:
    """The ids of the players ``player_id`` blocked."""
    return set(Block.objects.filter(blocker_id=player_id).values_list("blocked_id", flat=True))


def blocks_of(player_id: int) -> QuerySet[Block]:
    """The players ``player_id`` blocked, newest first."""
    return Block.objects.filter(blocker_id=player_id).select_related("blocked").order_by("-created_at", "-id")
