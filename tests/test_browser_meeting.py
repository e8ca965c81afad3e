"""The browser client's meeting features (issue 26) in a real browser: Debian's chromium
driven by Playwright against a real gunicorn (the page's static files collected as `make
run` collects them), each person in a browser context of their own.  Nothing is mocked:
every click goes through the page's JavaScript (games/static/uno/meeting.js) to the API,
and what the others see arrives by their feed or their game stream.

- A challenge by name: the challenged sees it arrive live, accepts; both pages go to the
  game, both play it to the end by clicking; a rematch is offered and accepted in the
  pages, and both follow to the new game, whose seats are rotated.  A watcher follows too.
- A declined challenge shows the reason to the challenger; a cancelled one is gone.
- An open challenge: created in the page, its link copied; a player who must sign in and
  a new user who registers open the link, take the seats, and the game starts for all.
- The table talk both ways, the spectators' room apart, a report, a block.
- Quick play on a phone-sized screen: waiting, cancelled, then matched; bots after a wait.
  Nothing the meeting features add makes the page scroll sideways at 390 x 844.

Screenshots for the docs: ``UNO_SCREENSHOTS=docs/screenshots`` writes ``challenge.png``,
``rematch.png``, ``chat-phone.png`` and ``quickplay-phone.png``.
"""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import Error as PlaywrightError

from games.models import Game
from tests.browser_support import (GAME_URL, PASSWORD, PHONE, Api, browser_marks, no_sideways_scroll, register,
                                   registered_in_page, shot, signed_in)
from tests.celery_helpers import requires_redis
from tests.test_browser_client import act_once

pytestmark = browser_marks


def game_of(page, other_than: int | None = None) -> int:
    """The game the page's table shows (once it shows one, other than ``other_than``)."""
    page.wait_for_url(lambda url: bool(GAME_URL.search(url)) and int(GAME_URL.search(url).group(1)) != other_than)
    return int(GAME_URL.search(page.url).group(1))


def lobby_settings(page, *, bots: int = 0, rounds: int = 1, seats: int | None = None) -> None:
    """The lobby's game settings: standard, the lobby's default bot removed (or kept), one round."""
    page.select_option("#create-ruleset", "standard")
    while page.locator(".remove-bot").count() > bots:
        page.locator(".remove-bot").first.click()
    if seats:
        page.fill("#create-max-players", str(seats))
    page.click("#create-options-box summary")
    page.fill("#opt-rounds", str(rounds))


def play_to_the_end(pages, gid: int, api: Api, limit: float = 150, each: int | None = None) -> None:
    """Every page clicks what it offers until the game is finished (``each``: until every
    page has clicked that many times, or the game is finished)."""
    deadline = time.monotonic() + limit
    clicks = 0
    by_page = [0] * len(pages)
    while any(p.get_attribute("#table", "data-status") != "finished" for p in pages):
        if each is not None and min(by_page) >= each:
            print(f"game {gid}: each page clicked {each} times or more ({clicks} clicks)")
            return
        assert time.monotonic() < deadline, f"game {gid} did not end: {api.get(f'/games/{gid}')['version']} moves"
        acted = False
        for i, page in enumerate(pages):
            version = page.get_attribute("#table", "data-version")
            if act_once(page):
                acted = True
                clicks += 1
                by_page[i] += 1
                try:
                    page.wait_for_function(
                        "v => document.querySelector('#table').dataset.version !== v || document.querySelector('#choice')",
                        arg=version, timeout=5000)
                except PlaywrightError:
                    pass
            assert page.locator("#error").is_hidden() or page.get_attribute("#error", "data-code") in (
                "stale_version", "not_your_turn"), page.inner_text("#error")
        if not acted:
            time.sleep(0.1)
    assert api.get(f"/games/{gid}")["status"] == "finished"
    print(f"game {gid}: finished after {clicks} clicks")


def played_through_the_api(gid: int, players: list[Api], limit: float = 60) -> None:
    """The players play game ``gid`` to the end by the API (a card when they can)."""
    deadline = time.monotonic() + limit
    while True:
        assert time.monotonic() < deadline, f"game {gid} did not end"
        for api in players:
            view = api.get(f"/games/{gid}")
            if view["status"] == "finished":
                return
            if view["legal_actions"]:
                action = next((a for a in view["legal_actions"] if a["type"] == "play"), view["legal_actions"][0])
                r = api.call("POST", f"/games/{gid}/actions", {**action, "expected_version": view["version"]})
                assert r.status_code in (200, 409), r.text


