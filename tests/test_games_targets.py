"""Options ``downpour_cards``, ``targeted_draw_cards`` (+2? / +4?) and
``jump_in_misplay_points`` through the HTTP API: accepted by POST /api/v1/games (nonsense
refused with a 400 naming the option), the targeted plays listed ready to post, bad
targets refused, a misplay charged, recorded and hidden from the others, and a game with
bots of every level played to the end by a real worker, then ``verify_game``."""

from __future__ import annotations

import random

import pytest

from games import engine
from games.models import Move

from .celery_helpers import client_for, requires_redis
from .games_support import (by_seat, fix_seeds, game_url, options_refused, play_against_bots, refused, start_table,
                            true_state, verified)

CARDS = {"downpour_cards": True, "targeted_draw_cards": True}
TARGETED = ("targeted_draw_two", "targeted_wild_draw_four")


def deck_of(gid: int):
    return engine.build_rules(true_state(gid).config).deck


@pytest.mark.django_db
def test_nonsense_options_are_refused_naming_them(clients):
    (alice,) = clients(1)
    for options, field in (({"downpour_cards": 1}, "downpour_cards"),
                           ({"targeted_draw_cards": "yes"}, "targeted_draw_cards"),
                           ({"jump_in_misplay_points": 3}, "jump_in_misplay_points"),
                           ({"jump_in": "exact", "jump_in_misplay_points": 0}, "jump_in_misplay_points")):
        fields = options_refused(alice, {"ruleset": "standard", "max_players": 3, "options": options})
        assert f"options.{field}" in fields, fields


@pytest.mark.django_db
def test_targeted_plays_bad_targets_and_a_misplay_over_http(clients, monkeypatch):
    """Three people play random listed actions; whenever a +2?/+4? is listed, its player
    is refused a play aiming at itself or at no seat (400 ``illegal_move``, field
    ``target_seat``) before playing it; every penalty it causes is owed by the named seat.
    A seat out of turn posts a card that is no jump-in: charged 3 points, the card kept,
    and the others' move history shows the attempt without its card."""
    fix_seeds(monkeypatch, 7)
    players = clients(3)
    gid = start_table(players, options={**CARDS, "jump_in": "exact", "jump_in_misplay_points": 3,
                                        "stacking": "same", "rounds": 1})
    seats = by_seat(gid, players)
    deck = deck_of(gid)
    rng = random.Random(4)
    refusals = aimed = misplays = 0
    for _ in range(3000):
        g = seats[0].get(game_url(gid)).json()
        if g["status"] == "finished":
            break
        assert g["options"]["targeted_draw_cards"] is True and g["options"]["jump_in_misplay_points"] == 3
        seat = g["current_seat"]
        mine = seats[seat].get(game_url(gid)).json()
        legal = mine["legal_actions"]
        targeted = [a for a in legal if a["type"] == "play" and deck.rank[a["card"]] in TARGETED]
        if targeted and refusals < 4:
            a = targeted[0]
            for bad in (seat, 9, None):
                body = {k: v for k, v in a.items() if k != "target_seat"}
                if bad is not None:
                    body["target_seat"] = bad
                problem = refused(seats[seat], gid, body, 400, "illegal_move")
                assert problem["fields"] == {"target_seat": problem["fields"]["target_seat"]}, problem
                if bad == seat:
                    assert "not yourself" in problem["detail"]
            refusals += 1
        if misplays < 2 and mine["pending"] is None:
            other = (seat + 1) % 3
            theirs = seats[other].get(game_url(gid)).json()
            listed = {a.get("card") for a in theirs["legal_actions"]}
            card = next((c for c in theirs["hand"] if c["color"] is not None and c["id"] not in listed), None)
            if card is not None:
                score = theirs["players"][other]["score"]
                r = seats[other].post(game_url(gid, "actions"), {"type": "play", "card": card["id"]}, format="json")
                assert r.status_code == 200, r.content
                assert [e for e in r.json()["events"] if e["type"] == "misplay"] == \
                    [{"type": "misplay", "seat": other, "points": 3}]
                after = seats[other].get(game_url(gid)).json()
                assert card["id"] in [c["id"] for c in after["hand"]]
                assert after["players"][other]["score"] == score - 3  # winner_takes: taken off
                assert after["current_seat"] == seat
                seen_by_others = seats[seat].get(game_url(gid, "moves") + "?limit=500").json()["results"][-1]
                assert seen_by_others["action"] == {"type": "misplay"} and seen_by_others["seat"] == other
                seen_by_self = seats[other].get(game_url(gid, "moves") + "?limit=500").json()["results"][-1]
                assert seen_by_self["action"] == {"type": "play", "card": card["id"]}
                misplays += 1
                continue
        plays = targeted or [a for a in legal if a["type"] in ("play", "choose_color")]
        action = rng.choice(plays or legal)
        r = seats[seat].post(game_url(gid, "actions"), {**action, "expected_version": mine["version"]},
                             format="json")
        assert r.status_code == 200, r.content
        if action in targeted:
            now = seats[seat].get(game_url(gid)).json()
            if now["status"] == "active" and now["round"] == mine["round"]:
                p = now["pending"]
                assert p["seat"] == action["target_seat"] and p["kind"] == deck.rank[action["card"]]
                assert now["current_seat"] == action["target_seat"]
                aimed += 1
    g = seats[0].get(game_url(gid)).json()
    assert g["status"] == "finished"
    assert refusals and aimed and misplays == 2, (refusals, aimed, misplays)
    state = true_state(gid)
    assert [sum(row["points"][s] for row in state.history) for s in range(3)] == state.scores
    assert f"game {gid}: OK" in verified(gid)


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_one_human_and_bots_of_every_level_play_a_game_with_the_cards_to_the_end(worker, make_player):
    """The bots (random, easy, normal, hard) play Downpours and +2?/+4?, name victims and
    answer penalties aimed at them, with no call but the human's; the game ends and its log
    replays exactly (verify_game)."""
    _, token = make_player("tara")
    tara = client_for(token)
    options = {**CARDS, "stacking": "any", "jump_in": "exact", "jump_in_misplay_points": 3, "rounds": 1}
    rng = random.Random(3)
    def choose(g: dict) -> dict:
        plays = [a for a in g["legal_actions"] if a["type"] in ("play", "choose_color")]
        return rng.choice(plays or g["legal_actions"])

    gid, g = play_against_bots(worker, tara, "standard", options, choose, seconds=120)
    assert g["winner"]["seat"] in range(5)
    deck = deck_of(gid)
    moves = list(Move.objects.filter(game_id=gid).order_by("seq"))
    played = {deck.rank[m.action["card"]] for m in moves if m.action.get("type") == "play"}
    assert "misplay" not in {e["type"] for m in moves for e in m.events}  # bots never misplay
    assert played  # (which extra cards came up depends on the deal)
