"""The table (games/static/uno/table.js) as a player uses it, in Debian's chromium against a
real gunicorn and Celery worker (bots think 0 s on both):

- a 10-seat `house` game against 9 bots on a phone (390 x 844): on each of the player's
  first 20 turns the hand and the actions are inside the screen, touch targets are 44 px
  and more, nothing scrolls sideways (at 360 px too), the page speaks player (no version
  counter, no stream mode, no bot countdown in an untimed game);
- a 2-seat game against a bot played to the end on the phone: the end screen with both
  names and scores, and "Back to the lobby";
- resigning a running game: the dialog, the API's seat `left`, what the page then says;
- a whole 2-seat game played with the keyboard only (no mouse event): focus on the hand
  after each move;
- the hand sorted by rank or by colour, remembered after a reload; the tab title on the
  player's turn.
"""

from __future__ import annotations

import time

import pytest
import requests
from playwright.sync_api import Error as PlaywrightError

from tests.browser_support import (PHONE, Api, assert_accessible, browser_marks, no_sideways_scroll, register, shot,
                                   signed_in)
from tests.celery_helpers import requires_redis
from tests.server_support import served

pytestmark = [*browser_marks, requires_redis]


@pytest.fixture(scope="module")
def server(django_db_setup, static_root, tmp_path_factory):  # noqa: F811
    """The served page, its bots' first step queued at once (as the worker's next ones)."""
    yield from served(tmp_path_factory, STATIC_ROOT=static_root, UNO_BOT_THINK_SECONDS=0)


def game_against_bots(api: Api, ruleset: str, bots: int, **extra) -> int:
    body = {"ruleset": ruleset, "max_players": bots + 1, "bots": [{"level": "easy"}] * bots, **extra}
    gid = api.post("/games", body, status=201)["id"]
    api.post(f"/games/{gid}/start")
    return gid


def labels(page, game: dict) -> dict[int, str]:
    """Each seat's name as the page's cards.js says it standing alone ("alice (you)", "Bot 1 (easy)")."""
    shown = page.evaluate("""async (g) => { const m = await import('/static/uno/cards.js');
        const n = m.seatNamer(g); return g.players.map((p) => [p.seat, n.label(p.seat)]); }""", game)
    return dict((seat, label) for seat, label in shown)


def inside(box, width: int, height: int) -> bool:
    return (box is not None and box["x"] >= -0.5 and box["y"] >= -0.5
            and box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5)


def wait_for_turn_or_end(page, timeout: float = 60000) -> str:
    """'mine' once it is the player's turn, 'finished' once the game is over."""
    try:
        page.wait_for_function(
            "() => { const t = document.querySelector('#table');"
            " return t && (t.dataset.turn === 'mine' || t.dataset.status === 'finished'); }", timeout=timeout)
    except PlaywrightError as exc:  # say what the page and the server knew
        table = page.evaluate("() => ({...document.querySelector('#table').dataset})")
        token = page.evaluate("() => localStorage.getItem('uno.token')")
        gid = page.url.rsplit("/", 1)[1]
        view = requests.get(f"{page.url.split('/#')[0]}/api/v1/games/{gid}", headers={"Authorization": f"Token {token}"},
                            timeout=30).json()
        raise AssertionError(f"no turn came: #table {table}; the API: version {view['version']}, status "
                             f"{view['status']}, current seat {view['current_seat']}, obligations {view['obligations']}, "
                             f"legal actions {view['legal_actions']}") from exc
    resyncs = page.get_attribute("#table", "data-resyncs")
    if resyncs:  # (the table read the game again: its stream had stopped bringing its moves)
        print(f"the table read the game again {resyncs} times")
    return "finished" if page.get_attribute("#table", "data-status") == "finished" else "mine"


def click_once(page) -> bool:
    """One click of what the page offers: a choice, else a playable card, else an action."""
    try:
        for selector in ("#choice .choice-option", "#hand .card.playable", "#actions button.action"):
            found = page.locator(selector)
            if found.count():
                found.first.click(timeout=3000)
                return True
    except PlaywrightError:
        return False  # re-rendered under the click: look again
    return False


def wait_moved(page, version: str) -> None:
    try:
        page.wait_for_function(
            "v => document.querySelector('#table').dataset.version !== v || document.querySelector('#choice')",
            arg=version, timeout=20000)
    except PlaywrightError:
        pass


