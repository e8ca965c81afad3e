"""Fair play: a game commits to its seed (``shuffle_commitment``), reveals it once
finished, and ``python -m games.engine.verify`` checks a finished game from its public
JSON alone: the seed against the commitment, and a replay of every move against what
the API shows.  The verifier runs in a subprocess with ``python -S`` (no
site-packages: the engine and the standard library only, no Django), on what a
player and a spectator fetch over the API; every kind of tampering makes it fail."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from games import robots
from games.models import Game, GameStatus
from tests.games_support import all_moves, create_game, game_url, play_out, quick_policy
from tests.helpers import assert_json
from tests.test_schema_options import openapi

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
#: a seed as games stored before issue 12 have them (64 bits; the README's example game)
OLD_SEED = "670778494182558685"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def public_record(client, gid: int) -> dict:
    """The input of the verifier, as ``client`` fetches it: the game and every move
    (pages of 20 moves, to follow ``next``)."""
    return {"game": assert_json(client.get(game_url(gid)), 200), "moves": all_moves(client, gid, limit=20)}


def run_verifier(record: dict, tmp_path: Path, stdin: bool = False) -> subprocess.CompletedProcess:
    """``python -S -m games.engine.verify`` on ``record`` (a file, or standard input)."""
    text = json.dumps(record)
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-S", "-m", "games.engine.verify", "-" if stdin else str(path)],
        cwd=ROOT, input=text if stdin else None, capture_output=True, text=True, timeout=120,
    )


def play_against_bots_and_the_timer(client, monkeypatch) -> int:
    """A one-round game of ``client`` (seat 0, over HTTP) against two bots, with a turn
    limit, to its end: the bots act through the server's robot step (no reaction
    delay), and the person lets every third decision of theirs pass, for the timer."""
    monkeypatch.setattr(robots.bots, "reaction_delay", lambda *args, **kwargs: 0.0)
    gid = create_game(client, bots=[{"level": "easy"}, {"level": "random"}], turn_seconds=30,
                      options={"rounds": 1})["id"]
    assert client.post(game_url(gid, "start")).status_code == 200
    rng = random.Random(12)
    decisions = 0  # the person's: the first and every third one go to the timer
    for _ in range(3000):
        game = Game.objects.get(pk=gid)
        if game.status == GameStatus.FINISHED:
            return gid
        if robots.bot_step(gid, game.version):
            continue
        decisions += 1
        if decisions % 3 == 1:
            Game.objects.filter(pk=gid).update(deadline=game.deadline.replace(year=2000))
            assert robots.expire_deadline(gid, game.version)
        else:
            g = assert_json(client.get(game_url(gid)), 200)
            action = quick_policy(g["legal_actions"], rng)
            assert_json(client.post(game_url(gid, "actions"), {**action, "expected_version": g["version"]},
                                    format="json"), 200)
    raise AssertionError("the game did not finish")


@pytest.fixture
def finished(clients, monkeypatch) -> tuple[int, dict, dict]:
    """A finished game with moves of a person, bots and the timer: its id, and its public
    record as its person and as a spectator fetch it."""
    alice, spectator = clients(2)
    gid = play_against_bots_and_the_timer(alice, monkeypatch)
    return gid, public_record(alice, gid), public_record(spectator, gid)


#: the records of :func:`finished`'s game, played once for the tamperings (each copies them;
#: they need the records only, not the game in the database, which is flushed between tests)
_RECORDS: dict[str, tuple[dict, dict]] = {}


@pytest.fixture
def records(request) -> tuple[dict, dict]:
    """:func:`finished`'s public records, as its person and a spectator fetch them."""
    if "game" not in _RECORDS:
        _, mine, spectators = request.getfixturevalue("finished")
        _RECORDS["game"] = (mine, spectators)
    return copy.deepcopy(_RECORDS["game"])


def first_move(record: dict, test: Callable[[dict], bool]) -> dict:
    return next(m for m in record["moves"] if test(m))


