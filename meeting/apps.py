from django.apps import AppConfig

CHALLENGE = {"challenge": {"type": "integer", "description": "The challenge's id (`GET /challenges/{id}`)."}}
USERNAME = {"type": "string"}


class MeetingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "meeting"

    def ready(self) -> None:
        from games.selectors import register_view_field
        from meeting.models import DeclineReason, RematchStatus
        from meeting.selectors import rematch_of
        from meeting.serializers import rematch_schema_field
        from notices import kinds

        register_view_field("rematch", rematch_of, rematch_schema_field)
        kinds.register("challenge", stream="feed", schema="FeedChallenge",
                       description="someone challenged the caller by name (also POSTed to the caller's webhook).",
                       properties={**CHALLENGE, "from": USERNAME, "to": {"type": "array", "items": USERNAME},
                                   "ruleset": {"type": "string"}, "max_players": {"type": "integer"},
                                   "rated": {"type": "boolean"}, "turn_seconds": {"type": "integer", "nullable": True},
                                   "expires_at": {"type": "string", "format": "date-time"}})
        kinds.register("challenge_accepted", stream="feed", schema="FeedChallengeAccepted",
                       description="a player accepted a challenge the caller sent or is in (or took a seat of an "
                       "open one); `game` once it started.",
                       properties={**CHALLENGE, "by": USERNAME, "game": {"type": "integer", "nullable": True},
                                   "status": {"type": "string", "enum": ["pending", "accepted"]}})
        kinds.register("challenge_declined", stream="feed", schema="FeedChallengeDeclined",
                       description="a named player declined a challenge the caller sent or is in: it ended.",
                       properties={**CHALLENGE, "by": USERNAME,
                                   "reason": {"type": "string", "enum": list(DeclineReason.values)}})
        kinds.register("challenge_cancelled", stream="feed", schema="FeedChallengeCancelled",
                       description="the challenger cancelled a challenge the caller is in.",
                       properties={**CHALLENGE, "by": USERNAME})
        kinds.register("challenge_expired", stream="feed", schema="FeedChallengeExpired",
                       description="a challenge the caller sent or is in expired unanswered.", properties=CHALLENGE)
        kinds.register("rematch_offer", stream="feed", schema="FeedRematchOffer",
                       description="another player of a finished game offered a rematch (`POST "
                       "/games/{game}/rematch` accepts it).",
                       properties={"game": {"type": "integer", "description": "The finished game."}, "by": USERNAME,
                                   "expires_at": {"type": "string", "format": "date-time"}})
        kinds.register("rematch", stream="game", schema="RematchEvent",
                       description="the finished game's rematch changed (offered, accepted, declined, expired, or "
                       "started: `game`, the new game); the same as the view's `rematch`.",
                       properties={"status": {"type": "string", "enum": list(RematchStatus.values)},
                                   "offered_by": USERNAME, "accepted": {"type": "array", "items": USERNAME},
                                   "declined_by": {"type": "string", "nullable": True}, "game": {"type": "integer", "nullable": True},
                                   "expires_at": {"type": "string", "format": "date-time"}})
