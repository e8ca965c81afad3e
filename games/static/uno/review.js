// The replay of a finished game: every hand, the table and the scores after each move.

import { allPages, api } from "./api.js";
import { cardEl, cardName, describeEvent, seatNamer } from "./cards.js";
import { buildTimeline } from "./replay.js";
import { commaList, seatLinker } from "./standing.js";
import { el } from "./ui.js";

export async function viewReplay(root, sc, id) {
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
