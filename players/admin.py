from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from players.models import Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "is_bot", "is_staff", "is_active", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_superuser", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("Game", {"fields": ("is_bot",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Game", {"fields": ("is_bot",)}))
