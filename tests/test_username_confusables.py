"""Issue 24: usernames that look like a player's (UTS #39 skeletons) or hold invisible
characters are refused (players/usernames.py)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from players import services
from players.models import Player
from players.services import USERNAME_CONFUSABLE, USERNAME_TAKEN
from players.usernames import username_skeleton
from tests.conftest import DEFAULT_PASSWORD
from tests.helpers import assert_json, assert_problem, migrated_back_to

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register"


def register(api, username: str):
    return api.post(REGISTER, {"username": username, "password": "s3cret-enough"}, format="json")


@pytest.mark.parametrize(
    "first, second",
    [
        ("al493891", "\u0430l493891"),  # Cyrillic а
        ("\u0430l493891", "al493891"),  # ... either way round
        ("paypal", "p\u0430yp\u0430l"),
        ("bob", "B0B"),  # 0 looks like O; BOB is bob's name in capitals
        ("Ivan", "lvan"),  # capital i, small L
        ("modern", "rnodern"),
        ("zoë", "ZO\u0401"),  # Cyrillic capital Ё
    ],
)
def test_a_name_that_looks_like_a_players_is_refused(api, first, second):
    assert_json(register(api, first), 201)

    body = assert_problem(register(api, second), 400, "invalid")

    assert body["fields"] == {"username": [USERNAME_CONFUSABLE]}
    assert Player.objects.count() == 1


@pytest.mark.parametrize("first, second", [("al493891", "al493892"), ("ivan", "lvan"), ("player1", "player11")])
def test_names_that_differ_to_the_eye_are_both_taken(api, first, second):
    assert_json(register(api, first), 201)
    assert_json(register(api, second), 201)


def test_the_same_name_is_still_told_taken(api):
    assert_json(register(api, "alice"), 201)
    assert assert_problem(register(api, "ALICE"), 400, "invalid")["fields"] == {"username": [USERNAME_TAKEN]}


def test_the_skeleton_is_stored_and_unique_in_the_database(make_player):
    player, _ = make_player("al493891")
    assert player.username_skeleton == username_skeleton("al493891") == "al49389l"

    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create_user(username="\u0430l493891", password=DEFAULT_PASSWORD)


def test_a_lost_race_for_a_look_alike_name_is_told_so(api, make_player, monkeypatch):
    """Two registrations both pass the check; the unique skeleton refuses the second."""
    make_player("al493891")
    checks = iter([None])  # the first check, made before the other registration committed
    real = services.username_conflict
    monkeypatch.setattr(services, "username_conflict", lambda name: next(checks, None) or real(name))

    body = assert_problem(register(api, "\u0430l493891"), 400, "invalid")

    assert body["fields"] == {"username": [USERNAME_CONFUSABLE]}


@pytest.mark.parametrize(
    "username",
    [
        "\u3164",  # HANGUL FILLER
        "ab\u3164",
        "\u115fab",  # HANGUL CHOSEONG FILLER
        "a\u1160b",  # HANGUL JUNGSEONG FILLER
        "ab\uffa0",  # HALFWIDTH HANGUL FILLER
        "a\u200bb",  # ZERO WIDTH SPACE
        "a\u200db",  # ZERO WIDTH JOINER
        "a\u2060b",  # WORD JOINER
        "\u202eabc",  # RIGHT-TO-LEFT OVERRIDE
        "abc\u2066",  # LEFT-TO-RIGHT ISOLATE
        "a\u00adb",  # SOFT HYPHEN
        "a\u034fb",  # COMBINING GRAPHEME JOINER
        "a\ufe0fb",  # VARIATION SELECTOR-16
        "a\U000e0041b",  # TAG LATIN CAPITAL LETTER A
        "a\x7fb",  # DELETE (a control)
        "a\ue000b",  # private use
    ],
)
def test_invisible_characters_are_refused(api, username):
    body = assert_problem(register(api, username), 400, "invalid")

    (message,) = body["fields"]["username"]
    assert "invisible" in message and "U+" in message
    assert not Player.objects.exists()


def test_the_message_names_the_invisible_character(api):
    body = assert_problem(register(api, "bob\u200b"), 400, "invalid")

    assert body["fields"] == {"username": [
        "Usernames may not contain invisible, formatting or control characters (found U+200B)."
    ]}


def test_the_admin_refuses_look_alikes_and_invisible_names(make_player):
    from players.admin import PlayerCreationForm

    make_player("al493891")
    for name in ["\u0430l493891", "a\u3164b"]:
        form = PlayerCreationForm(data={"username": name, "password1": "a-long-secret-9", "password2": "a-long-secret-9"})
        assert not form.is_valid() and "username" in form.errors


@pytest.mark.django_db(transaction=True)
def test_migration_0007_fills_skeletons_and_keeps_look_alike_players():
    from django.contrib.auth import authenticate
    from django.contrib.auth.hashers import make_password

    with migrated_back_to("players", "0006_copy_legacy_tokens", "Player") as old:
        first = old.objects.create(username="al493891", password=make_password("first-secret-1"),
                                   username_key="al493891")
        later = old.objects.create(username="\u0430l493891", password=make_password("later-secret-1"),
                                   username_key="\u0430l493891")
        old.objects.create(username="bob", password=make_password("bob-secret-12"), username_key="bob")

    assert dict(Player.objects.values_list("pk", "username_skeleton")) == {
        first.pk: "al49389l",
        later.pk: f"al49389l#{later.pk}",
        Player.objects.get(username="bob").pk: "bob",
    }
    assert authenticate(username="\u0430l493891", password="later-secret-1").pk == later.pk
    kept = Player.objects.get(pk=later.pk)
    kept.set_password("later-secret-2")
    kept.save()  # keeps its skeleton: the plain one is taken
    assert Player.objects.get(pk=later.pk).username_skeleton == f"al49389l#{later.pk}"
