// The table: a game as its player (or a spectator) sees it, live.  Phone first: on a
// narrow screen the hand and the actions sit in a dock fixed to the bottom of the screen
// and the seats are a strip of chips; keyboard first too: the hand is one tab stop whose
// cards the arrow keys walk, and focus stays on the hand after a move.

import { api, newKey, session } from "./api.js";
import {
  COLORS, actionLabel, cardEl, cardName, choiceLabel, countdown, describeMove, describePending, drawnCardId, duration,
  isDecktet, scoredLine, seatNamer,
} from "./cards.js";
import { askNotifications, canNotify, notify, reducedMotion, tone, unlockSound } from "./feel.js";
import { GameLive } from "./live.js";
import { STREAM_EVENTS, chatPanel, followRematch, rematchPanel } from "./meeting.js";
import { loadRulesets, presetTitle } from "./rulesets.js";
import { SORTS, getSettings, setSetting } from "./settings.js";
import { commaList, ratingChangesPanel, seatLinker } from "./standing.js";
import { deadlineEl, el, hideError, notice, showError } from "./ui.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A turn's time in words: "30 s per turn", "2 min per turn", "1 day per turn", "no time limit". */
export const turnTime = (seconds) => (seconds ? `${duration(seconds)} per turn` : "no time limit");

