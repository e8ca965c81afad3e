"""API tokens: issue, revoke, prune (writes; the list is players.selectors.player_tokens).

Keys are made and hashed by django-rest-knox (``get_digest_token``); only the digest and
knox's 15-character lookup prefix are stored (players.models.ApiToken).  A key is known
once, to the call that issues it, which hands it to the client.  Revoking all of a
player's tokens is Player.save's work, when the password changes.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models.functions import Coalesce
from django.utils import timezone
from knox.models import get_digest_token
from knox.settings import CONSTANTS

from config.problems import ApiError
from players.models import ApiToken, Player

#: names of the tokens that the auth endpoints issue (the API's POST auth/tokens names its own)
REGISTER_TOKEN_NAME = "register"
LOGIN_TOKEN_NAME = "login"
#: expires_in_days may be at most this (ten years)
MAX_EXPIRES_IN_DAYS = 3650


def token_expiry(expires_in_days: int | None, now: datetime) -> datetime | None:
    """When a token issued ``now`` expires: after ``expires_in_days``, else after the
    default lifetime (UNO_TOKEN_TTL_DAYS; 0: never)."""
    days = expires_in_days if expires_in_days is not None else settings.UNO_TOKEN_TTL_DAYS
    return now + timedelta(days=days) if days else None


@transaction.atomic
def token_issue(*, player: Player, name: str, expires_in_days: int | None = None) -> ApiToken:
    """A new token for ``player``; its key is on the returned instance (``.key``), this once.

    A player holds at most UNO_TOKENS_PER_PLAYER tokens: past that, issuing one revokes the
    least recently used (expired ones first), so a script that logs in on every run never
    grows the table without bound, and never locks its owner out either."""
    now = timezone.now()
    # One issue at a time per player, so that the cap holds under concurrency.
    Player.objects.select_for_update().filter(pk=player.pk).exists()
    _make_room(player, now)
    digest, key = get_digest_token()
    token = ApiToken(
        user=player,
        name=name,
        digest=digest,
        token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH],
        created=now,
        expiry=token_expiry(expires_in_days, now),
    )
    token.key = key  # before save: what post_save receivers see is the issued key
    token.save()
    return token


def _make_room(player: Player, now: datetime) -> None:
    """Revoke the player's expired tokens, then the least recently used ones until
    one more fits under UNO_TOKENS_PER_PLAYER."""
    tokens = ApiToken.objects.filter(user=player)
    tokens.filter(expiry__lte=now).delete()
    excess = tokens.count() - settings.UNO_TOKENS_PER_PLAYER + 1
    if excess > 0:
        oldest = tokens.order_by(Coalesce("last_used_at", "created").asc(), "id")
        ApiToken.objects.filter(pk__in=list(oldest.values_list("pk", flat=True)[:excess])).delete()


def token_revoke(*, player: Player, token_id: int) -> None:
    """Delete one of ``player``'s tokens: it authenticates nothing from now on.
    Another player's token, or none, is 404 (which of the two is not said)."""
    deleted, _ = ApiToken.objects.filter(user=player, pk=token_id).delete()
    if not deleted:
        raise ApiError(404, "not_found", "You have no token with that id.")


def prune_expired_tokens(now: datetime | None = None) -> int:
    """Delete the tokens whose expiry has passed (beat, hourly): they authenticate nobody."""
    deleted, _ = ApiToken.objects.filter(expiry__lte=now or timezone.now()).delete()
    return deleted
