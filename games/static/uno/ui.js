// Small DOM helpers shared by the page's modules: elements, the error box, the notice.

import { ApiError } from "./api.js";
import { countdown } from "./cards.js";

/** `el("div", {class, text, dataset, onclick, ...attributes}, ...children)`. */
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

export function showError(err) {
  const box = document.getElementById("error");
  const message = err instanceof ApiError || err instanceof Error ? err.message : String(err);
  box.replaceChildren(el("span", { class: "message", text: message }),
    el("button", { type: "button", class: "close", "aria-label": "Dismiss", onclick: hideError }, "×"));
  box.dataset.code = (err && err.code) || "";
  box.hidden = false;
}

export function hideError() {
  const box = document.getElementById("error");
  box.hidden = true;
  box.replaceChildren();
}

export function notice(text) {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

/** The time left until `deadline`, kept current by the page's ticker (app.js). */
export const deadlineEl = (deadline, props = {}) =>
  deadline ? el("span", { class: "countdown", dataset: { deadline }, ...props }, countdown(deadline)) : "";

/**
 * A box for something wider than a phone (a table): it scrolls sideways inside itself, never
 * the page, and the keyboard can reach and scroll it (a named region, in the tab order).
 */
export const scrollBox = (label, ...children) =>
  el("div", { class: "scroll", tabindex: 0, role: "region", "aria-label": label }, ...children);
