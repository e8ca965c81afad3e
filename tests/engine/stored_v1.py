"""Make ``fixtures/stored_v1_games.json.gz``: real games stored by the server as it was
before the engine v2 (issue 9), for ``tests/test_stored_v1_games.py``.

The games are played through that server's own services (players' moves, bots, the
timer), so their rows (game, seats, moves with their events, rounds, scores, the state
snapshot in the engine's format 1) are exactly what that server stored.  Some are
finished, some left running in the middle of a decision.  Run it in a checkout of the
commit before the engine v2 (the one the golden corpus was recorded with), on a
database of its own:

    git archive 14733b7 | tar -x -C /tmp/v1 && cp tests/engine/stored_v1.py /tmp/v1/
    cd /tmp/v1 && DATABASE_URL=postgres://postgres@127.0.0.1:5432/<scratch db> \\
        /work/main/.venv/bin/python manage.py migrate && \\
        DATABASE_URL=... /work/main/.venv/bin/python stored_v1.py OUT.json.gz

It flushes that database first.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import sys
from datetime import timedelta

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import engine, robots, services  # noqa: E402
from games.models import Game, Seat  # noqa: E402
from players.models import Player  # noqa: E402

#: (ruleset, options, humans, bot levels, turn_seconds, where to stop: None = at the end, or
#: (moves at least, what the stored state must then wait for: a pending type, or
#: "uno_exposed"; None: anything))
GAMES = [
    ("standard", {"rounds": 1}, 2, [], None, None),
    ("standard", {"rounds": 1}, 1, ["normal", "easy"], 60, None),
    ("house", {"stacking": "any", "jump_in": "exact", "rounds": 2}, 2, ["random", "normal"], 3600, None),
    ("standard", {"seven_zero": True, "draw_limit": None, "target_score": 60}, 3, [], None, None),
    ("standard", {"stacking": "same", "uno_penalty": 4}, 2, ["normal"], 120, (40, "penalty")),
    ("house", {"jump_in": "super", "penalty_skips_turn": True}, 4, [], None, (55, "play_drawn")),
    ("standard", {"two_player_replay": False, "draw_limit": 3}, 2, [], 86400, (30, "uno_exposed")),
    ("standard", {}, 1, ["hard", "random"], None, (25, None)),
]


def waits_for(state: dict, what: str | None) -> bool:
    if what is None:
        return True
    if what == "uno_exposed":
        return state["uno_exposed"] is not None
    return (state["pending"] or {}).get("type") == what


def players(n: int) -> list[Player]:
    return [Player.objects.create_user(username=f"v1-player-{i}", password="v1-password-1") for i in range(n)]


def play(gid: int, people: dict[int, Player], rng: random.Random, stop: tuple | None) -> None:
    """Move on: the seat that owes the decision (a person, a bot, or the timer for a
    person now and then), or another person with an out-of-turn chance (a catch, a
    call, a jump-in).  Stops as ``stop`` says, or at the end."""
    moves = 0
    while True:
        game = Game.objects.get(pk=gid)
        if game.status != "active":
            return
        if stop is not None and moves >= stop[0] and waits_for(game.state, stop[1]):
            return
        state = engine.State.from_dict(game.state)
        actor = state.actor()
        others = [s for s in people if s != actor and engine.legal_actions(state, s)]
        if others and rng.random() < 0.3:
            seat = rng.choice(others)
        else:
            seat = actor
        if seat not in people:
            robots.bot_step(gid, game.version)
        elif seat == actor and game.turn_seconds and rng.random() < 0.05:
            Game.objects.filter(pk=gid).update(deadline=timezone.now() - timedelta(seconds=1))
            robots.expire_deadline(gid)
        else:
            legal = engine.legal_actions(state, seat)
            plays = [a for a in legal if a["type"] in ("play", "choose_color", "challenge")]
            action = rng.choice(plays if plays and rng.random() < 0.8 else legal)
            services.act(game_id=gid, player=people[seat], action=action, expected_version=game.version)
        moves += 1


def main(out: str) -> None:
    call_command("flush", interactive=False, verbosity=0)
    people = players(4)
    rng = random.Random(20240901)
    for ruleset, options, humans, bots, turn_seconds, stop in GAMES:
        game = services.create_game(creator=people[0], ruleset=ruleset, options=options,
                                    max_players=humans + len(bots), bots=[{"level": b} for b in bots],
                                    turn_seconds=turn_seconds)
        for p in people[1:humans]:
            services.join_game(player=p, game_id=game.pk)
        services.start_game(player=people[0], game_id=game.pk)
        seats = {s.seat: s.player for s in Seat.objects.filter(game=game) if s.player_id is not None}
        play(game.pk, seats, rng, stop)
        game.refresh_from_db()
        print(f"game {game.pk}: {ruleset} {options} {game.status}, version {game.version}, "
              f"pending {(game.state or {}).get('pending')}, uno_exposed {(game.state or {}).get('uno_exposed')}",
              file=sys.stderr)
    buf = io.StringIO()
    call_command("dumpdata", "players.player", "games.game", "games.seat", "games.round", "games.score",
                 "games.move", indent=0, stdout=buf)
    with open(out, "wb") as raw, gzip.GzipFile("", "wb", compresslevel=9, fileobj=raw, mtime=0) as f:
        f.write(buf.getvalue().encode())


if __name__ == "__main__":
    main(sys.argv[1])
