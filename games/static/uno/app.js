// The browser client: hash routes #/login, #/lobby, #/game/ID, #/replay/ID,
// #/challenge/TOKEN (an open challenge's link), #/player/NAME (a profile),
// #/leaderboard/PRESET and #/leaderboard/PRESET/me (standing.js).

import { allPages, api, newKey, onUnauthorized, session } from "./api.js";
import {
  COLORS, actionLabel, cardEl, cardName, choiceLabel, countdown, describeEvent, describeMove,
  describePending, seatNamer,
} from "./cards.js";
import { GameLive, playerFeed } from "./live.js";
import {
  FEED_EVENTS, STREAM_EVENTS, challengeControls, challengesPanel, chatPanel, followRematch, quickPlayPanel,
  rematchPanel, viewOpenChallenge,
} from "./meeting.js";
import { buildTimeline } from "./replay.js";
import { commaList, playerLink, ratingChangesPanel, seatLinker, viewLeaderboard, viewProfile } from "./standing.js";
import { el, hideError, notice, showError } from "./ui.js";

const main = () => document.getElementById("main");

// The countdowns: every element with data-deadline shows the time left.
setInterval(() => {
  const now = Date.now();
  for (const e of document.querySelectorAll("[data-deadline]")) e.textContent = countdown(e.dataset.deadline, now);
}, 500);

const deadlineEl = (deadline, props = {}) =>
  deadline ? el("span", { class: "countdown", dataset: { deadline }, ...props }, countdown(deadline)) : "";

// --- routing --------------------------------------------------------------------------
let routeId = 0;
let teardown = [];

/** The current view's scope: `alive()` until the route changes; `later(fn)` runs fn then. */
function scope() {
  const id = routeId;
  return {
    alive: () => id === routeId,
    later: (fn) => { if (id === routeId) teardown.push(fn); else fn(); },
  };
}

