// The server's API: fetch with the player's token, problem+json errors as ApiError
// (its `detail` is what people are shown), a few retries where they are safe.

const TOKEN_KEY = "uno.token";
const USER_KEY = "uno.username";

export const session = {
  get token() { return localStorage.getItem(TOKEN_KEY); },
  get username() { return localStorage.getItem(USER_KEY); },
  save(token, username) {
    localStorage.setItem(TOKEN_KEY, token);
    if (username) localStorage.setItem(USER_KEY, username);
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
  },
};

/** An error answer of the API (RFC 9457 problem details) or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem) {
    const p = problem && typeof problem === "object" ? problem : {};
    super(p.detail || p.title || (status ? `HTTP ${status}` : "The server cannot be reached."));
    this.status = status;
    this.problem = p;
    this.code = p.code || null;
  }
}

let unauthorized = null;
/** Called with the ApiError when a request made with the saved token answers 401. */
export function onUnauthorized(fn) { unauthorized = fn; }

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One API call: `{status, data, headers}` (data null for a 304 or an empty body);
 * throws ApiError for any other status than 2xx / 304.  `retries`: how often a
 * network error, a 429 or a 503 (after its Retry-After) is tried again: by default
 * only for GETs (a POST is retried only when it carries an Idempotency-Key).
 */
export async function api(method, path, { body, headers = {}, retries, signal, auth = true } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (body !== undefined) h["Content-Type"] = "application/json";
  const token = session.token;
  if (auth && token) h.Authorization = `Token ${token}`;
  const safe = method === "GET" || "Idempotency-Key" in headers;
  const tries = retries ?? (safe ? 2 : 0);
  for (let attempt = 0; ; attempt++) {
    let resp;
    try {
      resp = await fetch(path, {
        method, headers: h, signal, cache: "no-store",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      if (signal && signal.aborted) throw err;
      if (attempt < tries) { await sleep(1000 * (attempt + 1)); continue; }
      throw new ApiError(0, { detail: `The server cannot be reached (${err.message}).`, code: "network" });
    }
    if (resp.status === 304) return { status: 304, data: null, headers: resp.headers };
    const text = await resp.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch { data = { detail: text.slice(0, 300) }; }
    }
    if (resp.ok) return { status: resp.status, data, headers: resp.headers };
    const error = new ApiError(resp.status, data);
    const busy = resp.status === 429 || resp.status === 503 || error.code === "idempotency_in_progress";
    if (busy && attempt < tries) {
      const wait = Math.min(10, Number(resp.headers.get("Retry-After")) || 1);
      await sleep(wait * 1000);
      continue;
    }
    if (resp.status === 401 && auth && token && unauthorized) unauthorized(error);
    throw error;
  }
}

/** Every page of a cursor-paged list (`after` / `next_cursor`), concatenated. */
export async function allPages(path, limit = 500) {
  const out = [];
  let after = 0;
  for (;;) {
    const sep = path.includes("?") ? "&" : "?";
    const { data } = await api("GET", `${path}${sep}after=${encodeURIComponent(after)}&limit=${limit}`);
    out.push(...data.results);
    if (data.next_cursor === null || data.next_cursor === undefined || !data.results.length) return out;
    after = data.next_cursor;
  }
}