# --- a challenge by name, the game, the rematch --------------------------------------------
def test_a_challenge_by_name_is_accepted_played_to_the_end_and_rematched_with_the_seats_rotated(server, new_page):  # noqa: F811
    a_name, a = register(server)
    b_name, b = register(server)
    w_name, w = register(server)
    pa = signed_in(new_page(), server, a_name, a.token)
    pb = signed_in(new_page(), server, b_name, b.token)

    lobby_settings(pa)
    pa.fill("#challenge-to", b_name)
    pa.check("#challenge-rated")
    pa.click("#challenge-submit")
    mine = pa.locator("#challenges li.challenge[data-direction=outgoing][data-status=pending]")
    mine.wait_for()
    assert f"To {b_name}" in mine.inner_text() and mine.locator(".challenge-cancel").count() == 1
    sent = a.get("/challenges?direction=outgoing")["results"]
    assert len(sent) == 1 and sent[0]["to"] == [{"username": b_name, "answer": "pending"}]
    assert sent[0]["rated"] is True and sent[0]["options"] == {"rounds": 1} and sent[0]["bots"] == []

    # B's lobby shows it without reloading (the feed's `challenge` event)
    theirs = pb.locator(f"#challenges li.challenge[data-challenge-id='{sent[0]['id']}'][data-direction=incoming]")
    theirs.wait_for()
    assert f"{a_name} challenges you" in theirs.inner_text() and "rated" in theirs.inner_text()
    shot(pb, "challenge.png")
    theirs.locator(".challenge-accept").click()
    gid = game_of(pb)
    assert game_of(pa) == gid  # A's lobby followed (the feed's `challenge_accepted` with the game)
    game = a.get(f"/games/{gid}")
    assert game["status"] == "active" and game["options"]["rounds"] == 1 and Game.objects.get(pk=gid).rated
    assert [p["username"] for p in game["players"]] == [a_name, b_name]
    assert a.get(f"/challenges/{sent[0]['id']}")["status"] == "accepted"

    # a watcher opens the table too
    pw = signed_in(new_page(), server, w_name, w.token, f"#/game/{gid}")
    pw.wait_for_selector("#table[data-seat=spectator]")

    for page in (pa, pb):
        page.wait_for_selector("#table[data-status=active]")
    # both play in their pages; the rest of the game is played by the API, and every page
    # follows it to its end (a whole game clicked through: test_browser_client, test_browser_table)
    play_to_the_end([pa, pb], gid, a, each=3)
    played_through_the_api(gid, [a, b])
    for page in (pa, pb, pw):
        page.wait_for_selector("#table[data-status=finished]")

    # the rematch: A offers, B sees the offer live and accepts; everyone follows
    pa.click("#rematch-offer")
    pa.wait_for_selector("#rematch[data-status=offered]")
    pb.wait_for_selector("#rematch-accept")  # the stream's `rematch` event
    assert f"{a_name} offered a rematch" in pb.inner_text("#rematch-status")
    pw.wait_for_selector("#rematch[data-status=offered]")
    assert pw.locator("#rematch button").count() == 0  # a watcher has no say
    shot(pb, "rematch.png")
    pb.click("#rematch-accept")
    new = game_of(pb, other_than=gid)
    assert game_of(pa, other_than=gid) == new and game_of(pw, other_than=gid) == new
    old = a.get(f"/games/{gid}")
    assert old["rematch"]["status"] == "started" and old["rematch"]["game"] == new
    again = a.get(f"/games/{new}")
    assert again["status"] == "active" and again["options"]["rounds"] == 1 and Game.objects.get(pk=new).rated
    assert [p["username"] for p in again["players"]] == [b_name, a_name]  # the seats rotated by one
    pa.wait_for_selector("#table[data-status=active][data-seat='1']")
    pb.wait_for_selector("#table[data-status=active][data-seat='0']")
    pw.wait_for_selector("#table[data-seat=spectator]")


