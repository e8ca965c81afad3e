"""Accessibility across every screen of the browser client (issue 28), in Debian's chromium
driven by Playwright against a real gunicorn and a real Celery worker (the bot's moves).

For each viewport (a 390 x 844 phone, a 1280 x 800 desktop) and each screen: the sign-in
page (and its error), the lobby, the table of a running 2-seat game against a bot at the
player's turn, a table waiting for players, another player's open challenge, the replay of a
finished game, the end of a game (a finished game's table), a profile and a leaderboard:

- axe-core (npm, tests/a11y; injected into the page, WCAG 2.0-2.2 A and AA rules) finds no
  serious or critical violation;
- on the phone, the page does not scroll sideways, at 390 x 844 and at 360 x 640 (where axe
  runs again), and the buttons, fields and navigation links are touch targets of 44 px or more.

Every screen is checked before the test fails, and the failure lists them all (screen,
viewport, axe's rule and the offending elements), so one run says everything that is left.

Also: the skip link and the navigation by keyboard (the first Tab, the focus on a new screen,
the page's title, the current link marked); the replay of a Decktet-Uno game on a 360 x 640
phone, each move said in sentences, its controls named, its scores explained and fitting.

``UNO_SCREENSHOTS=docs/screenshots`` writes one PNG per screen and viewport:
``signin-phone.png``, ``lobby-desktop.png``, ``table-phone.png``, ``replay-desktop.png``,
``end-phone.png``, ``profile-desktop.png``, ``leaderboard-phone.png``...
"""

from __future__ import annotations

import re
import time
import uuid

import pytest

from standing.models import RankBucket, Rating
from standing.services import bucket_of
import tests.browser_support
from tests.browser_support import (DESKTOP, PASSWORD, PHONE, SMALL_PHONE, TOUCH, Api, axe_report, axe_violations,
                                   browser_marks, register, shot, signed_in)
from tests.celery_helpers import requires_redis

pytestmark = browser_marks

VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}
TAPPABLE = ("button, .button, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden]), "
            "textarea, summary, header nav a, .top-bar a, a.skip-link")


def play_until_finished(gid: int, players: list[Api], limit: float = 120) -> None:
    """Each player posts a legal action (a card when they can) until the game is over."""
    deadline = time.monotonic() + limit
    while players[0].get(f"/games/{gid}")["status"] != "finished":
        assert time.monotonic() < deadline, f"game {gid} did not end"
        for api in players:
            view = api.get(f"/games/{gid}")
            if view["legal_actions"]:
                action = next((a for a in view["legal_actions"] if a["type"] == "play"), view["legal_actions"][0])
                r = api.call("POST", f"/games/{gid}/actions", {**action, "expected_version": view["version"]})
                assert r.status_code in (200, 409), r.text  # 409: the other moved first


def my_turn(gid: int, api: Api, limit: float = 60) -> dict:
    """The game's view once it is the player's turn (the worker plays the bot's first)."""
    deadline = time.monotonic() + limit
    while not (view := api.get(f"/games/{gid}"))["legal_actions"]:
        assert time.monotonic() < deadline, f"game {gid}: the player's turn did not come"
        time.sleep(0.1)
    return view


def ranked(pool: str, players, start: float = 30.0) -> None:
    """Established ratings in ``pool`` for ``players`` (best first), counted in their rank
    buckets as rating a game counts them (the board then ranks them)."""
    for i, player in enumerate(players):
        mu, sigma = start - i, 2.5
        ordinal = mu - 3 * sigma
        Rating.objects.create(pool=pool, player=player, mu=mu, sigma=sigma, ordinal=ordinal,
                              bucket=bucket_of(ordinal), games=12 + i, wins=6, established=True)
        bucket, _ = RankBucket.objects.get_or_create(pool=pool, bucket=bucket_of(ordinal))
        RankBucket.objects.filter(pk=bucket.pk).update(count=bucket.count + 1)


