"""The staff's side of table talk: reports to read, messages to hide, players to mute."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import admin, messages
from django.utils import timezone

from chat import services
from chat.models import Message, Mute, Report


def _mute_authors(modeladmin, request, author_ids, days: int) -> None:
    until = timezone.now() + timedelta(days=days)
    for author_id in sorted(set(author_ids)):
        services.mute(author_id, until, reason=f"muted from the admin by {request.user}")
    modeladmin.message_user(request, f"{len(set(author_ids))} player(s) muted until {until:%Y-%m-%d %H:%M} UTC.",
                            messages.SUCCESS)


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "game_id", "room", "author", "text", "created_at", "hidden_at")
    list_filter = ("room", ("hidden_at", admin.EmptyFieldListFilter))
    search_fields = ("author__username", "text")
    readonly_fields = ("game", "room", "author", "seat", "text", "created_at", "hidden_at")
    actions = ["hide", "mute_authors_day", "mute_authors_week"]

    @admin.action(description="Hide the selected messages")
    def hide(self, request, queryset):
        count = services.hide_messages(queryset.values_list("pk", flat=True))
        self.message_user(request, f"{count} message(s) hidden.", messages.SUCCESS)

    @admin.action(description="Mute the authors of the selected messages for a day")
    def mute_authors_day(self, request, queryset):
        _mute_authors(self, request, queryset.values_list("author_id", flat=True), 1)

    @admin.action(description="Mute the authors of the selected messages for a week")
    def mute_authors_week(self, request, queryset):
        _mute_authors(self, request, queryset.values_list("author_id", flat=True), 7)

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("id", "reason", "message_text", "message_author", "reporter", "created_at", "resolved")
    list_filter = ("resolved", "reason")
    search_fields = ("message__text", "message__author__username", "reporter__username")
    readonly_fields = ("message", "reporter", "reason", "comment", "created_at")
    list_select_related = ("message", "message__author", "reporter")
    actions = ["hide_messages", "mute_authors_day", "mute_authors_week", "resolve"]

    @admin.display(description="message")
    def message_text(self, report: Report) -> str:
        return report.message.text

    @admin.display(description="author")
    def message_author(self, report: Report) -> str:
        return report.message.author.username

    @admin.action(description="Hide the reported messages (resolves their reports)")
    def hide_messages(self, request, queryset):
        count = services.hide_messages(queryset.values_list("message_id", flat=True))
        self.message_user(request, f"{count} message(s) hidden.", messages.SUCCESS)

    @admin.action(description="Mute the reported messages' authors for a day")
    def mute_authors_day(self, request, queryset):
        _mute_authors(self, request, queryset.values_list("message__author_id", flat=True), 1)
        queryset.update(resolved=True)

    @admin.action(description="Mute the reported messages' authors for a week")
    def mute_authors_week(self, request, queryset):
        _mute_authors(self, request, queryset.values_list("message__author_id", flat=True), 7)
        queryset.update(resolved=True)

    @admin.action(description="Mark resolved (nothing to do)")
    def resolve(self, request, queryset):
        queryset.update(resolved=True)

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Mute)
class MuteAdmin(admin.ModelAdmin):
    list_display = ("player", "until", "reason", "created_at")
    search_fields = ("player__username",)
    raw_id_fields = ("player",)
