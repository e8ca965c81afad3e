"""API tokens: hashed, several per player, named, expiring, listed and revoked over the
API, all revoked by a password change; the DRF tokens of before keep working after the
migration (issue 8)."""

from __future__ import annotations

import importlib
import json
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import PBKDF2SHA1PasswordHasher, make_password
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.crypto import hash_token

from players.models import ApiToken, Player
from players.tasks import prune_expired_tokens
from players.tokens import token_issue
from tests.conftest import DEFAULT_PASSWORD
from tests.helpers import assert_json, assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.concurrency]

TOKENS = "/api/v1/auth/tokens"
PASSWORD = "/api/v1/auth/password"
ME = "/api/v1/players/me"
LISTED_FIELDS = {"id", "name", "prefix", "created_at", "expires_at", "last_used_at"}
NEW_PASSWORD = "a-new-password-42"
legacy_migration = importlib.import_module("players.migrations.0006_copy_legacy_tokens")


def auth(key: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Token {key}"}


def me(api, key: str):
    return api.get(ME, **auth(key))


def create(api, key: str, name: str, **body):
    return api.post(TOKENS, {"name": name, **body}, format="json", **auth(key))


def new_token(api, key: str, name: str, **body) -> dict:
    return assert_json(create(api, key, name, **body), 201)


def listed(api, key: str) -> list[dict]:
    return assert_json(api.get(TOKENS, **auth(key)), 200)


# --- several named tokens, listed without their keys -------------------------------


def test_several_named_tokens_work_side_by_side(api, make_player):
    player, key = make_player(username="alice")

    made = {name: new_token(api, key, name) for name in ("phone", "bot", "script")}

    for name, token in made.items():
        assert set(token) == LISTED_FIELDS | {"token"}
        assert token["name"] == name and token["expires_at"] is None and token["last_used_at"] is None
        assert token["token"].startswith(token["prefix"]) and len(token["prefix"]) < len(token["token"])
        assert assert_json(me(api, token["token"]), 200)["username"] == "alice"
    assert assert_json(me(api, key), 200)["username"] == "alice"  # the first one too
    names = [t["name"] for t in listed(api, made["bot"]["token"])]
    assert names == ["script", "bot", "phone", "test"]  # newest first


def test_the_list_never_shows_a_key(api, make_player):
    _, key = make_player()
    keys = [key] + [new_token(api, key, name)["token"] for name in ("phone", "bot")]

    response = api.get(TOKENS, **auth(key))

    tokens = assert_json(response, 200)
    assert [set(t) for t in tokens] == [LISTED_FIELDS] * 3
    assert not [k for k in keys if k in response.content.decode()]
    assert sorted(t["prefix"] for t in tokens) == sorted(k[:15] for k in keys)


def test_the_database_holds_no_key_in_clear(api, make_player):
    _, key = make_player()
    keys = [key, new_token(api, key, "phone")["token"]]
    keys.append(assert_json(api.post("/api/v1/auth/token", {"username": "player1", "password": DEFAULT_PASSWORD},
                                     format="json"), 200)["token"])

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(ApiToken._meta.db_table)}")
        rows = [" ".join(map(str, row)) for row in cursor.fetchall()]

    assert len(rows) == 3
    for k in keys:
        # Only knox's 15-character lookup prefix is kept: no longer piece of any key.
        assert not [row for row in rows for i in range(len(k) - 15) if k[i : i + 16] in row]
        assert sum(hash_token(k) in row for row in rows) == 1


def test_names_are_required_and_short(api, make_player):
    _, key = make_player()

    assert assert_problem(create(api, key, ""), 400, "invalid")["fields"].keys() == {"name"}
    assert assert_problem(create(api, key, "x" * 51), 400, "invalid")["fields"].keys() == {"name"}
    body = assert_problem(api.post(TOKENS, {}, format="json", **auth(key)), 400, "invalid")
    assert body["fields"] == {"name": ["This field is required."]}
    assert len(listed(api, key)) == 1


