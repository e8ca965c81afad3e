from django.contrib import admin

from matchmaking.models import QuickPlayRequest


@admin.register(QuickPlayRequest)
class QuickPlayRequestAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "status", "rulesets", "seats", "speeds", "rated", "created_at", "game_id")
    list_filter = ("status", "rated")
    search_fields = ("player__username",)
    readonly_fields = [f.name for f in QuickPlayRequest._meta.fields]
