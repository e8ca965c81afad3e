"""A client generated from the server's own schema plays a game: openapi-python-client
(a dev dependency) generates a package from ``/api/schema/`` of a real gunicorn, with
no warning, and its typed calls register two players, create, join and start a game of
one round, and play it to the end, posting the ``legal_actions`` entries of the typed
game view back unchanged (the generated models' ``to_dict``, as the generated call does)."""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from games.models import Game, Move
from tests.conftest import DEFAULT_PASSWORD
from tests.server_support import gunicorn  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "uno_api_client"


@pytest.fixture
def generated(gunicorn, tmp_path):  # noqa: F811 (fixture)
    """The client package generated from the live server's schema, imported."""
    schema = requests.get(f"{gunicorn.url}/api/schema/", params={"format": "json"}, timeout=30)
    assert schema.status_code == 200
    (tmp_path / "schema.json").write_text(schema.text)
    bin_dir = Path(sys.executable).parent  # openapi-python-client, and ruff for its post-hooks
    started = time.monotonic()
    result = subprocess.run(
        [str(bin_dir / "openapi-python-client"), "generate", "--path", "schema.json", "--output-path", PACKAGE,
         "--meta", "none", "--fail-on-warning"],
        cwd=tmp_path, env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True, text=True, timeout=120,
    )
    print(f"openapi-python-client generated the client in {time.monotonic() - started:.1f} s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_a_generated_client_plays_a_game_posting_legal_actions_unchanged(generated, gunicorn):  # noqa: F811
    def operation(tag: str, name: str):
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{name}")

    models = importlib.import_module(f"{PACKAGE}.models")
    register = operation("auth", "auth_register")
    create, join, start, retrieve, actions, moves_of, listing = (
        operation("games", f"games_{name}") for name in ("create", "join", "start", "retrieve", "actions", "moves",
                                                         "list"))

    anonymous = generated.Client(base_url=gunicorn.url, raise_on_unexpected_status=True)
    players = []
    for name in ("gen_alice", "gen_bob"):
        registered = register.sync(
            client=anonymous, body=models.NewPlayerRequest(username=name, password=DEFAULT_PASSWORD))
        assert isinstance(registered, models.Registration), registered
        players.append(generated.AuthenticatedClient(base_url=gunicorn.url, token=registered.token, prefix="Token",
                                                     raise_on_unexpected_status=True))
    alice, bob = players

    created = create.sync_detailed(client=alice, body=models.CreateGameRequest(
        ruleset=models.RulesetEnum.STANDARD, options=models.Options(rounds=1), max_players=2))
    assert created.status_code == 201 and isinstance(created.parsed, models.Game), created.content
    gid = created.parsed.id
    assert created.headers["Location"].endswith(f"/api/v1/games/{gid}")
    assert isinstance(join.sync(gid, client=bob), models.Game)
    assert isinstance(start.sync(gid, client=alice), models.Game)

    rng = random.Random(12)
    posted = 0
    while True:
        views = []
        for client in players:
            response = retrieve.sync_detailed(gid, client=client)
            assert response.status_code == 200 and isinstance(response.parsed, models.Game), response.content
            # every entry parsed into its typed variant, and back to the very JSON the server sent
            raw = json.loads(response.content)["legal_actions"]
            assert [a.to_dict() for a in response.parsed.legal_actions] == raw
            views.append((client, response.parsed))
        if views[0][1].status == models.GameStatusEnum.FINISHED:
            break
        # the seat in turn (or, when it has nothing to do, whoever has: out of turn)
        acting = [(c, v) for c, v in views if v.legal_actions]
        client, view = next(((c, v) for c, v in acting if v.seat == v.current_seat), acting[0])
        plays = [a for a in view.legal_actions if isinstance(a, (models.PlayAction, models.ChooseColorAction))]
        action = rng.choice(plays or view.legal_actions)
        result = actions.sync_detailed(gid, client=client, body=action)
        assert result.status_code == 200 and isinstance(result.parsed, models.ActionResult), result.content
        assert result.parsed.game.version == view.version + 1
        posted += 1
        assert posted < 2000, "the game did not finish"

    game = Game.objects.get(pk=gid)
    assert game.status == "finished" and game.winner_seat is not None
    assert Move.objects.filter(game_id=gid).count() == game.version == posted + 1  # + the start
    moves = moves_of.sync(gid, client=bob, limit=500)
    assert isinstance(moves, models.MovePage) and [m.seq for m in moves.results] == list(range(1, posted + 2))
    # the games list, by cursor, through the generated call
    first = listing.sync(client=alice, mine=True, limit=1)
    assert isinstance(first, models.GamePage) and [g.id for g in first.results] == [gid]
    assert first.next_cursor is None and first.count == 1
    print(f"game {gid}: {posted} actions posted through the generated client")
