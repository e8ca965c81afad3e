"""Preset ``play_uno_com`` (seed 002) and option ``wild_draw_four: bluff`` through the HTTP
API: created with its 120 cards and options, its refusals (a Replay on another colour, a
challenge under ``free``), a bluff challenged between two people, and a whole game between a
person and bots of every level played by a real worker, then ``verify_game``.

The engine's side (each RULES.md sentence, the bots' choices, property tests) is
tests/engine/test_wilds.py.
"""

from __future__ import annotations

import random
from typing import Callable

import pytest

from games import engine, services
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis
from .games_support import (by_seat, create_game, game_url, options_refused, play_against_bots, refused, start_table,
                            verified)

GAMES = "/api/v1/games"


def seed_where(preset: str, options: dict, seats: int, wanted: Callable[[engine.State], bool]) -> int:
    """A seed whose deal of ``preset`` with ``options`` for ``seats`` satisfies ``wanted``."""
    for seed in range(1, 100_000):
        if wanted(engine.new_game(preset, options, seats, str(seed))):
            return seed
    raise AssertionError("no such deal")


def deal_with(monkeypatch, seed: int) -> None:
    """The next game created deals from ``seed`` (the server draws its seed from secrets)."""
    monkeypatch.setattr(services.secrets, "randbits", lambda bits: seed)


def ranks(state: engine.State) -> tuple:
    return engine.build_rules(state.config).deck.rank


def off_colour_replay(state: engine.State, seat: int) -> int | None:
    """A Replay ``seat`` holds that does not match the top card (another colour, the top
    not a Replay), if any."""
    deck = engine.build_rules(state.config).deck
    if deck.rank[state.discard[-1]] == "replay":
        return None
    return next((c for c in state.hands[seat] if deck.rank[c] == "replay" and deck.color[c] != state.color), None)


def holds(state: engine.State, seat: int, rank: str) -> bool:
    return any(ranks(state)[c] == rank for c in state.hands[seat])


@pytest.mark.django_db
def test_the_preset_is_created_with_its_deck_and_options_and_refuses_bad_ones(clients):
    (ann,) = clients(1)
    opts = create_game(ann, ruleset="play_uno_com", max_players=10)["options"]
    assert (opts["replay_cards"], opts["wild_draw_four"], opts["first_wild_draw_four"], opts["dealer"]) == (
        True, "free", "name_color", "random")
    assert opts["scoring"] == "winner_takes" and opts["stacking"] == "off"
    r = ann.post(GAMES, {"ruleset": "play_uno_com", "max_players": 11}, format="json")
    assert r.status_code == 400 and list(r.json()["fields"]) == ["max_players"], r.content
    for body, field in (({"ruleset": "play_uno_com", "options": {"wild_keeps_color": False}},
                         "options.wild_keeps_color"),
                        ({"ruleset": "standard", "options": {"replay_cards": "yes"}}, "options.replay_cards"),
                        ({"ruleset": "standard", "options": {"dealer": "left"}}, "options.dealer")):
        assert options_refused(ann, body) == [field]


@pytest.mark.django_db
def test_refusals_a_replay_on_another_colour_and_a_challenge_under_free(clients, monkeypatch):
    options = {"rounds": 1}

    def wanted(s: engine.State) -> bool:
        seat = s.actor()
        return not s.stack and off_colour_replay(s, seat) is not None and holds(s, seat, "wild_draw_four")

    deal_with(monkeypatch, seed_where("play_uno_com", options, 2, wanted))
    players = clients(2)
    gid = start_table(players, ruleset="play_uno_com", options=options)
    seats = by_seat(gid, players)
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    assert len(engine.build_rules(state.config).deck) == 120
    seat = state.actor()
    me, other = seats[seat], seats[1 - seat]
    replay_card = off_colour_replay(state, seat)
    problem = refused(me, gid, {"type": "play", "card": replay_card}, 400, "illegal_move")
    assert "does not match" in problem["detail"]
    plus4 = next(c for c in state.hands[seat] if ranks(state)[c] == "wild_draw_four")
    r = me.post(game_url(gid, "actions"), {"type": "play", "card": plus4, "color": state.color or "red"},
                format="json")
    assert r.status_code == 200, r.content
    g = other.get(game_url(gid)).json()
    assert g["pending"] == {"type": "penalty", "seat": 1 - seat, "amount": 4, "kind": "wild_draw_four",
                            "challengeable": False}
    assert g["legal_actions"] == [{"type": "draw"}]
    problem = refused(other, gid, {"type": "challenge"}, 400, "illegal_move")
    assert "cannot be challenged" in problem["detail"]
    r = other.post(game_url(gid, "actions"), {"type": "draw"}, format="json")
    assert r.status_code == 200, r.content
    assert len(engine.State.from_dict(Game.objects.get(pk=gid).state).hands[1 - seat]) == 7 + 4
    assert f"game {gid}: OK" in verified(gid)


