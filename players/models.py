import unicodedata
from datetime import timedelta

from django.contrib.auth.models import AbstractUser, UserManager
from django.db.models.signals import pre_save
from django.dispatch import receiver
from django.db import models, transaction
from django.utils import timezone
from knox.models import AbstractAuthToken
from knox.settings import CONSTANTS

from players.usernames import UsernameValidator, username_skeleton

# Players whose names already collided under username_key when migration 0004 added it
# keep their names: the later ones got the key "<key>#<id>" (see Player.save).
LEGACY_KEY_SEPARATOR = "#"


def username_key(username: str) -> str:
    """The form in which usernames are unique and found at log-in: NFKC, case-folded and
    NFKC again (folding can un-normalize), computed here so that every database agrees
    (SQLite's lower() is ASCII-only): "zoë", "ZOË" and fullwidth "ＺＯË" are one name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


class PlayerManager(UserManager):
    def get_by_natural_key(self, username):
        """Log-in: the player of exactly this name, else the one whose name has the same
        username_key (the exact match first keeps legacy colliding names reachable)."""
        try:
            return self.get(username=username)
        except self.model.DoesNotExist:
            return self.get(username_key=username_key(username))


class Player(AbstractUser):
    """A person or a bot that plays games; authenticates with API tokens (ApiToken)."""

    username_validator = UsernameValidator()
    # AbstractUser's field, with our validator: Django's characters, and no invisible one.
    username = models.CharField(
        "username",
        max_length=150,
        unique=True,
        help_text="Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only; "
        "no invisible characters.",
        validators=[username_validator],
        error_messages={"unique": "A user with that username already exists."},
    )
    is_bot = models.BooleanField(default=False, help_text="Played by the server's AI.")
    # No length limit: NFKC may lengthen a name registered before it was normalized.
    username_key = models.TextField(
        editable=False, help_text="username_key(username), kept by save(): unique."
    )
    # Names that look the same (UTS #39 confusables, ignoring case) are one name.
    username_skeleton = models.TextField(
        editable=False, help_text="username_skeleton(username), kept by save(): unique."
    )

    #: when the player was last seen: a request, or an open stream (players.presence)
    last_seen_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: the player has a channel that reaches them away (a verified email address or a push
    #: subscription, with some kind of notification on): kept by ``reach``, read with a
    #: game's seats so that a move of a game none of whose players has one writes nothing
    reachable = models.BooleanField(default=False)
    #: the end of the player's away period (``games.away``): their correspondence clocks
    #: stand still until then; null, or a time past, when not away.  Read with a game's
    #: seats (a move starts an away player's new decision's clock at this time)
    away_until = models.DateTimeField(null=True, blank=True)

    objects = PlayerManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(fields=["username_key"], name="players_player_username_key_unique"),
            models.UniqueConstraint(fields=["username_skeleton"], name="players_player_username_skeleton_unique"),
        ]

    def __str__(self) -> str:
        return self.username

    def save(self, *args, **kwargs) -> None:
        """Also: a new password (set_password, whoever calls it: the API, the admin,
        `changepassword`) revokes every API token of the player, in the same transaction.
        Django clears ``_password`` for a mere hash upgrade at log-in, which revokes nothing."""
        key = username_key(self.username)
        if self.username_key != f"{key}{LEGACY_KEY_SEPARATOR}{self.pk}":  # else: legacy, kept
            self.username_key = key
        skeleton = username_skeleton(self.username)
        if self.username_skeleton != f"{skeleton}{LEGACY_KEY_SEPARATOR}{self.pk}":  # else: legacy (0007)
            self.username_skeleton = skeleton
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_key", "username_skeleton"}
        if self._password is None or self._state.adding:
            super().save(*args, **kwargs)
            return
        with transaction.atomic():
            super().save(*args, **kwargs)
            self.auth_token_set.all().delete()


class ApiToken(AbstractAuthToken):
    """An API token, sent as ``Authorization: Token <key>`` (django-rest-knox's model, as
    KNOX_TOKEN_MODEL; players/authentication.py checks it).  The database holds the key's
    SHA-512 ``digest`` and its first 15 characters (``token_key``, knox's lookup prefix, also
    shown to the owner to tell keys apart), never the key: a copy of the table lets no one in.

    Our own ``id`` replaces knox's primary key (the digest), so the API names a token by a
    number that says nothing of its key."""

    #: last_used_at is written at most this often per token (not on every request)
    LAST_USED_RESOLUTION = timedelta(minutes=1)

    id = models.BigAutoField(primary_key=True)
    digest = models.CharField(max_length=CONSTANTS.DIGEST_LENGTH, unique=True)
    # knox's is auto_now_add: a default lets the copy of the legacy tokens keep their dates.
    created = models.DateTimeField(default=timezone.now, editable=False)
    name = models.CharField(max_length=50, help_text='What the token is for, e.g. "phone" or "bot".')
    last_used_at = models.DateTimeField(
        null=True, blank=True, help_text="When it last authenticated a request (to the minute)."
    )

    #: the key, on the instance that issued it only (players.tokens.token_issue): never saved
    key: str | None = None

    class Meta:
        verbose_name = "API token"
        indexes = [models.Index(fields=["expiry"], name="players_apitoken_expiry")]

    def __str__(self) -> str:
        return f"{self.name} ({self.token_key}…) of {self.user_id}"

    def expired(self, now=None) -> bool:
        return self.expiry is not None and self.expiry <= (now or timezone.now())

    def mark_used(self, now=None) -> None:
        """Record that the token was just used, at most once per LAST_USED_RESOLUTION: a
        fresh enough ``last_used_at`` writes nothing, and of concurrent requests that find
        it stale, one conditional UPDATE matches the row."""
        now = now or timezone.now()
        if self.last_used_at is not None and now - self.last_used_at < self.LAST_USED_RESOLUTION:
            return
        stale = type(self).objects.filter(pk=self.pk).exclude(last_used_at__gt=now - self.LAST_USED_RESOLUTION)
        stale.update(last_used_at=now)
        self.last_used_at = now


class Webhook(models.Model):
    """Where a player's notifications ("your turn", "game started/finished") are POSTed."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=500)
    #: HMAC-SHA256 key; shown to the player once, when set
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"webhook of {self.player}"


