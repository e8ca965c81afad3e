// The browser client's service worker (issue 29), served at /sw.js so that its scope is the
// whole site.  It only shows notifications: a Web Push message from the server
// ({title, body, url, kind, tag}: never a card) becomes a notification, and a click on it
// focuses a window of the client (or opens one) at the message's page.  It intercepts no
// request: the client works the same without it.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** The page of a message, on this site only (anything else: the client's start). */
function pageOf(url) {
  try {
    const u = new URL(url || "/", self.location.origin);
    return u.origin === self.location.origin ? u.href : new URL("/", self.location.origin).href;
  } catch {
    return new URL("/", self.location.origin).href;
  }
}

self.addEventListener("push", (event) => {
  let m = {};
  if (event.data) {
    try { m = event.data.json() || {}; } catch { m = { body: event.data.text() }; }
  }
  const options = {
    body: String(m.body || ""),
    data: { url: pageOf(m.url), kind: String(m.kind || "") },
    lang: "en",
  };
  if (m.tag) {
    options.tag = String(m.tag); // a newer message of the same game replaces the older one
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(String(m.title || "UNO"), options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = pageOf(event.notification.data && event.notification.data.url);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const w of windows) {
      if (new URL(w.url).origin !== self.location.origin) continue;
      const focused = await w.focus();
      if (w.url !== url) {
        try {
          await (focused || w).navigate(url);
        } catch {
          // a window this worker does not control cannot be navigated from here
          if (self.clients.openWindow) await self.clients.openWindow(url);
        }
      }
      return;
    }
    if (self.clients.openWindow) await self.clients.openWindow(url);
  })());
});
