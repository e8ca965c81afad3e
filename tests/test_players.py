import json
import sys
import types
from datetime import datetime

import pytest
from knox.crypto import hash_token

from players.models import ApiToken, Player
from players.selectors import player_stats
from tests.conftest import DEFAULT_PASSWORD
from tests.helpers import assert_json, assert_problem, migrated_back_to
from tests.server_support import gunicorn  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register"
TOKEN = "/api/v1/auth/token"
ME = "/api/v1/players/me"


def register(api, username="alice", password="s3cret-enough", **kwargs):
    return api.post(REGISTER, {"username": username, "password": password}, format="json", **kwargs)


# --- register ---------------------------------------------------------------


def test_register_creates_player_and_token(api):
    body = assert_json(register(api), 201)

    assert set(body) == {"token", "player"}
    player = Player.objects.get(username="alice")
    assert body["player"] == {"id": player.id, "username": "alice"}
    assert ApiToken.objects.get(user=player).digest == hash_token(body["token"])
    assert player.check_password("s3cret-enough")
    assert player.is_bot is False


def test_registered_token_authenticates(api):
    token = register(api).json()["token"]

    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert assert_json(api.get(ME), 200)["username"] == "alice"


@pytest.mark.parametrize("taken_as", ["alice", "ALICE", "Alice"])
def test_register_duplicate_username_is_invalid(api, make_player, taken_as):
    make_player(username="alice")

    body = assert_problem(register(api, username=taken_as), 400, "invalid")

    assert body["fields"] == {"username": ["A player with that username already exists."]}
    assert Player.objects.count() == 1


def test_register_short_password_is_invalid(api):
    body = assert_problem(register(api, password="x7#q"), 400, "invalid")

    assert list(body["fields"]) == ["password"]
    assert any("too short" in message for message in body["fields"]["password"])
    assert not Player.objects.exists()


def test_register_common_password_is_invalid(api):
    body = assert_problem(register(api, password="password123"), 400, "invalid")

    assert any("too common" in message for message in body["fields"]["password"])


def test_register_reports_username_and_password_together(api, make_player):
    make_player(username="alice")

    body = assert_problem(register(api, password="short"), 400, "invalid")

    assert set(body["fields"]) == {"username", "password"}


def test_register_missing_fields(api):
    body = assert_problem(api.post(REGISTER, {}, format="json"), 400, "invalid")

    assert body["fields"] == {
        "username": ["This field is required."],
        "password": ["This field is required."],
    }


@pytest.mark.parametrize("username", [123, 1.5, True, None, ["alice"], {"name": "alice"}])
def test_register_username_of_wrong_type(api, username):
    body = assert_problem(
        api.post(REGISTER, {"username": username, "password": "s3cret-enough"}, format="json"),
        400,
        "invalid",
    )

    assert list(body["fields"]) == ["username"]
    assert not Player.objects.exists()


@pytest.mark.parametrize("password", [12345678, ["s3cret-enough"], None])
def test_register_password_of_wrong_type(api, password):
    body = assert_problem(
        api.post(REGISTER, {"username": "alice", "password": password}, format="json"),
        400,
        "invalid",
    )

    assert list(body["fields"]) == ["password"]


@pytest.mark.parametrize("username", ["", "has space", "semi;colon", "x" * 151])
def test_register_username_not_valid(api, username):
    body = assert_problem(register(api, username=username), 400, "invalid")

    assert list(body["fields"]) == ["username"]


def test_register_malformed_json(api):
    response = api.post(REGISTER, data='{"username": "alice", ', content_type="application/json")

    body = assert_problem(response, 400, "malformed_json")
    assert "JSON parse error" in body["detail"]
    assert "fields" not in body


def test_register_body_not_an_object(api):
    response = api.post(REGISTER, data=json.dumps(["alice", "pw"]), content_type="application/json")

    body = assert_problem(response, 400, "invalid")
    assert list(body["fields"]) == ["non_field_errors"]