class Block(models.Model):
    """``blocker`` blocked ``blocked``: neither sees the other's table talk, and the
    blocked cannot challenge the blocker (players.selectors.blocked_between)."""

    blocker = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="players_block_once"),
            models.CheckConstraint(condition=~models.Q(blocker=models.F("blocked")), name="players_block_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class AwayPeriod(models.Model):
    """A stretch of time a player is (or was, or will be until ``ends_at``) away
    (``games.away``): what the monthly maximum, ``UNO_AWAY_DAYS_PER_MONTH``, counts.  The
    current one ends at ``Player.away_until``; ending it early moves ``ends_at`` back."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="away_periods", db_index=False)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    class Meta:
        indexes = [
            # a player's periods that touch a month (the monthly count)
            models.Index(fields=["player", "ends_at"], name="players_away_player_ends"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(ends_at__gte=models.F("starts_at")),
                                   name="players_away_ends_after_start"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} away {self.starts_at:%Y-%m-%d %H:%M} to {self.ends_at:%Y-%m-%d %H:%M}"


class RateCounter(models.Model):
    """One fixed-window request counter of the rate limiter (players.throttling), shared
    by every web process and node through the database when Redis is not configured.

    The window is stored by its end: that is the ``RateLimit-Reset`` the client is told,
    and what the hourly prune compares with the clock (whatever the rate's period)."""

    key = models.CharField(max_length=200, unique=True, help_text="Scope and client, e.g. `anon:192.0.2.1`.")
    resets_at = models.BigIntegerField(db_index=True, help_text="End of the current window, in Unix seconds.")
    count = models.IntegerField(default=0, help_text="Requests counted in the current window.")

    def __str__(self) -> str:
        return f"{self.key}: {self.count} until {self.resets_at}"


@receiver(pre_save, sender=Player)
def _skeleton_of_loaded_rows(sender, instance: Player, raw: bool = False, **kwargs) -> None:
    """A row loaded as it is (``loaddata``: ``save()`` does not run) gets the skeleton
    that ``save()`` would have given it, when it comes without one (a fixture dumped
    before migration 0007)."""
    if raw and not instance.username_skeleton:
        instance.username_skeleton = username_skeleton(instance.username)
