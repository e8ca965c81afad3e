"""Write operations on players (HackSoft style: views stay thin)."""

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from config.problems import ApiError
from players import lockout
from players.models import ApiToken, Block, Player, Webhook, username_key
from players.tokens import LOGIN_TOKEN_NAME, REGISTER_TOKEN_NAME, token_issue
from players.usernames import username_skeleton

USERNAME_TAKEN = "A player with that username already exists."
USERNAME_CONFUSABLE = "A player with a username that looks the same already exists."


def username_conflict(username: str) -> str | None:
    """Why ``username`` (NFKC-normalized) cannot be a new player's: taken (the same name
    ignoring case and Unicode forms), confusable (it looks the same as one: UTS #39
    skeleton), or None.  One query over the two unique columns."""
    key, skeleton = username_key(username), username_skeleton(username)
    found = set(
        Player.objects.filter(Q(username_key=key) | Q(username_skeleton=skeleton))
        .values_list("username_key", flat=True)[:2]
    )
    if not found:
        return None
    return USERNAME_TAKEN if key in found else USERNAME_CONFUSABLE


@transaction.atomic
def player_register(*, username: str, password: str) -> tuple[Player, ApiToken]:
    """Create a player and their first API token (named "register"; its key in ``.key``);
    ValidationError per field otherwise.

    The name is stored NFKC-normalized, and must be free under username_key and
    username_skeleton (the database's unique constraints on them settle a race between
    two registrations)."""
    player = Player(username=Player.normalize_username(username))
    errors: dict[str, list[str]] = {}
    try:  # normalizing can lengthen a valid name, or make it invalid
        Player._meta.get_field("username").clean(player.username, player)
    except ValidationError as exc:
        errors["username"] = exc.messages
    if not errors and (conflict := username_conflict(player.username)):
        errors["username"] = [conflict]
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
    except IntegrityError as exc:  # lost a race for the same (or a confusable) username
        raise ValidationError({"username": [username_conflict(player.username) or USERNAME_TAKEN]}) from exc
    return player, token_issue(player=player, name=REGISTER_TOKEN_NAME)


def token_obtain(*, username: str, password: str, request=None) -> ApiToken:
    """A new API token (named "login"; its key in ``.key``) for the player with these
    credentials.  Keys are stored hashed, so an earlier one cannot be handed out again;
    the earlier ones keep working until revoked.

    The attempt is first counted against the account (players.lockout): over its limit,
    AccountLocked (429) before the password is checked."""
    if request is not None:
        lockout.charge(request, lockout.account_ref(username))
    player = authenticate(request, username=username, password=password)
    if player is None:
        raise ApiError(
            400,
            "invalid_credentials",
            "Unable to log in with the provided username and password.",
        )
    return token_issue(player=player, name=LOGIN_TOKEN_NAME)


def password_change(
    *, player: Player, old_password: str, new_password: str, token_name: str, request=None
) -> ApiToken:
    """Set a new password: every token of the player is revoked (Player.save), and a fresh
    one named ``token_name`` (the caller's) is issued, so the caller carries on with it.
    ValidationError on ``old_password`` or ``new_password`` otherwise.

    Checking ``old_password`` is a guess at the account's password like a log-in: it is
    counted in the same buckets first (players.lockout), AccountLocked (429) over them;
    outside the change's transaction, so that a refused guess stays counted."""
    if request is not None:
        lockout.charge(request, lockout.account_ref(player.username))
    return _password_change(player=player, old_password=old_password, new_password=new_password,
                            token_name=token_name)


@transaction.atomic
def _password_change(*, player: Player, old_password: str, new_password: str, token_name: str) -> ApiToken:
    if not player.check_password(old_password):
        raise ValidationError({"old_password": ["The password is not the player's."]})
    try:
        validate_password(new_password, user=player)
    except ValidationError as exc:
        raise ValidationError({"new_password": exc.messages}) from None
    player.set_password(new_password)
    player.save(update_fields=["password"])
    return token_issue(player=player, name=token_name)


def webhook_set(*, player: Player, url: str) -> Webhook:
    """Register (or replace) the player's webhook with a fresh secret.  The URL must
    lead to public addresses only (players/outbound.py; checked again at each
    delivery, as the name may resolve elsewhere by then): ValidationError otherwise."""
    import secrets

    from players import outbound

    try:
        outbound.check(url, allow_private=outbound.private_targets_allowed())
    except (outbound.Refused, outbound.Unresolvable) as exc:
        raise ValidationError({"url": [f"The URL {exc.reason}."]}) from None
    hook, _ = Webhook.objects.update_or_create(
        player=player, defaults={"url": url, "secret": secrets.token_hex(32)}
    )
    return hook


def webhook_delete(*, player: Player) -> bool:

    deleted, _ = Webhook.objects.filter(player=player).delete()
    return bool(deleted)


# --- Blocks (table talk and challenges: players.selectors.blocked_between) -----

#: the most players one player may block
MAX_BLOCKS = 1000


def _player_named(username: str) -> Player:
    """The player of ``username`` (exactly, else the same ignoring case and Unicode
    forms), else 404 ``not_found``."""
    if not username or len(username) > 150 or "\x00" in username:  # (no name can be: never asked)
        raise ApiError(404, "not_found", "no such player")
    try:
        return Player.objects.get_by_natural_key(username)
    except Player.DoesNotExist:
        raise ApiError(404, "not_found", f"no player {username!r}") from None


def block_player(*, blocker: Player, username: str) -> tuple[Block, bool]:
    """``blocker`` blocks the player ``username``: neither is shown the other's table
    talk, and the blocked cannot challenge the blocker.  (block, created): blocking again
    changes nothing."""
    blocked = _player_named(username)
    if blocked.pk == blocker.pk:
        raise ApiError(400, "invalid", "a player cannot block themselves", fields={"username": ["the caller"]})
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=blocker.pk).first()  # one block list at a time per player
        existing = Block.objects.filter(blocker=blocker, blocked=blocked).first()
        if existing is not None:
            return existing, False
        if Block.objects.filter(blocker=blocker).count() >= MAX_BLOCKS:
            raise ApiError(409, "too_many_blocks", f"a player may block at most {MAX_BLOCKS} players",
                           limit=MAX_BLOCKS)
        return Block.objects.create(blocker=blocker, blocked=blocked), True


def unblock_player(*, blocker: Player, username: str) -> None:
    """``blocker`` no longer blocks ``username`` (404 ``not_found`` if they did not)."""
    blocked = _player_named(username)
    with transaction.atomic():
        deleted, _ = Block.objects.filter(blocker=blocker, blocked=blocked).delete()
    if not deleted:
        raise ApiError(404, "not_found", f"the caller does not block {username!r}")
