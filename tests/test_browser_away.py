"""The table's time left in a correspondence game (games/static/uno/table.js), in Debian's
chromium on a phone against a real gunicorn: the seat in turn says its time left in words,
a seat whose player is away (``PUT /players/me/away``) says until when and the time its
clock will have then, each in the seat's accessible name; the page stays accessible and
nothing scrolls sideways.  A real-time game keeps its countdown and shows no "away"."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.browser_support import PHONE, assert_accessible, browser_marks, no_sideways_scroll, register, shot, signed_in
from tests.celery_helpers import requires_redis

pytestmark = [*browser_marks, requires_redis]


def table_of_two(server, turn_seconds: int):
    """A running two-player game (no bots): (id, (name, api) of its creator, of the other)."""
    alice, bob = register(server), register(server)
    gid = alice[1].post("/games", {"ruleset": "standard", "max_players": 2, "turn_seconds": turn_seconds,
                                   "options": {"rounds": 1}}, status=201)["id"]
    bob[1].post(f"/games/{gid}/join")
    alice[1].post(f"/games/{gid}/start")
    return gid, alice, bob


def go_away(api, days: float) -> str:
    until = (datetime.now(timezone.utc) + timedelta(days=days)).isoformat()
    r = api.call("PUT", "/players/me/away", {"until": until})
    assert r.status_code == 200, r.text
    return r.json()["away_until"]


def seat_label(page, seat: int) -> str:
    return page.get_attribute(f"#seats .seat[data-seat='{seat}']", "aria-label") or ""


def test_a_correspondence_table_says_each_seats_time_left_in_words(server, new_page):
    gid, alice, bob = table_of_two(server, 86400)
    view = alice[1].get(f"/games/{gid}")
    turn = view["current_seat"]
    seats = {p["username"]: p["seat"] for p in view["players"]}
    waiting_name, waiting_api = (bob if seats[bob[0]] != turn else alice)
    go_away(waiting_api, 3)  # the player not in turn is away: their next clock waits for them

    page = new_page(viewport=PHONE)
    signed_in(page, server, alice[0], alice[1].token, f"#/game/{gid}")
    page.wait_for_selector("#seats .seat .time-left")
    running = page.locator(f"#seats .seat[data-seat='{turn}'] .time-left")
    assert running.count() == 1
    text = running.inner_text()
    assert text.startswith("⏱") and text.endswith(" left") and "h" in text  # "⏱ 23 h 59 min left"
    assert " left" in seat_label(page, turn) and "to play" in seat_label(page, turn)

    away_seat = seats[waiting_name]
    paused = page.locator(f"#seats .seat[data-seat='{away_seat}'] .time-left")
    assert paused.count() == 1 and "away until" in paused.inner_text()
    assert "away until" in seat_label(page, away_seat)
    assert page.locator(f"#seats .seat[data-seat='{away_seat}'] .seat-clock").count() == 0  # no clock runs
    no_sideways_scroll(page, "#seats")
    assert_accessible(page, "a correspondence table with a player away")
    shot(page, "table-away-phone.png")

    # the player in turn goes away too: their clock stops, said in words with the time it keeps
    mover_api = alice[1] if seats[alice[0]] == turn else bob[1]
    go_away(mover_api, 2)
    page.reload()
    page.wait_for_selector(f"#seats .seat[data-seat='{turn}'] .time-left")
    stopped = page.locator(f"#seats .seat[data-seat='{turn}'] .time-left").inner_text()
    assert "away until" in stopped and "left when back" in stopped
    assert page.locator("#seats .seat-clock").count() == 0
    assert page.locator("#deadline").count() == 0  # no countdown to a deadline that stands still


@pytest.mark.parametrize("turn_seconds", [600])
def test_a_real_time_table_keeps_its_countdown(server, new_page, turn_seconds):
    gid, alice, bob = table_of_two(server, turn_seconds)
    turn = alice[1].get(f"/games/{gid}")["current_seat"]
    go_away(alice[1], 1)  # away does not touch a real-time game
    page = new_page(viewport=PHONE)
    signed_in(page, server, alice[0], alice[1].token, f"#/game/{gid}")
    page.wait_for_selector(f"#seats .seat[data-seat='{turn}'] .seat-clock")
    assert page.locator("#seats .time-left").count() == 0
    assert "away" not in page.inner_text("#seats")
