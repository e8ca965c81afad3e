// The browser client: hash routes #/login, #/lobby, #/game/ID, #/replay/ID,
// #/challenge/TOKEN (an open challenge's link), #/player/NAME (a profile),
// #/leaderboard/PRESET and #/leaderboard/PRESET/me (standing.js), #/notifications (also
// #/settings: notifications.js).

import { api, onUnauthorized, session } from "./api.js";
import { countdown } from "./cards.js";
import { playerFeed } from "./live.js";
import { viewOpenChallenge } from "./meeting.js";
import { loadCatalog, viewLobby } from "./lobby.js";
import { viewNotifications } from "./notifications.js";
import { viewReplay } from "./review.js";
import { playerLink, viewLeaderboard, viewProfile } from "./standing.js";
import { viewGame } from "./table.js";
import { el, hideError, showError } from "./ui.js";

const main = () => document.getElementById("main");

// The countdowns: every element with data-deadline shows the time left.
setInterval(() => {
  const now = Date.now();
  for (const e of document.querySelectorAll("[data-deadline]")) e.textContent = countdown(e.dataset.deadline, now);
}, 500);

// --- routing --------------------------------------------------------------------------
let routeId = 0;
let teardown = [];
let shown = false; // a screen was shown (a redirect on the way in is no move to a new screen)

/** The current view's scope: `alive()` until the route changes; `later(fn)` runs fn then. */
function scope() {
  const id = routeId;
  return {
    alive: () => id === routeId,
    later: (fn) => { if (id === routeId) teardown.push(fn); else fn(); },
  };
}

/** Each route's page title (before " · UNO"): what a tab and a screen reader say first. */
const TITLES = [
  [/^#\/login$/, "Sign in"], [/^#\/lobby$/, "Lobby"], [/^#\/game\//, "Table"], [/^#\/replay\//, "Replay"],
  [/^#\/challenge\//, "Challenge"], [/^#\/player\/([^/]+)$/, (m) => `${decodeURIComponent(m[1])}'s profile`],
  [/^#\/leaderboard/, "Leaderboard"], [/^#\/(notifications|settings)$/, "Notifications"],
];

const ROUTES = [
  [/^#\/login$/, (root) => viewLogin(root)],
  [/^#\/lobby$/, (root, sc) => viewLobby(root, sc)],
  [/^#\/game\/(\d+)$/, (root, sc, m) => viewGame(root, sc, Number(m[1]))],
  [/^#\/replay\/(\d+)$/, (root, sc, m) => viewReplay(root, sc, Number(m[1]))],
  [/^#\/challenge\/([A-Za-z0-9_-]+)$/, (root, sc, m) => viewOpenChallenge(root, sc, m[1], playerFeed)],
  [/^#\/player\/([^/]+)$/, (root, sc, m) => viewProfile(root, sc, decodeURIComponent(m[1]))],
  [/^#\/leaderboard(?:\/([a-z0-9_]+))?(\/me)?$/, async (root, sc, m) =>
    viewLeaderboard(root, sc, m[1] || "standard", Boolean(m[2]), (await loadCatalog()).rulesets)],
  [/^#\/(notifications|settings)$/, (root, sc) => viewNotifications(root, sc)],
];

async function route(event) {
  routeId += 1;
  for (const fn of teardown.splice(0)) {
    try { fn(); } catch { /* a view's leftovers */ }
  }
  hideError();
  renderNav();
  const hash = location.hash;
  if (!session.token && hash !== "#/login") {
    if (hash && hash !== "#/") sessionStorage.setItem("uno.after", hash);
    location.replace("#/login");
    return;
  }
  const found = ROUTES.map(([re, view]) => [hash.match(re), view]).find(([m]) => m);
  if (!found) {
    location.replace(session.token ? "#/lobby" : "#/login");
    return;
  }
  const [match, view] = found;
  const title = TITLES.map(([re, t]) => [hash.match(re), t]).find(([m]) => m);
  document.title = title ? `${typeof title[1] === "function" ? title[1](title[0]) : title[1]} · UNO` : "UNO";
  const root = el("div", { class: "view" });
  main().replaceChildren(root);
  // a new screen: the keyboard and the screen reader start at its content (not on a load)
  if (event && shown && !main().contains(document.activeElement)) main().focus({ preventScroll: true });
  shown = true;
  const sc = scope();
  try {
    await view(root, sc, match);
  } catch (err) {
    if (sc.alive()) showError(err);
  }
}

function renderNav() {
  for (const a of document.querySelectorAll(".top-bar nav a")) {
    const here = a.getAttribute("href").startsWith("#/") && location.hash.startsWith(a.getAttribute("href").replace(/\/standard$/, ""));
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const who = document.getElementById("whoami");
  const out = document.getElementById("signout");
  who.replaceChildren(...(session.username ? ["Signed in as ", playerLink(session.username, session.username, { id: "my-profile" })] : []));
  out.hidden = !session.token;
}

onUnauthorized(() => {
  session.clear();
  sessionStorage.setItem("uno.after", location.hash);
  location.hash = "#/login";
  setTimeout(() => showError(new Error("Your session has ended: please sign in again.")), 0);
});

// --- sign in / register ---------------------------------------------------------------
function viewLogin(root) {
  const field = (id, label, type, autocomplete) => el("label", { for: id }, label,
    el("input", { id, name: id, type, required: true, autocomplete }));
  const signin = el("form", { id: "signin-form", class: "panel" },
    el("h2", {}, "Sign in"),
    field("signin-username", "Username", "text", "username"),
    field("signin-password", "Password", "password", "current-password"),
    el("button", { type: "submit", id: "signin-submit" }, "Sign in"));
  const register = el("form", { id: "register-form", class: "panel" },
    el("h2", {}, "New player"),
    field("register-username", "Username", "text", "username"),
    field("register-password", "Password (8 characters or more)", "password", "new-password"),
    el("button", { type: "submit", id: "register-submit" }, "Register"));

  const submit = (form, call) => form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    hideError();
    try {
      await call();
      const after = sessionStorage.getItem("uno.after");
      sessionStorage.removeItem("uno.after");
      location.hash = after && after !== "#/login" ? after : "#/lobby";
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
  const credentials = (prefix) => ({
    username: document.getElementById(`${prefix}-username`).value,
    password: document.getElementById(`${prefix}-password`).value,
  });
  submit(signin, async () => {
    const { data } = await api("POST", "/api/v1/auth/token", { body: credentials("signin"), auth: false });
    session.save(data.token, null);
    const me = await api("GET", "/api/v1/players/me");
    session.save(data.token, me.data.username);
  });
  submit(register, async () => {
    const { data } = await api("POST", "/api/v1/auth/register", { body: credentials("register"), auth: false });
    session.save(data.token, data.player.username);
  });
  root.append(el("h1", { class: "welcome" }, "UNO: play with friends and bots"),
    el("div", { class: "login" }, signin, register),
    el("p", { class: "hint" }, "New here? Register with a username and a password: nothing else is asked. ",
      "How to play each game, and the rules: ", el("a", { href: "/docs/" }, "the help pages"), "."));
}

// --- start ----------------------------------------------------------------------------
document.getElementById("skip-link").addEventListener("click", (e) => {
  e.preventDefault(); // (#main is not a route)
  main().focus();
});
document.getElementById("signout").addEventListener("click", () => {
  session.clear();
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
route();
