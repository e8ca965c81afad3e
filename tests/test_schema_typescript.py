"""A TypeScript client generated from the server's own schema compiles strictly and plays
a game: openapi-typescript (npm, pinned by tests/ts_client/package-lock.json) generates
``schema.d.ts`` from ``/api/schema/`` of a real gunicorn, ``tsc --strict`` compiles
tests/ts_client/bot.ts against it (openapi-fetch's ``createClient<paths>()``; no cast:
it switches over ``pending.type``, the game's status, reads ``Card.color``, the players
of ``GameSummary`` and ``Scores``, the feed's ``decision``), and node runs it: it
registers two players, creates, joins and starts a game of one round, and plays it to
the end by posting ``legal_actions`` entries back, while the first player's feed and a
spectator's view of the game's event stream run beside it.  Every event they received is
checked here against the schema: the variant its ``event:`` names, its ``data`` against
that variant's ``x-contentSchema``.

Skipped, saying why, where node or npm is not installed or npm cannot reach its
registry.  ``npm ci`` installs into .run/ts_client (again only when the lock file
changed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import jsonschema
import pytest
import requests

from games.models import Game, Move
from tests.server_support import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

PROJECT = ROOT / "tests" / "ts_client"
CACHE = ROOT / ".run" / "ts_client"
#: what npm says when it cannot reach its registry
OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "network")


def run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        output = b"".join(part or b"" for part in (exc.stdout, exc.stderr)).decode(errors="replace")
        pytest.fail(f"{' '.join(cmd)} did not end within {timeout} s:\n{output[-3000:]}")


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """tests/ts_client's packages (``npm ci`` into .run/ts_client when its lock changed)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed: the generated TypeScript client is not tested")
    version = run(["node", "--version"], ROOT, timeout=30).stdout.strip()  # e.g. v20.20.2
    if int(version.lstrip("v").split(".")[0]) < 18:
        pytest.skip(f"node {version}: the bot needs node 18 or later (fetch, web streams)")
    lock = (PROJECT / "package-lock.json").read_text()
    installed = CACHE / "installed-lock.json"  # the lock of the last complete install
    if not (installed.exists() and installed.read_text() == lock and (CACHE / "node_modules").is_dir()):
        CACHE.mkdir(parents=True, exist_ok=True)
        installed.unlink(missing_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(PROJECT / name, CACHE / name)
        result = run(["npm", "ci", "--no-audit", "--no-fund"], CACHE, timeout=600)
        output = result.stdout + result.stderr
        if result.returncode != 0 and any(sign in output for sign in OFFLINE):
            pytest.skip(f"npm could not reach its registry (npm ci in {CACHE}):\n{output[-2000:]}")
        assert result.returncode == 0, output
        installed.write_text(lock)
    return CACHE / "node_modules"


def test_the_bot_has_no_cast():
    """What the compiler checks is not talked away: no ``as`` (nor ``as const``), no ``any``."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", (PROJECT / "bot.ts").read_text(), flags=re.S)
    code = re.sub(r"`[^`]*`|\"[^\"\n]*\"", '""', code)  # strings are not code
    # `x as T`, `<T>x` (a `<` after no name: not a generic's), `any`, a silenced error
    assert not re.findall(r"\bas\s+[\w{(\[]|(?<![\w\s])\s*<[\w\[\]]+>\s*[\w(]|\bany\b|@ts-", code)


def nullable_as_json_schema(node):
    """OpenAPI 3.0 as JSON Schema: ``nullable`` admits null, beside a ``type`` or, on a
    ``oneOf``/``allOf``/``$ref`` (a typed union, an enum component), around it."""
    if isinstance(node, list):
        return [nullable_as_json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_as_json_schema(v) for k, v in node.items() if k != "nullable"}
    if not node.get("nullable"):
        return out
    if "type" in out:
        return {**out, "type": [out["type"], "null"]}
    return {"anyOf": [out, {"type": "null"}]}


def stream_validators(schema: dict, path: str) -> dict[str, tuple[jsonschema.Draft7Validator, jsonschema.Draft7Validator]]:
    """Event name -> (a validator of the event as a parser reads it, of its data), from the
    stream operation's 200 (``oneOf`` of one event schema per name)."""
    components = nullable_as_json_schema(schema["components"])
    events = schema["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"]["oneOf"]
    out = {}
    for event in events:
        (name,) = event["properties"]["event"]["enum"]
        data = event["properties"]["data"]["x-contentSchema"]
        out[name] = (jsonschema.Draft7Validator({**nullable_as_json_schema(event), "components": components}),
                     jsonschema.Draft7Validator({**data, "components": components}))
    return out


def check_events(received: list[dict], validators: dict) -> list[tuple[str, dict]]:
    """Every event received is one the schema lists, and matches it: its frame and its data."""
    out = []
    for raw in received:
        frame = {k: v for k, v in raw.items() if v is not None}
        assert raw["event"] in validators, f"an event the schema does not list: {raw}"
        envelope, data = validators[raw["event"]]
        errors = [e.message for e in envelope.iter_errors(frame)]
        parsed = json.loads(raw["data"])
        errors += [f"data: {e.json_path}: {e.message}" for e in data.iter_errors(parsed)]
        assert not errors, f"{raw['event']} {raw.get('id')} does not match the schema: {errors[:3]}"
        out.append((raw["event"], parsed))
    return out


def test_a_generated_typescript_client_compiles_strictly_and_plays_a_game(node_modules, gunicorn, tmp_path):
    response = requests.get(f"{gunicorn.url}/api/schema/", params={"format": "json"}, timeout=30)
    assert response.status_code == 200
    schema = response.json()
    (tmp_path / "schema.json").write_text(response.text)
    for name in ("package.json", "tsconfig.json", "bot.ts"):
        shutil.copy(PROJECT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(node_modules, target_is_directory=True)
    bin_dir = node_modules / ".bin"

    generated = run([str(bin_dir / "openapi-typescript"), "schema.json", "-o", "schema.d.ts"], tmp_path, timeout=120)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    types = (tmp_path / "schema.d.ts").read_text()
    assert 'pending: components["schemas"]["Pending"] | null;' in types  # the union, its `type` kept
    compiled = run([str(bin_dir / "tsc"), "-p", "tsconfig.json", "--strict"], tmp_path, timeout=300)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr

    prefix = f"ts{uuid.uuid4().hex[:8]}"
    played = run(["node", "dist/bot.js", gunicorn.url, prefix], tmp_path, timeout=300)
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:] + gunicorn.output()
    out = json.loads(played.stdout.strip().splitlines()[-1])

    game = Game.objects.get(pk=out["game"])
    assert game.status == "finished" and game.winner_seat is not None
    assert Move.objects.filter(game=game).count() == game.version == out["version"] == out["posted"] + 1
    assert out["status"] == "over" and {"being played", "over"} <= set(out["phases"])
    assert out["ruleset"] == out["summary_ruleset"] == "standard" and out["scoring"] == "winner_takes"
    assert out["colours"] and set(out["colours"]) <= {"red", "yellow", "green", "blue"}
    assert "turn" in out["owed"] and out["cards"] > 0
    names = [f"{prefix}_alice", f"{prefix}_bob"]
    assert out["summary_players"] == [{"seat": i, "username": n, "is_bot": False, "bot_level": None}
                                      for i, n in enumerate(names)]
    assert out["scores_players"] == [{"seat": i, "username": n, "is_bot": False} for i, n in enumerate(names)]

    # alice's feed: every event of the schema's, data included
    feed = check_events(out["feed"], stream_validators(schema, "/api/v1/players/me/events"))
    kinds = [name for name, _ in feed]
    assert {"game_started", "your_turn", "game_finished"} <= set(kinds), kinds
    assert out["feed_winner"] == game.winner_seat
    assert set(out["feed_decisions"]) >= {"turn"}
    for raw in out["feed"]:
        if raw["event"] == "your_turn":
            data = json.loads(raw["data"])
            assert raw["id"] == f"{data['game']}.{data['version']}" and data["seat"] == 0
    # the spectator's view of the game's stream: every move once, in order, each its `seq` as `id`
    stream = check_events(out["stream"], stream_validators(schema, "/api/v1/games/{game_id}/events"))
    moves = [data for name, data in stream if name == "message"]
    assert [m["seq"] for m in moves] == list(range(1, game.version + 1))
    assert [raw["id"] for raw in out["stream"] if raw["event"] == "message"] == [str(m["seq"]) for m in moves]
    assert out["recorded_actions"][0] == "start" and len(out["recorded_actions"]) == game.version
    changes = [data for name, data in stream if name == "game"]  # bob's join: a change without a move
    assert changes and changes[0]["game"]["players"][1]["username"] == names[1]
    print(f"game {game.pk}: {out['posted']} actions posted by the TypeScript bot; feed {len(feed)} events "
          f"({', '.join(sorted(set(kinds)))}), stream {len(stream)} events; pendings seen: {out['pendings']}")
