"""Issue 24: JSON nested too deep answers 400 malformed_json before it is parsed, on every
endpoint (config/parsers.py); it was a RecursionError, a 500."""

from __future__ import annotations

import pytest

from config.parsers import nesting_exceeds
from players.models import Player
from tests.games_support import actor, by_seat, clients, refused, start_table  # noqa: F401 (clients: a fixture)
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register"


def nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


@pytest.mark.parametrize("body", [
    "[" * 200_000,  # unterminated: was RecursionError, a 500
    nested(100_000),
    nested(33),
    '{"username": ' + nested(40, '"x"') + ', "password": "s3cret-enough"}',
    '{"a":' * 50_000 + "1" + "}" * 50_000,
])
def test_deep_json_is_refused_on_registration(api, body):
    response = api.post(REGISTER, data=body, content_type="application/json")

    problem = assert_problem(response, 400, "malformed_json")
    assert "nested deeper than 32 levels" in problem["detail"]
    assert not Player.objects.exists()


def test_json_up_to_the_limit_is_parsed(api):
    body = '{"username": ' + nested(31, '"x"') + ', "password": "s3cret-enough"}'  # 32 levels

    problem = assert_problem(api.post(REGISTER, data=body, content_type="application/json"), 400, "invalid")

    assert "username" in problem["fields"]


def test_the_limit_is_a_setting(api, settings):
    settings.MAX_JSON_DEPTH = 3
    assert_problem(api.post(REGISTER, data=nested(4), content_type="application/json"), 400, "malformed_json")
    settings.MAX_JSON_DEPTH = 0  # none: Python's own recursion limit (not a 500 at this depth)
    assert_problem(api.post(REGISTER, data=nested(100), content_type="application/json"), 400, "invalid")


def test_deep_json_is_refused_on_a_game_action(clients):
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1})
    mover = by_seat(gid, [a, b])[actor(gid)]

    refused(mover, gid, '{"type": "draw", "x": ' + nested(100_000) + "}", 400, "malformed_json", raw=True)
    refused(mover, gid, "[" * 500_000, 400, "malformed_json", raw=True)


@pytest.mark.parametrize("text, deep", [
    (nested(32), False),
    (nested(33), True),
    ('["' + "[" * 100 + '"]', False),  # brackets in a string are text
    ('["\\"' + "[" * 100 + '"]', False),  # ... after an escaped quote too
    ('["\\\\"' + ", [" * 40 + "]" * 41, True),  # an escaped backslash ends the string
    ('{"a": "}}}}", "b": ' + nested(33) + "}", True),
    ("[]" * 10_000, False),  # many, not deep
    ('"' + "[" * 100, True),  # an unterminated string: counted (json.loads refuses it anyway)
])
def test_nesting_is_measured_outside_strings(text, deep):
    assert nesting_exceeds(text, 32) is deep
