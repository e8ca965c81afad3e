"""manage.py verify_game: a played game verifies; any tampering is found."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from games import engine, robots, services
from games.models import Game, Move, Round, Score
from tests.games_support import clients, create_game, play_out, start_table  # noqa: F401 (fixture)
from tests.presets_support import seat_counts, seats_for, short

pytestmark = pytest.mark.django_db


def verify(*ids: int) -> str:
    out = io.StringIO()
    call_command("verify_game", *map(str, ids), stdout=out, stderr=out)
    return out.getvalue()


def verify_fails(gid: int, expected: str) -> str:
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_game", str(gid), stdout=out, stderr=out)
    text = out.getvalue()
    assert "MISMATCH" in text and expected in text, text
    return text


@pytest.fixture
def played(clients):
    """A finished 3-player game of two rounds with 7-0 and jump-in."""
    gid = start_table(clients(3), options={"rounds": 2, "seven_zero": True, "jump_in": "exact"})
    play_out(gid, random.Random(4))
    return gid


def test_a_played_game_verifies(played):
    out = verify(played)
    assert out.startswith(f"game {played}: OK") and "finished" in out
    assert Round.objects.filter(game_id=played).count() >= 2


def test_running_and_waiting_games_verify(clients):
    a, b = clients(2)
    gid = start_table([a, b])
    rng = random.Random(1)
    for _ in range(15):
        game = Game.objects.get(pk=gid)
        state = engine.State.from_dict(game.state)
        seat = state.actor()
        player = game.seats.get(seat=seat).player
        services.act(game_id=gid, player=player, action=rng.choice(engine.legal_actions(state, seat)))
    waiting = create_game(a)["id"]
    out = verify(gid, waiting)
    assert f"game {gid}: OK" in out and f"game {waiting}: OK (waiting" in out


def test_timer_and_bot_moves_verify(clients, settings):
    (alice,) = clients(1)
    gid = create_game(alice, bots=[{"level": "easy"}, {"level": "random"}], turn_seconds=30, options={"rounds": 1})["id"]
    alice.post(f"/api/v1/games/{gid}/start")
    for _ in range(3000):
        game = Game.objects.get(pk=gid)
        if game.status == "finished":
            break
        if game.seats.get(seat=game.current_seat).player_id is None:
            assert robots.bot_step(gid, game.version)
        else:  # alice never plays: the timer acts for her
            Game.objects.filter(pk=gid).update(deadline=game.deadline.replace(year=2000))
            assert robots.expire_deadline(gid, game.version)
    assert Game.objects.get(pk=gid).status == "finished"
    assert Move.objects.filter(game_id=gid, by="timer").exists() and Move.objects.filter(game_id=gid, by="bot").exists()
    assert "OK" in verify(gid)


def test_a_tampered_move_is_found(played):
    move = Move.objects.filter(game_id=played, action__type="play").order_by("seq")[3]
    move.action = {"type": "draw"}
    move.save()
    verify_fails(played, f"move {move.seq}")


def test_a_tampered_card_is_found(played):
    move = Move.objects.filter(game_id=played, action__type="play").order_by("-seq").first()
    others = [c for c in range(108) if c != move.action["card"]]
    move.action = {**move.action, "card": others[0]}
    move.save()
    verify_fails(played, f"move {move.seq}")


def test_tampered_events_are_found(played):
    move = Move.objects.filter(game_id=played, seq=2).get()
    move.events = [*move.events, {"type": "uno", "seat": 0}]
    move.save()
    verify_fails(played, "move 2")


def test_a_tampered_state_is_found(played):
    game = Game.objects.get(pk=played)
    state = dict(game.state)
    state["hands"] = [list(h) for h in state["hands"]]
    state["hands"][0].append(state["draw_pile"][0])
    Game.objects.filter(pk=played).update(state=state)
    verify_fails(played, "state: hands[0]")


def test_a_tampered_score_is_found(played):
    score = Score.objects.filter(round__game_id=played).order_by("round__number", "seat").last()
    score.points += 10
    score.save()
    verify_fails(played, "scores")


def test_a_missing_move_or_seed_change_is_found(played):
    game = Game.objects.get(pk=played)
    Game.objects.filter(pk=played).update(seed=str(int(game.seed) + 1))
    verify_fails(played, "move 1 (the deal)")
    Game.objects.filter(pk=played).update(seed=game.seed)
    Move.objects.filter(game_id=played, seq=5).delete()
    verify_fails(played, "move sequence numbers")


def test_a_tampered_winner_is_found(played):
    game = Game.objects.get(pk=played)
    Game.objects.filter(pk=played).update(winner_seat=(game.winner_seat + 1) % 3)
    verify_fails(played, "winner_seat")


def test_unknown_game():
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_game", "999999", stdout=out, stderr=out)
    assert "no such game" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_exit_status_from_the_command_line(clients):
    """Through manage.py: status 0 and OK, then 1 after tampering (the subprocess needs
    a database it can see: PostgreSQL, not the in-memory SQLite test database)."""
    if connection.vendor != "postgresql":
        pytest.skip("the manage.py subprocess cannot see an in-memory SQLite test database")
    gid = start_table(clients(2), options={"rounds": 1})
    play_out(gid)
    env = {**os.environ, "DATABASE_URL": _database_url()}
    manage = [sys.executable, str(Path(__file__).resolve().parent.parent / "manage.py"), "verify_game", str(gid)]
    ok = subprocess.run(manage, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and f"game {gid}: OK" in ok.stdout, ok.stdout + ok.stderr
    Move.objects.filter(game_id=gid, seq=2).update(action={"type": "pass"})
    bad = subprocess.run(manage, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "MISMATCH" in bad.stdout, bad.stdout + bad.stderr


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


# -- every preset -------------------------------------------------------------------------
def play_with_bots(client, preset: str, rng: random.Random, monkeypatch) -> int:
    """A game of ``preset`` (one round where it takes it) between ``client`` and bots of
    the four levels in turn (as many seats as the preset allows, up to 4), to its end:
    the bots through the server's robot steps (no reaction delay), the person at
    random."""
    monkeypatch.setattr(robots.bots, "reaction_delay", lambda *args, **kwargs: 0.0)
    options = short(preset)
    n = seats_for(preset, options, seat_counts(preset)[-1])
    levels = [("hard", "normal", "easy", "random")[i % 4] for i in range(n - 1)]
    gid = create_game(client, ruleset=preset, options=options, max_players=n,
                      bots=[{"level": lv} for lv in levels])["id"]
    assert client.post(f"/api/v1/games/{gid}/start").status_code == 200
    player = client.player
    for _ in range(5000):
        game = Game.objects.get(pk=gid)
        if game.status == "finished":
            return gid
        if robots.bot_step(gid, game.version):
            continue
        state = engine.State.from_dict(game.state)
        legal = engine.legal_actions(state, 0)
        assert legal, f"nobody acts: seat {state.actor()} owes a decision, no robot acted"
        plays = [a for a in legal if a["type"] not in ("draw", "pass")]
        services.act(game_id=gid, player=player, action=rng.choice(plays or legal))
    raise AssertionError(f"the {preset} game did not finish")


@pytest.mark.parametrize("preset", list(engine.PRESETS))
def test_a_bot_game_of_every_preset_verifies_and_a_tampered_one_does_not(clients, monkeypatch, preset):
    (alice,) = clients(1)
    gid = play_with_bots(alice, preset, random.Random(preset), monkeypatch)
    out = verify(gid)
    assert out.startswith(f"game {gid}: OK") and "finished" in out, out
    assert Move.objects.filter(game_id=gid, by="bot").exists()
    # one tampered move: an event the engine did not emit
    move = Move.objects.filter(game_id=gid).order_by("seq")[Game.objects.get(pk=gid).version // 2]
    move.events = [*move.events, {"type": "uno", "seat": 0}]
    move.save()
    verify_fails(gid, f"move {move.seq}")