@pytest.mark.django_db
def test_a_bluff_challenged_over_http_the_bluffer_draws_6_and_only_the_challenger_sees_the_hand(clients,
                                                                                               monkeypatch):
    options = {"wild_draw_four": "bluff", "rounds": 1}

    def wanted(s: engine.State) -> bool:
        seat = s.actor()
        if s.stack or not holds(s, seat, "wild_draw_four"):
            return False
        trial = s.copy()
        plus4 = next(c for c in s.hands[seat] if ranks(s)[c] == "wild_draw_four")
        engine.apply(trial, seat, {"type": "play", "card": plus4, "color": "red"})
        return bool(trial.stack) and trial.stack[-1].guilty is True and len(trial.hands[seat]) > 1

    deal_with(monkeypatch, seed_where("standard", options, 2, wanted))
    players = clients(2)
    gid = start_table(players, options=options)
    seats = by_seat(gid, players)
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    seat = state.actor()
    me, other = seats[seat], seats[1 - seat]
    plus4 = next(c for c in state.hands[seat] if ranks(state)[c] == "wild_draw_four")
    r = me.post(game_url(gid, "actions"), {"type": "play", "card": plus4, "color": "red"}, format="json")
    assert r.status_code == 200, r.content
    g = other.get(game_url(gid)).json()
    assert g["pending"]["challengeable"] is True and {"type": "challenge"} in g["legal_actions"]
    assert "guilty" not in g["pending"]
    before = len(state.hands[seat]) - 1
    r = other.post(game_url(gid, "actions"), {"type": "challenge"}, format="json")
    assert r.status_code == 200, r.content
    events = r.json()["events"]
    assert next(e for e in events if e["type"] == "challenge")["guilty"] is True
    assert next(e for e in events if e["type"] == "draw") == {"type": "draw", "seat": seat, "count": 6,
                                                               "reason": "challenge_lost"}
    assert any(e["type"] == "hand_revealed" for e in events)  # shown to the challenger
    after = engine.State.from_dict(Game.objects.get(pk=gid).state)
    assert len(after.hands[seat]) == before + 6 and after.actor() == 1 - seat  # the challenger plays on
    for client, sees in ((me, False), (other, True)):
        moves = client.get(game_url(gid, "moves") + "?limit=500").json()["results"]
        assert any(e["type"] == "hand_revealed" for m in moves for e in m["events"]) == sees
    assert f"game {gid}: OK" in verified(gid)


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_one_human_and_bots_of_every_level_play_a_play_uno_com_game_to_the_end(worker, make_player):
    """The bots (random, easy, normal, hard) play every decision of the preset (Replays,
    free Wild Draw Fours, colours named for a first wild) with no call but the human's."""
    _, token = make_player("hugo")
    hugo = client_for(token)
    rng = random.Random(4)
    def choose(g: dict) -> dict:
        legal = g["legal_actions"]
        rank = {c["id"]: c["rank"] for c in g["hand"]}
        replays = [a for a in legal if a["type"] == "play" and rank.get(a["card"]) == "replay"]
        plays = [a for a in legal if a["type"] in ("play", "choose_color")]
        return (replays or [rng.choice(plays or legal)])[0]

    gid, g = play_against_bots(worker, hugo, "play_uno_com", {"rounds": 2}, choose, seconds=150)
    assert g["winner"]["seat"] in range(5)
    moves = list(Move.objects.filter(game_id=gid).order_by("seq"))
    # the log replayed through the engine: the decisions each seat answered
    game = Game.objects.get(pk=gid)
    state = engine.replay(engine.State.from_dict(game.state).config, [])
    answered: dict[str, set] = {}
    for m in moves[1:]:  # the first move is the deal
        p = state.pending
        if p is not None and m.seat == state.actor():
            answered.setdefault(p["type"], set()).add(m.by)
        engine.apply(state, m.seat, m.action, system=True)
    assert state.to_dict() == game.state
    assert "replay" in answered, answered  # a Replay was played and its player played on
    assert "challenge" not in {m.action["type"] for m in moves}
