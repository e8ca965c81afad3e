"""Admin: games, seats and the move log; the state and the log are read-only."""

from django.contrib import admin

from games.models import Game, Move, Round, Score, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "player", "bot_level", "timeouts", "autopilot", "left")
    readonly_fields = ("seat", "player", "bot_level", "left")
    can_delete = False


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ("number", "dealer", "winner_seat", "started_at", "ended_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "ruleset", "status", "version", "round", "current_seat", "deadline", "creator", "created_at")
    list_filter = ("status", "ruleset")
    search_fields = ("id", "creator__username")
    inlines = [SeatInline, RoundInline]
    readonly_fields = (
        "creator", "ruleset", "options", "resolved_options", "max_players", "seed", "state", "version",
        "round", "current_seat", "winner_seat", "created_at", "updated_at", "started_at", "finished_at",
    )
    fields = ("status", "turn_seconds", "deadline", *readonly_fields)


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "round", "seat", "by", "action", "created_at")
    list_filter = ("by",)
    search_fields = ("game__id",)
    readonly_fields = ("game", "seq", "round", "seat", "action", "events", "by", "player", "created_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("round", "seat", "points", "hand_points")
    readonly_fields = ("round", "seat", "points", "hand_points")