# --- a 10-seat game on a phone ------------------------------------------------------------
def test_ten_seats_on_a_phone_keep_the_hand_and_the_actions_on_screen(server, new_page, worker, worker_with_beat):
    name, api = register(server)
    gid = game_against_bots(api, "house", 9)
    page = new_page(viewport=PHONE)
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    page.wait_for_selector("#table[data-status=active] #hand")
    width, height = PHONE["width"], PHONE["height"]
    turns = 0
    deadline = time.monotonic() + 400
    while turns < 20:
        assert time.monotonic() < deadline, f"only {turns} turns"
        if wait_for_turn_or_end(page) == "finished":
            break
        version = page.get_attribute("#table", "data-version")
        # the hand, the actions (and a card's choices) inside the screen, without scrolling:
        # measured in one go (the table re-renders as the bots move)
        seen = page.evaluate("""() => {
            const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
            const parts = {};
            for (const s of ['#hand-box', '#hand', '#actions', '#choice']) {
                const e = document.querySelector(s); if (e) parts[s] = box(e); }
            return {parts, mine: document.querySelector('#table').dataset.turn === 'mine', buttons: [...document.querySelectorAll('#dock button')].map(
                (b) => ({text: b.textContent, card: b.classList.contains('card'), box: box(b)}))}; }""")
        if not seen["mine"]:
            continue  # (an autopilot's move in between: look again)
        for selector, box in seen["parts"].items():
            assert inside(box, width, height), (selector, box, turns)
        for button in seen["buttons"]:
            box = button["box"]
            assert box["height"] >= 44 and box["width"] >= 44, button
            if not button["card"]:  # (cards may be scrolled out of the hand's row)
                assert inside(box, width, height), button
        # a playable card (the one just drawn, if it is) in view, the row scrolled to it if need be
        playable = page.evaluate("""() => [...document.querySelectorAll('#hand .card.playable')].map((c) => {
            const r = c.getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height, drawn: c.classList.contains('just-drawn')}; })""")
        drawn = [c for c in playable if c["drawn"]]
        assert not playable or any(inside(c, width, height) for c in drawn or playable), (playable, turns)
        no_sideways_scroll(page, "#table", "#seats", "#dock")
        assert page.title().startswith("Your turn") and "·" in page.title()
        if turns == 0:
            text = page.inner_text("#table")
            for developer in ("version", "live:", "due in", "seat 1", " s per turn"):
                assert developer not in text, developer
            assert "no time limit" in page.inner_text("#table-meta")
            assert page.locator("#seats .seat").count() == 10
            assert page.locator("#seats .seat-clock").count() == 0  # untimed: no countdown on anyone
            assert page.locator("#seats .seat.current[data-seat='0']").count() == 1
            # each seat's chip is its player's link, a fingertip's size
            for chip in page.locator("#seats .seat").all():
                box = chip.bounding_box()
                assert box["height"] >= 44 and box["width"] >= 44, box
                hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('a.player-link') !== null",
                                    [box["x"] + box["width"] - 4, box["y"] + box["height"] - 4])
                assert hit, chip.inner_text()
            shot(page, "table-phone.png")
            assert_accessible(page, "the table on a phone, the player's turn")
        turns += 1
        while page.get_attribute("#table", "data-version") == version and click_once(page):
            wait_moved(page, version)
            if not page.locator("#choice").count():
                break
        wait_moved(page, version)
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
    assert turns >= 20 or page.get_attribute("#table", "data-status") == "finished", turns
    assert turns >= 5
    # a smaller phone: still no sideways scroll; the desktop keeps the roomy table (measured
    # with the bots stopped: the table re-renders on each of their moves)
    worker.stop()
    version = api.get(f"/games/{gid}")["version"]
    page.wait_for_function("v => Number(document.querySelector('#table').dataset.version) >= v", arg=version)
    page.set_viewport_size({"width": 360, "height": 640})
    no_sideways_scroll(page, "#table", "#seats", "#dock", "#chat")
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.evaluate("() => getComputedStyle(document.querySelector('#dock')).position") == "static"


