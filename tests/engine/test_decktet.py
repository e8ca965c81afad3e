"""Decktet-Uno (seed 000, preset ``decktet_uno``): RULES.md's ``decktet_uno`` section
and the Time section's rulings, scenario by scenario, then properties over thousands
of random games of each variant (games/engine/decktet/)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.bots import LEVELS, decide
from games.engine import (IllegalMove, InvalidAction, InvalidOptions, NotYourCard, NotYourTurn, UnknownCard, State,
                          apply, build_rules, legal_actions, new_game, observe, replay, view, visible_events)
from tests.engine.helpers import arrange_game, assert_game_conserved, assert_refused, card_in, ev_types, only

PRESET = "decktet_uno"
CONSUL, AUTHOR, DESERT = "Consul", "Author", "Desert"  # moons waves knots; moons knots; suns wyrms


def table(hands: list[list[str]], top: str, draw: tuple[str, ...] = (), options: dict | None = None,
          current: int = 0) -> State:
    return arrange_game(len(hands), options, hands, top, draw, current, preset=PRESET)


def deck():
    return build_rules(new_game(PRESET, {}, 2, 1).config).deck


def suits(card: dict) -> set[str]:
    return set(card["suits"])


def formula(top: dict, card: dict) -> int:
    """RULES.md: (number of suits on the top card) x (number of suits of the played card
    that are also on the top card): written here from the cards' JSON, apart from the
    engine's table."""
    return len(top["suits"]) * len(suits(top) & suits(card))


# ==============================================================================================
# "Deck: the Decktet without the Excuse ... 44 cards"
# ==============================================================================================
def test_the_deck_is_rules_md_table_of_44_cards():
    d = deck()
    assert len(d) == 44 and d.name == "decktet_44"
    by_rank = Counter(c.rank for c in d.cards)
    assert by_rank == {"ace": 6, "crown": 6, "pawn": 4, "court": 4, **{str(r): 3 for r in range(2, 10)}}
    for c in d.cards:
        expected = 1 if c.rank in ("ace", "crown") else 3 if c.rank in ("pawn", "court") else 2
        assert len(c.suits) == expected, c
    faces = {c.name: c.to_dict() for c in d.cards}
    assert faces["Island"] == {"id": faces["Island"]["id"], "name": "Island", "rank": "court",
                               "suits": ["suns", "waves", "wyrms"]}
    assert faces["Chance Meeting"]["suits"] == ["moons", "leaves"] and faces["Windfall"]["suits"] == ["knots"]
    assert faces["Ace of Wyrms"]["suits"] == ["wyrms"] and "Excuse" not in faces
    assert Counter(s for c in d.cards for s in c.suits) == {s: 14 for s in
                                                            ("moons", "suns", "waves", "leaves", "wyrms", "knots")}


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_three_cards_each_and_one_turned_up(seats):
    events: list[dict] = []
    state = new_game(PRESET, {}, seats, "deal", events)
    assert [len(h) for h in state.hands] == [3] * seats
    assert len(state.discard) == 1 and len(state.draw_pile) == 44 - 3 * seats - 1
    assert state.current == (state.dealer + 1) % seats
    assert ev_types(events) == ["dealer_chosen", "round_started", *["hand"] * seats, "first_card"]
    for s in range(seats):  # each hand is told to its seat only
        hand = next(e for e in events if e["type"] == "hand" and e["seat"] == s)
        assert hand["to"] == [s] and [c["id"] for c in hand["cards"]] == state.hands[s]
    assert view(state, 0)["top_card"]["suits"] and view(state, 0)["draw_pile_count"] == 44 - 3 * seats - 1
    assert_game_conserved(state)


@pytest.mark.parametrize("seats", [1, 5])
def test_two_to_four_players(seats):
    with pytest.raises(InvalidOptions) as info:
        new_game(PRESET, {}, seats, 1)
    assert info.value.option == "max_players" and "2 to 4" in str(info.value)