def test_register_form_encoded_is_unsupported(api):
    response = api.post(REGISTER, {"username": "alice", "password": "s3cret-enough"})

    body = assert_problem(response, 415, "unsupported_media_type")
    assert "multipart/form-data" in body["detail"]
    assert not Player.objects.exists()


def test_register_ignores_a_bad_authorization_header(api):
    response = register(api, HTTP_AUTHORIZATION="Token not-a-token")

    assert_json(response, 201)


# --- token ------------------------------------------------------------------


def _me(api, token: str) -> str:
    """The username that ``token`` authenticates as."""
    return assert_json(api.get(ME, HTTP_AUTHORIZATION=f"Token {token}"), 200)["username"]


def test_token_for_good_credentials_is_a_new_token(api, make_player):
    player, earlier = make_player(username="bob")

    body = assert_json(
        api.post(TOKEN, {"username": "bob", "password": DEFAULT_PASSWORD}, format="json"), 200
    )

    assert set(body) == {"token"} and body["token"] != earlier
    assert _me(api, body["token"]) == _me(api, earlier) == "bob"  # both work
    assert ApiToken.objects.get(digest=hash_token(body["token"])).name == "login"


def test_token_username_is_case_insensitive(api, make_player):
    make_player(username="Bob")

    response = api.post(TOKEN, {"username": "bOB", "password": DEFAULT_PASSWORD}, format="json")

    assert _me(api, assert_json(response, 200)["token"]) == "Bob"


def test_token_created_on_first_login(api):
    player = Player.objects.create_user(username="carol", password=DEFAULT_PASSWORD)

    body = assert_json(
        api.post(TOKEN, {"username": "carol", "password": DEFAULT_PASSWORD}, format="json"), 200
    )

    assert ApiToken.objects.get(user=player).digest == hash_token(body["token"])


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "bob", "password": "wrong-password"},
        {"username": "nobody", "password": DEFAULT_PASSWORD},
    ],
)
def test_token_bad_credentials(api, make_player, credentials):
    make_player(username="bob")

    body = assert_problem(api.post(TOKEN, credentials, format="json"), 400, "invalid_credentials")

    assert body["title"] == "Invalid credentials"
    assert "fields" not in body


def test_token_inactive_player_cannot_log_in(api, make_player):
    make_player(username="bob", is_active=False)

    response = api.post(TOKEN, {"username": "bob", "password": DEFAULT_PASSWORD}, format="json")

    assert_problem(response, 400, "invalid_credentials")


def test_token_missing_password(api):
    body = assert_problem(api.post(TOKEN, {"username": "bob"}, format="json"), 400, "invalid")

    assert body["fields"] == {"password": ["This field is required."]}


def test_token_malformed_json(api):
    response = api.post(TOKEN, data="{nope", content_type="application/json")

    assert_problem(response, 400, "malformed_json")


# --- me ---------------------------------------------------------------------


def test_me_returns_profile(auth_client):
    body = assert_json(auth_client.get(ME), 200)

    player = auth_client.player
    assert set(body) == {"id", "username", "games_played", "games_won", "date_joined", "online"}
    assert body["online"] is True  # (this request saw the player: presence)
    assert body["id"] == player.id
    assert body["username"] == player.username
    assert isinstance(body["games_played"], int) and body["games_played"] >= 0
    assert isinstance(body["games_won"], int) and 0 <= body["games_won"] <= body["games_played"]
    assert datetime.fromisoformat(body["date_joined"]) == player.date_joined


def test_me_without_token(api):
    body = assert_problem(api.get(ME), 401, "not_authenticated")

    assert body["title"] == "Authentication required"


def test_me_without_token_names_the_auth_scheme(api):
    response = api.get(ME)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize(
    "header", ["Token not-a-real-token", "Token", "Token two parts", "Bearer abc"]
)
def test_me_with_bad_token(api, make_player, header):
    make_player()

    response = api.get(ME, HTTP_AUTHORIZATION=header)

    if header.startswith("Bearer"):  # another scheme is no credentials at all
        assert_problem(response, 401, "not_authenticated")
    else:
        assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == "Token"


