"""The cards that move hands through the HTTP API: the preset ``standard_112`` (Wild Shuffle
Hands, Wild Customizable) and the options ``swap_hands_card``, ``hand_pass_cards`` and
``uno_card``: accepted by POST /api/v1/games (a nonsense combination refused with a 400
naming the option), their plays listed ready to post and accepted, refused with the
wrong parameters; while hands move no response shows a player another's cards; and
games between a person and bots of every level played to the end by a real worker, then
``verify_game``."""

from __future__ import annotations

import random

import pytest

from games import engine
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis
from .games_support import (by_seat, chooser, fix_seeds, game_url, play_against_bots, refused, running_states,
                            start_table, true_state, verified, walk)
from .helpers import assert_problem

HAND_MOVES = ("hands_shuffled", "hands_swapped", "hands_rotated")
MOVERS = {"wild_shuffle_hands", "wild_swap_hands", "hand_pass", "uno"}
EVERY_OPTION = {"swap_hands_card": True, "hand_pass_cards": True, "uno_card": True, "seven_zero": True}


def ranks(gid: int) -> tuple[str, ...]:
    return engine.build_rules(true_state(gid).config).deck.rank


def card_ids(value) -> set[int]:
    """Every card id named in ``value`` (card objects and actions' ``card``)."""
    out = set()
    for node in walk(value):
        if isinstance(node, dict):
            if "rank" in node and isinstance(node.get("id"), int):
                out.add(node["id"])
            if isinstance(node.get("card"), int) and not isinstance(node.get("card"), bool):
                out.add(node["card"])
    return out


def pick(legal: list[dict], rank: tuple[str, ...], rng: random.Random) -> dict:
    """A client that plays a hand-moving card whenever it can, else plays when it can."""
    movers = [a for a in legal if a["type"] == "play" and rank[a["card"]] in MOVERS]
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    return rng.choice(movers or plays or legal)


@pytest.mark.django_db
def test_the_options_are_validated_at_creation(clients):
    (alice,) = clients(1)
    r = alice.post("/api/v1/games", {"ruleset": "standard", "max_players": 3,
                                     "options": {"swap_hands_card": True}}, format="json")
    problem = assert_problem(r, 400, "invalid_options")
    assert "standard_112" in problem["fields"]["options.swap_hands_card"][0]
    r = alice.post("/api/v1/games", {"ruleset": "standard", "max_players": 3, "options": {"uno_card": "yes"}},
                   format="json")
    assert "options.uno_card" in assert_problem(r, 400, "invalid_options")["fields"]
    r = alice.post("/api/v1/games", {"ruleset": "standard_112", "max_players": 11}, format="json")
    assert r.status_code == 400
    r = alice.post("/api/v1/games", {"ruleset": "standard_112", "max_players": 4,
                                     "options": {**EVERY_OPTION, "rounds": 1}}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["options"]["swap_hands_card"] is True and r.json()["ruleset"] == "standard_112"


@pytest.mark.django_db
@pytest.mark.parametrize("options, seed", [({}, 3), (EVERY_OPTION, 4)], ids=["standard_112", "every-hand-move"])
def test_three_players_move_hands_over_http_and_nobody_sees_anothers_cards(clients, monkeypatch, options, seed):
    """While a hand move happens, every response (the actor's, and the others' game views
    and move lists) shows each player its own new hand only: the public events name no
    card and the private ``hand`` events go each to its seat."""
    fix_seeds(monkeypatch, seed)
    players = clients(3)
    gid = start_table(players, ruleset="standard_112", options={**options, "rounds": 1})
    seats = by_seat(gid, players)
    rank = ranks(gid)
    rng = random.Random(seed)
    moved = 0
    bad_checked = False
    for state in running_states(gid, 3000):
        seat = state.actor()
        mine = seats[seat].get(game_url(gid)).json()
        legal = mine["legal_actions"]
        swaps = [a for a in legal if a["type"] == "play" and a.get("target_seat") is not None
                 and rank[a["card"]] == "wild_swap_hands"]
        if swaps and not bad_checked:  # a swap needs a valid target: refused, nothing changes
            refused(seats[seat], gid, {"type": "play", "card": swaps[0]["card"]}, 400, "illegal_move")
            refused(seats[seat], gid, {**swaps[0], "target_seat": seat}, 400, "illegal_move")
            refused(seats[seat], gid, {**swaps[0], "target_seat": 7}, 400, "illegal_move")
            refused(seats[(seat + 1) % 3], gid, swaps[0], 400, "not_your_card")
            bad_checked = True
        action = pick(legal, rank, rng)
        r = seats[seat].post(game_url(gid, "actions"), {**action, "expected_version": mine["version"]},
                             format="json")
        assert r.status_code == 200, r.content
        body = r.json()
        if not any(e["type"] in HAND_MOVES for e in body["events"]) or body["game"]["status"] == "finished":
            continue
        moved += 1
        after = true_state(gid)
        for e in body["events"]:  # the actor's response: public events name no card but a play
            if "private_to" in e:
                assert e["private_to"] == [seat] and e["seat"] == seat
                if e["type"] == "hand":
                    assert [c["id"] for c in e["cards"]] == after.hands[seat]
            elif e["type"] != "play":
                assert not card_ids(e), e
        for s, client in seats.items():
            g = client.get(game_url(gid)).json()
            assert [c["id"] for c in g["hand"]] == after.hands[s]
            others = {c for t, h in enumerate(after.hands) if t != s for c in h} | set(after.draw_pile)
            assert not card_ids(g) & others, f"seat {s} is shown another's card"
            last = client.get(game_url(gid, "moves") + f"?after={body['game']['version'] - 1}").json()["results"]
            for m in last:
                for e in m["events"]:
                    if e["type"] == "hand":
                        assert e["private_to"] == [s] and [c["id"] for c in e["cards"]] == after.hands[s]
                    else:
                        assert not card_ids(e) & others, e
    assert true_state(gid).status == "finished"
    assert moved > 0, "no hand moved in this game"
    assert f"game {gid}: OK" in verified(gid)


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("options", [{}, EVERY_OPTION], ids=["standard_112", "every-hand-move"])
def test_one_human_and_bots_of_every_level_play_standard_112_to_the_end(worker, make_player, options):
    """The bots (random, easy, normal, hard) play the hand-moving cards and name the colour
    after a shuffle or a swap, with no call but the human's; the game ends and replays."""
    _, token = make_player("hana")
    hana = client_for(token)
    gid, g = play_against_bots(worker, hana, "standard_112", {**options, "rounds": 1}, chooser(pick, ranks, 7),
                               seconds=120)
    assert g["winner"]["seat"] in range(5)
    assert Game.objects.get(pk=gid).status == "finished"
    if options:  # 4 hand-moving cards and the 7s and 0s: hands moved (and bots played them)
        kinds = [(m.by, e["type"]) for m in Move.objects.filter(game_id=gid) for e in m.events]
        assert any(by == "bot" and kind in HAND_MOVES for by, kind in kinds), kinds[-20:]
