"""The DRF tokens of before (``rest_framework.authtoken``, table ``authtoken_token``: one
plain-text key per player) become hashed ApiTokens named "legacy", so a client holding one
is not locked out: its key keeps working until it is revoked, expires (never, by itself) or
the player's password changes.  Then the table, the last place those keys were in clear, is
dropped; the app is no longer installed.

The table is read with SQL because the app is gone from INSTALLED_APPS (a database created
since then never had it: nothing to do).  Not reversible: the keys cannot be recovered from
their digests (migrating back deletes the ApiTokens with 0005)."""

from datetime import UTC

from django.db import migrations
from django.utils import timezone
from knox.crypto import hash_token
from knox.settings import CONSTANTS

LEGACY_TABLE = "authtoken_token"
LEGACY_TOKEN_NAME = "legacy"
BATCH = 1000


def copy_legacy_tokens(apps, schema_editor) -> int:
    """Copy every row of ``authtoken_token`` into ApiToken (hashed), then drop the table.
    Returns how many were copied."""
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return 0
    ApiToken = apps.get_model("players", "ApiToken")
    quote = connection.ops.quote_name
    copied = 0
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {quote('key')}, {quote('user_id')}, {quote('created')} "
            f"FROM {quote(LEGACY_TABLE)} ORDER BY {quote('created')}"
        )
        while rows := cursor.fetchmany(BATCH):
            ApiToken.objects.bulk_create(
                ApiToken(
                    digest=hash_token(key),
                    token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH],
                    user_id=user_id,
                    created=timezone.make_aware(created, UTC) if timezone.is_naive(created) else created,
                    name=LEGACY_TOKEN_NAME,
                )
                for key, user_id, created in rows
            )
            copied += len(rows)
    schema_editor.execute(f"DROP TABLE {quote(LEGACY_TABLE)}")
    return copied


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0005_apitoken'),
    ]

    operations = [
        migrations.RunPython(copy_legacy_tokens, migrations.RunPython.noop),
    ]