# --- a 2-seat game to its end on a phone --------------------------------------------------
def play_to_the_end(page, timeout: float = 300) -> int:
    deadline = time.monotonic() + timeout
    moves = 0
    while page.get_attribute("#table", "data-status") != "finished":
        assert time.monotonic() < deadline, f"the game did not end ({moves} clicks)"
        if wait_for_turn_or_end(page) == "finished":
            break
        version = page.get_attribute("#table", "data-version")
        if click_once(page):
            moves += 1
        wait_moved(page, version)
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
    return moves


def test_a_two_seat_game_to_its_end_screen_on_a_phone(server, new_page, worker_with_beat):
    name, api = register(server)
    gid = game_against_bots(api, "standard", 1, options={"rounds": 1})
    page = new_page(viewport=PHONE)
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    page.wait_for_selector("#table[data-status=active] #hand")
    assert play_to_the_end(page) >= 1
    page.wait_for_selector("#result #final-scores")
    final = api.get(f"/games/{gid}")
    label = labels(page, final)
    assert label[0] == f"{name} (you)" and label[1].startswith("Bot 1")  # names, no seat numbers
    winners = " and ".join(label[w["seat"]] for w in final["winners"])
    assert page.inner_text("#result-title") == f"Game over: won by {winners}"
    rows = {r.get_attribute("data-seat"): r for r in page.locator("#final-scores tbody tr").all()}
    assert set(rows) == {"0", "1"}
    for p in final["players"]:
        row = rows[str(p["seat"])]
        assert row.locator("td.score").inner_text() == str(p["score"])
        won = any(w["seat"] == p["seat"] for w in final["winners"])
        assert row.locator("th").inner_text() == label[p["seat"]] + (" · winner" if won else "")
    assert page.title() == f"Game #{gid} · over · UNO"
    assert page.locator("#replay-link").is_visible() and page.locator("#rematch-offer").is_visible()
    no_sideways_scroll(page, "#result", "#final-scores", "#back-to-lobby")
    assert page.locator("#dock").evaluate("e => getComputedStyle(e).position") != "fixed"  # over: nothing floats
    shot(page, "end-phone.png")
    assert_accessible(page, "the end screen on a phone")
    page.click("#back-to-lobby")
    page.wait_for_url(f"{server.url}/#/lobby")
    page.wait_for_selector(f"#my-games tr[data-game-id='{gid}']")
    assert f"Game #{gid}" not in page.title()  # the table's title went with it


# --- resigning ----------------------------------------------------------------------------
def test_resigning_a_running_game_hands_the_seat_to_the_autopilot(server, new_page, worker):
    name, api = register(server)  # (no worker yet: the game waits on the player's turn or the bot's)
    gid = game_against_bots(api, "standard", 1, options={"rounds": 1})
    page = new_page()
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    page.wait_for_selector("#table[data-status=active] #resign")
    page.click("#resign")
    dialog = page.locator("#resign-dialog")
    assert dialog.get_attribute("open") is not None
    assert page.evaluate("() => document.activeElement.id") == "resign-cancel"  # the safe choice first
    text = page.inner_text("#resign-text")
    assert_accessible(page, "the resign dialog")
    assert "autopilot plays your seat to the end" in text and "cannot act in this game again" in text
    page.keyboard.press("Escape")  # changed one's mind: nothing happens, focus goes back
    assert dialog.get_attribute("open") is None
    assert page.evaluate("() => document.activeElement.id") == "resign"
    assert not api.get(f"/games/{gid}")["players"][0]["left"]

    page.click("#resign")
    page.click("#resign-confirm")
    page.wait_for_selector("#left-note")
    seat = api.get(f"/games/{gid}")["players"][0]
    assert seat["left"] and seat["autopilot"]
    assert "the autopilot plays your seat to the end" in page.inner_text("#left-note")
    assert page.locator("#resign").count() == 0 and page.locator("#actions button").count() == 0
    assert page.locator("#hand .card.playable").count() == 0
    assert "left" in page.inner_text("#seats .seat[data-seat='0'] .flags")
    assert page.evaluate("() => document.activeElement !== document.body")
    worker.start()  # the autopilot and the bot play it out
    page.wait_for_selector("#table[data-status=finished] #result", timeout=120000)


# --- the keyboard only --------------------------------------------------------------------
def focused(page) -> dict:
    return page.evaluate("""() => { const a = document.activeElement;
        return {tag: a.tagName, id: a.id, inHand: Boolean(a.closest('#hand')), inDock: Boolean(a.closest('#dock')),
                playable: a.classList.contains('playable'), choice: Boolean(a.closest('#choice')),
                action: a.dataset.actionType || null}; }""")


