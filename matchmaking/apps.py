"""Quick play: a matchmaker that seats compatible requests at one table."""
from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"

    def ready(self) -> None:
        from matchmaking.services import EXPIRED_EVENT, MATCHED_EVENT
        from notices import kinds

        kinds.register(
            MATCHED_EVENT, stream="feed", schema="FeedQuickPlayMatched",
            description="the caller's quick-play request was matched: the game has started (its `game_started` "
            "follows on the feed).",
            properties={"quickplay": {"type": "integer", "description": "The request (`GET /quickplay/{id}`)."},
                        "game": {"type": "integer", "description": "The started game (`GET /games/{id}`)."}},
        )
        kinds.register(
            EXPIRED_EVENT, stream="feed", schema="FeedQuickPlayExpired",
            description="the caller's quick-play request waited past its `expires_at` without a table, and expired.",
            properties={"quickplay": {"type": "integer", "description": "The request (`GET /quickplay/{id}`)."}},
        )
