from django.contrib import admin

from notices.models import Notice


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "audience", "player", "game_id", "created_at")
    list_filter = ("kind", "audience")
    search_fields = ("player__username",)
    readonly_fields = ("audience", "player", "game_id", "kind", "data", "created_at")