@pytest.mark.parametrize("days", [0, -1, 3651, "5", 1.5, True])
def test_expires_in_days_must_be_a_whole_number_of_days(api, make_player, days):
    _, key = make_player()

    body = assert_problem(create(api, key, "bot", expires_in_days=days), 400, "invalid")

    assert body["fields"].keys() == {"expires_in_days"}


def test_the_default_lifetime_applies_when_none_is_asked(api, make_player, settings):
    settings.UNO_TOKEN_TTL_DAYS = 7
    _, key = make_player()
    before = timezone.now()

    explicit = new_token(api, key, "bot", expires_in_days=30)
    default = new_token(api, key, "phone", expires_in_days=None)
    registered = assert_json(api.post("/api/v1/auth/register", {"username": "zed", "password": NEW_PASSWORD},
                                      format="json"), 201)["token"]

    def lifetime(expires_at: str) -> timedelta:
        return timezone.datetime.fromisoformat(expires_at) - before

    assert timedelta(days=30) <= lifetime(explicit["expires_at"]) < timedelta(days=30, minutes=5)
    assert timedelta(days=7) <= lifetime(default["expires_at"]) < timedelta(days=7, minutes=5)
    assert ApiToken.objects.get(digest=hash_token(registered)).expiry - before >= timedelta(days=7)


# --- revocation -----------------------------------------------------------------------


def test_a_token_revoked_over_the_api_answers_401_at_once(api, make_player):
    _, key = make_player()
    bot = new_token(api, key, "bot")
    assert me(api, bot["token"]).status_code == 200

    response = api.delete(f"{TOKENS}/{bot['id']}", **auth(key))

    assert response.status_code == 204 and response.content == b""
    body = assert_problem(me(api, bot["token"]), 401, "authentication_failed")
    assert response.get("WWW-Authenticate") is None and "Token" in me(api, bot["token"])["WWW-Authenticate"]
    assert body["detail"] == "Invalid token."
    assert [t["name"] for t in listed(api, key)] == ["test"]  # the other one still works


def test_a_token_may_revoke_itself(api, make_player):
    _, key = make_player()
    (own,) = listed(api, key)

    assert api.delete(f"{TOKENS}/{own['id']}", **auth(key)).status_code == 204

    assert_problem(me(api, key), 401, "authentication_failed")


def test_another_players_token_cannot_be_deleted(api, make_player):
    _, alice = make_player(username="alice")
    _, mallory = make_player(username="mallory")
    (alices,) = listed(api, alice)

    body = assert_problem(api.delete(f"{TOKENS}/{alices['id']}", **auth(mallory)), 404, "not_found")

    assert "token" not in body or body["token"] is None
    assert assert_json(me(api, alice), 200)["username"] == "alice"
    assert_problem(api.delete(f"{TOKENS}/999999999", **auth(mallory)), 404, "not_found")


def test_an_expired_token_answers_401(api, make_player):
    _, key = make_player()
    bot = new_token(api, key, "bot", expires_in_days=1)
    assert me(api, bot["token"]).status_code == 200
    ApiToken.objects.filter(pk=bot["id"]).update(expiry=timezone.now() - timedelta(seconds=1))

    body = assert_problem(me(api, bot["token"]), 401, "authentication_failed")

    assert body["detail"] == "The token has expired."
    assert [t["name"] for t in listed(api, key)] == ["test"]  # not listed either
    assert prune_expired_tokens() == 1  # beat's hourly task deletes it
    assert not ApiToken.objects.filter(pk=bot["id"]).exists()


# --- password change ------------------------------------------------------------------