def small_targets(page) -> list[str]:
    """The visible buttons, fields and navigation links smaller than a fingertip."""
    return page.eval_on_selector_all(TAPPABLE, """(els, min) => els.flatMap((e) => {
        const r = e.getBoundingClientRect();
        const style = getComputedStyle(e);
        if (!r.width || !r.height || style.visibility === "hidden") return [];
        if (r.width >= min && r.height >= min) return [];
        const name = (e.id ? "#" + e.id : e.tagName.toLowerCase() + (e.className ? "." + String(e.className).trim().split(/\\s+/).join(".") : ""));
        const text = (e.getAttribute("aria-label") || e.textContent || e.value || "").trim().slice(0, 30);
        return [`${name} "${text}": ${Math.round(r.width)} x ${Math.round(r.height)}`];
    })""", TOUCH)


def sideways(page) -> str | None:
    """What scrolls sideways: None when the page fits its width."""
    width, scroll = page.evaluate("() => [document.documentElement.clientWidth, document.documentElement.scrollWidth]")
    if scroll <= width:
        return None
    wide = page.evaluate("""(width) => {
        const clipped = (e) => {
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
                if (getComputedStyle(p).overflowX !== "visible") return true;
            }
            return false;
        };
        const out = [...document.body.querySelectorAll("*")].filter((e) => {
            const r = e.getBoundingClientRect();
            return r.width && r.right > width + 0.5 && !clipped(e);
        });
        return out.filter((e) => !out.some((o) => o !== e && o.contains(e))).slice(0, 5).map((e) =>
            (e.id ? "#" + e.id : e.tagName.toLowerCase() + (e.className ? "." + String(e.className).trim().replace(/\\s+/g, ".") : ""))
            + " (right edge " + Math.round(e.getBoundingClientRect().right) + ")");
    }""", width)
    return f"{scroll} px wide in {width} px: {', '.join(wide)}"


class Screens:
    """What each screen fails, gathered so that one run reports every screen."""

    def __init__(self, page, viewport: str):
        self.page = page
        self.viewport = viewport
        self.problems: list[str] = []
        self.checked: list[str] = []

    def check(self, screen: str) -> None:
        page = self.page
        page.wait_for_load_state("networkidle")
        where = f"{screen} ({self.viewport})"
        self.checked.append(screen)
        shot(page, f"{screen}-{self.viewport}.png")
        if found := axe_violations(page):
            self.problems.append(f"{where}: axe-core\n{axe_report(found)}")
        if self.viewport != "phone":
            return
        if wide := sideways(page):
            self.problems.append(f"{where}: scrolls sideways at {PHONE['width']} px: {wide}")
        if small := small_targets(page):
            self.problems.append(f"{where}: touch targets under {TOUCH} px:\n    " + "\n    ".join(small))
        page.set_viewport_size(SMALL_PHONE)
        try:
            if wide := sideways(page):
                self.problems.append(f"{screen} (360 x 640): scrolls sideways: {wide}")
            if found := axe_violations(page):
                self.problems.append(f"{screen} (360 x 640): axe-core\n{axe_report(found)}")
        finally:
            page.set_viewport_size(PHONE)

    def assert_none(self) -> None:
        if self.problems:
            pytest.fail(f"{len(self.problems)} problem(s) on the screens at {self.viewport} "
                        f"(checked: {', '.join(self.checked)}):\n" + "\n".join(self.problems), pytrace=False)


