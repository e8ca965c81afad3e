"""``Authorization: Token <key>``: django-rest-knox's authentication, over our ApiToken.

knox parses the header (its AUTH_HEADER_PREFIX is the contract's "Token") and hashes the
key; we look the token up as knox does (by its 15-character prefix, then a constant-time
comparison of digests) and differ from knox in three ways:

* an expired token is refused, and neither it nor the player's other tokens are deleted on
  the way (knox reads and cleans all of them on every request); beat prunes them hourly;
* ``last_used_at`` is kept, written at most once a minute per token (ApiToken.mark_used),
  and so is the player's ``last_seen_at`` (presence: players.presence.mark_seen);
* a key that cannot be one (not ASCII letters, digits, ``_`` or ``-``) is refused before
  the database sees it, so odd bytes in the header answer 401, never 500.
"""

from __future__ import annotations

import re
from hmac import compare_digest

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.settings import CONSTANTS
from rest_framework.exceptions import AuthenticationFailed

from players.models import ApiToken, Player
from players.presence import mark_seen

INVALID = "Invalid token."
EXPIRED = "The token has expired."
#: what a key may look like (knox's are 64 hex digits, the DRF keys of before 40)
KEY_FORM = re.compile(r"[A-Za-z0-9_-]{1,200}")


class ApiTokenAuthentication(TokenAuthentication):
    """``request.user`` is the token's player, ``request.auth`` the ApiToken."""

    def authenticate_credentials(self, token: bytes) -> tuple[Player, ApiToken]:
        key = token.decode("latin-1")  # as the header arrived; KEY_FORM allows ASCII only
        if not KEY_FORM.fullmatch(key):
            raise AuthenticationFailed(INVALID)
        digest = hash_token(key)
        candidates = ApiToken.objects.filter(token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH])
        for api_token in candidates.select_related("user"):
            if compare_digest(digest, api_token.digest):
                if api_token.expired():
                    raise AuthenticationFailed(EXPIRED)
                player, api_token = self.validate_user(api_token)  # inactive players: 401
                api_token.mark_used()
                mark_seen(player)
                return player, api_token
        raise AuthenticationFailed(INVALID)


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The OpenAPI security scheme (``tokenAuth``, as with DRF's tokens before)."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema) -> dict:
        scheme = build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")
        scheme["description"] = (
            "`Authorization: Token <key>`. Keys come from `auth/register`, `auth/token` and "
            "`POST auth/tokens`, each shown once. A revoked or expired key answers 401 "
            "`authentication_failed`; changing the password revokes every key."
        )
        return scheme
