"""Standing's endpoints: profiles, a player's games, rating history, leaderboards."""

from __future__ import annotations

import base64
import binascii
import json
import math

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.db_router import lagging_reads
from config.problems import ApiError, problem_responses
from games import engine
from games.pagination import int_param
from standing import profile_selectors, selectors
from standing.models import Rating
from standing.serializers import LeaderboardSerializer


# --- leaderboards ----------------------------------------------------------------------

#: a longer ``after`` is no cursor of ours (they are about 80 characters)
BOARD_CURSOR_MAX_LENGTH = 200
BOARD_LIMIT_DEFAULT, BOARD_LIMIT_MAX = 50, 100


def board_cursor(pool: str, entry_of: Rating, rank: int) -> str:
    """The position right after ``entry_of`` (ranked ``rank``) on ``pool``'s board:
    base64url of JSON, opaque to clients.  It carries the entry's sort key (ordinal,
    id) and its rank, so that the next page is a range of the board's index and its
    ranks follow on without counting."""
    raw = json.dumps(["board", pool, entry_of.ordinal, entry_of.pk, rank], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def board_position(pool: str, cursor: str) -> tuple[float, int, int]:
    """(ordinal, id, rank) of a cursor of ``pool``'s board, else 400 ``invalid`` naming ``after``."""
    try:
        if len(cursor) > BOARD_CURSOR_MAX_LENGTH:
            raise ValueError
        kind, of, ordinal, pk, rank = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if (kind != "board" or of != pool or type(ordinal) not in (int, float) or not math.isfinite(ordinal)
                or type(pk) is not int or not 0 < pk < 2**63 or type(rank) is not int or not 0 < rank < 2**31):
            raise ValueError
    except (ValueError, TypeError, binascii.Error):
        raise ApiError(400, "invalid", "after must be the next_cursor of an earlier answer of this leaderboard",
                       fields={"after": ["the next_cursor of an earlier answer of this leaderboard"]}) from None
    return float(ordinal), pk, rank


def _rating_named(pool: str, name: str, request) -> Rating | None:
    """The rating in ``pool`` of ``around``'s player (``me``: the caller, 401 when
    anonymous; a username; ``bot:<level>``: found as profiles find them, else 404
    ``not_found``).  None: they have no rating in this preset."""
    subject = profile_selectors.subject_named(name, request.user)
    if subject.player is None:
        return selectors.rating_of(pool, bot_level=subject.bot_level)
    return selectors.rating_of(pool, player=subject.player)


class LeaderboardView(APIView):
    """A preset's leaderboard: readable by anyone (the anonymous throttle applies);
    ``around=me`` needs the caller's token."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboards_retrieve", summary="A preset's leaderboard, best first (cursor-paged), or the "
        "entries around a player", tags=["standing"],
        description="The established ratings of the preset (UNO_RATING_PROVISIONAL_GAMES rated games or more), ranked "
        "by the conservative estimate `rating` = mu - 3 sigma, the older rating first on a tie; provisional ratings "
        "are not listed. Page on with `after` = an earlier answer's `next_cursor`. `around=me` (the caller's "
        "credentials needed), `around=<username>` or `around=bot:<level>`: the entry of that player with up to "
        "`limit / 2` entries above and below it, and the entry alone as `me` (`rank` null and `provisional` true while "
        "provisional, with `results` empty; `me` null when they have no rating in this preset).",
        parameters=[
            OpenApiParameter("ruleset", str, OpenApiParameter.PATH, enum=list(engine.PRESETS),
                             description="The preset (each has its own ratings)."),
            OpenApiParameter("after", {"type": "string", "maxLength": BOARD_CURSOR_MAX_LENGTH},
                             description="The `next_cursor` of an earlier answer of this leaderboard."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": BOARD_LIMIT_MAX},
                             description=f"Entries per answer (default {BOARD_LIMIT_DEFAULT}); with `around`, "
                             "`limit / 2` above and below."),
            OpenApiParameter("around", str, description="`me`, a username or `bot:<level>`: the entries around "
                             "that player's (not with `after`)."),
        ],
        responses={200: LeaderboardSerializer, **problem_responses(
            (400, "`invalid` (with `fields`): a bad `limit` or `after`, or `after` with `around`"),
            (401, "`not_authenticated`: `around=me` without credentials; `authentication_failed`: a bad token"),
            (404, "`unknown_ruleset` (the detail names the presets); `not_found`: `around` names nobody"), 429)},
    )
    @lagging_reads  # (a read replica's, config/db_router.py)
    def get(self, request, ruleset: str):
        if ruleset not in engine.PRESETS:
            raise ApiError(404, "unknown_ruleset", f"no preset {ruleset!r}; known: {', '.join(engine.PRESETS)}")
        limit = int_param(request, "limit", BOARD_LIMIT_DEFAULT, 1, BOARD_LIMIT_MAX)
        after, around = request.query_params.get("after"), request.query_params.get("around")
        if after is not None and around is not None:
            raise ApiError(400, "invalid", "after cannot be combined with around", fields={"after": ["not with around"]})
        count = selectors.ranked_count(ruleset)
        answer = {"ruleset": ruleset, "count": count, "results": [], "next_cursor": None, "me": None}
        if around is not None:
            rating = _rating_named(ruleset, around, request)
            if rating is None:
                return Response(answer)
            found = selectors.around(rating, limit // 2)
            answer["me"] = selectors.rating_entry(rating, found.rank)
            if found.rank is not None:
                answer["results"] = found.entries
                last, last_rank = (found.below[-1], found.rank + len(found.below)) if found.below else (
                    rating, found.rank)
                if last_rank < count:
                    answer["next_cursor"] = board_cursor(ruleset, last, last_rank)
            return Response(answer)
        if after is None:
            rows, first = list(selectors.board(ruleset)[: limit + 1]), 1
        else:
            ordinal, pk, rank = board_position(ruleset, after)
            rows, first = list(selectors.after(ruleset, ordinal, pk)[: limit + 1]), rank + 1
        answer["results"] = [selectors.rating_entry(r, first + i) for i, r in enumerate(rows[:limit])]
        if len(rows) > limit:
            answer["next_cursor"] = board_cursor(ruleset, rows[limit - 1], first + limit - 1)
        return Response(answer)
