from django.contrib import admin

from meeting.models import Challenge, Participant, Preferences, Rematch


class ParticipantInline(admin.TabularInline):
    model = Participant
    extra = 0
    raw_id_fields = ("player",)
    readonly_fields = ("answered_at",)


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("id", "challenger", "status", "ruleset", "max_players", "rated", "created_at", "expires_at", "game")
    list_filter = ("status", "rated", "ruleset")
    search_fields = ("challenger__username", "participants__player__username")
    raw_id_fields = ("challenger", "declined_by", "game")
    readonly_fields = ("token", "created_at", "updated_at")
    inlines = [ParticipantInline]


@admin.register(Rematch)
class RematchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "offered_by", "status", "new_game", "expires_at")
    list_filter = ("status",)
    raw_id_fields = ("game", "offered_by", "declined_by", "new_game")


@admin.register(Preferences)
class PreferencesAdmin(admin.ModelAdmin):
    list_display = ("player", "challenges")
    list_filter = ("challenges",)
    search_fields = ("player__username",)
    raw_id_fields = ("player",)
