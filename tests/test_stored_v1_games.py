"""Games stored by the server before the engine v2 (issue 9) keep working.

``tests/engine/fixtures/stored_v1_games.json.gz`` holds real rows of that server
(made by ``tests/engine/stored_v1.py``: players, bots and the timer through its
services): finished games, and running ones stopped on a pending penalty, after a draw,
with an UNO to catch.  Their state snapshots are in the engine's format 1.  Today they
load, pass ``verify_game``, show their view and legal actions, and play on (some to
their end), verified again after.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from django.core.management import call_command

from games import engine, robots, selectors, services
from games.models import Game

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "engine" / "fixtures" / "stored_v1_games.json.gz"


@pytest.fixture
def stored():
    call_command("loaddata", str(FIXTURE), verbosity=0)
    games = list(Game.objects.order_by("pk"))
    assert len(games) == 8
    assert all("format" not in g.state and "pending" in g.state for g in games), "format 1 snapshots"
    return games


def verify(gid: int) -> str:
    out = io.StringIO()
    call_command("verify_game", str(gid), stdout=out, stderr=out)
    return out.getvalue()


def test_stored_games_verify_as_they_are(stored):
    for game in stored:
        assert verify(game.pk).startswith(f"game {game.pk}: OK")
    running = [g for g in stored if g.status == "active"]
    waiting_for = {(g.state["pending"] or {}).get("type") for g in running}
    assert {"penalty", "play_drawn"} <= waiting_for
    assert any(g.state["uno_exposed"] is not None for g in running)


def test_stored_running_games_show_and_play_on(stored, settings):
    settings.UNO_HARD_BUDGET_MS = 2  # one game has a hard bot: its search need not be long here
    rng = random.Random(9)
    moved_on = []
    for game in (g for g in stored if g.status == "active"):
        state = engine.State.from_dict(game.state)
        people = {s.seat: s.player for s in game.seats.all() if s.player_id is not None}
        for seat, player in people.items():
            shown = selectors.game_view(game, player)
            assert shown["legal_actions"] == engine.legal_actions(state, seat)
            assert shown["pending"] == engine.view(state, seat)["pending"]
            assert shown["hand"] == engine.view(state, seat)["hand"]
        rounds_before = game.round
        for _ in range(300):
            game.refresh_from_db()
            if game.status != "active":
                break
            state = engine.State.from_dict(game.state)
            seat = state.actor()
            if seat in people:
                legal = engine.legal_actions(state, seat)
                plays = [a for a in legal if a["type"] in ("play", "choose_color")]
                services.act(game_id=game.pk, player=people[seat], action=rng.choice(plays or legal),
                             expected_version=game.version)
            else:
                assert robots.bot_step(game.pk, game.version)
        game.refresh_from_db()
        assert game.state["format"] == 2  # saved by today's engine from the first move on
        assert verify(game.pk).startswith(f"game {game.pk}: OK")
        moved_on.append(game.status == "finished" or game.round > rounds_before)
    assert any(moved_on), "no stored game played on past the end of a round"
