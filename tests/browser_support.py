"""What the browser tests share: the page's static files collected as `make run` collects
them, a real gunicorn serving them (``server``), Debian's chromium driven by Playwright
(``browser``), pages in fresh contexts (``new_page``), the API called directly (:class:`Api`)
to compare with what a page shows, and a few helpers.

Its fixtures are registered for every test by tests/conftest.py (``pytest_plugins``): a
module takes ``server``, ``browser``, ``new_page`` as arguments and imports only the
helpers it calls; each module gets its own server and browser (module scope).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests
from playwright.sync_api import sync_playwright

from games import engine
from tests.server_support import ROOT, served

CHROMIUM = Path("/usr/bin/chromium")
#: axe-core (npm, pinned by tests/a11y/package-lock.json; `npm ci --prefix tests/a11y`)
AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
#: the WCAG rules axe checks (A and AA of WCAG 2.0, 2.1 and 2.2)
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
PASSWORD = "a-long-password-1"
SCREENSHOTS = os.environ.get("UNO_SCREENSHOTS")
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
#: what a finger taps on a phone: 44 x 44 CSS px at least (inline links in text aside)
TOUCH = 44
#: the table's route, once a page went to a game
GAME_URL = re.compile(r"#/game/(\d+)$")

#: games the engine deals and plays at random for the page to read, (preset, options, seats):
#: every family and the options that move cards between hands, play out of turn, score
#: otherwise or charge a misplay (tests/test_browser_cards.py reads their events in words,
#: tests/test_browser_client.py replays their hands; each adds its own)
OPTION_MIXES = [
    ("standard", {"rounds": 2}, 3),
    ("standard", {"seven_zero": True, "hand_pass_cards": True, "uno_card": True, "jump_in": "exact",
                  "stacking": "any", "rounds": 1}, 4),
    ("standard_112", {"rounds": 1}, 3),  # Wild Shuffle Hands
    ("standard_112", {"swap_hands_card": True, "rounds": 1}, 3),
    ("house", {"teams": True, "rounds": 1}, 4),
    ("play_uno_com", {"rounds": 1}, 3),
    ("standard", {"buzzer_cards": True, "downpour_cards": True, "targeted_draw_cards": True, "deflect_cards": True,
                  "rounds": 1}, 4),
    ("standard", {"straights": True, "rounds": 1}, 3),
    ("duo", {"rounds": 1}, 2),
    ("decktet_uno", {"face_down": True, "decks": 2}, 4),
    ("standard", {"scoring": "elimination", "target_score": 80}, 3),
    ("standard", {"jump_in": "exact", "jump_in_misplay_points": 3, "rounds": 1}, 3),
]

def add_move(moves: list[dict], round_: int | None, seat: int, action: dict, events: list[dict],
             by: str = "player") -> None:
    """One more move in ``moves``, as the API shows a finished game's (every event revealed)."""
    moves.append({"seq": len(moves) + 1, "round": round_, "seat": seat, "action": action,
                  "events": [engine.public_event(e) for e in events], "by": by})


def engine_deal(preset: str, options: dict, seats: int, seed: int):
    """A game the engine deals from ``seed``: its state, its moves so far (the start) and its deck."""
    events: list[dict] = []
    state = engine.new_game(preset, options, seats, str(seed), events)
    moves: list[dict] = []
    add_move(moves, state.round, 0, {"type": "start"}, events)
    return state, moves, engine.build_rules(state.config).deck


#: the marks of a browser test module (``pytestmark = browser_marks``)
browser_marks = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]


# --- the server, the browser ------------------------------------------------------------
@pytest.fixture(scope="session")
def static_root(tmp_path_factory) -> Path:
    """The static files collected as `make run` collects them (hashed, compressed): once a
    run (a process of it), for every module's server (nothing writes there)."""
    root = tmp_path_factory.mktemp("static")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=ROOT, env={**os.environ, "STATIC_ROOT": str(root)}, check=True, timeout=600)
    assert (root / "uno" / "app.js").is_file() and (root / "staticfiles.json").is_file()
    return root


@pytest.fixture(scope="module")
def server(django_db_setup, static_root, tmp_path_factory):
    """The served page; bots think 0 s on the server as on the tests' worker (the server
    queues a bot's step with its think time: a second a bot move made whole games against
    bots last a minute and more)."""
    yield from served(tmp_path_factory, STATIC_ROOT=static_root, UNO_BOT_THINK_SECONDS=0)


