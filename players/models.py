from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class PlayerManager(UserManager):
    def get_by_natural_key(self, username):
        # Usernames are unique case-insensitively, so log-in is too.
        return self.get(**{f"{self.model.USERNAME_FIELD}__iexact": username})


class Player(AbstractUser):
    """A person or a bot that plays games; authenticates with a DRF token."""

    is_bot = models.BooleanField(default=False, help_text="Played by the server's AI.")

    objects = PlayerManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(Lower("username"), name="players_player_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username


class Webhook(models.Model):
    """Where a player's notifications ("your turn", "game started/finished") are POSTed."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=500)
    #: HMAC-SHA256 key; shown to the player once, when set
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"webhook of {self.player}"