def test_a_finished_game_verifies_from_its_public_json(records, tmp_path):
    mine, spectators = records
    gid = mine["game"]["id"]
    assert {m["by"] for m in mine["moves"]} == {"player", "bot", "timer"}
    assert len(mine["moves"]) == mine["game"]["version"] > 20  # several pages
    for record in (mine, spectators):
        for stdin in (False, True):
            done = run_verifier(record, tmp_path, stdin=stdin)
            assert done.returncode == 0, done.stdout + done.stderr
            lines = done.stdout.splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"OK: game {gid}: its seed matches shuffle_commitment; "
                                                           f"{len(record['moves'])} moves replayed"), done.stdout
            assert done.stderr == ""


# -- tamperings: each changes a finished game's record and returns what the verifier
# must name (the first mismatch)
def _seed(record: dict) -> str:
    record["game"]["seed"] = str(int(record["game"]["seed"]) + 1)
    return f"shuffle_commitment: the game committed to {record['game']['shuffle_commitment']!r}, but the SHA-256"


def _commitment(record: dict) -> str:
    record["game"]["shuffle_commitment"] = sha256("another seed")
    return f"shuffle_commitment: the game committed to {sha256('another seed')!r}, but the SHA-256"


def _seed_and_commitment(record: dict) -> str:
    """Another seed with its own commitment: the deal gives it away."""
    _seed(record)
    record["game"]["shuffle_commitment"] = sha256(record["game"]["seed"])
    return "move 1 (the deal): events["


def _dealt_hand(record: dict) -> str:
    deal = record["moves"][0]
    i, hand = next((i, e) for i, e in enumerate(deal["events"]) if e["type"] == "hand")
    hand["cards"][0], hand["cards"][1] = hand["cards"][1], hand["cards"][0]
    return f"move 1 (the deal): events[{i}].cards[0].id: stored {hand['cards'][0]['id']}"


def _other_card(record: dict, event_type: str, cards: Callable[[dict], list[dict]]) -> str:
    """The first card of the first ``event_type`` event after the deal named another."""
    m = first_move(record, lambda m: m["seq"] > 1 and any(e["type"] == event_type for e in m["events"]))
    i, event = next((i, e) for i, e in enumerate(m["events"]) if e["type"] == event_type)
    card = cards(event)[0]
    card["id"] = (card["id"] + 1) % 108
    return f"move {m['seq']} ({m['action']['type']!r} by seat {m['seat']}, {m['by']}): events[{i}]"


def _card_played(record: dict) -> str:
    return _other_card(record, "play", lambda e: [e["card"]]) + ".card.id: stored "


def _card_drawn(record: dict) -> str:
    return _other_card(record, "cards_drawn", lambda e: e["cards"]) + ".cards[0].id: stored "


def _swapped_actions(record: dict) -> str:
    """The different actions of two moves in a row (neither the timer's) swapped."""
    moves = record["moves"]
    i = next(i for i in range(1, len(moves) - 1)
             if "timer" not in (moves[i]["by"], moves[i + 1]["by"]) and moves[i]["action"] != moves[i + 1]["action"])
    moves[i]["action"], moves[i + 1]["action"] = moves[i + 1]["action"], moves[i]["action"]
    return f"move {moves[i]['seq']} ({moves[i]['action']['type']!r} by seat {moves[i]['seat']}, {moves[i]['by']}): "


def _timer_as_player(record: dict) -> str:
    """A move of the timer's passed off as the person's: only the server may time out."""
    m = first_move(record, lambda m: m["by"] == "timer")
    m["by"] = "player"
    return f"move {m['seq']} ({m['action']['type']!r} by seat {m['seat']}, player): refused by the engine on replay"


def _move_left_out(record: dict) -> str:
    del record["moves"][5]
    return "moves[5].seq: 7, expected 6"


def _score(record: dict) -> str:
    record["game"]["players"][1]["score"] += 10
    return "game.players[1].score: stored "


def _winner(record: dict) -> str:
    winner = record["game"]["winner"]
    winner["seat"] = (winner["seat"] + 1) % len(record["game"]["players"])
    return "game.winner.seat: stored "


def _unfinished(record: dict) -> str:
    record["game"]["status"] = "active"
    return "game.status: 'active': only a finished game reveals its seed"