def test_a_password_change_revokes_every_token_and_returns_a_fresh_one(api, make_player):
    player, key = make_player()
    phone = new_token(api, key, "phone")["token"]
    bot = new_token(api, key, "bot", expires_in_days=10)["token"]

    response = api.post(PASSWORD, {"old_password": DEFAULT_PASSWORD, "new_password": NEW_PASSWORD},
                        format="json", **auth(phone))

    fresh = assert_json(response, 200)
    assert set(fresh) == {"token"}
    for old in (key, phone, bot):
        assert_problem(me(api, old), 401, "authentication_failed")
    assert me(api, fresh["token"]).status_code == 200
    assert [(t["name"], t["expires_at"]) for t in listed(api, fresh["token"])] == [("phone", None)]
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"old_password": "not-the-password", "new_password": NEW_PASSWORD}, "old_password"),
        ({"old_password": DEFAULT_PASSWORD, "new_password": "short"}, "new_password"),
        ({"old_password": DEFAULT_PASSWORD, "new_password": "12345678901"}, "new_password"),
        ({"old_password": DEFAULT_PASSWORD}, "new_password"),
    ],
)
def test_a_refused_password_change_changes_nothing(api, make_player, body, field):
    player, key = make_player()

    problem = assert_problem(api.post(PASSWORD, body, format="json", **auth(key)), 400, "invalid")

    assert list(problem["fields"]) == [field]
    assert me(api, key).status_code == 200
    player.refresh_from_db()
    assert player.check_password(DEFAULT_PASSWORD)


def test_a_password_change_needs_a_token(api, make_player):
    make_player()

    response = api.post(PASSWORD, {"old_password": DEFAULT_PASSWORD, "new_password": NEW_PASSWORD}, format="json")

    assert_problem(response, 401, "not_authenticated")