def test_me_with_token_of_inactive_player(api, make_player):
    player, token = make_player(is_active=False)

    response = api.get(ME, HTTP_AUTHORIZATION=f"Token {token}")

    body = assert_problem(response, 401, "authentication_failed")
    assert "inactive" in body["detail"].lower()


def test_me_post_not_allowed(auth_client):
    response = auth_client.post(ME, {}, format="json")

    assert_problem(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD, OPTIONS"


def test_me_counts_come_from_games_selectors(auth_client, monkeypatch):
    seen = []

    def stats_for_player(player):
        seen.append(player)
        return {"games_played": 7, "games_won": 3}

    _install_games_stats(monkeypatch, stats_for_player)

    body = assert_json(auth_client.get(ME), 200)

    assert (body["games_played"], body["games_won"]) == (7, 3)
    assert seen == [auth_client.player]


def test_player_stats_fall_back_to_zero_without_games_stats(make_player, monkeypatch):
    player, _ = make_player()
    _install_games_stats(monkeypatch, None)

    assert player_stats(player) == {"games_played": 0, "games_won": 0}


def _install_games_stats(monkeypatch, stats_for_player):
    """Make ``games.selectors.stats_for_player`` this function (None: absent)."""
    import games

    try:
        import games.selectors as selectors
    except ModuleNotFoundError:
        selectors = types.ModuleType("games.selectors")
        monkeypatch.setitem(sys.modules, "games.selectors", selectors)
        monkeypatch.setattr(games, "selectors", selectors, raising=False)
    if stats_for_player is None:
        monkeypatch.delattr(selectors, "stats_for_player", raising=False)
    else:
        monkeypatch.setattr(selectors, "stats_for_player", stats_for_player, raising=False)


# --- Unicode usernames ------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second",
    [
        ("zoë", "ZOË"),
        ("zoë", "ＺＯË"),  # fullwidth
        ("straße", "STRASSE"),  # case folding, not lower()
    ],
)
def test_usernames_collide_after_unicode_normalization(api, first, second):
    assert_json(register(api, username=first), 201)

    body = assert_problem(register(api, username=second), 400, "invalid")

    assert body["fields"] == {"username": ["A player with that username already exists."]}
    assert Player.objects.count() == 1


def test_username_is_stored_nfkc_normalized(api):
    body = assert_json(register(api, username="ＡＬＩＣＥ"), 201)

    assert body["player"]["username"] == "ALICE"
    assert Player.objects.get().username_key == "alice"


@pytest.mark.parametrize(
    "username",
    ["\ufdfa" * 10, "a\u037a"],  # NFKC: 180 characters; a space (not a valid character)
)
def test_a_name_that_normalizes_to_an_invalid_one_is_invalid(api, username):
    body = assert_problem(register(api, username=username), 400, "invalid")

    assert list(body["fields"]) == ["username"]
    assert not Player.objects.exists()


@pytest.mark.parametrize("typed", ["zoë", "ZOË", "ＺＯË", "Zoe\u0308"])
def test_token_username_matches_after_unicode_normalization(api, typed):
    assert_json(register(api, username="Zoë"), 201)

    body = assert_json(api.post(TOKEN, {"username": typed, "password": "s3cret-enough"}, format="json"), 200)

    assert _me(api, body["token"]) == "Zoë"


def test_a_renamed_player_gets_a_new_key(make_player):
    player, _ = make_player(username="alice")
    player.username = "Ｂob"
    player.save(update_fields=["username"])

    player.refresh_from_db()
    assert player.username_key == "bob"


