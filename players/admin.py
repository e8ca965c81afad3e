from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm, UserCreationForm

from players.models import Player, username_key

USERNAME_TAKEN = "A player with that username already exists (ignoring case and Unicode forms)."


class _UniqueUsernameKey:
    """Admin forms check the name the way the database does (players.username_key), so
    a name that collides only after normalisation is a form error, not a 500."""

    def clean_username(self):
        username = Player.normalize_username(self.cleaned_data["username"])
        taken = Player.objects.filter(username_key=username_key(username))
        if self.instance.pk is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(USERNAME_TAKEN)
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