def tab_to(page, test: str, limit: int = 60) -> None:
    """Tab (forwards) until `test` (a JS expression on `a`, the focused element) holds."""
    for _ in range(limit):
        if page.evaluate(f"() => {{ const a = document.activeElement; return Boolean({test}); }}"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"never reached {test}: {focused(page)}")


def test_a_whole_game_with_the_keyboard_only(server, new_page, worker_with_beat):
    name, api = register(server)
    gid = game_against_bots(api, "standard", 1, options={"rounds": 1})
    page = new_page()
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    # every mouse or pointer event the page receives is counted (a click by the keyboard has detail 0)
    page.evaluate("""() => { window.mouseEvents = 0;
        for (const t of ['mousedown', 'mouseup', 'pointerdown', 'pointerup', 'mousemove'])
            addEventListener(t, () => { window.mouseEvents++; }, true);
        addEventListener('click', (e) => { if (e.detail > 0) window.mouseEvents++; }, true); }""")
    page.wait_for_selector("#table[data-status=active] #hand")
    tab_to(page, "a.closest('#hand')")  # the hand: one tab stop
    assert_accessible(page, "the table on a desktop")
    shot(page, "table-desktop.png")
    moves = 0
    deadline = time.monotonic() + 300
    while True:
        assert time.monotonic() < deadline, f"the game did not end ({moves} moves)"
        if wait_for_turn_or_end(page) == "finished":
            break
        version = page.get_attribute("#table", "data-version")
        where = focused(page)
        assert where["inDock"], where  # focus stayed on the hand (or its actions) meanwhile
        if page.locator("#hand .card.playable").count():
            for _ in range(10):  # from an action button back to the hand, the tab stop before them
                if focused(page)["inHand"]:
                    break
                page.keyboard.press("Shift+Tab")
            page.keyboard.press("Home")
            for _ in range(page.locator("#hand .card").count()):
                if focused(page)["playable"]:
                    break
                page.keyboard.press("ArrowRight")
            assert focused(page)["playable"]
            page.keyboard.press("Enter")
            if page.locator("#choice").count():  # a wild's colour (or UNO...): the choices have focus
                assert focused(page)["choice"]
                page.keyboard.press("Enter")
        else:
            tab_to(page, "a.closest('#actions') && a.tagName === 'BUTTON'")
            page.keyboard.press("Space")
        moves += 1
        wait_moved(page, version)
        page.wait_for_function("() => !document.querySelector('#table').classList.contains('busy')")
        if page.get_attribute("#table", "data-status") == "finished":
            break
        after = focused(page)
        assert after["inDock"] and after["tag"] != "BODY", after
        if page.get_attribute("#table", "data-turn") != "mine":  # the move ended the turn: the hand has focus
            assert after["inHand"], after
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
    assert api.get(f"/games/{gid}")["status"] == "finished"
    assert moves >= 3
    assert page.evaluate("() => window.mouseEvents") == 0


# --- the feel: sorting, the tab title ------------------------------------------------------
def hand_order(page) -> list[tuple[str, str]]:
    return [tuple(c) for c in page.eval_on_selector_all("#hand .card", "cs => cs.map(c => [c.dataset.color, c.dataset.rank])")]


COLOR_ORDER = ["red", "yellow", "green", "blue", ""]


def rank_key(rank: str) -> tuple:
    specials = ["skip", "reverse", "draw_two", "wild", "wild_draw_four"]
    return (int(rank), "") if rank.isdigit() else (10 + (specials.index(rank) if rank in specials else 5), rank)


