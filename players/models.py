import unicodedata

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models

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
    """A person or a bot that plays games; authenticates with a DRF token."""

    is_bot = models.BooleanField(default=False, help_text="Played by the server's AI.")
    # No length limit: NFKC may lengthen a name registered before it was normalized.
    username_key = models.TextField(
        editable=False, help_text="username_key(username), kept by save(): unique."
    )

    objects = PlayerManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(fields=["username_key"], name="players_player_username_key_unique"),
        ]

    def __str__(self) -> str:
        return self.username

    def save(self, *args, **kwargs) -> None:
        key = username_key(self.username)
        if self.username_key != f"{key}{LEGACY_KEY_SEPARATOR}{self.pk}":  # else: legacy, kept
            self.username_key = key
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_key"}
        super().save(*args, **kwargs)


class Webhook(models.Model):
    """Where a player's notifications ("your turn", "game started/finished") are POSTed."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=500)
    #: HMAC-SHA256 key; shown to the player once, when set
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"webhook of {self.player}"


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