# ==============================================================================================
# "a player plays any card of their hand on the pile and scores ..."
# ==============================================================================================
def test_the_seeds_worked_example_scores_six():
    """Seed 000: top card moons waves knots (3 suits), the played card moons knots (2
    matching): 3 x 2 = 6 points."""
    state = table([[AUTHOR, DESERT, "Sea"], ["Bard", "End", "Huntress"]], top=CONSUL)
    top = view(state)["top_card"]
    events = apply(state, 0, {"type": "play", "card": card_in(state, 0, AUTHOR)})
    played = only(events, "play")
    assert suits(top) == {"moons", "waves", "knots"} and suits(played["card"]) == {"moons", "knots"}
    assert played["points"] == 6 == formula(top, played["card"])
    assert state.scores == [6, 0] and view(state, 1)["players"][0]["score"] == 6


def test_a_play_that_matches_nothing_scores_zero_and_any_card_may_be_played():
    state = table([[DESERT, AUTHOR, "Sea"], ["Bard", "End", "Huntress"]], top=CONSUL)
    assert sorted(a["card"] for a in legal_actions(state, 0)) == sorted(state.hands[0])  # every card, always
    events = apply(state, 0, {"type": "play", "card": card_in(state, 0, DESERT)})
    assert only(events, "play")["points"] == 0 and state.scores == [0, 0]


def test_each_play_is_followed_by_a_draw_while_the_deck_lasts():
    state = table([[DESERT, AUTHOR, "Sea"], ["Bard", "End", "Huntress"]], top=CONSUL, draw=("Island",))
    events = apply(state, 0, {"type": "play", "card": card_in(state, 0, DESERT)})
    assert ev_types(events) == ["play", "draw", "cards_drawn"]
    assert only(events, "cards_drawn")["to"] == [0] and card_in(state, 0, "Island") in state.hands[0]
    assert state.current == 1 and len(state.hands[0]) == 3
    state.discard[:0] = state.draw_pile  # the deck has run out (under the top card): no drawing
    state.draw_pile = []
    events = apply(state, 1, {"type": "play", "card": state.hands[1][0]})
    assert ev_types(events) == ["play"] and len(state.hands[1]) == 2


def test_the_game_ends_when_every_hand_is_empty_and_the_most_points_win():
    state = table([["Ace of Moons"], ["Ace of Suns"]], top="Harvest")  # moons suns leaves
    state.discard[:0] = state.draw_pile
    state.draw_pile = []
    apply(state, 0, {"type": "play", "card": state.hands[0][0]})  # 3 x 1 = 3
    assert state.status == "active" and state.current == 1
    events = apply(state, 1, {"type": "play", "card": state.hands[1][0]})  # on the Ace of Moons: 1 x 0
    assert state.status == "finished" and state.scores == [3, 0]
    assert state.winner == 0 and state.winners == [0]
    ended = only(events, "game_ended")
    assert ended["winners"] == [0] and ended["scores"] == [3, 0]
    assert only(events, "round_ended")["points"] == [3, 0]
    assert view(state)["winners"] == [0]


def test_equal_top_scores_share_the_win():
    state = table([["Ace of Moons"], ["Ace of Suns"], ["Ace of Waves"]], top="Ace of Knots")
    state.discard[:0] = state.draw_pile
    state.draw_pile = []
    for seat in range(3):
        apply(state, seat, {"type": "play", "card": state.hands[seat][0]})
    assert state.scores == [0, 0, 0] and state.winners == [0, 1, 2] and state.winner == 0


# ==============================================================================================
# face_down
# ==============================================================================================
def test_face_down_is_offered_only_when_no_card_would_score():
    scoring = table([[AUTHOR, DESERT, "Sea"], ["Bard", "End", "Huntress"]], top=CONSUL, options={"face_down": True})
    assert {a["type"] for a in legal_actions(scoring, 0)} == {"play"}  # the Author and the Sea score
    exc = assert_refused(scoring, 0, {"type": "play_face_down", "card": card_in(scoring, 0, DESERT)}, IllegalMove)
    assert "would score" in str(exc)
    off = table([[DESERT, "Bard", "Windfall"], ["End", "Sea", "Huntress"]], top="Ace of Leaves")
    assert_refused(off, 0, {"type": "play_face_down", "card": off.hands[0][0]}, IllegalMove)
    nothing = table([[DESERT, "Bard", "Windfall"], ["End", "Sea", "Huntress"]], top="Ace of Leaves",
                    options={"face_down": True})
    listed = legal_actions(nothing, 0)
    assert sorted(a["card"] for a in listed if a["type"] == "play_face_down") == sorted(nothing.hands[0])
    assert_refused(nothing, 0, {"type": "play_face_down", "card": nothing.hands[1][0]}, NotYourCard)


