"""Write operations on players (HackSoft style: views stay thin)."""

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from config.problems import ApiError
from players.models import Player

USERNAME_TAKEN = "A player with that username already exists."


@transaction.atomic
def player_register(*, username: str, password: str) -> tuple[Player, Token]:
    """Create a player and their API token; ValidationError per field otherwise."""
    player = Player(username=username)
    errors: dict[str, list[str]] = {}
    if Player.objects.filter(username__iexact=username).exists():
        errors["username"] = [USERNAME_TAKEN]
    try:
        validate_password(password, user=player)
    except ValidationError as exc:
        errors["password"] = exc.messages
    if errors:
        raise ValidationError(errors)

    player.set_password(password)
    try:
        with transaction.atomic():
            player.save()
    except IntegrityError as exc:  # lost a race for the same username
        raise ValidationError({"username": [USERNAME_TAKEN]}) from exc
    token = Token.objects.create(user=player)
    return player, token


def token_obtain(*, username: str, password: str, request=None) -> Token:
    """The API token of the player with these credentials (created on first use)."""
    player = authenticate(request, username=username, password=password)
    if player is None:
        raise ApiError(
            400,
            "invalid_credentials",
            "Unable to log in with the provided username and password.",
        )
    token, _ = Token.objects.get_or_create(user=player)
    return token


def webhook_set(*, player: Player, url: str) -> "Webhook":
    """Register (or replace) the player's webhook with a fresh secret."""
    import secrets

    from players.models import Webhook

    hook, _ = Webhook.objects.update_or_create(
        player=player, defaults={"url": url, "secret": secrets.token_hex(32)}
    )
    return hook


def webhook_delete(*, player: Player) -> bool:
    from players.models import Webhook

    deleted, _ = Webhook.objects.filter(player=player).delete()
    return bool(deleted)