const ROUTES = [
  [/^#\/login$/, (root) => viewLogin(root)],
  [/^#\/lobby$/, (root, sc) => viewLobby(root, sc)],
  [/^#\/game\/(\d+)$/, (root, sc, m) => viewGame(root, sc, Number(m[1]))],
  [/^#\/replay\/(\d+)$/, (root, sc, m) => viewReplay(root, sc, Number(m[1]))],
  [/^#\/challenge\/([A-Za-z0-9_-]+)$/, (root, sc, m) => viewOpenChallenge(root, sc, m[1], playerFeed)],
  [/^#\/player\/([^/]+)$/, (root, sc, m) => viewProfile(root, sc, decodeURIComponent(m[1]))],
  [/^#\/leaderboard(?:\/([a-z0-9_]+))?(\/me)?$/, async (root, sc, m) =>
    viewLeaderboard(root, sc, m[1] || "standard", Boolean(m[2]), (await loadCatalog()).rulesets)],
];

async function route() {
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
  const root = el("div", { class: "view" });
  main().replaceChildren(root);
  const sc = scope();
  try {
    await view(root, sc, match);
  } catch (err) {
    if (sc.alive()) showError(err);
  }
}

function renderNav() {
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
  root.append(el("div", { class: "login" }, signin, register),
    el("p", { class: "hint" }, "A REST UNO server: this page plays through its public API (",
      el("a", { href: "/api/docs/" }, "API docs"), ")."));
}

// --- lobby ----------------------------------------------------------------------------
const FALLBACK_CATALOG = {
  rulesets: ["standard", "house", "standard_112", "duo", "play_uno_com", "decktet_uno"],
  levels: ["random", "easy", "normal", "hard"],
  options: {},
};
let catalog = null;

/** Presets, bot levels and rule options, read from the server's OpenAPI schema. */
async function loadCatalog() {
  if (catalog) return catalog;
  try {
    const { data } = await api("GET", "/api/schema/?format=json");
    const c = data.components.schemas;
    catalog = { rulesets: c.RulesetEnum.enum, levels: c.LevelEnum.enum, options: c.Options.properties || {} };
  } catch {
    catalog = FALLBACK_CATALOG;
  }
  return catalog;
}

function optionField(name, spec) {
  const id = `opt-${name}`;
  let control;
  if (spec.type === "boolean") {
    control = el("select", { id, dataset: { option: name, kind: "boolean" } },
      el("option", { value: "" }, "(preset)"), el("option", { value: "true" }, "yes"),
      el("option", { value: "false" }, "no"));
  } else if (Array.isArray(spec.enum)) {
    control = el("select", { id, dataset: { option: name, kind: "enum" } }, el("option", { value: "" }, "(preset)"),
      spec.enum.map((v) => el("option", { value: v === null ? "null" : v }, v === null ? "none" : String(v))));
  } else if (spec.type === "integer" || spec.type === "number") {
    control = el("input", {
      id, type: "number", placeholder: "(preset)", min: spec.minimum, max: spec.maximum,
      dataset: { option: name, kind: spec.type },
    });
  } else {
    return null; // anything else: through the JSON box
  }
  return el("label", { for: id, class: "option", title: spec.description || "" },
    el("span", { class: "option-name" }, name.replace(/_/g, " ")), control);
}

function readOptions(form) {
  const options = {};
  for (const c of form.querySelectorAll("[data-option]")) {
    if (c.value === "") continue;
    const kind = c.dataset.kind;
    if (kind === "boolean") options[c.dataset.option] = c.value === "true";
    else if (kind === "integer" || kind === "number") options[c.dataset.option] = Number(c.value);
    else options[c.dataset.option] = c.value === "null" ? null : c.value;
  }
  const text = form.querySelector("#create-options-json").value.trim();
  if (text) {
    let extra;
    try { extra = JSON.parse(text); } catch (err) { throw new Error(`Options JSON: ${err.message}`); }
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) throw new Error("Options JSON: an object, e.g. {\"rounds\": 1}");
    Object.assign(options, extra);
  }
  return options;
}

async function viewLobby(root, sc) {
  const cat = await loadCatalog();
  if (!sc.alive()) return;

  // creating a game
  const bots = el("div", { id: "create-bots", class: "bots" });
  const addBot = (level) => {
    const row = el("div", { class: "bot-row" },
      el("select", { class: "bot-level", "aria-label": "Bot level" },
        cat.levels.map((lv) => el("option", { value: lv, selected: lv === level }, lv))),
      el("button", { type: "button", class: "remove-bot", "aria-label": "Remove this bot",
        onclick: () => row.remove() }, "×"));
    bots.append(row);
  };
  addBot("normal");
  const fields = Object.entries(cat.options).map(([name, spec]) => optionField(name, spec)).filter(Boolean);
  const form = el("form", { id: "create-form", class: "panel" },
    el("h2", {}, "New game"),
    el("div", { class: "row" },
      el("label", { for: "create-ruleset" }, "Preset",
        el("select", { id: "create-ruleset" }, cat.rulesets.map((r) => el("option", { value: r }, r)))),
      el("label", { for: "create-max-players" }, "Seats",
        el("input", { id: "create-max-players", type: "number", min: 2, max: 10, placeholder: "1 + bots" })),
      el("label", { for: "create-turn-seconds" }, "Seconds per turn",
        el("input", { id: "create-turn-seconds", type: "number", min: 1, placeholder: "no limit" })),
      el("label", { for: "create-rated", class: "check", title: "The result counts towards the players' ratings" },
        el("input", { id: "create-rated", type: "checkbox" }), "rated")),
    el("div", { class: "bots-box" }, el("span", { class: "label" }, "Bots"), bots,
      el("button", { type: "button", id: "add-bot", onclick: () => addBot("normal") }, "+ bot")),
    el("details", { id: "create-options-box" }, el("summary", {}, "Rule options"),
      el("div", { class: "options" }, fields),
      el("label", { for: "create-options-json", class: "json" }, "More options as JSON (over the fields above)",
        el("textarea", { id: "create-options-json", rows: 2, placeholder: "{\"rounds\": 1, \"stacking\": \"same\"}" }))),
    el("button", { type: "submit", id: "create-submit" }, "Create game"));
  /** The game's settings as `POST /games` (and `POST /challenges`) take them. */
  const readSettings = () => {
    const body = { ruleset: form.querySelector("#create-ruleset").value };
    const seats = form.querySelector("#create-max-players").value;
    if (seats) body.max_players = Number(seats);
    body.bots = [...bots.querySelectorAll(".bot-level")].map((s) => ({ level: s.value }));
    const turn = form.querySelector("#create-turn-seconds").value;
    if (turn) body.turn_seconds = Number(turn);
    const options = readOptions(form);
    if (Object.keys(options).length) body.options = options;
    return body;
  };
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    hideError();
    try {
      const body = { ...readSettings(), rated: form.querySelector("#create-rated").checked };
      form.querySelector("#create-submit").disabled = true;
      const { data } = await api("POST", "/api/v1/games", { body });
      location.hash = `#/game/${data.id}`;
    } catch (err) {
      showError(err);
    } finally {
      form.querySelector("#create-submit").disabled = false;
    }
  });

  // my games, open games
  const mine = el("section", { id: "my-games", class: "panel" });
  const open = el("section", { id: "open-games", class: "panel" });
  const openId = el("input", { id: "open-game-id", type: "number", min: 1, placeholder: "game id" });
  const goto = el("form", { id: "open-form", class: "panel" },
    el("h2", {}, "Open a game"), openId,
    el("button", { type: "submit" }, "Table"),
    el("button", { type: "button", id: "open-replay",
      onclick: () => { if (openId.value) location.hash = `#/replay/${openId.value}`; } }, "Replay"));
  goto.addEventListener("submit", (e) => {
    e.preventDefault();
    if (openId.value) location.hash = `#/game/${openId.value}`;
  });
  // meeting others: quick play, challenges (sent with the settings above)
  const quick = quickPlayPanel(sc, cat.rulesets, cat.levels);
  const challenges = challengesPanel(sc);
  form.append(challengeControls(readSettings, () => challenges.refresh().catch(showError)));
  root.append(el("div", { class: "lobby" }, el("div", { class: "col" }, quick.element, form, goto),
    el("div", { class: "col" }, challenges.element, mine, open)));

  const playersText = (g) => commaList(g.players.map((p) => {
    const name = p.username || (p.is_bot ? `${p.bot_level || ""} bot` : `seat ${p.seat}`);
    const who = p.username || (p.is_bot && p.bot_level ? `bot:${p.bot_level}` : null);
    const shown = who ? playerLink(who, name) : name;
    return p.seat === g.current_seat && g.status === "active" ? el("span", {}, "▶", shown) : shown;
  }));
  const ratedBadge = (g) => (g.rated ? el("span", { class: "badge rated", title: "a rated game" }, "rated") : "");
  const turnOf = (g) => {
    if (g.status !== "active") return g.status === "finished" && g.winner_seat !== null
      ? `won by ${(g.players.find((p) => p.seat === g.winner_seat) || {}).username || `seat ${g.winner_seat}`}` : "";
    if (g.my_turn) return "your turn";
    const p = g.players.find((x) => x.seat === g.current_seat);
    return p ? `${p.username || `${p.bot_level || ""} bot`.trim()}'s turn` : "";
  };

  let mineCursor = null;
  const loadMine = async (more = false) => {
    const after = more && mineCursor ? `&after=${encodeURIComponent(mineCursor)}` : "";
    const { data } = await api("GET", `/api/v1/games?mine=true&limit=20${after}`);
    if (!sc.alive()) return;
    mineCursor = data.next_cursor;
    let body = mine.querySelector("tbody");
    if (!more || !body) {
      body = el("tbody");
      mine.replaceChildren(el("h2", {}, "My games"), data.results.length ? el("table", { class: "games" },
        el("thead", {}, el("tr", {}, ["Game", "Preset", "Status", "Players", "Turn", "Deadline", ""].map((t) => el("th", {}, t)))),
        body) : el("p", { class: "empty" }, "No games yet: create one."));
    }
    for (const g of data.results) {
      body.append(el("tr", { dataset: { gameId: g.id, status: g.status }, class: g.my_turn ? "my-turn" : "" },
        el("td", {}, el("a", { href: `#/game/${g.id}` }, `#${g.id}`)),
        el("td", {}, g.ruleset, ratedBadge(g)), el("td", { class: "status" }, g.status),
        el("td", {}, playersText(g), ` (${g.seated}/${g.max_players})`),
        el("td", { class: "turn" }, turnOf(g)),
        el("td", {}, g.status === "active" ? deadlineEl(g.deadline) : ""),
        el("td", {}, g.status === "finished" ? el("a", { href: `#/replay/${g.id}` }, "replay")
          : el("a", { href: `#/game/${g.id}` }, "open"))));
    }
    mine.querySelector("#more-games")?.remove();
    if (mineCursor) mine.append(el("button", { id: "more-games", type: "button", onclick: () => loadMine(true).catch(showError) }, "More"));
  };
  const loadOpen = async () => {
    const { data } = await api("GET", "/api/v1/games?status=waiting&limit=20");
    if (!sc.alive()) return;
    const rows = data.results.filter((g) => g.seat === null && g.seated < g.max_players);
    open.replaceChildren(el("h2", {}, "Waiting for players"), rows.length ? el("table", { class: "games" },
      el("tbody", {}, rows.map((g) => el("tr", { dataset: { gameId: g.id } },
        el("td", {}, `#${g.id}`), el("td", {}, g.ruleset, ratedBadge(g)), el("td", {}, g.creator ? playerLink(g.creator) : ""),
        el("td", {}, `${g.seated}/${g.max_players}`),
        el("td", {}, el("button", { type: "button", class: "join", onclick: async () => {
          try {
            await api("POST", `/api/v1/games/${g.id}/join`);
            location.hash = `#/game/${g.id}`;
          } catch (err) { showError(err); }
        } }, "Join"))))))
      : el("p", { class: "empty" }, "No open game to join."));
  };
  const refresh = () => Promise.all([loadMine(), loadOpen(), challenges.refresh()])
    .catch((err) => { if (sc.alive()) showError(err); });
  await Promise.all([refresh(), quick.refresh()]);
  let pending = null;
  sc.later(playerFeed((name, data) => {
    if (name === "your_turn" && data) notice(`Your turn in game #${data.game}`);
    if (name === "game_finished" && data) notice(`Game #${data.game} is over`);
    if (name === "rematch_offer" && data) notice(`${data.by} offers a rematch of game #${data.game}`);
    challenges.onFeed(name, data);
    quick.onFeed(name, data);
    if (FEED_EVENTS.includes(name)) return;
    clearTimeout(pending);
    pending = setTimeout(refresh, 300);
  }, FEED_EVENTS));
  sc.later(() => clearTimeout(pending));
}

// --- the table ------------------------------------------------------------------------
async function viewGame(root, sc, id) {
  const { data: first } = await api("GET", `/api/v1/games/${id}`);
  if (!sc.alive()) return;
  const state = { game: first, log: [], seqs: new Set(), busy: false, choice: null, live: "" };
  const table = el("section", { id: "table", class: "table" });
  const logList = el("ol", { id: "log", class: "log", reversed: true });
  const chat = chatPanel(sc, id, () => state.game);
  root.append(table, chat.element, el("section", { class: "panel log-box" }, el("h3", {}, "Recent moves"), logList));

  const names = () => seatNamer(state.game);
  const addMoves = (moves) => {
    for (const m of moves) {
      if (state.seqs.has(m.seq)) continue;
      state.seqs.add(m.seq);
      state.log.push(m);
    }
    state.log.sort((a, b) => a.seq - b.seq);
    state.log = state.log.slice(-60);
    const n = names();
    logList.replaceChildren(...state.log.slice().reverse().map((m) =>
      el("li", { dataset: { seq: m.seq }, value: m.seq }, el("span", { class: "seq" }, `#${m.seq}`), " ",
        describeMove(m, n))));
  };

  const apply = (g) => {
    if (g.version < state.game.version) return;
    const finishing = g.status !== state.game.status;
    state.game = g;
    if (live) live.seen(g);
    render();
    if (finishing) chat.roomTitle();
  };
  const rematchChanged = (r) => {
    state.game = { ...state.game, rematch: r };
    render();
    followRematch(r);
  };

  const act = async (item) => {
    if (state.busy) return;
    state.busy = true;
    state.choice = null;
    table.classList.add("busy");
    hideError();
    try {
      const { data } = await api("POST", `/api/v1/games/${id}/actions`, {
        body: { ...item, expected_version: state.game.version },
        headers: { "Idempotency-Key": newKey() },
      });
      apply(data.game);
    } catch (err) {
      // a race lost to another player or a bot (the page had not seen their move yet) is
      // no mistake: say so, and show the table as it is now
      if (err.status === 409 && ["stale_version", "not_your_turn"].includes(err.code)) {
        notice(`The game moved on before your move (${err.message}): here it is now.`);
      } else {
        showError(err);
      }
      try { apply((await api("GET", `/api/v1/games/${id}`)).data); } catch { /* shown above */ }
    } finally {
      state.busy = false;
      table.classList.remove("busy");
      render();
    }
  };

  const post = async (path) => {
    hideError();
    try {
      const { data } = await api("POST", `/api/v1/games/${id}/${path}`);
      if (data && data.version !== undefined) apply(data);
      else apply((await api("GET", `/api/v1/games/${id}`)).data);
    } catch (err) {
      showError(err);
    }
  };

  function render() {
    const g = state.game;
    const n = seatNamer(g);
    const me = g.seat;
    const link = seatLinker(g);
    table.dataset.version = g.version;
    table.dataset.status = g.status;
    table.dataset.seat = me === null || me === undefined ? "spectator" : me;
    table.dataset.live = state.live;
    const parts = [el("header", { class: "table-head" },
      el("h2", {}, `Game #${g.id}`, el("span", { class: "preset" }, g.ruleset)),
      el("span", { id: "game-status", class: `badge ${g.status}` }, g.status),
      g.rated ? el("span", { id: "game-rated", class: "badge rated" }, "rated") : "",
      el("span", { class: "meta" }, `round ${g.round || "-"} · version ${g.version}`,
        g.turn_seconds ? ` · ${g.turn_seconds} s per turn` : "",
        state.live ? ` · live: ${state.live}` : ""))];

    if (g.status === "waiting") {
      parts.push(waitingPanel(g, link));
    } else {
      parts.push(seatsPanel(g, link), pilePanel(g, n));
      if (g.status === "finished") parts.push(resultPanel(g, link, rematchPanel(g, rematchChanged)));
      if (g.hand !== undefined) parts.push(handPanel(g, n), actionsPanel(g, n));
      else parts.push(el("p", { id: "spectating", class: "hint" }, "You are watching this game: you hold no seat in it."));
    }
    table.replaceChildren(...parts);
  }

  function waitingPanel(g, link) {
    const seats = [];
    for (let s = 0; s < g.max_players; s++) {
      const p = g.players.find((x) => x.seat === s);
      seats.push(el("li", { class: p ? "taken" : "free", dataset: { seat: s } }, p ? link(s) : "free seat"));
    }
    const mineToStart = g.seat !== null && g.seat !== undefined && (g.creator || "").toLowerCase() === (session.username || "").toLowerCase();
    return el("div", { class: "waiting panel" },
      el("p", {}, `Waiting for players: ${g.players.length} of ${g.max_players} seats taken.`),
      el("ul", { class: "waiting-seats" }, seats),
      el("div", { class: "buttons" },
        g.seat === null && g.players.length < g.max_players
          ? el("button", { type: "button", id: "join", onclick: () => post("join") }, "Join") : "",
        g.seat !== null && g.seat !== undefined
          ? el("button", { type: "button", id: "leave", onclick: () => post("leave") }, "Leave") : "",
        mineToStart ? el("button", { type: "button", id: "start", class: "primary", onclick: () => post("start") }, "Start") : ""),
      g.seat === null ? el("p", { id: "spectating", class: "hint" }, "You are watching this game.") : "");
  }

  function seatsPanel(g, link) {
    return el("div", { id: "seats", class: "seats" }, g.players.map((p) => el("div", {
      class: ["seat", p.seat === g.current_seat && g.status === "active" ? "current" : "",
        p.seat === g.seat ? "me" : "", p.is_bot ? "bot" : "", p.status === "eliminated" ? "out" : ""].join(" "),
      dataset: { seat: p.seat },
    },
    el("div", { class: "name" }, link(p.seat)),
    el("div", { class: "stats" },
      el("span", { class: "hand-count", title: "cards in hand" }, `${p.hand_count} card${p.hand_count === 1 ? "" : "s"}`),
      el("span", { class: "score", title: "score" }, `${p.score} pts`)),
    el("div", { class: "flags" },
      p.online ? el("span", { class: "flag online", title: "seen in the last minutes" }, "online") : "",
      p.autopilot ? el("span", { class: "flag" }, "autopilot") : "",
      p.team !== null && p.team !== undefined ? el("span", { class: "flag" }, `team ${p.team}`) : "",
      p.status === "eliminated" ? el("span", { class: "flag" }, "out") : "",
      g.uno_catchable_seat === p.seat ? el("span", { class: "flag warn" }, "no UNO!") : "",
      p.deadline && g.status === "active" ? el("span", { class: "flag", title: "this seat's deadline" }, "due in ", deadlineEl(p.deadline)) : ""))));
  }

  function pilePanel(g, n) {
    const direction = g.direction === "clockwise" ? "↻ clockwise" : g.direction === "counterclockwise" ? "↺ counterclockwise" : "";
    return el("div", { id: "pile", class: "pile" },
      el("div", { id: "top-card", class: "top" }, g.top_card ? cardEl(g.top_card) : el("div", { class: "card empty" }, "—")),
      el("div", { class: "pile-info" },
        g.current_color ? el("div", {}, "Colour ", el("span", { id: "current-color", class: `swatch c-${g.current_color}` }, g.current_color)) : "",
        direction ? el("div", { id: "direction" }, direction) : "",
        el("div", {}, `Draw pile ${g.draw_pile_count} · discards ${g.discard_pile_count}`),
        g.status === "active" && g.current_seat !== null ? el("div", { id: "current" }, `To play: ${n(g.current_seat)}`) : "",
        describePending(g.pending, n) ? el("div", { id: "pending" }, describePending(g.pending, n)) : "",
        g.face_down ? el("div", { id: "face-down" }, `${n(g.face_down.seat)} set a card aside`,
          g.face_down.card ? `: ${cardName(g.face_down.card)}` : "") : "",
        g.deadline && g.status === "active" ? el("div", {}, "Next deadline in ", deadlineEl(g.deadline, { id: "deadline" })) : ""));
  }

  function resultPanel(g, link, rematch) {
    const winners = (g.winners && g.winners.length ? g.winners : [g.winner]).filter(Boolean);
    return el("div", { id: "result", class: "result panel" },
      el("h3", {}, "Game over: ", commaList(winners.map((w) => link(w.seat)), " and "), " won"),
      el("p", {}, "Scores: ", commaList(g.players.map((p) => el("span", {}, link(p.seat), ` ${p.score}`)))),
      ratingChangesPanel(g),
      el("div", { class: "buttons" },
        el("a", { id: "replay-link", class: "button", href: `#/replay/${g.id}` }, "Watch the replay"), rematch));
  }

  function handPanel(g, n) {
    const byCard = new Map();
    for (const a of g.legal_actions || []) {
      if (a.card === undefined) continue;
      if (!byCard.has(a.card)) byCard.set(a.card, []);
      byCard.get(a.card).push(a);
    }
    const cards = g.hand.map((c) => {
      const items = byCard.get(c.id);
      if (!items) return cardEl(c);
      return cardEl(c, {
        playable: true,
        onClick: () => {
          if (items.length === 1) act(items[0]);
          else { state.choice = c.id; render(); }
        },
      });
    });
    const panel = el("div", { id: "hand-box", class: "hand-box" },
      el("h3", {}, `Your hand (${g.hand.length})`), el("div", { id: "hand", class: "hand" }, cards));
    const items = state.choice !== null ? byCard.get(state.choice) : null;
    if (items) {
      const card = g.hand.find((c) => c.id === state.choice);
      panel.append(el("div", { id: "choice", class: "choice" },
        el("span", {}, `${cardName(card)}: `),
        items.map((a) => el("button", {
          type: "button", class: `choice-option${a.color && COLORS.includes(a.color) ? ` c-${a.color}` : ""}`,
          dataset: { action: JSON.stringify(a) }, onclick: () => act(a),
        }, choiceLabel(a, n))),
        el("button", { type: "button", class: "cancel", onclick: () => { state.choice = null; render(); } }, "Cancel")));
    } else {
      state.choice = null;
    }
    return panel;
  }

  function actionsPanel(g, n) {
    const others = (g.legal_actions || []).filter((a) => a.card === undefined);
    return el("div", { id: "actions", class: "actions" },
      others.map((a) => el("button", {
        type: "button", class: `action${a.color ? ` c-${a.color}` : ""}`,
        dataset: { actionType: a.type, action: JSON.stringify(a) }, onclick: () => act(a),
      }, actionLabel(a, n))),
      g.status === "active" && !(g.legal_actions || []).length
        ? el("span", { class: "hint", id: "waiting-for" }, g.current_seat !== null ? `Waiting for ${n(g.current_seat)}…` : "") : "");
  }

  let live = null;
  render();
  chat.load().catch(() => { /* the table talk is a nicety */ });
  try {
    const from = Math.max(0, first.version - 30);
    const { data } = await api("GET", `/api/v1/games/${id}/moves?after=${from}&limit=30`);
    addMoves(data.results);
  } catch { /* the log is a nicety */ }
  if (!sc.alive()) return;
  live = new GameLive(id, state.game.version, {
    onMove: (m) => addMoves([m]),
    onGame: (g) => apply(g),
    onMode: (mode) => { state.live = mode; render(); },
    notices: STREAM_EVENTS,
    onNotice: (name, data) => (name === "rematch" ? rematchChanged(data) : chat.onNotice(name, data)),
  });
  live.lastSeq = Math.max(first.version, ...state.seqs);
  live.start();
  sc.later(() => live.stop());
}

// --- the replay -----------------------------------------------------------------------
async function viewReplay(root, sc, id) {
  const { data: game } = await api("GET", `/api/v1/games/${id}`);
  if (!sc.alive()) return;
  const n = seatNamer(game);
  const link = seatLinker(game);
  if (game.status !== "finished") {
    root.append(el("div", { class: "panel", id: "replay-unavailable" },
      el("p", {}, `Game #${id} is ${game.status}: its replay opens once it is finished (until then, the hands stay hidden).`),
      el("a", { href: `#/game/${id}` }, "Back to the table")));
    return;
  }
  const [moves, scores] = await Promise.all([
    allPages(`/api/v1/games/${id}/moves`),
    api("GET", `/api/v1/games/${id}/scores`).then((r) => r.data),
  ]);
  if (!sc.alive()) return;
  const { steps } = buildTimeline(game, moves);
  const last = steps.length;
  let at = 1; // 1-based: the table after move `at`

  const position = el("span", { id: "replay-position" });
  const slider = el("input", { id: "replay-slider", type: "range", min: 1, max: last, value: 1, "aria-label": "Move" });
  const button = (idBase, label, to) => el("button", { type: "button", id: `replay-${idBase}`, onclick: () => show(to()) }, label);
  const first = button("first", "|◀ First", () => 1);
  const prev = button("prev", "◀ Prev", () => at - 1);
  const next = button("next", "Next ▶", () => at + 1);
  const end = button("last", "Last ▶|", () => last);
  slider.addEventListener("input", () => show(Number(slider.value)));
  const moveBox = el("div", { id: "replay-move", class: "panel" });
  const tableBox = el("div", { id: "replay-table", class: "pile" });
  const hands = el("div", { id: "replay-hands", class: "replay-hands" });
  root.append(el("section", { id: "replay", class: "replay", dataset: { moves: last } },
    el("header", { class: "table-head" }, el("h2", {}, `Replay of game #${id}`, el("span", { class: "preset" }, game.ruleset)),
      el("span", { class: "meta" }, `${last} moves · seed ${game.seed}`), el("a", { href: `#/game/${id}` }, "the table")),
    el("div", { class: "controls" }, first, prev, slider, next, end, position),
    el("div", { class: "replay-body" }, el("div", {}, tableBox, moveBox), hands),
    scoreTable(game, scores, link)));

  function show(to) {
    at = Math.min(last, Math.max(1, to));
    const step = steps[at - 1];
    const move = step.move;
    slider.value = at;
    position.textContent = `Move ${at} / ${last}`;
    first.disabled = prev.disabled = at === 1;
    next.disabled = end.disabled = at === last;
    root.querySelector("#replay").dataset.at = at;
    const { type, ...fields } = move.action;
    const actionText = [type, ...Object.entries(fields).map(([k, v]) => `${k} ${JSON.stringify(v)}`)].join(" · ");
    moveBox.replaceChildren(
      el("h3", {}, `Move #${move.seq}: ${n(move.seat)}`, el("span", { class: "by" }, ` (${move.by}, round ${move.round})`)),
      el("p", { class: "action" }, actionText),
      el("ul", { class: "events" }, move.events.map((e) => el("li", { dataset: { type: e.type } }, describeEvent(e, n)))));
    tableBox.replaceChildren(
      el("div", { class: "top" }, step.top ? cardEl(step.top) : el("div", { class: "card empty" }, "—")),
      el("div", { class: "pile-info" },
        el("div", {}, `Round ${step.round}`),
        step.color ? el("div", {}, "Colour ", el("span", { class: `swatch c-${step.color}` }, step.color)) : "",
        step.aside ? el("div", {}, `${n(step.aside.seat)} set aside `, step.aside.card ? cardName(step.aside.card) : "a card") : "",
        step.next !== null && step.next !== undefined ? el("div", {}, `Next: ${n(step.next)}`) : el("div", {}, "The end")));
    hands.replaceChildren(...game.players.map((p) => el("div", {
      class: `replay-seat panel${move.seat === p.seat ? " acted" : ""}`, dataset: { seat: p.seat },
    },
    el("div", { class: "name" }, link(p.seat),
      el("span", { class: "count" }, `${step.hands[p.seat].length} card${step.hands[p.seat].length === 1 ? "" : "s"}`),
      el("span", { class: "score" }, `${step.scores[p.seat]} pts`)),
    step.unknown[p.seat] ? el("div", { class: "hint unknown" }, "(not all of this hand is known)") : "",
    el("div", { class: "cards" }, step.hands[p.seat].map((c) => cardEl(c, { small: true }))))));
  }

  const keys = (e) => {
    if (e.target && ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName) && e.target !== slider) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 1, End: last }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  };
  document.addEventListener("keydown", keys);
  sc.later(() => document.removeEventListener("keydown", keys));
  if (last) show(1);
}

function scoreTable(game, scores, n) {
  const seats = game.players.map((p) => p.seat);
  const head = el("tr", {}, el("th", {}, scores.scoring === "per_play" ? "Plays" : "Round"), el("th", {}, "Winner"),
    seats.map((s) => el("th", {}, n(s))));
  const rows = (scores.rounds || []).map((r) => el("tr", { dataset: { round: r.round } },
    el("td", {}, r.round), el("td", {}, r.winner_seat === null ? "—" : n(r.winner_seat)),
    seats.map((s) => el("td", {}, (r.points || [])[s] ?? ""))));
  if (scores.scoring === "per_play") {
    rows.push(el("tr", {}, el("td", {}, (scores.plays || []).length), el("td", {}, "scoring plays"),
      seats.map((s) => el("td", {}, (scores.plays || []).filter((p) => p.seat === s).length))));
  }
  const winners = new Set(scores.winner_seats || []);
  return el("section", { id: "replay-scores", class: "panel" }, el("h3", {}, `Scores (${scores.scoring})`),
    el("table", { class: "scores" }, el("thead", {}, head), el("tbody", {}, rows),
      el("tfoot", {}, el("tr", { id: "score-totals" }, el("th", {}, "Total"), el("th", {}, commaList([...winners].map(n))),
        seats.map((s) => el("td", { dataset: { seat: s }, class: winners.has(s) ? "winner" : "" }, (scores.totals || [])[s] ?? ""))))));
}

// --- start ----------------------------------------------------------------------------
document.getElementById("signout").addEventListener("click", () => {
  session.clear();
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
route();