@requires_redis
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_every_screen_passes_axe_and_fits_the_phone(server, new_page, worker, viewport, django_user_model):  # noqa: F811
    worker.start()
    # a leaderboard with players on it (long names too)
    ranked("standard", [django_user_model.objects.create_user(username=u, password="x" * 12) for u in (
        "ann", "bo", "carmen_the_card_shark", "dmitri", "eve_plays_at_night", "farah", "gus", "hanna_from_the_club")])
    name, api = register(server)
    other_name, other = register(server)
    # a finished rated game of the two (its replay, its end, their profiles and the board)
    finished = api.post("/games", {"ruleset": "standard", "max_players": 2, "rated": True,
                                   "options": {"rounds": 1}}, status=201)["id"]
    other.post(f"/games/{finished}/join")
    api.post(f"/games/{finished}/start")
    play_until_finished(finished, [api, other])
    # a running game against a bot, at the player's turn
    running = api.post("/games", {"ruleset": "standard", "max_players": 2, "bots": [{"level": "random"}],
                                  "options": {"rounds": 1}}, status=201)["id"]
    api.post(f"/games/{running}/start")
    turn = my_turn(running, api)

    page = new_page(viewport=VIEWPORTS[viewport])
    screens = Screens(page, viewport)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    screens.check("signin")
    # a refused sign-in: the error box says why
    page.fill("#signin-username", name)
    page.fill("#signin-password", "not-the-password")
    page.click("#signin-submit")
    page.wait_for_selector("#error:not([hidden]) .message")
    screens.check("signin-error")

    signed_in(page, server, name, api.token)
    page.wait_for_selector(f"[data-game-id='{running}'], #games")
    screens.check("lobby")

    page.goto(f"{server.url}/#/game/{running}")
    page.wait_for_selector(f"#table[data-status=active][data-version='{turn['version']}'] #actions button")
    screens.check("table")

    # a table waiting for players, and another player's open challenge
    waiting = api.post("/games", {"ruleset": "house", "max_players": 4, "start_when_full": False}, status=201)["id"]
    page.goto(f"{server.url}/#/game/{waiting}")
    page.wait_for_selector("#table[data-status=waiting]")
    screens.check("waiting")

    challenge = other.post("/challenges", {"ruleset": "standard", "max_players": 3}, status=201)
    token = challenge["url"].rstrip("/").rsplit("/", 1)[1]
    page.goto(f"{server.url}/#/challenge/{token}")
    page.wait_for_selector("#open-challenge #take-seat")
    screens.check("challenge")

    page.goto(f"{server.url}/#/replay/{finished}")
    page.wait_for_selector("#replay[data-at='1'] #replay-scores")
    page.click("#replay-next")
    page.wait_for_selector("#replay[data-at='2']")
    screens.check("replay")

    page.goto(f"{server.url}/#/game/{finished}")
    page.wait_for_selector("#table[data-status=finished] #result")
    screens.check("end")

    page.goto(f"{server.url}/#/player/{other_name}")
    page.wait_for_selector(f"#profile[data-username='{other_name}'] #profile-last-games")
    screens.check("profile")

    page.goto(f"{server.url}/#/leaderboard/standard")
    page.wait_for_selector("#leaderboard[data-loaded=true] #leaderboard-table tbody tr[data-username=hanna_from_the_club]")
    screens.check("leaderboard")

    assert screens.checked == ["signin", "signin-error", "lobby", "table", "waiting", "challenge", "replay", "end", "profile", "leaderboard"]
    screens.assert_none()


def test_the_skip_link_and_the_navigation_by_keyboard(server, new_page):  # noqa: F811
    name, api = register(server)
    page = signed_in(new_page(viewport=PHONE), server, name, api.token)
    assert page.title() == "Lobby · UNO"
    assert page.get_attribute("#nav-lobby", "aria-current") == "page"
    assert page.get_attribute("#nav-leaderboard", "aria-current") is None
    # on a page just loaded, the first Tab reaches the skip link, shown on screen; Enter takes
    # the keyboard to the content
    page.reload()
    page.wait_for_selector("#challenges h2")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.outerHTML.slice(0, 80)").startswith('<a class="skip-link"')
    box = page.locator("#skip-link").bounding_box()
    assert box["y"] >= 0 and box["height"] >= TOUCH, box
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    assert page.url.endswith("#/lobby")  # (not a route of its own)
    # a new screen: the focus starts at its content, the title and the navigation say where
    page.locator("#nav-leaderboard").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#leaderboard[data-loaded=true]")
    assert page.title() == "Leaderboard · UNO"
    assert page.get_attribute("#nav-leaderboard", "aria-current") == "page"
    assert page.evaluate("() => document.activeElement.id") == "main"