def test_a_password_set_in_the_admin_revokes_every_token(api, make_player):
    player, key = make_player()
    admin, _ = make_player(username="root", is_staff=True, is_superuser=True)
    browser = Client()
    browser.force_login(admin)

    response = browser.post(f"/admin/players/player/{player.pk}/password/",
                            {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"})

    assert response.status_code == 302, response.content
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)
    assert_problem(me(api, key), 401, "authentication_failed")
    assert not ApiToken.objects.filter(user=player).exists()
    assert ApiToken.objects.filter(user=admin).exists()  # nobody else's


class CheapPBKDF2SHA1PasswordHasher(PBKDF2SHA1PasswordHasher):
    """An older hasher, whose hashes the preferred one replaces at log-in (cheap: a test)."""

    iterations = 1


def test_a_password_hash_upgrade_at_log_in_revokes_nothing(api, make_player, settings):
    settings.PASSWORD_HASHERS = [*settings.PASSWORD_HASHERS, f"{__name__}.CheapPBKDF2SHA1PasswordHasher"]
    player, key = make_player(username="bob")
    Player.objects.filter(pk=player.pk).update(password=make_password(DEFAULT_PASSWORD, hasher="pbkdf2_sha1"))

    body = assert_json(api.post("/api/v1/auth/token", {"username": "bob", "password": DEFAULT_PASSWORD},
                                format="json"), 200)

    player.refresh_from_db()
    assert player.password.startswith("md5$")  # upgraded to the preferred hasher
    assert me(api, key).status_code == 200 and me(api, body["token"]).status_code == 200


# --- last_used_at, the cap, the header ------------------------------------------------


def test_last_used_at_is_written_at_most_once_a_minute(api, make_player):
    _, key = make_player()
    table = ApiToken._meta.db_table

    def updates() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert me(api, key).status_code == 200
        return sum(q["sql"].startswith("UPDATE") and table in q["sql"] for q in queries)

    assert updates() == 1  # never used: recorded
    assert [updates(), updates()] == [0, 0]  # within the minute: no write
    used = ApiToken.objects.get().last_used_at
    ApiToken.objects.update(last_used_at=used - timedelta(seconds=61))
    assert updates() == 1
    assert ApiToken.objects.get().last_used_at >= used
    assert listed(api, key)[0]["last_used_at"] is not None


def test_past_the_cap_the_least_recently_used_token_is_revoked(api, make_player, settings):
    settings.UNO_TOKENS_PER_PLAYER = 3
    player, first = make_player()
    second = token_issue(player=player, name="second").key
    third = token_issue(player=player, name="third").key
    assert me(api, first).status_code == 200  # used: second is now the least recently used

    fourth = new_token(api, third, "fourth")["token"]

    assert_problem(me(api, second), 401, "authentication_failed")
    assert all(me(api, k).status_code == 200 for k in (first, third, fourth))
    assert sorted(t["name"] for t in listed(api, first)) == ["fourth", "test", "third"]


@pytest.mark.parametrize("key", ["caf\u00e9" * 10, "a" * 201, "0" * 15 + "\u00ff", "abc def"])
def test_a_key_that_cannot_be_one_answers_401(api, make_player, key):
    make_player()

    assert_problem(api.get(ME, HTTP_AUTHORIZATION=f"Token {key}"), 401, "authentication_failed")


def test_creating_tokens_is_throttled_like_log_in(api, make_player, throttle_rates):
    throttle_rates(auth="2/hour")
    _, key = make_player()

    assert [create(api, key, "bot").status_code for _ in range(2)] == [201, 201]
    response = create(api, key, "bot")

    assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1


# --- the DRF tokens of before ---------------------------------------------------------


def _legacy_table(rows: list[tuple[str, int, object]]) -> None:
    """rest_framework.authtoken's table, as its migrations made it, holding ``rows``."""
    quote = connection.ops.quote_name
    datetime_type = connection.data_types["DateTimeField"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {quote('authtoken_token')} ({quote('key')} varchar(40) PRIMARY KEY, "
            f"{quote('created')} {datetime_type} NOT NULL, {quote('user_id')} bigint NOT NULL UNIQUE "
            f"REFERENCES {quote(Player._meta.db_table)} ({quote('id')}))"
        )
        for key, user_id, created in rows:
            cursor.execute(
                f"INSERT INTO {quote('authtoken_token')} ({quote('key')}, {quote('created')}, {quote('user_id')}) "
                "VALUES (%s, %s, %s)",
                [key, connection.ops.adapt_datetimefield_value(created), user_id],
            )


@pytest.mark.django_db(transaction=True)
def test_the_old_single_tokens_still_work_after_the_migration(api):
    from django.apps import apps

    alice = Player.objects.create_user(username="alice", password=DEFAULT_PASSWORD)
    bob = Player.objects.create_user(username="bob", password=DEFAULT_PASSWORD)
    long_ago = timezone.now() - timedelta(days=400)
    old_keys = {"alice": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "bob": "0123456789abcdef0123456789abcdef01234567"}
    _legacy_table([(old_keys["alice"], alice.pk, long_ago), (old_keys["bob"], bob.pk, long_ago)])

    with connection.schema_editor() as editor:
        copied = legacy_migration.copy_legacy_tokens(apps, editor)

    assert copied == 2
    assert "authtoken_token" not in connection.introspection.table_names()  # no key left in clear
    for username, key in old_keys.items():
        assert assert_json(me(api, key), 200)["username"] == username
        (token,) = listed(api, key)
        assert token["name"] == "legacy" and token["expires_at"] is None
        assert abs(timezone.datetime.fromisoformat(token["created_at"]) - long_ago) < timedelta(seconds=1)
        assert key not in json.dumps(token)
    # Until rotated: a new token, then the old one revoked.
    fresh = new_token(api, old_keys["alice"], "phone")["token"]
    assert api.delete(f"{TOKENS}/{listed(api, fresh)[-1]['id']}", **auth(fresh)).status_code == 204
    assert_problem(me(api, old_keys["alice"]), 401, "authentication_failed")
    with connection.schema_editor() as editor:  # a database that never had the table
        assert legacy_migration.copy_legacy_tokens(apps, editor) == 0


# --- the schema -------------------------------------------------------------------------


def test_the_token_endpoints_are_documented(api):
    schema = json.loads(api.get("/api/schema/", {"format": "json"}).content)
    paths, components = schema["paths"], schema["components"]["schemas"]

    assert set(paths[TOKENS]["get"]["responses"]) >= {"200", "401", "429"}
    assert set(paths[TOKENS]["post"]["responses"]) >= {"201", "400", "401", "429"}
    assert set(paths[f"{TOKENS}/{{token_id}}"]["delete"]["responses"]) >= {"204", "401", "404", "429"}
    assert set(paths[PASSWORD]["post"]["responses"]) >= {"200", "400", "401", "429"}
    assert "token" not in components["ApiToken"]["properties"]
    assert "shown this once" in components["NewApiToken"]["properties"]["token"]["description"].lower()
    assert paths[TOKENS]["post"]["security"] == [{"tokenAuth": []}]
    assert "revoked or expired" in schema["components"]["securitySchemes"]["tokenAuth"]["description"]