@pytest.fixture(scope="module")
def browser(server):
    """Chromium, after the server started (which must not inherit the setting below).

    Playwright's sync API runs an asyncio loop in this thread while it is open, and
    Django refuses database calls from a thread with a running loop: the tests' own
    (fixtures, the flush after each test) are plain synchronous code, so Django's guard
    is lifted for this process while the browser is open, as Django's documentation
    says for such environments.  The server and the worker run as they always do."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=str(CHROMIUM))
            try:
                yield b
            finally:
                b.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def new_page(browser):
    """``new_page(viewport=None, permissions=())``: a page in a fresh context (its own
    localStorage); at the end, no page may have thrown an uncaught error."""
    contexts, errors = [], []

    def make(viewport=None, permissions=()):
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 860})
        if permissions:
            context.grant_permissions(list(permissions))
        context.set_default_timeout(15000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


# --- the API, directly (to compare with what the page shows) ----------------------------
class Api:
    def __init__(self, server, token: str | None = None):
        self.base = f"{server.url}/api/v1"
        self.token = token

    def call(self, method: str, path: str, body=None) -> requests.Response:
        headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        return requests.request(method, f"{self.base}{path}", json=body, headers=headers, timeout=30)

    def get(self, path: str) -> dict:
        r = self.call("GET", path)
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, path: str, body=None, status: int = 200) -> dict:
        r = self.call("POST", path, body)
        assert r.status_code == status, r.text
        return r.json()

    def moves(self, gid: int) -> list[dict]:
        out, after = [], 0
        while True:
            page = self.get(f"/games/{gid}/moves?after={after}&limit=500")
            out += page["results"]
            if page["next_cursor"] is None:
                return out
            after = page["next_cursor"]


def register(server) -> tuple[str, Api]:
    name = f"web{uuid.uuid4().hex[:10]}"
    body = Api(server).post("/auth/register", {"username": name, "password": PASSWORD}, status=201)
    return name, Api(server, body["token"])


# --- the page -----------------------------------------------------------------------------
def signed_in(page, server, name: str, token: str, where: str = "#/lobby"):
    """The page with this player's session saved (as the sign-in form saves it), at ``where``."""
    page.goto(f"{server.url}/")
    page.wait_for_selector("#signin-form")
    page.evaluate("([t, n]) => { localStorage.setItem('uno.token', t); localStorage.setItem('uno.username', n); }",
                  [token, name])
    page.goto(f"{server.url}/{where}")
    if where == "#/lobby":
        page.wait_for_selector("#challenges h2")
    return page


def registered_in_page(page, then: str) -> str:
    """A new player registers in the page's form (a fresh name, ``PASSWORD``), which then
    shows ``then`` (a selector); their name."""
    page.wait_for_selector("#register-form")
    name = f"web{uuid.uuid4().hex[:10]}"
    page.fill("#register-username", name)
    page.fill("#register-password", PASSWORD)
    page.click("#register-submit")
    page.wait_for_selector(then)
    return name


def no_sideways_scroll(page, *selectors: str) -> None:
    """The page does not scroll sideways, and each of ``selectors`` fits the screen."""
    width = page.evaluate("() => document.documentElement.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, page.url
    for selector in selectors:
        box = page.locator(selector).first.bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box, width)


def axe_violations(page, impacts=("serious", "critical"), exclude=()) -> list[dict]:
    """What axe-core finds wrong on the page as it is now (the WCAG 2.x A and AA rules of
    :data:`AXE_TAGS`), only the violations of these ``impacts``: each ``{"id", "impact",
    "help", "targets"}`` (targets: the CSS selectors of the offending nodes).  ``exclude``:
    selectors axe leaves out.  Fails (does not skip) when axe-core is not installed.

    :func:`assert_accessible` asserts there are none, with :func:`axe_report`'s lines."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed ({AXE} is missing): run `npm ci --prefix tests/a11y`")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async ([tags, exclude]) => {
            const context = exclude.length ? {exclude: exclude.map((s) => [s])} : document;
            const result = await axe.run(context, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
            }));
        }""", [list(AXE_TAGS), list(exclude)])
    return [v for v in found if v["impact"] in impacts]


def axe_report(violations: list[dict]) -> str:
    """The violations of :func:`axe_violations` as lines a person reads: rule, impact, what
    it asks, and each offending node's selector with axe's summary of what is wrong."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        for node in v["targets"]:
            summary = " ".join(node["summary"].split())
            lines.append(f"    {node['target']}: {summary[:300]}")
    return "\n".join(lines)


def assert_accessible(page, where: str = "", impacts=("serious", "critical"), exclude=()) -> None:
    """No axe-core violation of these ``impacts`` on the page (see :func:`axe_violations`)."""
    violations = axe_violations(page, impacts=impacts, exclude=exclude)
    assert not violations, f"axe-core on {where or page.url}:\n{axe_report(violations)}"


def shot(page, name: str) -> None:
    """With ``UNO_SCREENSHOTS`` set, the page as it shows now, in that directory as ``name``
    (after the animations under way end, at most 2 s: no card caught mid-flight)."""
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.evaluate("""() => Promise.race([
            Promise.all(document.getAnimations()
                .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
                .map((a) => a.finished.catch(() => null))),
            new Promise((done) => setTimeout(done, 2000)),
        ])""")
        page.screenshot(path=str(Path(SCREENSHOTS) / name))