TAMPERINGS = [_seed, _commitment, _seed_and_commitment, _dealt_hand, _card_played, _card_drawn, _swapped_actions,
              _timer_as_player, _move_left_out, _score, _winner, _unfinished]


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=lambda f: f.__name__.strip("_"))
def test_a_tampered_record_does_not_verify(records, tmp_path, tamper):
    record, _ = records
    forged = copy.deepcopy(record)
    expected = tamper(forged)
    assert forged != record
    done = run_verifier(forged, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("MISMATCH: ") and expected in done.stdout, done.stdout


def test_unreadable_input_does_not_verify(tmp_path):
    path = tmp_path / "game.json"
    path.write_text('{"game": ', encoding="utf-8")
    done = subprocess.run([sys.executable, "-S", "-m", "games.engine.verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout.startswith(f"ERROR: cannot read {path}: "), done.stdout
    done = run_verifier({"game": {"status": "finished"}, "moves": []}, tmp_path)
    assert done.returncode == 1 and done.stdout == "MISMATCH: game.seed: missing from the input, or not of JSON " \
                                                   "type string\n", done.stdout


def test_the_view_commits_to_the_seed_and_reveals_it_once_finished(clients):
    alice, bob, spectator = clients(3)
    created = create_game(alice, max_players=2, options={"rounds": 1})
    gid = created["id"]
    seed = Game.objects.get(pk=gid).seed
    # 128 random bits: a decimal seed of more than 96 bits but once in 2**32 games
    assert seed.isdigit() and int(seed).bit_length() > 96
    commitment = created["shuffle_commitment"]
    assert commitment == sha256(seed) and "seed" not in created
    assert_json(bob.post(game_url(gid, "join")), 200)
    assert_json(alice.post(game_url(gid, "start")), 200)
    for _ in range(2):  # the game runs: the commitment, never the seed, in any answer
        for client in (alice, bob, spectator):
            r = client.get(game_url(gid))
            g = assert_json(r, 200)
            assert g["status"] == "active" and g["shuffle_commitment"] == commitment and "seed" not in g
            for tail in ("", "moves", "scores"):
                assert seed not in client.get(game_url(gid, tail)).content.decode()
        g = assert_json(alice.get(game_url(gid)), 200)
        client = alice if g["current_seat"] == 0 else bob
        legal = assert_json(client.get(game_url(gid)), 200)["legal_actions"]
        body = assert_json(client.post(game_url(gid, "actions"), legal[0], format="json"), 200)
        assert body["game"]["shuffle_commitment"] == commitment and seed not in json.dumps(body)
    play_out(gid)
    for client in (alice, bob, spectator):
        g = assert_json(client.get(game_url(gid)), 200)
        assert g["status"] == "finished" and g["seed"] == seed
        assert sha256(g["seed"]) == g["shuffle_commitment"] == commitment


def test_a_game_stored_with_a_64_bit_seed_keeps_it_and_verifies(clients, tmp_path):
    alice, bob = clients(2)
    gid = create_game(alice, max_players=2, options={"rounds": 1})["id"]
    Game.objects.filter(pk=gid).update(seed=OLD_SEED)  # as created before issue 12
    assert assert_json(alice.get(game_url(gid)), 200)["shuffle_commitment"] == sha256(OLD_SEED)
    assert_json(bob.post(game_url(gid, "join")), 200)
    assert_json(alice.post(game_url(gid, "start")), 200)
    play_out(gid)
    record = public_record(bob, gid)
    assert record["game"]["seed"] == OLD_SEED == Game.objects.get(pk=gid).seed
    done = run_verifier(record, tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(f"OK: game {gid}: "), done.stdout + done.stderr


def test_the_schema_documents_the_commitment_and_the_seed():
    game = openapi()["components"]["schemas"]["Game"]
    commitment, seed = game["properties"]["shuffle_commitment"], game["properties"]["seed"]
    assert "shuffle_commitment" in game["required"] and "seed" not in game["required"]
    assert commitment["type"] == "string" and commitment["pattern"] == "^[0-9a-f]{64}$"
    assert "SHA-256" in commitment["description"] and "finished" in seed["description"]