def _set_aside(options: dict | None = None) -> State:
    """Seat 0 holds nothing that scores on the Ace of Leaves and sets the Island aside."""
    state = table([["Island", DESERT, "Bard"], ["Penitent", "Ace of Moons", "Ace of Knots"], ["Sea", "End", "Rite"]],
                  top="Ace of Leaves", draw=("Huntress", "Calamity", "Windfall"), options={"face_down": True})
    events = apply(state, 0, {"type": "play_face_down", "card": card_in(state, 0, "Island")})
    assert ev_types(events) == ["face_down", "draw", "cards_drawn"]
    assert "card" not in only(events, "face_down") and state.current == 1
    return state


def test_a_face_down_card_is_hidden_from_the_others_until_placed():
    state = _set_aside()
    island = state.aside[0][1]
    assert view(state, 0)["face_down"] == {"seat": 0, "card": build_rules(state.config).deck.card_dict(island)}
    for seat in (1, 2, None):
        shown = view(state, seat)
        assert shown["face_down"] == {"seat": 0, "card": None}
        assert str(island) not in json.dumps([shown.get("hand"), shown["top_card"], shown["face_down"]])
    assert view(state, 0)["top_card"]["name"] == "Ace of Leaves"  # the pile is as it was
    assert_game_conserved(state)


def test_a_face_down_card_sharing_a_suit_scores_for_its_owner_at_the_end_of_the_next_turn():
    state = _set_aside()
    # seat 1 plays the Penitent (suns wyrms) on the Ace of Leaves: 0; the Island (suns waves
    # wyrms) goes on it: 2 suits on the Penitent x 2 shared = 4 for seat 0
    events = apply(state, 1, {"type": "play", "card": card_in(state, 1, "Penitent")})
    assert ev_types(events) == ["play", "draw", "cards_drawn", "face_down_placed"]
    placed = only(events, "face_down_placed")
    assert placed["seat"] == 0 and placed["card"]["name"] == "Island" and placed["points"] == 4
    assert state.scores == [4, 0, 0] and not state.aside and view(state)["face_down"] is None
    assert view(state)["top_card"]["name"] == "Island" and state.current == 2


def test_a_face_down_card_sharing_no_suit_costs_its_owner_two_points():
    state = _set_aside()
    events = apply(state, 1, {"type": "play", "card": card_in(state, 1, "Ace of Moons")})  # the Island shares nothing
    assert only(events, "face_down_placed")["points"] == -2 and state.scores == [-2, 0, 0]


def test_no_face_down_right_after_the_previous_player_did_and_the_timer_places_it_too():
    state = _set_aside()
    # seat 1 would score nothing on the Ace of Leaves either, but may not set a card aside
    assert {a["type"] for a in legal_actions(state, 1)} == {"play"}
    exc = assert_refused(state, 1, {"type": "play_face_down", "card": state.hands[1][0]}, IllegalMove)
    assert "previous player" in str(exc)
    events = apply(state, 1, {"type": "timeout"}, system=True)  # the timer plays for seat 1: the card is placed
    assert ev_types(events)[0] == "timeout" and "face_down_placed" in ev_types(events)


def test_a_face_down_last_card_is_placed_on_the_top_card_at_once():
    """Ruling: the game's last card set aside face down has no next turn to wait for."""
    state = table([["Ace of Suns"], []], top="Ace of Leaves", options={"face_down": True})
    state.discard[:0] = state.draw_pile
    state.draw_pile = []
    events = apply(state, 0, {"type": "play_face_down", "card": state.hands[0][0]})
    assert ev_types(events) == ["face_down", "face_down_placed", "round_ended", "game_ended"]
    assert only(events, "face_down_placed")["points"] == -2 and state.status == "finished"
    assert state.scores == [-2, 0] and state.winners == [1]


