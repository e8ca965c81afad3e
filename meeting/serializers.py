"""Request validation and the documented shapes of the meeting layer's answers."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import BotSpecSerializer, CreateGameSerializer
from meeting.models import Answer, ChallengePolicy, ChallengeStatus, DeclineReason, RematchStatus
from players.serializers import StrictBooleanField, StrictCharField

REASONS_HELP = "; ".join(f"`{r.value}`: {r.label}" for r in DeclineReason)


class CreateChallengeSerializer(CreateGameSerializer):
    to = serializers.ListField(
        child=StrictCharField(max_length=150), required=False, default=list, max_length=9,
        help_text="The usernames of the players challenged (1 to 9): their table is the challenger (seat 0), them in "
        "this order, then the bots, so `max_players` is that count (absent, or equal to it). Empty or absent: an "
        "open challenge, answered with its `url`, whose free seats (`max_players` minus the challenger and the bots; "
        "default `max_players`: 2 + the bots) whoever holds the URL may take.",
    )
    rated = StrictBooleanField(required=False, default=False, help_text="Whether the game is rated.")
    #: (POST /games' option: a challenge's game starts once accepted, always)
    start_when_full = None


class ChallengeAnswerSerializer(serializers.Serializer):
    username = serializers.CharField()
    answer = serializers.ChoiceField(choices=Answer.values)


class DeclinedSerializer(serializers.Serializer):
    by = serializers.CharField(allow_null=True)
    reason = serializers.ChoiceField(choices=DeclineReason.values, help_text=REASONS_HELP)


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=ChallengeStatus.values,
        help_text="`pending` (waiting for answers), `accepted` (every named player accepted, or every open seat was "
        "taken: `game` started), `declined` (see `declined`), `cancelled` (by the challenger), `expired` (past "
        "`expires_at` unanswered).",
    )
    direction = serializers.ChoiceField(choices=["incoming", "outgoing"],
                                        help_text="`outgoing`: the caller sent it; `incoming`: the caller is named "
                                        "in it or took a seat by its link.")
    challenger = serializers.CharField()
    open = serializers.BooleanField(help_text="An open challenge (nobody named): seats taken by its `url`.")
    to = ChallengeAnswerSerializer(many=True, help_text="The named players and their answers.")
    joined = serializers.ListField(child=serializers.CharField(),
                                   help_text="An open challenge: who took its seats, in order.")
    ruleset = serializers.CharField()
    options = serializers.DictField()
    max_players = serializers.IntegerField()
    bots = BotSpecSerializer(many=True)
    turn_seconds = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="A pending challenge unanswered by then expires.")
    game = serializers.IntegerField(allow_null=True, help_text="The game it started, once `accepted`.")
    url = serializers.URLField(
        allow_null=True, help_text="An open challenge's link (an unguessable token): `GET` it to see the challenge, "
        "`POST` its `/accept` to take a seat. Null for a challenge to named players.")
    declined = DeclinedSerializer(allow_null=True, help_text="Who declined and why, once `declined`.")


class ChallengeListSerializer(serializers.Serializer):
    results = ChallengeSerializer(many=True)


class DeclineSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=DeclineReason.values, required=False, default=DeclineReason.GENERIC,
                                     help_text=f"Why (default `generic`), shown to the challenger: {REASONS_HELP}.")


class PreferencesSerializer(serializers.Serializer):
    challenges = serializers.ChoiceField(
        choices=ChallengePolicy.values, required=False,
        help_text="Who may challenge the player by name: `everyone` (default; never a player they blocked) or "
        "`nobody`. Others get 403 `not_accepting_challenges`.")


class RematchSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=RematchStatus.values,
        help_text="`offered` (waiting for the other humans), `started` (`game`), `declined`, `expired`.")
    offered_by = serializers.CharField()
    accepted = serializers.ListField(child=serializers.CharField(),
                                     help_text="The humans who accepted (the one who offered first); bots accept "
                                     "at once and are not listed.")
    declined_by = serializers.CharField(allow_null=True)
    game = serializers.IntegerField(allow_null=True, help_text="The new game, once started.")
    expires_at = serializers.DateTimeField()


def rematch_schema_field():
    """The ``rematch`` member of a game's view (``games.selectors.register_view_field``)."""
    return RematchSerializer(
        allow_null=True,
        help_text="A finished game's rematch offer (`POST /games/{id}/rematch`), null when none: who offered and "
        "accepted, and the new `game` once it started (spectators follow it there). Null while the game runs.")
