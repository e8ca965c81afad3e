// The table: a game as its player (or a spectator) sees it, live.

import { api, newKey, session } from "./api.js";
import {
  COLORS, actionLabel, cardEl, cardName, choiceLabel, describeMove, describePending, seatNamer,
} from "./cards.js";
import { GameLive } from "./live.js";
import { STREAM_EVENTS, chatPanel, followRematch, rematchPanel } from "./meeting.js";
import { commaList, ratingChangesPanel, seatLinker } from "./standing.js";
import { deadlineEl, el, hideError, notice, showError } from "./ui.js";

export async function viewGame(root, sc, id) {
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