def test_a_rematch_declined_in_the_page_ends_the_offer_for_everyone(server, new_page):  # noqa: F811
    a_name, a = register(server)
    b_name, b = register(server)
    gid = a.post("/games", {"ruleset": "standard", "max_players": 2, "options": {"rounds": 1}}, status=201)["id"]
    b.post(f"/games/{gid}/join")
    a.post(f"/games/{gid}/start")
    played_through_the_api(gid, [a, b])
    pa = signed_in(new_page(), server, a_name, a.token, f"#/game/{gid}")
    pb = signed_in(new_page(viewport=PHONE), server, b_name, b.token, f"#/game/{gid}")
    for page in (pa, pb):
        page.wait_for_selector("#table[data-status=finished][data-live=stream] #rematch[data-status=none]")
    pa.click("#rematch-offer")
    pb.wait_for_selector("#rematch[data-status=offered] #rematch-decline")
    no_sideways_scroll(pb, "#rematch", "#rematch-accept", "#rematch-decline")
    pb.click("#rematch-decline")
    pb.wait_for_selector("#rematch[data-status=declined]")
    pa.wait_for_selector("#rematch[data-status=declined]")  # the stream's rematch event
    assert pa.inner_text("#rematch-status") == f"{b_name} declined the rematch."
    assert pb.inner_text("#rematch-status") == "You declined the rematch."
    assert pa.locator("#rematch button").count() == 0
    assert a.get(f"/games/{gid}")["rematch"]["status"] == "declined"
    assert pa.url.endswith(f"#/game/{gid}") and pb.url.endswith(f"#/game/{gid}")


def test_a_declined_challenge_shows_the_reason_and_a_cancelled_one_ends(server, new_page):  # noqa: F811
    a_name, a = register(server)
    b_name, b = register(server)
    pa = signed_in(new_page(), server, a_name, a.token)
    pb = signed_in(new_page(), server, b_name, b.token)
    lobby_settings(pa, bots=1, seats=3)
    pa.fill("#challenge-to", b_name)
    pa.click("#challenge-submit")
    incoming = pb.locator("#challenges li.challenge[data-direction=incoming][data-status=pending]")
    incoming.wait_for()
    assert "3 seats · 1 bot (normal)" in incoming.inner_text()
    incoming.locator(".decline-reason").select_option("too_fast")
    incoming.locator(".challenge-decline").click()
    pb.wait_for_selector("#challenges li.challenge[data-status=declined]")
    # A is told live, with the reason
    declined = pa.locator("#challenges li.challenge[data-status=declined]")
    declined.wait_for()
    assert declined.locator(".challenge-declined").inner_text() == f"{b_name} declined: Too fast for me"
    assert a.get("/challenges")["results"][0]["declined"] == {"by": b_name, "reason": "too_fast"}

    # refused in the page: nobody named
    pa.click("#challenge-submit")
    pa.wait_for_selector("#error:not([hidden])")
    assert "Name the players" in pa.inner_text("#error .message")
    # an unknown name: the API's problem detail
    pa.fill("#challenge-to", f"nobody{uuid.uuid4().hex[:8]}")
    pa.click("#challenge-submit")
    pa.wait_for_function("() => document.querySelector('#error')?.dataset.code === 'unknown_player'")

    pa.fill("#challenge-to", b_name)
    pa.click("#challenge-submit")
    pb.locator("#challenges li.challenge[data-direction=incoming][data-status=pending]").wait_for()
    pa.locator("#challenges li.challenge[data-status=pending] .challenge-cancel").click()
    pa.wait_for_selector("#challenges li.challenge[data-status=cancelled]")
    pb.wait_for_selector("#challenges li.challenge[data-status=cancelled]")  # the feed's challenge_cancelled
    assert pb.locator("#challenges li.challenge[data-status=pending]").count() == 0
    assert [c["status"] for c in b.get("/challenges")["results"]] == ["cancelled", "declined"]