/** A day or more per decision: a correspondence game (the server's UNO_CORRESPONDENCE_SECONDS by default). */
const CORRESPONDENCE_SECONDS = 86400;
/** A date and time in the reader's words: "Tue 3 Dec, 14:00". */
const dateWords = (iso) => new Date(iso).toLocaleString([], {
  weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

const STATUS_WORDS = { waiting: "waiting for players", active: "playing", finished: "finished" };

// --- the hand's order -------------------------------------------------------------------
const COLOR_ORDER = [...COLORS, null];
const RANK_ORDER = ["skip", "reverse", "draw_two", "wild", "wild_draw_four"];
const DECKTET_RANKS = ["excuse", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "pawn", "court", "crown"];

function rankKey(card) {
  const r = String(card.rank);
  if (isDecktet(card)) {
    const i = DECKTET_RANKS.indexOf(r);
    return [i < 0 ? DECKTET_RANKS.length : i, r];
  }
  if (/^\d+$/.test(r)) return [Number(r), ""];
  const i = RANK_ORDER.indexOf(r);
  return [10 + (i < 0 ? RANK_ORDER.length : i), r];
}

function colorKey(card) {
  if (isDecktet(card)) return [0, (card.suits || [])[0] || ""];
  const i = COLOR_ORDER.indexOf(card.color || null);
  return [i < 0 ? COLOR_ORDER.length : i, ""];
}

const compareKeys = (a, b) => {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
};

/** The hand in the player's order: "color" (then rank), "rank" (then colour) or "dealt". */
export function sortHand(hand, how) {
  if (how === "dealt") return hand.slice();
  const key = how === "rank"
    ? (c) => [...rankKey(c), ...colorKey(c), c.id]
    : (c) => [...colorKey(c), ...rankKey(c), c.id];
  return hand.map((c) => [key(c), c]).sort((a, b) => compareKeys(a[0], b[0])).map(([, c]) => c);
}

// --- the view ---------------------------------------------------------------------------
export async function viewGame(root, sc, id) {
  const { data: first } = await api("GET", `/api/v1/games/${id}`);
  if (!sc.alive()) return;
  const state = {
    game: first, log: [], seqs: new Set(), busy: false, choice: null, live: "",
    focusAfter: null, handIndex: 0, scored: null, lastTop: first.top_card ? first.top_card.id : null, wasMyTurn: null,
  };
  const table = el("section", { id: "table", class: "table", "aria-label": `Game #${id}` });
  const head = el("header", { class: "table-head" });
  const body = el("div", { class: "table-body" });
  const dock = el("div", { id: "dock", class: "dock" });
  const settingsBox = settingsPanel();
  table.append(head, settingsBox, body, dock);
  const announcer = el("div", { id: "announce", class: "visually-hidden", role: "status", "aria-live": "polite" });
  const dialog = resignDialog();
  const logList = el("ol", { id: "log", class: "log", reversed: true });
  const chat = chatPanel(sc, id, () => state.game);
  root.classList.add("game-view");
  root.append(table, announcer, dialog, chat.element,
    el("section", { class: "panel log-box", "aria-labelledby": "log-title", tabindex: "0" }, el("h3", { id: "log-title" }, "Recent moves"), logList));

  // the fixed dock (phone) must not hide the end of the page: the page keeps room for it
  const dockRoom = () => root.style.setProperty("--dock-h", `${dock.offsetHeight}px`);
  if (typeof ResizeObserver !== "undefined") {
    const ro = new ResizeObserver(dockRoom);
    ro.observe(dock);
    sc.later(() => ro.disconnect());
  }

  const names = () => seatNamer(state.game);
  const announce = (text) => {
    const line = el("p", {}, text);
    announcer.append(line);
    while (announcer.children.length > 3) announcer.firstChild.remove();
  };
  const addMoves = (moves, { fresh = false } = {}) => {
    for (const m of moves) {
      if (state.seqs.has(m.seq)) continue;
      state.seqs.add(m.seq);
      state.log.push(m);
      if (!fresh) continue;
      // the card on the pile before the move (the view is still the one before it, or not: then none)
      const top = state.game.version < m.seq ? state.game.top_card : null;
      // other players' moves, as they happen, for a screen reader
      if (m.seat !== state.game.seat) announce(describeMove(m, names(), { top }));
      // Decktet-Uno: what the play scored, and why, shown as it happens
      const scored = scoredLine(m, names(), top);
      if (scored) {
        state.scored = scored;
        const line = document.getElementById("scored");
        if (line) line.textContent = scored;
      }
    }
    state.log.sort((a, b) => a.seq - b.seq);
    state.log = state.log.slice(-60);
    const n = names();
    logList.replaceChildren(...state.log.slice().reverse().map((m) =>
      el("li", { dataset: { seq: m.seq }, value: m.seq }, describeMove(m, n))));
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
    state.focusAfter = { area: "hand", index: state.handIndex, moved: true };
    table.classList.add("busy");
    hideError();
    try {
      const { data } = await api("POST", `/api/v1/games/${id}/actions`, {
        body: { ...item, expected_version: state.game.version },
        headers: { "Idempotency-Key": newKey() },
      });
      state.focusAfter = { area: "hand", index: state.handIndex, moved: true };
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
      const { status, data } = await api("POST", `/api/v1/games/${id}/${path}`);
      if (status === 204) { location.hash = "#/lobby"; return true; } // the last one left a waiting table: it is gone
      if (data && data.version !== undefined) apply(data);
      else apply((await api("GET", `/api/v1/games/${id}`)).data);
      return true;
    } catch (err) {
      showError(err);
      return false;
    }
  };

  // --- whose turn, how long ------------------------------------------------------------
  const seated = (g) => g.seat !== null && g.seat !== undefined;
  const mine = (g) => (g.players || []).find((p) => p.seat === g.seat);
  const myTurn = (g) => g.status === "active" && seated(g) && (g.legal_actions || []).length > 0
    && (g.obligations || []).some((o) => o.seat === g.seat);
  /** A seat's clock (`players[i].time_left`), null when it has none. */
  const clockOf = (g, seat) => ((g.players || []).find((p) => p.seat === seat) || {}).time_left || null;
  /** A seat's deadline worth showing: its turn's in a timed game, or a window's (a buzz);
   *  not its turn's while its player is away (the clock stands still: said in words instead). */
  const timedDeadline = (g, seat) => {
    if (g.status !== "active") return null;
    const paused = (clockOf(g, seat) || {}).paused;
    const owed = (g.obligations || []).filter((o) => o.seat === seat && o.deadline
      && (o.kind !== "turn" || (g.turn_seconds && !paused)));
    return owed.length ? owed.map((o) => o.deadline).sort()[0] : null;
  };
  /** A seat's time left in words in a correspondence game ("2 days 3 h left", "away until
   *  Tue 3 Dec, 14:00 · 20 h left when back"), for its chip and its label; "" otherwise. */
  const timeLeftWords = (g, p) => {
    const clock = p.time_left;
    if (!clock || g.status !== "active" || !(g.turn_seconds >= CORRESPONDENCE_SECONDS)) return "";
    const away = p.away_until ? `away until ${dateWords(p.away_until)}` : "";
    if (clock.paused && clock.deadline) return `${away} · ${duration(clock.seconds)} left when back`;
    if (clock.running) return `${countdown(clock.deadline)} left`;
    return away;
  };

  function title() {
    const g = state.game;
    if (myTurn(g)) {
      const due = timedDeadline(g, g.seat);
      document.title = `Your turn${due ? ` · ${countdown(due)}` : ""} · UNO`;
    } else {
      document.title = `Game #${g.id}${g.status === "finished" ? " · over" : ""} · UNO`;
    }
  }
  const titleTimer = setInterval(title, 1000);
  sc.later(() => { clearInterval(titleTimer); document.title = "UNO"; });

  /** What the player is told when the table changes: their turn (sound, notification, live region), a card played. */
  function feel(g) {
    const s = getSettings();
    const top = g.top_card ? g.top_card.id : null;
    const played = top !== null && top !== state.lastTop;
    state.lastTop = top;
    if (played && s.sounds) tone("play");
    const turn = myTurn(g);
    if (turn && state.wasMyTurn === false) {
      announce("Your turn.");
      if (s.sounds) setTimeout(() => tone("turn"), played ? 150 : 0);
      if (s.notify) notify("Your turn", `Game #${g.id}: it is your turn.`, `uno-game-${g.id}`);
    }
    state.wasMyTurn = turn;
    return played;
  }

  // --- focus: where it is before a render, where it goes after --------------------------
  function focusSpot() {
    const a = document.activeElement;
    if (!a || a === document.body || !table.contains(a)) return null;
    const within = (sel) => a.closest(sel);
    const indexIn = (sel) => [...table.querySelectorAll(sel)].indexOf(a);
    if (within("#hand")) return { area: "hand", index: indexIn("#hand .card") };
    if (within("#choice")) return { area: "choice", index: indexIn("#choice button") };
    if (within("#actions")) return { area: "action", type: a.dataset.actionType, index: indexIn("#actions button") };
    if (a.id) return { area: "id", id: a.id };
    return null;
  }

  function restoreFocus(spot) {
    if (!spot) return;
    const cards = [...table.querySelectorAll("#hand .card")];
    const focusCard = (i) => {
      if (!cards.length) return false;
      const c = cards[Math.max(0, Math.min(i, cards.length - 1))];
      rove(c);
      c.focus({ preventScroll: true });
      c.scrollIntoView({ block: "nearest", inline: "nearest" });
      return true;
    };
    const first = (sel) => {
      const e = table.querySelector(sel);
      if (e) e.focus({ preventScroll: true });
      return Boolean(e);
    };
    if (spot.area === "choice") {
      const options = table.querySelectorAll("#choice button");
      if (options.length) { options[Math.min(spot.index, options.length - 1)].focus(); return; }
      if (focusCard(state.handIndex)) return;
    } else if (spot.area === "action") {
      const same = spot.type && table.querySelector(`#actions button[data-action-type="${spot.type}"]`);
      if (same) { same.focus({ preventScroll: true }); return; }
      if (first("#hand .card.playable") || first("#actions button")) return;
      if (focusCard(state.handIndex)) return;
    } else if (spot.area === "hand") {
      if (focusCard(spot.index)) return;
      if (first("#actions button")) return;
    } else if (spot.area === "id") {
      const again = document.getElementById(spot.id);
      if (again && table.contains(again)) { again.focus({ preventScroll: true }); return; }
    }
    // never dropped to the page: the hand's heading, else the table's
    first("#hand-title") || first("#table-title");
  }

  /** The hand's one tab stop (a roving tabindex): `card` takes it. */
  function rove(card) {
    for (const c of table.querySelectorAll("#hand .card")) c.tabIndex = c === card ? 0 : -1;
  }

  function render() {
    const g = state.game;
    const spot = state.focusAfter || focusSpot();
    state.focusAfter = null;
    const n = seatNamer(g);
    const link = seatLinker(g);
    table.dataset.version = g.version;
    table.dataset.status = g.status;
    table.dataset.seat = seated(g) ? g.seat : "spectator";
    table.dataset.live = state.live;
    table.dataset.turn = myTurn(g) ? "mine" : "";
    const me = mine(g);
    const left = Boolean(me && me.left);
    const played = feel(g);

    head.replaceChildren(
      el("h2", { id: "table-title", tabindex: "-1" }, `Game #${g.id}`, el("span", { class: "preset" }, presetTitle(g.ruleset))),
      el("span", { id: "game-status", class: `badge ${g.status}` }, STATUS_WORDS[g.status] || g.status),
      g.rated ? el("span", { id: "game-rated", class: "badge rated" }, "rated") : "",
      el("span", { class: "meta", id: "table-meta" },
        [g.status !== "waiting" && g.round ? `round ${g.round}` : "", turnTime(g.turn_seconds)].filter(Boolean).join(" · ")),
      g.status === "active" && seated(g) && !left
        ? el("button", { type: "button", id: "resign", class: "resign", onclick: () => openResign() }, "Resign…") : "");

    const parts = [];
    if (g.status === "waiting") {
      parts.push(waitingPanel(g, link));
    } else {
      if (g.status === "finished") parts.push(resultPanel(g, link, rematchPanel(g, rematchChanged)));
      parts.push(seatsPanel(g, link, n), pilePanel(g, n, played));
      if (left) {
        parts.push(el("p", { id: "left-note", class: "left-note", role: "note" },
          "You left this game: the autopilot plays your seat to the end, and its result is your seat's. "
          + "You can no longer act in this game."));
      }
      if (!seated(g)) parts.push(el("p", { id: "spectating", class: "hint" }, "You are watching this game: you hold no seat in it."));
    }
    body.replaceChildren(...parts);

    const docked = g.status !== "waiting" && g.hand !== undefined;
    dock.hidden = !docked;
    dock.classList.toggle("floating", docked && g.status === "active");
    root.classList.toggle("has-dock", docked && g.status === "active");
    // the hand's row keeps where the player scrolled it; on their turn, its first playable card is in view
    const scrolled = dock.querySelector("#hand")?.scrollLeft || 0;
    if (docked) dock.replaceChildren(handPanel(g, n), actionsPanel(g, n, left));
    else dock.replaceChildren();
    const row = dock.querySelector("#hand");
    if (row) row.scrollLeft = scrolled;
    dockRoom();
    title();
    restoreFocus(spot);
    if (row && myTurn(g)) {
      // on the player's turn a playable card is always in view (the one just drawn first); a
      // card of the row that had the focus and would be scrolled away hands it to that card
      const seen = (c) => c.offsetLeft >= row.scrollLeft && c.offsetLeft + c.offsetWidth <= row.scrollLeft + row.clientWidth;
      const playable = [...row.querySelectorAll(".card.playable")];
      const drawnNow = row.querySelector(".card.just-drawn.playable");
      const target = drawnNow && !seen(drawnNow) ? drawnNow : !playable.some(seen) ? playable[0] : null;
      if (target) {
        row.scrollLeft = Math.max(0, target.offsetLeft - 8);
        const focused = document.activeElement;
        if (focused && row.contains(focused) && !seen(focused)) {
          rove(target);
          target.focus({ preventScroll: true });
        }
      }
    }
  }

  function waitingPanel(g, link) {
    const seats = [];
    for (let s = 0; s < g.max_players; s++) {
      const p = g.players.find((x) => x.seat === s);
      seats.push(el("li", { class: p ? "taken" : "free", dataset: { seat: s } }, p ? link(s) : "free seat"));
    }
    const mineToStart = seated(g) && (g.creator || "").toLowerCase() === (session.username || "").toLowerCase();
    const auto = Boolean(g.start_when_full);
    return el("div", { class: "waiting panel" },
      el("p", {}, `Waiting for players: ${g.players.length} of ${g.max_players} seats taken.`),
      auto ? el("p", { id: "starts-itself" }, "The game starts by itself when the table is full.") : "",
      el("ul", { class: "waiting-seats" }, seats),
      el("div", { class: "buttons" },
        !seated(g) && g.players.length < g.max_players
          ? el("button", { type: "button", id: "join", class: "primary", onclick: () => post("join") }, "Join") : "",
        seated(g) ? el("button", { type: "button", id: "leave", onclick: () => post("leave") }, "Leave the table") : "",
        mineToStart && !auto ? el("button", { type: "button", id: "start", class: "primary", onclick: () => post("start") }, "Start") : ""),
      !seated(g) ? el("p", { id: "spectating", class: "hint" }, "You are watching this game.") : "");
  }

  function seatsPanel(g, link, n) {
    return el("ul", { id: "seats", class: "seats", "aria-label": "Players" }, g.players.map((p) => {
      const current = p.seat === g.current_seat && g.status === "active";
      // a correspondence game: the seat's time left in words (its clock, or its player away);
      // a real-time game: the countdown of the seat in turn, as before
      const words = timeLeftWords(g, p);
      const running = Boolean(words) && p.time_left.running;
      const due = current && !running ? timedDeadline(g, p.seat) : null;
      return el("li", {
        class: ["seat", current ? "current" : "", p.seat === g.seat ? "me" : "", p.is_bot ? "bot" : "",
          p.status === "eliminated" ? "out" : "", p.left ? "left" : "", p.away_until ? "away" : ""].join(" "),
        dataset: { seat: p.seat },
        "aria-current": current ? "true" : null,
        "aria-label": `${n.label(p.seat)}: ${plural(p.hand_count, "card")}, ${p.score} points${current ? ", to play" : ""}`
          + (words ? `, ${words}` : ""),
      },
      el("span", { class: "name" }, current ? el("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : "", link(p.seat)),
      el("span", { class: "stats" },
        el("span", { class: "hand-count", title: "cards in hand" }, plural(p.hand_count, "card")),
        el("span", { class: "score", title: "score" }, `${p.score} pts`)),
      el("span", { class: "flags" },
        p.online ? el("span", { class: "flag online", title: "seen in the last minutes" }, "online") : "",
        p.left ? el("span", { class: "flag", title: "left the game: the autopilot plays the seat" }, "left") : "",
        p.autopilot && !p.left ? el("span", { class: "flag", title: "the autopilot plays for this player" }, "autopilot") : "",
        p.team !== null && p.team !== undefined ? el("span", { class: "flag" }, `team ${p.team + 1}`) : "",
        p.status === "eliminated" ? el("span", { class: "flag" }, "out") : "",
        g.uno_catchable_seat === p.seat ? el("span", { class: "flag warn" }, "no UNO!") : "",
        due ? el("span", { class: "flag clock", title: "time left for this turn" }, "⏱ ", deadlineEl(due, { class: "countdown seat-clock" })) : "",
        running ? el("span", { class: "flag clock time-left", title: "time left for this decision" }, "⏱ ",
          deadlineEl(p.time_left.deadline, { class: "countdown seat-clock" }), " left") : "",
        words && !running ? el("span", { class: "flag away time-left", title: "away: this player's clock stands still until then" },
          "⏸ ", words) : ""));
    }));
  }

  function pilePanel(g, n, played) {
    const direction = g.direction === "clockwise" ? "↻ clockwise" : g.direction === "counterclockwise" ? "↺ counterclockwise" : "";
    const top = g.top_card ? cardEl(g.top_card) : el("div", { class: "card empty" }, "—");
    if (g.top_card) top.setAttribute("aria-label", `Top card: ${cardName(g.top_card)}`);
    if (played && !reducedMotion()) top.classList.add("just-played");
    const due = g.current_seat !== null && g.current_seat !== undefined ? timedDeadline(g, g.current_seat) : null;
    return el("div", { id: "pile", class: "pile" },
      el("div", { id: "top-card", class: "top" }, top),
      el("div", { class: "pile-info" },
        g.current_color ? el("div", {}, "Colour ", el("span", { id: "current-color", class: `swatch c-${g.current_color}` }, g.current_color)) : "",
        direction ? el("div", { id: "direction" }, direction) : "",
        el("div", { class: "piles" }, `${plural(g.draw_pile_count, "card")} to draw · ${g.discard_pile_count} played`),
        g.status === "active" && g.current_seat !== null
          ? el("div", { id: "current" }, g.current_seat === g.seat ? "Your turn" : `To play: ${n.label(g.current_seat)}`,
            due ? [" · ", deadlineEl(due, { id: "deadline" }), " left"] : "") : "",
        describePending(g.pending, n) ? el("div", { id: "pending" }, describePending(g.pending, n)) : "",
        g.face_down ? el("div", { id: "face-down" }, g.face_down.seat === g.seat ? "You set a card aside" : `${n(g.face_down.seat)} set a card aside`,
          g.face_down.card ? `: ${cardName(g.face_down.card)}` : "") : "",
        state.scored ? el("div", { id: "scored", class: "scored", role: "status" }, state.scored) : ""));
  }

  function resultPanel(g, link, rematch) {
    const winners = (g.winners && g.winners.length ? g.winners : [g.winner]).filter(Boolean);
    const won = new Set(winners.map((w) => w.seat));
    const rows = g.players.slice().sort((a, b) => b.score - a.score || a.seat - b.seat);
    return el("div", { id: "result", class: "result panel", role: "region", "aria-labelledby": "result-title" },
      el("h3", { id: "result-title" }, "Game over: won by ", commaList(winners.map((w) => link(w.seat)), " and ")),
      el("table", { id: "final-scores", class: "final-scores" },
        el("caption", {}, "Final scores"),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Player"), el("th", { scope: "col" }, "Score"))),
        el("tbody", {}, rows.map((p) => el("tr", { dataset: { seat: p.seat }, class: won.has(p.seat) ? "winner" : "" },
          el("th", { scope: "row" }, link(p.seat), won.has(p.seat) ? el("span", { class: "won" }, " · winner") : ""),
          el("td", { class: "score" }, String(p.score)))))),
      ratingChangesPanel(g),
      el("div", { class: "buttons" },
        el("a", { id: "replay-link", class: "button", href: `#/replay/${g.id}` }, "Watch the replay"), rematch,
        el("a", { id: "back-to-lobby", class: "button", href: "#/lobby" }, "Back to the lobby")));
  }

  function handPanel(g, n) {
    const byCard = new Map();
    for (const a of g.legal_actions || []) {
      if (a.card === undefined) continue;
      if (!byCard.has(a.card)) byCard.set(a.card, []);
      byCard.get(a.card).push(a);
    }
    const sorted = sortHand(g.hand, getSettings().sort);
    const drawn = drawnCardId(g);
    const cards = sorted.map((c, index) => {
      const items = byCard.get(c.id);
      const choose = () => {
        state.handIndex = index;
        if (!items) return;
        if (items.length === 1) act(items[0]);
        else {
          state.choice = c.id;
          state.focusAfter = { area: "choice", index: 0 };
          render();
        }
      };
      const card = cardEl(c, { playable: Boolean(items) && g.status === "active", onClick: choose, justDrawn: c.id === drawn });
      if (!items) card.setAttribute("aria-disabled", "true");
      card.tabIndex = -1;
      card.addEventListener("focus", () => { state.handIndex = index; rove(card); });
      return card;
    });
    const row = el("div", { id: "hand", class: "hand", role: "group", "aria-labelledby": "hand-title" }, cards);
    row.addEventListener("keydown", (e) => {
      const all = [...row.querySelectorAll(".card")];
      const at = all.indexOf(document.activeElement);
      if (at < 0) return;
      const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = all[Math.max(0, Math.min(to, all.length - 1))];
      rove(next);
      next.focus();
    });
    // the tab stop (until focus comes back to a card): the first playable card, else the one last used
    const firstPlayable = cards.find((c) => c.classList.contains("playable"));
    const stop = firstPlayable || cards[Math.min(state.handIndex, cards.length - 1)];
    if (stop) stop.tabIndex = 0;
    const playableCount = cards.filter((c) => c.classList.contains("playable")).length;
    const panel = el("div", { id: "hand-box", class: "hand-box" },
      el("h3", { id: "hand-title", tabindex: "-1" }, `Your hand (${g.hand.length})`,
        playableCount ? el("span", { class: "visually-hidden" }, `, ${plural(playableCount, "card")} playable`) : ""),
      row);
    const items = state.choice !== null ? byCard.get(state.choice) : null;
    if (items) {
      const card = g.hand.find((c) => c.id === state.choice);
      panel.append(el("div", { id: "choice", class: "choice", role: "group", "aria-label": `How to play ${cardName(card)}` },
        el("span", {}, `${cardName(card)}: `),
        items.map((a) => el("button", {
          type: "button", class: `choice-option${a.color && COLORS.includes(a.color) ? ` c-${a.color}` : ""}`,
          dataset: { action: JSON.stringify(a) }, onclick: () => act(a),
        }, choiceLabel(a, n))),
        el("button", {
          type: "button", class: "cancel",
          onclick: () => { state.choice = null; state.focusAfter = { area: "hand", index: state.handIndex }; render(); },
        }, "Cancel")));
    } else {
      state.choice = null;
    }
    return panel;
  }

  function actionsPanel(g, n, left) {
    const others = (g.legal_actions || []).filter((a) => a.card === undefined);
    const waiting = g.status === "active" && !(g.legal_actions || []).length && !left;
    return el("div", { id: "actions", class: "actions" },
      others.map((a) => el("button", {
        type: "button", class: `action${a.color ? ` c-${a.color}` : ""}`,
        dataset: { actionType: a.type, action: JSON.stringify(a) }, onclick: () => act(a),
      }, actionLabel(a, n, g))),
      waiting && g.current_seat !== null ? el("span", { class: "hint", id: "waiting-for" }, `Waiting for ${n(g.current_seat)}…`) : "");
  }

  // --- the table's settings ---------------------------------------------------------------
  function settingsPanel() {
    const s = getSettings();
    const check = (key, idName, label, onChange) => el("label", { class: "setting", for: idName },
      el("input", {
        type: "checkbox", id: idName, checked: s[key],
        onchange: async (e) => {
          const on = e.target.checked;
          const ok = onChange ? await onChange(on) : true;
          if (!ok) { e.target.checked = false; return; }
          setSetting(key, on);
          render();
        },
      }), " ", label);
    const sort = el("select", {
      id: "setting-sort",
      onchange: (e) => { setSetting("sort", e.target.value); render(); },
    }, Object.entries(SORTS).map(([value, label]) => el("option", { value, selected: s.sort === value }, label)));
    return el("details", { id: "table-settings", class: "table-settings" },
      el("summary", {}, "Table settings"),
      el("div", { class: "settings-body" },
        el("label", { class: "setting", for: "setting-sort" }, "Sort my hand ", sort),
        check("cbSymbols", "setting-cb", "Colour-blind symbols on the cards"),
        check("sounds", "setting-sounds", "Sounds (your turn, a card played)", async (on) => {
          if (on) { unlockSound(); tone("play"); }
          return true;
        }),
        canNotify() ? check("notify", "setting-notify", "Notify me when it is my turn and this page is hidden", async (on) => {
          if (!on) return true;
          const granted = await askNotifications();
          if (!granted) notice("The browser did not allow notifications for this page.");
          return granted;
        }) : ""));
  }

  // --- resigning ----------------------------------------------------------------------------
  function resignDialog() {
    const d = el("dialog", { id: "resign-dialog", class: "resign-dialog", "aria-labelledby": "resign-title", "aria-describedby": "resign-text" },
      el("h2", { id: "resign-title" }, "Resign and leave this game?"),
      el("p", { id: "resign-text" },
        "You leave for good: the autopilot plays your seat to the end of the game, and your seat's result "
        + "(and rating, in a rated game) is whatever the autopilot makes of it. You cannot act in this game again."),
      el("div", { class: "buttons" },
        el("button", { type: "button", id: "resign-cancel", autofocus: true, onclick: () => d.close("stay") }, "Keep playing"),
        el("button", {
          type: "button", id: "resign-confirm", class: "danger",
          onclick: async () => {
            d.close("leave");
            state.focusAfter = { area: "id", id: "table-title" };
            if (await post("leave")) announce("You left the game: the autopilot plays your seat.");
          },
        }, "Resign and leave")));
    d.addEventListener("close", () => {
      if (d.returnValue === "leave") return;
      const back = document.getElementById("resign");
      if (back) back.focus();
    });
    return d;
  }

  function openResign() {
    dialog.returnValue = "";
    dialog.showModal();
    document.getElementById("resign-cancel").focus();
  }

  let live = null;
  render();
  loadRulesets().then(() => { if (sc.alive()) render(); }); // the preset's name in words
  state.wasMyTurn = myTurn(state.game);
  chat.load().catch(() => { /* the table talk is a nicety */ });
  try {
    const from = Math.max(0, first.version - 30);
    const { data } = await api("GET", `/api/v1/games/${id}/moves?after=${from}&limit=30`);
    addMoves(data.results);
  } catch { /* the log is a nicety */ }
  if (!sc.alive()) return;
  let heard = Date.now();
  const hear = (fn) => (...args) => { heard = Date.now(); return fn(...args); };
  live = new GameLive(id, state.game.version, {
    onMove: hear((m) => addMoves([m], { fresh: true })),
    onGame: hear((g) => apply(g)),
    onMode: hear((mode) => { state.live = mode; table.dataset.live = mode; }),
    notices: STREAM_EVENTS,
    onNotice: hear((name, data) => (name === "rematch" ? rematchChanged(data) : chat.onNotice(name, data))),
  });
  // a watchdog: a waiting or running game whose updates stopped coming for 20 s (a stream that
  // stays open but says nothing) is read again, its missed moves too
  const watchdog = setInterval(async () => {
    if (state.game.status === "finished" || state.busy || Date.now() - heard < 20000) return;
    heard = Date.now();
    try {
      const { data: g } = await api("GET", `/api/v1/games/${id}`);
      if (!sc.alive() || g.version <= state.game.version) return;
      table.dataset.resyncs = Number(table.dataset.resyncs || 0) + 1;
      const { data } = await api("GET", `/api/v1/games/${id}/moves?after=${Math.max(0, ...state.seqs)}&limit=100`);
      addMoves(data.results, { fresh: true });
      apply(g);
    } catch { /* the next round tries again */ }
  }, 5000);
  sc.later(() => clearInterval(watchdog));
  live.lastSeq = Math.max(first.version, ...state.seqs);
  live.start();
  sc.later(() => { live.stop(); dialog.close(); });
}
