// The replay of a finished game: every hand, the table and the scores after each move.

import { allPages, api } from "./api.js";
import { cardEl, cardName, describeMove, seatNamer } from "./cards.js";
import { buildTimeline } from "./replay.js";
import { loadRulesets, presetTitle } from "./rulesets.js";
import { commaList, seatLinker } from "./standing.js";
import { el, scrollBox } from "./ui.js";

const words = (s) => String(s).replace(/_/g, " ");
/** Who made a move, when it was not its player's own choice. */
const BY = { bot: "(a bot's move)", timer: "(time ran out: the server moved)" };

export async function viewReplay(root, sc, id) {
  const { data: game } = await api("GET", `/api/v1/games/${id}`);
  if (!sc.alive()) return;
  const n = seatNamer(game); // "you" for the viewer, in sentences
  const label = n.label || n; // "ann (you)", on its own
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
    loadRulesets(),
  ]);
  if (!sc.alive()) return;
  const { steps } = buildTimeline(game, moves);
  const last = steps.length;
  let at = 1; // 1-based: the table after move `at`

  const position = el("span", { id: "replay-position" }); // (the slider says it to a screen reader)
  const slider = el("input", { id: "replay-slider", type: "range", min: 1, max: last, value: 1 });
  // a glyph for the eye, the word for everyone (the glyph is hidden from screen readers)
  const button = (idBase, glyph, label, to, after = false) => el("button", {
    type: "button", id: `replay-${idBase}`, class: "step", onclick: () => show(to()),
  }, after ? "" : el("span", { "aria-hidden": "true" }, glyph), el("span", { class: "word" }, label),
  after ? el("span", { "aria-hidden": "true" }, glyph) : "");
  const first = button("first", "|◀ ", "First", () => 1);
  const prev = button("prev", "◀ ", "Previous", () => at - 1);
  const next = button("next", " ▶", "Next", () => at + 1, true);
  const end = button("last", " ▶|", "Last", () => last, true);
  slider.addEventListener("input", () => show(Number(slider.value)));
  const moveBox = el("div", { id: "replay-move", class: "panel", "aria-live": "polite" });
  const tableBox = el("div", { id: "replay-table", class: "pile" });
  const hands = el("div", { id: "replay-hands", class: "replay-hands" });
  root.append(el("section", { id: "replay", class: "replay", dataset: { moves: last }, "aria-labelledby": "replay-title" },
    el("header", { class: "table-head" }, el("h2", { id: "replay-title" }, `Replay of game #${id}`,
      el("span", { class: "preset" }, presetTitle(game.ruleset))),
    el("span", { class: "meta" }, `${last} moves`), el("a", { href: `#/game/${id}` }, "Back to the table")),
    el("div", { class: "controls", role: "group", "aria-label": "Step through the moves" },
      el("label", { for: "replay-slider", class: "slider" }, el("span", { class: "word" }, "Move"), slider),
      el("div", { class: "steps" }, first, prev, next, end), position),
    el("div", { class: "replay-body" }, el("div", {}, tableBox, moveBox), hands),
    scoreTable(game, scores, link)));

  function show(to) {
    at = Math.min(last, Math.max(1, to));
    const step = steps[at - 1];
    const move = step.move;
    slider.value = at;
    slider.setAttribute("aria-valuetext", `Move ${at} of ${last}`);
    position.textContent = `Move ${at} / ${last}`;
    first.disabled = prev.disabled = at === 1;
    next.disabled = end.disabled = at === last;
    root.querySelector("#replay").dataset.at = at;
    // the move in sentences; the card it was played on explains Decktet-Uno's scoring
    const before = at > 1 ? steps[at - 2].top : null;
    moveBox.replaceChildren(
      el("h3", {}, `Move #${move.seq}: ${move.seat === null || move.seat === undefined ? "the server" : label(move.seat)}`,
        el("span", { class: "by" }, ` ${BY[move.by] || ""}`)),
      el("p", { class: "action" }, describeMove(move, n, { top: before })));
    tableBox.replaceChildren(
      el("div", { class: "top" }, step.top ? cardEl(step.top) : el("div", { class: "card empty" }, "—")),
      el("div", { class: "pile-info" },
        el("div", {}, `Round ${step.round}`),
        step.color ? el("div", {}, "Colour ", el("span", { class: `swatch c-${step.color}` }, step.color)) : "",
        step.aside ? el("div", {}, `Set aside face down by ${label(step.aside.seat)}: `, step.aside.card ? cardName(step.aside.card) : "a card") : "",
        step.next !== null && step.next !== undefined ? el("div", {}, `Next to play: ${label(step.next)}`) : el("div", {}, "The end")));
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

/** How a game is scored, in words (the `/scores` `scoring`). */
const SCORING = {
  winner_takes: "The winner of a round scores the cards left in the others' hands.",
  lowest_total: "Each player is charged the cards left in their own hand: the lowest total wins.",
  elimination: "Each player is charged the cards left in their own hand; reaching the target puts a player out, and the last one left wins.",
  hands_won: "One point for each round won.",
  per_play: "Decktet-Uno scores every play as it happens: the suits on the top card times the suits the played card shares with it (a card set aside face down scores when placed, or −2 when it shares no suit).",
};


function scoreTable(game, scores, n) {
  const seats = game.players.map((p) => p.seat);
  const winners = new Set(scores.winner_seats || []);
  const parts = [el("h3", {}, "Scores"), el("p", { class: "hint scoring" }, SCORING[scores.scoring] || words(scores.scoring))];
  if (scores.scoring === "per_play") {
    // one row per player: how many of their plays scored, and their points
    const plays = scores.plays || [];
    parts.push(scrollBox("Scores of each player", el("table", { class: "scores per-play" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Player"), el("th", { scope: "col" }, "Plays that scored"),
        el("th", { scope: "col" }, "Points"))),
      el("tbody", { id: "score-totals" }, seats.map((s) => el("tr", { dataset: { seat: s }, class: winners.has(s) ? "winner" : "" },
        el("th", { scope: "row" }, n(s), winners.has(s) ? " (won)" : ""),
        el("td", { class: "plays" }, plays.filter((p) => p.seat === s && p.points).length),
        el("td", { dataset: { seat: s }, class: winners.has(s) ? "winner" : "" }, (scores.totals || [])[s] ?? "")))))));
  } else {
    const head = el("tr", {}, el("th", { scope: "col" }, "Round"), el("th", { scope: "col" }, "Won by"),
      seats.map((s) => el("th", { scope: "col" }, n(s))));
    const rows = (scores.rounds || []).map((r) => el("tr", { dataset: { round: r.round } },
      el("th", { scope: "row" }, r.round), el("td", {}, r.winner_seat === null ? "—" : n(r.winner_seat)),
      seats.map((s) => el("td", {}, (r.points || [])[s] ?? ""))));
    parts.push(scrollBox("Scores, round by round", el("table", { class: "scores" }, el("thead", {}, head), el("tbody", {}, rows),
      el("tfoot", {}, el("tr", { id: "score-totals" }, el("th", { scope: "row" }, "Total"),
        el("td", { class: "winners" }, winners.size ? commaList([...winners].map(n)) : ""),
        seats.map((s) => el("td", { dataset: { seat: s }, class: winners.has(s) ? "winner" : "" }, (scores.totals || [])[s] ?? "")))))));
  }
  return el("section", { id: "replay-scores", class: "panel" }, ...parts);
}
