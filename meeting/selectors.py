"""Reading challenges and rematch offers."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from config.problems import ApiError
from games.models import Game, GameStatus, Seat
from meeting.models import ChallengePolicy, ChallengeStatus, Preferences, Rematch, RematchStatus, Challenge

#: challenges listed at most (the newest)
LIST_LIMIT = 100


def status_of(challenge: Challenge) -> str:
    """Its status as of now: a pending challenge past its time is expired (the sweeper
    writes it within moments)."""
    if challenge.status == ChallengeStatus.PENDING and challenge.expires_at <= timezone.now():
        return ChallengeStatus.EXPIRED
    return challenge.status


def challenges_of(player, *, direction: str | None = None, status: str | None = None) -> list[Challenge]:
    """The challenges ``player`` sent (outgoing) or is a party to (incoming: named in, or
    a seat taken by the link), newest first."""
    mine = Q(challenger=player)
    theirs = Q(participants__player=player)
    where = {"incoming": theirs, "outgoing": mine}.get(direction, mine | theirs)
    qs: QuerySet[Challenge] = Challenge.objects.filter(where)
    now = timezone.now()
    if status == ChallengeStatus.EXPIRED:
        qs = qs.filter(Q(status=status) | Q(status=ChallengeStatus.PENDING, expires_at__lte=now))
    elif status == ChallengeStatus.PENDING:
        qs = qs.filter(status=status, expires_at__gt=now)
    elif status is not None:
        qs = qs.filter(status=status)
    ids = list(qs.order_by("-id").values_list("id", flat=True).distinct()[:LIST_LIMIT])
    return list(Challenge.objects.filter(pk__in=ids).select_related("challenger", "declined_by")
                .prefetch_related("participants__player").order_by("-id"))


def challenge_for(player, challenge_id: int) -> Challenge:
    """A challenge its parties may read; 404 for anyone else."""
    challenge = (Challenge.objects.select_related("challenger", "declined_by").prefetch_related("participants__player")
                 .filter(pk=challenge_id).first())
    if challenge is None or not (challenge.challenger_id == player.pk
                                 or any(p.player_id == player.pk for p in challenge.participants.all())):
        raise ApiError(404, "not_found", "no such challenge")
    return challenge


def open_challenge(token: str) -> Challenge:
    challenge = (Challenge.objects.select_related("challenger", "declined_by").prefetch_related("participants__player")
                 .filter(token=token).first()) if token else None
    if challenge is None:
        raise ApiError(404, "not_found", "no such challenge")
    return challenge


def challenge_view(challenge: Challenge, viewer, request) -> dict[str, Any]:
    participants = list(challenge.participants.all())
    url = None
    if challenge.is_open:
        url = request.build_absolute_uri(reverse("meeting:challenge-open", kwargs={"token": challenge.token}))
    return {
        "id": challenge.pk,
        "status": status_of(challenge),
        "direction": "outgoing" if challenge.challenger_id == viewer.pk else "incoming",
        "challenger": challenge.challenger.username,
        "open": challenge.is_open,
        "to": [{"username": p.player.username, "answer": p.answer} for p in participants if p.named],
        "joined": [p.player.username for p in participants if not p.named],
        "ruleset": challenge.ruleset,
        "options": challenge.options,
        "max_players": challenge.max_players,
        "bots": [{"level": level} for level in challenge.bots],
        "turn_seconds": challenge.turn_seconds,
        "rated": challenge.rated,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "game": challenge.game_id,
        "url": url,
        "declined": ({"by": challenge.declined_by.username if challenge.declined_by else None,
                      "reason": challenge.decline_reason} if challenge.status == ChallengeStatus.DECLINED else None),
    }


def preferences_of(player) -> dict[str, Any]:
    prefs = Preferences.objects.filter(player=player).first()
    return {"challenges": prefs.challenges if prefs else ChallengePolicy.EVERYONE}


# --------------------------------------------------------------------------------------
# Rematch
# --------------------------------------------------------------------------------------
def rematch_view(offer: Rematch) -> dict[str, Any]:
    """A rematch offer as a game's view and its ``rematch`` events show it."""
    from players.models import Player

    names = dict(Player.objects.filter(pk__in=[*offer.accepted, offer.offered_by_id]).values_list("pk", "username"))
    status = offer.status
    if status == RematchStatus.OFFERED and offer.expires_at <= timezone.now():
        status = RematchStatus.EXPIRED
    return {
        "status": status,
        "offered_by": names.get(offer.offered_by_id),
        "accepted": [names[p] for p in offer.accepted if p in names],
        "declined_by": offer.declined_by.username if offer.declined_by_id else None,
        "game": offer.new_game_id,
        "expires_at": offer.expires_at.isoformat(),
    }


def rematch_of(game: Game, seats: list[Seat]) -> dict[str, Any] | None:
    """A game view's ``rematch`` (``games.selectors.register_view_field``): null unless
    the game is finished (no query) and a rematch was offered."""
    if game.status != GameStatus.FINISHED:
        return None
    offer = Rematch.objects.select_related("declined_by").filter(game_id=game.pk).first()
    return None if offer is None else rematch_view(offer)
