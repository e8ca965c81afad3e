// Live updates of a game and of the player's own feed: Server-Sent Events, with a
// fallback to the long-poll (or plain polling with If-None-Match) when the stream keeps
// failing.

import { api, session, sleep } from "./api.js";

const STREAM_FAILURES_BEFORE_FALLBACK = 3;

/**
 * Follows game `id` from `version` on.  `onMove(move)` for each recorded move (as
 * /moves shows it), `onGame(game)` for each newer view of the game, `onMode(mode)`:
 * "stream", "long-poll" or "poll"; `onNotice(name, data)` for the stream's other
 * events named in `notices` (e.g. "chat", "rematch": sent on the stream only).
 */
export class GameLive {
  constructor(id, version, { onMove, onGame, onMode, onNotice, notices = [] }) {
    this.id = id;
    this.version = version;
    this.lastSeq = version;
    this.onMove = onMove;
    this.onGame = onGame;
    this.onMode = onMode || (() => {});
    this.onNotice = onNotice || (() => {});
    this.notices = notices;
    this.failures = 0;
    this.stopped = false;
    this.source = null;
    this.timer = null;
    this.abort = new AbortController();
  }

  start() {
    if (typeof EventSource === "undefined") this.poll();
    else this.openStream();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.source) this.source.close();
    clearTimeout(this.timer);
    this.abort.abort();
  }

  /** A newer view from elsewhere (an action's answer): later events resume from it. */
  seen(game) {
    if (game.version > this.version) this.version = game.version;
  }

  move(data) {
    if (data.seq !== undefined && data.seq <= this.lastSeq) return;
    if (data.seq !== undefined) this.lastSeq = data.seq;
    this.onMove(data);
  }

  openStream() {
    if (this.stopped) return;
    const token = encodeURIComponent(session.token || "");
    const source = new EventSource(`/api/v1/games/${this.id}/events?after=${this.lastSeq}&token=${token}`);
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.onMode("stream");
    };
    source.onmessage = (e) => {
      const data = JSON.parse(e.data);
      this.move(data);
      if (data.version > this.version) this.version = data.version;
      if (data.game) this.onGame(data.game);
    };
    source.addEventListener("game", (e) => {
      const data = JSON.parse(e.data);
      if (data.game) this.onGame(data.game);
    });
    for (const name of this.notices) {
      source.addEventListener(name, (e) => this.onNotice(name, JSON.parse(e.data)));
    }
    source.onerror = () => {
      // reopen it ourselves, from the last move seen (the URL's `after` would go back)
      source.close();
      if (this.stopped) return;
      this.failures += 1;
      if (this.failures >= STREAM_FAILURES_BEFORE_FALLBACK) {
        this.poll();
      } else {
        this.timer = setTimeout(() => this.openStream(), 1000 * this.failures);
      }
    };
  }

  /** The fallback: the long-poll while the server holds it, else a GET every 2 s. */
  async poll() {
    let mode = "long-poll";
    let etag = null;
    this.onMode(mode);
    while (!this.stopped) {
      const started = Date.now();
      try {
        let r;
        if (mode === "long-poll") {
          r = await api("GET", `/api/v1/games/${this.id}?wait_for_version=${this.version}&timeout=25`,
            { signal: this.abort.signal });
        } else {
          r = await api("GET", `/api/v1/games/${this.id}`,
            { headers: etag ? { "If-None-Match": etag } : {}, signal: this.abort.signal });
          etag = r.headers.get("ETag") || etag;
        }
        const game = r.data;
        if (game && game.version > this.version) {
          await this.catchUp();
          this.version = game.version;
          this.onGame(game);
        } else if (game && mode === "long-poll" && Date.now() - started < 1000) {
          mode = "poll"; // the server answered at once: it does not hold the request
          this.onMode(mode);
        }
        if (game && game.status === "finished") return; // nothing more will happen
      } catch (err) {
        if (this.stopped) return;
        await sleep(3000);
      }
      if (mode === "poll") await sleep(2000);
    }
  }

  async catchUp() {
    const { data } = await api("GET", `/api/v1/games/${this.id}/moves?after=${this.lastSeq}&limit=100`,
      { signal: this.abort.signal });
    for (const m of data.results) this.move(m);
  }
}

/**
 * The player's feed (`your_turn`, `game_started`, `game_finished`, `joined`, and the
 * notices named in `more`, e.g. `challenge`): `onEvent(name, data)`; when the stream
 * keeps failing, `onEvent("poll", null)` every 15 s instead.  Returns a function that
 * stops it.
 */
export function playerFeed(onEvent, more = []) {
  let stopped = false;
  let failures = 0;
  let source = null;
  let timer = null;
  const open = () => {
    if (stopped) return;
    source = new EventSource(`/api/v1/players/me/events?token=${encodeURIComponent(session.token || "")}`);
    source.onopen = () => { failures = 0; };
    for (const name of ["your_turn", "game_started", "game_finished", "joined", ...more]) {
      source.addEventListener(name, (e) => onEvent(name, JSON.parse(e.data)));
    }
    source.onerror = () => {
      source.close();
      if (stopped) return;
      failures += 1;
      if (failures >= STREAM_FAILURES_BEFORE_FALLBACK) {
        timer = setInterval(() => onEvent("poll", null), 15000);
      } else {
        timer = setTimeout(open, 1000 * failures);
      }
    };
  };
  if (typeof EventSource !== "undefined") open();
  return () => {
    stopped = true;
    if (source) source.close();
    clearTimeout(timer);
    clearInterval(timer);
  };
}