@pytest.mark.django_db(transaction=True)
def test_migration_0004_keys_existing_players_and_keeps_colliding_ones_working():
    """Players registered under the old Lower() constraint keep their names, tokens and
    log-in; of two that collide under username_key the later gets "<key>#<id>"."""
    from django.contrib.auth import authenticate
    from django.contrib.auth.hashers import make_password

    with migrated_back_to("players", "0003_ratecounter", "Player") as old:
        first = old.objects.create(username="zoë", password=make_password("first-secret-1"))
        later = old.objects.create(username="ＺＯË", password=make_password("later-secret-1"))
        old.objects.create(username="Bob", password=make_password("bob-secret-12"))

    assert dict(Player.objects.values_list("username", "username_key")) == {
        "zoë": "zoë",
        "ＺＯË": f"zoë#{later.pk}",
        "Bob": "bob",
    }
    assert authenticate(username="ＺＯË", password="later-secret-1").pk == later.pk
    assert authenticate(username="ZOË", password="first-secret-1").pk == first.pk
    legacy = Player.objects.get(pk=later.pk)
    legacy.set_password("later-secret-2")
    legacy.save()  # keeps its key: the plain one is taken
    assert Player.objects.get(pk=later.pk).username_key == f"zoë#{later.pk}"


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_50_concurrent_registrations_of_distinct_names(gunicorn):
    """Through the real server (gunicorn, as in production), 50 at once: all created."""
    names = [f"racer{i}" for i in range(50)]

    responses = _register_all(gunicorn.url + REGISTER, names)

    assert [r.status_code for r in responses] == [201] * 50, [r.text for r in responses if r.status_code != 201]
    assert sorted(r.json()["player"]["username"] for r in responses) == sorted(names)
    assert Player.objects.count() == 50


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_50_concurrent_registrations_of_one_name(gunicorn):
    """One name in several forms ("zoë", "ZOË", fullwidth...): exactly one wins; the
    others are told it is taken (the unique key settles the race), none is a 500."""
    forms = ["zoë", "ZOË", "ＺＯË", "Zoë", "zOË"]
    responses = _register_all(gunicorn.url + REGISTER, [forms[i % len(forms)] for i in range(50)])

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * 49, [r.text for r in responses if r.status_code not in (201, 400)]
    for r in responses:
        if r.status_code == 400:
            assert r.headers["Content-Type"] == "application/problem+json"
            assert r.json()["code"] == "invalid"
            assert r.json()["fields"] == {"username": ["A player with that username already exists."]}
    assert Player.objects.count() == 1


def _register_all(url: str, names: list[str]) -> list:
    """POST a registration for each name, all at once (one thread each)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import requests

    barrier = threading.Barrier(len(names))

    def post(name: str):
        with requests.Session() as session:
            barrier.wait(timeout=30)
            return session.post(url, json={"username": name, "password": "s3cret-enough"}, timeout=120)

    with ThreadPoolExecutor(len(names)) as pool:
        return list(pool.map(post, names))


@pytest.mark.django_db
def test_a_name_typed_with_a_combining_accent_is_the_name_it_shows(api):
    decomposed = "zoe\u0301"  # e + COMBINING ACUTE ACCENT, as some keyboards send "zoé"
    r = api.post("/api/v1/auth/register", {"username": decomposed, "password": "zoe-secret-123"}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["player"]["username"] == "zo\u00e9"
    again = api.post("/api/v1/auth/register", {"username": "ZO\u00c9", "password": "zoe-secret-123"}, format="json")
    assert again.status_code == 400 and "username" in again.json()["fields"]


@pytest.mark.django_db
def test_the_admin_forms_refuse_a_name_that_collides_after_normalisation(make_player):
    from players.admin import PlayerChangeForm, PlayerCreationForm

    make_player("zoë")
    form = PlayerCreationForm(data={"username": "ZOË", "password1": "a-long-secret-9", "password2": "a-long-secret-9"})
    assert not form.is_valid() and "username" in form.errors
    other, _ = make_player("bob")
    change = PlayerChangeForm(instance=other, data={"username": "Zoë", "date_joined": other.date_joined})
    assert not change.is_valid() and "username" in change.errors