def test_the_replay_says_each_move_in_words_and_its_scores_fit_a_small_phone(server, new_page):  # noqa: F811
    name, api = register(server)
    other_name, other = register(server)
    gid = api.post("/games", {"ruleset": "decktet_uno", "max_players": 2}, status=201)["id"]
    other.post(f"/games/{gid}/join")
    api.post(f"/games/{gid}/start")
    play_until_finished(gid, [api, other])
    moves = api.moves(gid)
    scores = api.get(f"/games/{gid}/scores")
    assert scores["scoring"] == "per_play" and scores["plays"]

    page = signed_in(new_page(viewport=SMALL_PHONE), server, name, api.token, f"#/replay/{gid}")
    page.wait_for_selector("#replay[data-at='1'] #replay-scores")
    assert page.title() == "Replay · UNO"
    # the controls have names a screen reader says (the arrows are hidden from it)
    for label in ("First", "Previous", "Next", "Last"):
        assert page.get_by_role("button", name=label, exact=True).count() == 1, label
    assert page.get_by_role("slider", name="Move").get_attribute("id") == "replay-slider"
    # Decktet-Uno's scores: a row per player, its scoring plays and points, the way it scores said
    headers = page.locator("#replay-scores thead th").all_inner_texts()
    assert headers == ["Player", "Plays that scored", "Points"]
    assert "suits on the top card" in page.inner_text("#replay-scores .scoring")
    for p in scores["players"]:
        row = page.locator(f"#score-totals tr[data-seat='{p['seat']}']")
        assert row.locator("td").all_inner_texts() == [
            str(sum(1 for x in scores["plays"] if x["seat"] == p["seat"] and x["points"])), str(scores["totals"][p["seat"]])]
        assert row.locator("th").inner_text().startswith(p["username"])
    # each move in sentences, by name ("you" for the viewer): a played card is named, no action's raw fields
    names = {0: "You", 1: other_name}
    for step, move in enumerate(moves, start=1):
        if step > 1:
            page.click("#replay-next")
        page.wait_for_selector(f"#replay[data-at='{step}']")
        text = page.inner_text("#replay-move .action")
        assert text[:1].isupper() or text.startswith((name, other_name)), text
        assert "·" not in text and not re.search(r"card \d|\{|\"", text), text
        if move["seat"] is not None:
            assert [name, other_name][move["seat"]] in page.inner_text("#replay-move h3"), step
        if move["action"]["type"] == "play":
            assert names[move["seat"]] in text, text
        if step in (1, len(moves) // 2, len(moves)):
            assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"), step
    assert page.is_disabled("#replay-next") and page.is_disabled("#replay-last")
    assert not axe_violations(page), axe_report(axe_violations(page))


def test_without_axe_core_the_checks_fail_saying_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(tests.browser_support, "AXE", tmp_path / "axe.min.js")
    with pytest.raises(pytest.fail.Exception, match=r"npm ci --prefix tests/a11y"):
        axe_violations(page=None)


def test_a_new_player_registers_with_the_keyboard_alone(server, new_page):  # noqa: F811
    page = new_page(viewport=SMALL_PHONE)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    assert page.title() == "Sign in · UNO"
    # the tab order: the skip link, the navigation, then the forms in reading order
    order = []
    for _ in range(12):
        page.keyboard.press("Tab")
        order.append(page.evaluate("() => document.activeElement.id || document.activeElement.textContent.trim()"))
    assert order[:6] == ["skip-link", "UNO", "nav-lobby", "nav-leaderboard", "nav-notifications", "nav-help"], order
    fields = ["signin-username", "signin-password", "signin-submit", "register-username", "register-password", "register-submit"]
    assert [x for x in order if x in fields] == fields, order
    # back to the registration's username, by the keyboard; type, Tab, type, Enter
    while page.evaluate("() => document.activeElement.id") != "register-username":
        page.keyboard.press("Shift+Tab")
    name = f"key{uuid.uuid4().hex[:10]}"
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector("#challenges h2")
    assert page.inner_text("#whoami") == f"Signed in as {name}"
    assert page.title() == "Lobby · UNO"
    assert page.evaluate("() => document.activeElement.id") == "main"  # the new screen's content
