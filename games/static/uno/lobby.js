// The lobby: creating a game, quick play, challenges, the player's games and the open ones.

import { api } from "./api.js";
import { playerFeed } from "./live.js";
import { FEED_EVENTS, challengeControls, challengesPanel, quickPlayPanel } from "./meeting.js";
import { commaList, playerLink } from "./standing.js";
import { deadlineEl, el, hideError, notice, showError } from "./ui.js";

const FALLBACK_CATALOG = {
  rulesets: ["standard", "house", "standard_112", "duo", "play_uno_com", "decktet_uno"],
  levels: ["random", "easy", "normal", "hard"],
  options: {},
};
let catalog = null;

/** Presets, bot levels and rule options, read from the server's OpenAPI schema. */
export async function loadCatalog() {
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

export async function viewLobby(root, sc) {
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
