"""The API's JSON parser: DRF's, refusing JSON nested deeper than ``MAX_JSON_DEPTH``.

Python's json module recurses once per nested array or object: a 1 MiB body of ``[``
raised RecursionError, a 500 (and deep values that did parse could recurse again later,
in validation or in an error's rendering).  Before ``json.loads`` sees the body, one
iterative scan measures its nesting: over the limit the answer is 400 ``malformed_json``
and nothing else happens.

The scan drops the JSON strings (one regular expression, possessive: no backtracking)
and follows the brackets left, with a counter, stopping as soon as it passes the limit.
A body with no more opening brackets than the limit is not scanned at all.  For valid
JSON it finds the true depth; for invalid JSON it never finds less than the depth
``json.loads`` would reach before its error.
"""

from __future__ import annotations

import codecs
import re

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

#: A JSON string, escapes included (possessive quantifiers: linear, no backtracking).
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays and objects more than ``limit`` deep."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _encoding(parser_context: dict) -> str:
    get_encoding = getattr(parsers, "get_encoding", None)  # DRF >= 3.16: text codecs only
    if get_encoding is not None:
        return get_encoding(parser_context)
    return parser_context.get("encoding", settings.DEFAULT_CHARSET)


class JSONParser(parsers.JSONParser):
    """``rest_framework.parsers.JSONParser`` with a depth limit (``MAX_JSON_DEPTH``; 0: none)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = _encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError as exc:  # UnicodeDecodeError
            raise ParseError(f"JSON parse error - {exc}") from None
        limit = settings.MAX_JSON_DEPTH
        if limit and nesting_exceeds(text, limit):
            raise ParseError(
                f"JSON parse error - arrays and objects nested deeper than {limit} levels "
                "(the most this server accepts)."
            )
        try:
            return json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
