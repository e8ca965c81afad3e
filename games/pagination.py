"""Paging of the games list, two ways over one ordering, and the query parameters of
paging.

* Pages, as always: ``page`` and ``page_size``, with ``count``, ``next`` and ``previous``.
* A cursor, in the words of ``/moves``: ``after`` (the ``next_cursor`` of an earlier
  answer) and ``limit``.  The cursor is a keyset position, the sort key of the last game
  listed: games created or finished meanwhile neither repeat nor shift the games after
  it, and it never expires (no offset, no state on the server).  It is opaque to
  clients (base64url of JSON) and names its ordering: a cursor of the ``my_turn`` list
  is refused by the others, and the reverse.

Every answer carries ``next_cursor`` (null at the end), so that a client may start with
a page and go on with the cursor.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, Q, QuerySet
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from config.problems import ApiError
from games.models import Game

#: the cursor's parameter (a ``next_cursor``) and the number of games per answer
AFTER, LIMIT = "after", "limit"
#: a longer ``after`` is no cursor of ours (they are about 60 characters)
CURSOR_MAX_LENGTH = 200


def int_param(request, name: str, default: int, lo: int, hi: int) -> int:
    """Query parameter ``name``, an integer from ``lo`` to ``hi`` (``default`` if absent),
    else 400 ``invalid`` naming it."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lo - 1
    if not lo <= value <= hi:
        raise ApiError(400, "invalid", f"{name} must be an integer from {lo} to {hi}",
                       fields={name: [f"an integer from {lo} to {hi}"]})
    return value


@dataclass(frozen=True)
class Keyset:
    """An ordering of games by ``field`` then ``id``: newest first (``descending``; the
    field is never null), or soonest first with nulls last."""

    name: str
    field: str
    descending: bool

    def ordering(self) -> tuple:
        if self.descending:
            return F(self.field).desc(), "-id"
        return F(self.field).asc(nulls_last=True), "id"

    def after(self, value: datetime | None, pk: int) -> Q:
        """The games that come after the one with this sort key."""
        f = self.field
        if self.descending:
            return Q(**{f"{f}__lt": value}) | Q(**{f: value, "id__lt": pk})
        if value is None:
            return Q(**{f"{f}__isnull": True, "id__gt": pk})
        return Q(**{f"{f}__gt": value}) | Q(**{f: value, "id__gt": pk}) | Q(**{f"{f}__isnull": True})

    def cursor(self, game: Game) -> str:
        """The position right after ``game``."""
        value = getattr(game, self.field)
        raw = json.dumps([self.name, value.isoformat() if value else None, game.pk], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def position(self, cursor: str) -> tuple[datetime | None, int]:
        """The sort key a ``cursor`` of this ordering names, else 400 ``invalid`` naming ``after``."""
        try:
            if len(cursor) > CURSOR_MAX_LENGTH:
                raise ValueError
            name, value, pk = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
            when = None if value is None and not self.descending else datetime.fromisoformat(value)
            if name != self.name or type(pk) is not int or not 0 < pk < 2**63 or (when and when.tzinfo is None):
                raise ValueError
        except (ValueError, TypeError, binascii.Error):
            raise ApiError(400, "invalid", f"{AFTER} must be the next_cursor of an earlier answer of this list",
                           fields={AFTER: ["the next_cursor of an earlier answer of this list"]}) from None
        return when, pk


#: the list's orderings: every game newest first; ``my_turn``, the most urgent deadline first
NEWEST = Keyset("newest", "created_at", descending=True)
MOST_URGENT = Keyset("most_urgent", "deadline", descending=False)


class GamePagination(PageNumberPagination):
    """The games list, paged by number or by cursor (``after`` or ``limit`` given; not
    with ``page`` or ``page_size``), in ``keyset``'s order.

    ``page`` and ``page_size`` must be positive integers (``page_size`` at most
    max_page_size), else 400 ``invalid`` with ``fields``; DRF would fall back to the
    default size, or answer 404 for a page that is not a number.  A page past the end
    stays 404 ``not_found``.  ``limit`` has the bounds of ``page_size``; a bad ``after``
    answers 400 ``invalid`` naming it."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    last_page_strings = ()

    def __init__(self, keyset: Keyset) -> None:
        self.keyset = keyset
        self.by_cursor = False
        self.next_cursor: str | None = None

    def get_page_size(self, request) -> int:
        return int_param(request, self.page_size_query_param, self.page_size, 1, self.max_page_size)

    def get_page_number(self, request, paginator) -> int:
        name = self.page_query_param
        raw = request.query_params.get(name, "1")
        try:  # int() also refuses digit strings over sys.get_int_max_str_digits()
            number = int(raw) if raw.isascii() and raw.isdigit() else 0
        except ValueError:
            number = 0
        if number < 1:
            raise ApiError(400, "invalid", f"{name} must be a positive integer",
                           fields={name: ["a positive integer"]})
        return number

    def paginate_queryset(self, queryset: QuerySet[Game], request, view=None) -> list[Game]:
        self.request = request
        queryset = queryset.order_by(*self.keyset.ordering())
        params = request.query_params
        self.by_cursor = AFTER in params or LIMIT in params
        if not self.by_cursor:
            games = list(super().paginate_queryset(queryset, request, view))
            self.next_cursor = self.keyset.cursor(games[-1]) if self.page.has_next() else None
            return games
        mixed = [name for name in (self.page_query_param, self.page_size_query_param) if name in params]
        if mixed:
            raise ApiError(400, "invalid", f"{' and '.join(mixed)} cannot be combined with {AFTER} or {LIMIT}",
                           fields={name: [f"not with {AFTER} or {LIMIT}"] for name in mixed})
        self.limit = int_param(request, LIMIT, self.page_size, 1, self.max_page_size)
        self.count = queryset.count()
        if AFTER in params:
            queryset = queryset.filter(self.keyset.after(*self.keyset.position(params[AFTER])))
        games = list(queryset[: self.limit + 1])
        self.next_cursor = self.keyset.cursor(games[self.limit - 1]) if len(games) > self.limit else None
        return games[: self.limit]

    def get_paginated_response(self, data: list[dict[str, Any]]) -> Response:
        if self.by_cursor:
            count, previous, next_url = self.count, None, None
            if self.next_cursor is not None:
                next_url = replace_query_param(self.request.build_absolute_uri(), AFTER, self.next_cursor)
                next_url = replace_query_param(next_url, LIMIT, self.limit)
        else:
            count, previous, next_url = self.page.paginator.count, self.get_previous_link(), self.get_next_link()
        return Response({"count": count, "next": next_url, "previous": previous, "results": data,
                         "next_cursor": self.next_cursor})
