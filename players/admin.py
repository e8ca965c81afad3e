from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm, UserCreationForm

from players.models import ApiToken, Player, username_key
from players.usernames import username_skeleton

USERNAME_TAKEN = "A player with that username already exists (ignoring case and Unicode forms)."
USERNAME_CONFUSABLE = "A player with a username that looks the same already exists (Unicode confusables)."


class _UniqueUsernameKey:
    """Admin forms check the name the way the database does (players.username_key and
    username_skeleton), so a name that collides only after normalisation, or looks like
    another player's, is a form error, not a 500."""

    def clean_username(self):
        username = Player.normalize_username(self.cleaned_data["username"])
        others = Player.objects.all()
        if self.instance.pk is not None:
            others = others.exclude(pk=self.instance.pk)
        if others.filter(username_key=username_key(username)).exists():
            raise forms.ValidationError(USERNAME_TAKEN)
        if others.filter(username_skeleton=username_skeleton(username)).exists():
            raise forms.ValidationError(USERNAME_CONFUSABLE)
        return username


class PlayerCreationForm(_UniqueUsernameKey, UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = Player


class PlayerChangeForm(_UniqueUsernameKey, UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):
    form = PlayerChangeForm
    add_form = PlayerCreationForm
    list_display = ("username", "is_bot", "is_staff", "is_active", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_superuser", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("Game", {"fields": ("is_bot",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Game", {"fields": ("is_bot",)}))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens can be looked at and revoked (deleted) here, never added or edited:
    a key is shown once, to the player the API issues it to, and is not stored."""

    list_display = ("name", "user", "token_key", "created", "expiry", "last_used_at")
    search_fields = ("user__username", "name", "token_key")
    list_select_related = ("user",)
    fields = ("user", "name", "token_key", "created", "expiry", "last_used_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