# --- an open challenge's link ---------------------------------------------------------------
def test_an_open_challenge_link_is_copied_and_opened_by_a_player_and_a_new_user(server, new_page):  # noqa: F811
    a_name, a = register(server)
    b_name, b = register(server)
    pa = signed_in(new_page(permissions=("clipboard-read", "clipboard-write")), server, a_name, a.token)
    lobby_settings(pa, seats=3)
    pa.click("#open-challenge-submit")
    item = pa.locator("#challenges li.challenge[data-direction=outgoing][data-status=pending]")
    item.wait_for()
    link = item.locator(".challenge-link").input_value()
    challenge = a.get("/challenges")["results"][0]
    token = challenge["url"].rstrip("/").rsplit("/", 1)[1]
    assert challenge["open"] and link == f"{server.url}/#/challenge/{token}"
    item.locator(".challenge-copy").click()
    assert pa.evaluate("() => navigator.clipboard.readText()") == link

    # B, signed out, opens the link: the sign-in form, then the challenge; takes a seat
    pb = new_page()
    pb.goto(link)
    pb.wait_for_selector("#signin-form")
    pb.fill("#signin-username", b_name)
    pb.fill("#signin-password", PASSWORD)
    pb.click("#signin-submit")
    pb.wait_for_selector("#take-seat")
    assert pb.url == link and f"{a_name}'s open challenge" in pb.inner_text("#open-challenge")
    assert "2 free seats" in pb.inner_text("#open-challenge")
    pb.click("#take-seat")
    pb.wait_for_selector("#open-challenge-waiting")
    assert "1 more player" in pb.inner_text("#open-challenge-waiting")

    # C, a new user on a phone, registers from the link and takes the last seat
    pc = new_page(viewport=PHONE)
    pc.goto(link)
    c_name = registered_in_page(pc, then="#take-seat")
    assert "1 free seat" in pc.inner_text("#open-challenge")
    no_sideways_scroll(pc, "#open-challenge", "#take-seat")
    pc.click("#take-seat")
    gid = game_of(pc)
    assert game_of(pb) == gid and game_of(pa) == gid  # B's challenge page and A's lobby followed
    game = a.get(f"/games/{gid}")
    assert game["status"] == "active" and [p["username"] for p in game["players"]] == [a_name, b_name, c_name]
    assert a.get(f"/challenges/{challenge['id']}")["status"] == "accepted"
    for page in (pa, pb, pc):
        page.wait_for_selector("#table[data-status=active] #hand")
    no_sideways_scroll(pc, "#chat")


# --- the table talk -------------------------------------------------------------------------
def test_the_table_talk_both_ways_a_spectators_room_a_report_and_a_block(server, new_page):  # noqa: F811
    from chat.models import Report

    a_name, a = register(server)
    b_name, b = register(server)
    w_name, w = register(server)
    gid = a.post("/games", {"ruleset": "standard", "max_players": 2, "options": {"rounds": 1}}, status=201)["id"]
    b.post(f"/games/{gid}/join")
    a.post(f"/games/{gid}/start")
    pa = signed_in(new_page(), server, a_name, a.token, f"#/game/{gid}")
    pb = signed_in(new_page(viewport=PHONE), server, b_name, b.token, f"#/game/{gid}")
    pw = signed_in(new_page(), server, w_name, w.token, f"#/game/{gid}")
    for page in (pa, pb, pw):
        page.wait_for_selector("#table[data-live=stream]")  # the stream is open: chat events come by it
    assert "players' room" in pa.inner_text("#chat h3") and "spectators' room" in pw.inner_text("#chat h3")
    # presence: both players made requests just now
    assert pw.locator("#seats .seat .flag.online").count() == 2 == sum(p["online"] for p in w.get(f"/games/{gid}")["players"])

    def say(page, text):
        page.fill("#chat-text", text)
        page.click("#chat-send")
        page.wait_for_function("() => document.querySelector('#chat-text').value === ''")

    def shown(page) -> list[str]:
        return page.eval_on_selector_all("#chat-messages li .chat-text", "els => els.map(e => e.textContent)")

    say(pa, "good luck")
    pb.wait_for_selector("#chat-messages li:has-text('good luck')")
    say(pb, "you too")
    pa.wait_for_selector("#chat-messages li:has-text('you too')")
    say(pw, "A will win")  # the spectators' room: the players do not see it while the game runs
    assert shown(pw) == ["A will win"]
    assert shown(pa) == shown(pb) == ["good luck", "you too"]
    assert pa.locator("#chat-messages li[data-username='%s'] .chat-author" % b_name).inner_text() == b_name
    assert pa.locator("#chat-messages li.mine .chat-tools").count() == 0  # no block or report of one's own

    # B reports A's message, then blocks A
    first = pb.locator(f"#chat-messages li[data-username='{a_name}']").first
    first.locator(".chat-report").click()
    first.locator(".chat-report-reason").select_option("abuse")
    first.locator(".chat-report-send").click()
    pb.wait_for_selector(".chat-reported")
    pb.locator("#chat").scroll_into_view_if_needed()
    shot(pb, "chat-phone.png")
    report = Report.objects.get()
    assert report.reason == "abuse" and report.message.text == "good luck" and report.reporter.username == b_name
    pb.locator(f"#chat-messages li[data-username='{a_name}'] .chat-block").first.click()
    pb.wait_for_function("n => !document.querySelector(`#chat-messages li[data-username='${n}']`)", arg=a_name)
    assert [x["username"] for x in b.get("/players/me/blocks")] == [a_name]
    # a block holds the table talk back both ways (the stream and GET), the rest of the table not
    say(pa, "are you there?")
    say(pb, "still here")
    say(pw, "quiet now")
    time.sleep(1.5)  # what the stream would have brought by now
    assert shown(pa) == ["good luck", "you too", "are you there?"]
    assert shown(pb) == ["you too", "still here"]
    assert [m["text"] for m in b.get(f"/games/{gid}/chat")["results"]] == ["you too", "still here"]
    assert [m["text"] for m in a.get(f"/games/{gid}/chat")["results"]] == ["good luck", "are you there?"]
    assert shown(pw) == ["A will win", "quiet now"]
    no_sideways_scroll(pb, "#chat", "#chat-form", "#chat-send")