# ==============================================================================================
# decks: 2
# ==============================================================================================
def test_a_second_deck_reshuffles_the_pile_once():
    state = table([["Ace of Moons", "Ace of Suns", "Ace of Waves"], ["Bard", "End", "Huntress"],
                   ["Sea", "Calamity", "Windfall"]], top="Ace of Leaves", options={"decks": 2})
    state.discard += state.draw_pile  # the deck has run out: every other card is on the pile
    state.draw_pile = []
    pile = len(state.discard)
    events = apply(state, 0, {"type": "play", "card": state.hands[0][0]})
    reshuffled = only(events, "reshuffled")
    assert reshuffled["count"] == pile == len(state.draw_pile) + 1  # every card but the top one, less the draw
    assert len(state.discard) == 1 and len(state.hands[0]) == 3 and state.refills == 1
    state.discard += state.draw_pile  # the second deck runs out too: no third
    state.draw_pile = []
    events = apply(state, 1, {"type": "play", "card": state.hands[1][0]})
    assert "reshuffled" not in ev_types(events) and len(state.hands[1]) == 2
    assert_game_conserved(state)


def test_a_second_deck_is_for_three_or_four_players():
    with pytest.raises(InvalidOptions) as info:
        new_game(PRESET, {"decks": 2}, 2, 1)
    assert info.value.option == "decks"
    for seats in (3, 4):
        new_game(PRESET, {"decks": 2}, seats, 1)


# ==============================================================================================
# Time: "a Decktet-Uno turn plays the card that scores most (lowest id on ties)"
# ==============================================================================================
def test_the_timer_plays_the_card_that_scores_most_lowest_id_on_ties():
    state = table([[DESERT, "Sea", AUTHOR], ["Bard", "End", "Huntress"]], top=CONSUL)
    events = apply(state, 0, {"type": "timeout"}, system=True)
    assert only(events, "play")["card"]["name"] == AUTHOR  # 6 against the Sea's 3
    tie = table([["Ace of Knots", "Ace of Moons", DESERT], ["Bard", "End", "Huntress"]], top=CONSUL)
    events = apply(tie, 0, {"type": "timeout"}, system=True)  # both Aces score 3: the lower id
    assert only(events, "play")["card"]["name"] == "Ace of Moons"
    nothing = table([[DESERT, "Bard", "Windfall"], ["End", "Sea", "Huntress"]], top="Ace of Leaves",
                    options={"face_down": True})
    events = apply(nothing, 0, {"type": "timeout"}, system=True)  # never face down: the lowest id, face up
    assert only(events, "play")["card"]["id"] == min(c.id for c in build_rules(nothing.config).deck.cards
                                                      if c.name in (DESERT, "Bard", "Windfall"))


def test_uno_actions_a_colour_the_wrong_turn_and_unknown_cards_are_refused():
    state = table([[DESERT, "Sea", AUTHOR], ["Bard", "End", "Huntress"]], top=CONSUL)
    exc = assert_refused(state, 0, {"type": "play", "card": state.hands[0][0], "color": "red"}, IllegalMove)
    assert exc.extra["field"] == "color" and "Decktet card names no colour" in str(exc)  # (not UNO's "wild card")
    for hand in ([DESERT, "Sea", AUTHOR], [DESERT, "Sea"]):  # no UNO call, whatever the hand's size
        small = table([hand, ["Bard", "End", "Huntress"]], top=CONSUL)
        exc = assert_refused(small, 0, {"type": "play", "card": small.hands[0][0], "uno": True}, IllegalMove)
        assert exc.extra["field"] == "uno" and "Decktet-Uno has no UNO call" in str(exc)
    exc = assert_refused(state, 0, {"type": "draw"}, InvalidAction)
    assert "known: play, play_face_down" in str(exc)
    assert_refused(state, 1, {"type": "play", "card": state.hands[1][0]}, NotYourTurn)
    assert_refused(state, 0, {"type": "play", "card": 44}, UnknownCard)
    assert_refused(state, 0, {"type": "play", "card": state.hands[1][0]}, NotYourCard)