def test_the_hand_sorted_as_the_player_chose_and_the_tab_title(server, new_page, worker):
    name, api = register(server)
    gid = game_against_bots(api, "standard", 1, turn_seconds=600)
    view = api.get(f"/games/{gid}")
    page = new_page(permissions=("notifications",))
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    page.wait_for_selector("#table[data-status=active] #hand")
    assert sorted(hand_order(page)) == sorted((c["color"] or "", c["rank"]) for c in view["hand"])
    by_color = hand_order(page)  # the default: by colour, then rank
    assert by_color == sorted(by_color, key=lambda c: (COLOR_ORDER.index(c[0]), rank_key(c[1])))
    page.click("#table-settings summary")
    page.select_option("#setting-sort", "rank")
    by_rank = hand_order(page)
    assert by_rank == sorted(by_rank, key=lambda c: (rank_key(c[1]), COLOR_ORDER.index(c[0])))
    assert sorted(by_rank) == sorted(by_color)
    page.reload()
    page.wait_for_selector("#table[data-status=active] #hand")
    assert hand_order(page) == by_rank and page.input_value("#setting-sort") == "rank"
    page.click("#table-settings summary")
    page.select_option("#setting-sort", "dealt")
    assert hand_order(page) == [(c["color"] or "", c["rank"]) for c in api.get(f"/games/{gid}")["hand"]]

    # the colour-blind setting: a class on <body> (cards.css draws the symbols), remembered
    page.check("#setting-cb")
    assert page.evaluate("() => document.body.classList.contains('cb-symbols')")
    page.reload()
    page.wait_for_selector("#table #hand")
    assert page.evaluate("() => document.body.classList.contains('cb-symbols')")

    # the tab title: whose turn, the time left in a timed game
    view = api.get(f"/games/{gid}")
    if view["current_seat"] == 0:
        page.wait_for_function("() => document.title.startsWith('Your turn · ')")
        assert page.title().endswith(" · UNO") and "min" in page.title()  # "Your turn · 9 min 58 s · UNO"
        assert page.locator("#seats .seat[data-seat='0'] .seat-clock").count() == 1
    while view["current_seat"] == 0:  # the player's moves (by the API) until the bot's turn
        kinds = ("pass", "play", "draw")
        action = min(view["legal_actions"], key=lambda a: kinds.index(a["type"]) if a["type"] in kinds else 3)
        api.post(f"/games/{gid}/actions", {**action, "expected_version": view["version"]})
        view = api.get(f"/games/{gid}")
    page.wait_for_function("t => document.title === t", arg=f"Game #{gid} · UNO")
    assert page.locator("#seats .seat[data-seat='1'] .seat-clock").count() == 1  # a timed game: the bot's turn's time
    # notifications switched on (the permission is granted), the page hidden: the browser's
    # Notification is watched (a spy records what the page shows); less motion asked for
    page.click("#table-settings summary")
    page.check("#setting-notify")
    assert page.is_checked("#setting-notify")
    page.evaluate("""() => { window.shown = []; const Real = window.Notification;
        window.Notification = class { constructor(title, options) { window.shown.push([title, options.body]); }
            static get permission() { return Real.permission; } close() {} };
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true }); }""")
    page.emulate_media(reduced_motion="reduce")
    worker.start()  # the bot plays: the player's turn comes, and the title says so
    page.wait_for_function("() => document.title.startsWith('Your turn · ')", timeout=60000)
    assert page.locator("#announce").inner_text().strip().endswith("Your turn.")
    assert page.evaluate("() => window.shown") == [["Your turn", f"Game #{gid}: it is your turn."]]
    # the bot's card came onto the pile without an animation
    assert page.locator("#top-card .card.just-played").count() == 0
    assert page.eval_on_selector("#top-card .card", "c => getComputedStyle(c).animationName") == "none"


# --- a table that starts by itself --------------------------------------------------------
def test_a_table_created_to_start_when_full_says_so_and_starts_itself(server, new_page, worker):
    worker.start()
    name, api = register(server)
    gid = api.post("/games", {"ruleset": "standard", "max_players": 3, "bots": [{"level": "easy"}],
                              "start_when_full": True, "options": {"rounds": 1}}, status=201)["id"]
    page = new_page(viewport=PHONE)
    signed_in(page, server, name, api.token, f"#/game/{gid}")
    page.wait_for_selector("#table[data-status=waiting] #starts-itself")
    assert page.inner_text("#starts-itself") == "The game starts by itself when the table is full."
    assert page.locator("#start").count() == 0  # nothing to ask of its creator
    assert page.locator(".waiting-seats li.free").count() == 1
    _, other = register(server)
    other.post(f"/games/{gid}/join")  # the last seat: the game starts, and the page follows it live
    page.wait_for_selector("#table[data-status=active] #hand")
    assert api.get(f"/games/{gid}")["status"] == "active"
    assert page.locator("#resign").is_visible()
