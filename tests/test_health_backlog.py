"""The health check reports a bot backlog (issue 24): ``bots`` is ``degraded``, with the
count in ``bot_backlog``, once ``HEALTH_BOT_BACKLOG_GAMES`` running games have a bot
decision overdue by more than ``HEALTH_BOT_BACKLOG_SECONDS``; the answer stays 200 with
``status`` ``degraded`` (an error in any part is still a 503)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from config import health
from games import botqueue, selectors, services
from games.models import Game, GameStatus
from games.obligations import REVIVE, TIMEOUT
from tests.helpers import assert_json, assert_problem, openapi_schema

pytestmark = pytest.mark.django_db

HEALTH = "/api/v1/health"


@pytest.fixture
def owner(make_player, fresh_heartbeats):
    player, _ = make_player("owner")
    return player


def robot_table(owner) -> int:
    """A running game played by robots only (a bot and the owner's seat, left)."""
    game = services.create_game(creator=owner, ruleset="standard", bots=[{"level": "random"}])
    services.start_game(player=owner, game_id=game.pk)
    services.leave_game(player=owner, game_id=game.pk)
    return game.pk


def human_table(owner, make_player) -> int:
    """A running game of two humans, with a time limit."""
    other, _ = make_player()
    game = services.create_game(creator=owner, ruleset="standard", max_players=2, turn_seconds=60)
    services.join_game(player=other, game_id=game.pk)
    services.start_game(player=owner, game_id=game.pk)
    return game.pk


def overdue(gid: int, seconds: float, enforce: str) -> None:
    """Make what ``gid`` owes under ``enforce`` overdue by ``seconds`` (as if nothing acted)."""
    game = Game.objects.get(pk=gid)
    at = (timezone.now() - timedelta(seconds=seconds)).isoformat()
    owed = [dict(o, deadline=at) if o["enforce"] == enforce and o["deadline"] else o for o in game.obligations]
    assert any(o["deadline"] == at for o in owed), f"game {gid} owes nothing under {enforce}"
    Game.objects.filter(pk=gid).update(obligations=owed, deadline=min(o["deadline"] for o in owed if o["deadline"]))


def test_no_backlog_is_ok(api, owner):
    robot_table(owner)  # (its robot's deadline is ahead)
    body = assert_json(api.get(HEALTH), 200)
    assert (body["status"], body["bots"], body["bot_backlog"]) == ("ok", "ok", 0)


def test_robots_overdue_past_the_threshold_make_it_degraded_with_the_count(api, owner, settings):
    settings.HEALTH_BOT_BACKLOG_SECONDS = 30
    settings.HEALTH_BOT_BACKLOG_GAMES = 3
    games = [robot_table(owner) for _ in range(4)]
    overdue(games[0], 31, REVIVE)
    overdue(games[1], 45, REVIVE)
    overdue(games[2], 20, REVIVE)  # overdue, but not by 30 s
    body = assert_json(api.get(HEALTH), 200)
    assert (body["status"], body["bots"], body["bot_backlog"]) == ("ok", "ok", 2)  # under the threshold
    overdue(games[3], 600, REVIVE)
    body = assert_json(api.get(HEALTH), 200)
    assert (body["status"], body["bots"], body["bot_backlog"]) == ("degraded", "degraded", 3)
    assert all(body[part] == "ok" for part in ("database", "broker", "worker", "sweeper"))
    # finished games are no backlog
    Game.objects.filter(pk=games[3]).update(status=GameStatus.FINISHED)
    assert assert_json(api.get(HEALTH), 200)["bot_backlog"] == 2


def test_a_humans_late_timeout_is_no_bot_backlog(api, owner, make_player, settings):
    settings.HEALTH_BOT_BACKLOG_GAMES = 1
    gid = human_table(owner, make_player)
    overdue(gid, 600, TIMEOUT)
    assert selectors.bot_backlog(timedelta(seconds=30)) == 0
    assert assert_json(api.get(HEALTH), 200)["bots"] == "ok"


def test_steps_held_back_too_long_count(api, owner, settings):
    settings.HEALTH_BOT_BACKLOG_GAMES = 2
    settings.HEALTH_BOT_BACKLOG_SECONDS = 30
    a, b, c, d = (robot_table(owner) for _ in range(4))
    version = {g.pk: g.version for g in Game.objects.filter(pk__in=[a, b, c, d])}
    now = timezone.now()
    botqueue.defer(a, version[a], owner.pk, now - timedelta(seconds=40))
    botqueue.defer(b, version[b], owner.pk, now - timedelta(seconds=10))  # not that late
    botqueue.defer(c, version[c] - 1, owner.pk, now - timedelta(seconds=90))  # stale: its game moved on
    assert selectors.bot_backlog(timedelta(seconds=30)) == 1
    botqueue.defer(d, version[d], owner.pk, now - timedelta(seconds=35))
    overdue(d, 60, REVIVE)  # the same game late both ways counts once
    body = assert_json(api.get(HEALTH), 200)
    assert (body["status"], body["bots"], body["bot_backlog"]) == ("degraded", "degraded", 2)


def test_an_unreadable_backlog_is_an_error(api, owner, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no")

    monkeypatch.setattr(selectors, "bot_backlog", broken)
    body = assert_problem(api.get(HEALTH), 503, "unavailable")
    assert (body["bots"], body["bot_backlog"], body["database"]) == ("error", None, "ok")
    assert "bots" in body["detail"]


def test_degraded_and_a_failing_part_is_a_503(api, owner, settings, monkeypatch):
    settings.HEALTH_BOT_BACKLOG_GAMES = 1
    overdue(robot_table(owner), 600, REVIVE)

    def down():
        raise ConnectionError("broker down")

    monkeypatch.setitem(health.CHECKS, "broker", down)
    body = assert_problem(api.get(HEALTH), 503, "unavailable")
    assert (body["broker"], body["bots"], body["bot_backlog"]) == ("error", "degraded", 1)
    assert "broker" in body["detail"] and "bots" not in body["detail"]


def test_the_liveness_check_does_not_look_at_the_bots(api, owner, settings):
    settings.HEALTH_BOT_BACKLOG_GAMES = 1
    overdue(robot_table(owner), 600, REVIVE)
    assert assert_json(api.get("/health"), 200) == {"status": "ok", "database": "ok", "broker": "ok"}


def test_the_schema_documents_the_backlog(api):
    schema = openapi_schema(api)
    components = schema["components"]["schemas"]
    health_schema = components["Health"]["properties"]
    assert {"bots", "bot_backlog"} <= set(health_schema)

    def enum(prop):  # (an enum component, referenced alone or through allOf)
        ref = prop.get("$ref") or prop["allOf"][0]["$ref"]
        return set(components[ref.rsplit("/", 1)[-1]]["enum"])

    assert enum(health_schema["status"]) == {"ok", "degraded"}
    assert enum(health_schema["bots"]) == {"ok", "degraded", "error"}
    assert "HEALTH_BOT_BACKLOG_SECONDS" in health_schema["bot_backlog"]["description"]
