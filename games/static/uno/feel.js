// The table's feel: short generated tones (WebAudio, no sound files), the tab title,
// the browser's notifications.  Sounds and notifications are off unless the player
// switched them on (settings.js).

let audio = null;

/** The audio context, made on a player's gesture (a browser lets a page sound only then). */
export function unlockSound() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  if (!audio) audio = new Ctx();
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

const TONES = {
  turn: [[660, 0, 0.12], [880, 0.13, 0.16]], // two rising notes: your turn
  play: [[330, 0, 0.07]], // one short low note: a card played
};

/** Plays a tone ("turn" or "play") if the page may sound. */
export function tone(kind) {
  const ctx = audio || unlockSound();
  if (!ctx || ctx.state !== "running") return false;
  const start = ctx.currentTime + 0.01;
  for (const [freq, at, length] of TONES[kind] || []) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(0.15, start + at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start + at);
    osc.stop(start + at + length + 0.02);
  }
  return true;
}

/** Whether this browser can show notifications at all. */
export const canNotify = () => typeof Notification !== "undefined";

/** Asks the browser's permission (on the player's click): true when granted. */
export async function askNotifications() {
  if (!canNotify()) return false;
  if (Notification.permission === "granted") return true;
  if (Notification.permission === "denied") return false;
  return (await Notification.requestPermission()) === "granted";
}

/** A notification, when allowed and the page is hidden; clicking it brings the page back. */
export function notify(title, body, tag) {
  if (!canNotify() || Notification.permission !== "granted" || !document.hidden) return null;
  try {
    const n = new Notification(title, { body, tag, renotify: true });
    n.onclick = () => { window.focus(); n.close(); };
    return n;
  } catch {
    return null; // (some browsers only notify from a service worker)
  }
}

/** Whether the player asked for less motion. */
export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