# --- quick play -------------------------------------------------------------------------------
def test_quick_play_on_a_phone_waiting_cancelled_then_matched(server, new_page):  # noqa: F811
    a_name, a = register(server)
    b_name, b = register(server)
    pa = signed_in(new_page(viewport=PHONE), server, a_name, a.token)
    pb = signed_in(new_page(viewport=PHONE), server, b_name, b.token)
    no_sideways_scroll(pa, "#quickplay", "#quickplay-form", "#challenge-box", "#challenges", "#quickplay-submit")

    def ask(page):
        page.uncheck("#quickplay-form input[name=qp-ruleset][value=standard]")
        page.check("#quickplay-form input[name=qp-ruleset][value=house]")
        page.check("#quickplay-form input[name=qp-seats][value='3']")  # 2 (the default) or 3
        page.click("#quickplay-submit")

    ask(pa)
    pa.wait_for_selector("#quickplay-waiting")
    assert "House rules" in pa.inner_text("#quickplay-waiting")  # the preset by its title
    no_sideways_scroll(pa, "#quickplay-waiting", "#quickplay-cancel")
    shot(pa, "quickplay-phone.png")
    qid = int(pa.get_attribute("#quickplay-waiting", "data-quickplay"))
    assert a.get(f"/quickplay/{qid}")["status"] == "waiting"
    assert a.get(f"/quickplay/{qid}")["seats"] == [2, 3] and a.get(f"/quickplay/{qid}")["rulesets"] == ["house"]
    pa.wait_for_function("() => document.querySelector('#quickplay-elapsed').textContent !== '0:00'")
    # the waiting survives a reload
    pa.reload()
    pa.wait_for_selector(f"#quickplay-waiting[data-quickplay='{qid}']")
    pa.click("#quickplay-cancel")
    pa.wait_for_selector("#quickplay-form")
    assert a.get(f"/quickplay/{qid}")["status"] == "cancelled"

    ask(pa)
    pa.wait_for_selector("#quickplay-waiting")
    ask(pb)  # completes a 2-seat house table
    gid = game_of(pb)
    assert game_of(pa) == gid  # A's lobby followed (the feed's quickplay_matched)
    game = a.get(f"/games/{gid}")
    assert game["status"] == "active" and game["ruleset"] == "house" and game["turn_seconds"] == 30
    assert sorted(p["username"] for p in game["players"]) == sorted([a_name, b_name])
    pa.wait_for_selector("#table[data-status=active] #hand")
    no_sideways_scroll(pa, "#table", "#chat")
    pa.click("text=Lobby")  # the game listed: the lobby still fits
    pa.wait_for_selector(f"#my-games tr[data-game-id='{gid}']")
    no_sideways_scroll(pa, "#quickplay-form", "#my-games")


@requires_redis
def test_quick_play_with_bots_after_a_wait(server, new_page, worker):  # noqa: F811
    worker.start()
    name, api = register(server)
    page = signed_in(new_page(), server, name, api.token)
    page.uncheck("#quickplay-form input[name=qp-ruleset][value=standard]")
    page.check("#quickplay-form input[name=qp-ruleset][value=duo]")
    page.check("#qp-bots")
    page.fill("#qp-bots-after", "1")
    page.select_option("#qp-bots-level", "easy")
    page.click("#quickplay-submit")
    gid = game_of(page)  # after a second (the worker's fill-in), from the waiting indicator
    game = api.get(f"/games/{gid}")
    assert game["ruleset"] == "duo" and [p["is_bot"] for p in game["players"]].count(True) == 1
    assert game["players"][[p["is_bot"] for p in game["players"]].index(True)]["bot_level"] == "easy"