# ==============================================================================================
# properties over thousands of random games of each variant
# ==============================================================================================
VARIANTS = [({}, 2), ({}, 4), ({"face_down": True}, 2), ({"face_down": True}, 3), ({"decks": 2}, 3),
            ({"face_down": True, "decks": 2}, 4)]


def _hidden_ids(state: State, seat: int | None) -> set[int]:
    hidden = set(state.draw_pile)
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden |= set(hand)
    hidden |= {c for owner, c in state.aside if owner != seat}
    return hidden


def _card_ids(obj) -> set[int]:
    """Every card id a view shows (card objects: dicts with ``suits``)."""
    out: set[int] = set()
    if isinstance(obj, dict):
        if "suits" in obj and "id" in obj:
            out.add(obj["id"])
        for v in obj.values():
            out |= _card_ids(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _card_ids(v)
    return out


@pytest.mark.parametrize("options,seats", VARIANTS)
def test_random_games_conserve_the_cards_score_by_the_formula_end_and_hide_what_is_hidden(options, seats):
    rng = random.Random(json.dumps([options, seats]))
    games = 500
    for g in range(games):
        events: list[dict] = []
        state = new_game(PRESET, options, seats, f"p{g}", events)
        log: list[tuple[int, dict]] = []
        top = only(events, "first_card")["card"]
        expected = [0] * seats
        plays = 0
        while state.status == "active":
            seat = state.actor()
            for s in (*range(seats), None):  # no view shows a card hidden from its viewer
                assert not _card_ids(view(state, s)) & _hidden_ids(state, s)
                if s is not None and s != seat:
                    assert legal_actions(state, s) == []  # nobody acts out of turn
            action = rng.choice(legal_actions(state, seat))
            ev = apply(state, seat, action)
            log.append((seat, action))
            plays += 1
            assert plays <= 44 * 2, "a game that does not end"
            for e in ev:
                if e["type"] == "play":
                    assert e["points"] == formula(top, e["card"])
                    expected[e["seat"]] += e["points"]
                    top = e["card"]
                elif e["type"] == "face_down_placed":
                    assert e["points"] == (formula(top, e["card"]) or -2)
                    expected[e["seat"]] += e["points"]
                    top = e["card"]
            for s in range(seats):  # what each seat is shown of the events: nothing it may not see
                for e in visible_events(ev, s):
                    assert not _card_ids(e) & _hidden_ids(state, s) - set(state.hands[s])
            assert state.scores == expected
            every = [c for h in state.hands for c in h] + state.draw_pile + state.discard + [a[1] for a in state.aside]
            assert sorted(every) == list(range(44))
        assert not any(state.hands) and not state.aside
        assert state.winners == [s for s in range(seats) if state.scores[s] == max(state.scores)]
        if g % 50 == 0:  # replays exactly from its config and its log, and survives its saved form
            assert replay(state.config, log) == state
            assert State.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_an_observation_deals_the_others_hands_and_a_face_down_card_again():
    state = _set_aside()
    rng = random.Random(3)
    seen = set()
    for _ in range(30):
        obs = observe(state, 1, rng)
        assert obs.hands[1] == state.hands[1] and obs.discard == state.discard
        assert [a[0] for a in obs.aside] == [0]
        seen.add(obs.aside[0][1])
        every = [c for h in obs.hands for c in h] + obs.draw_pile + obs.discard + [a[1] for a in obs.aside]
        assert sorted(every) == list(range(44))
    assert len(seen) > 5  # the Island is not given away
    assert observe(state, 0, rng).aside == state.aside  # its owner knows it


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("options,seats", [({}, 2), ({"face_down": True, "decks": 2}, 4)])
def test_every_bot_level_plays_whole_games(level, options, seats):
    rng = random.Random(level)
    for g in range(4):
        state = new_game(PRESET, options, seats, f"bots{g}")
        while state.status == "active":
            seat = state.actor()
            apply(state, seat, decide(level, state, seat, rng, max_samples=2))
        assert state.winners
