/* rulesite's service worker, served at /sw.js (rules.pages.offline puts its settings,
 * self.RULESITE_WORKER, on the line before this: version, shell, offline pages, store).
 *
 * - Install: keep the shell (styles, scripts, icons) and every UI language's offline page
 *   in a cache named by the version (the static files' manifest hash), so a deploy
 *   brings a new worker and a new shell; the old shell is dropped when it takes over.
 * - Pages (navigations): the network first, so a reader online always sees the site as
 *   it is; each page answered is kept (up to MAX_PAGES, the least recently opened go
 *   first). Without a connection: an entry, search or contents of a saved game is the
 *   offline page, which renders it from the saved copy (static/js/offline-reader.js);
 *   else the page as last opened; else the offline page ("You are offline").
 * - Static files: from the shell, else the network; a file of an older deploy (another
 *   hash in its name) is answered with the shell's file of the same name.
 * - Previews (/api/v1/entries/preview/): the network first, then the saved copy.
 * - Nothing else is touched: the API, the admin and other origins go to the network.
 * - It never polls: saved games catch up from the pages (static/js/offline.js), at most
 *   once an hour per game.
 */
"use strict";

const CONFIG = self.RULESITE_WORKER;
importScripts(CONFIG.store);
const store = self.rulesiteOffline;

const SHELL_CACHE = "rulesite-shell-" + CONFIG.version;
const MAX_PAGES = 150;
const LANGUAGES = Object.keys(CONFIG.offline);
const STATIC_URL = CONFIG.static_url;
const ENTRY = /^\/([a-z]{2})\/games\/([^/]+)\/rules\/([^/]+)\/$/;
const SEARCH = /^\/([a-z]{2})\/search\/$/;

self.addEventListener("install", (event) => {
  const urls = [...Object.values(CONFIG.shell), ...Object.values(CONFIG.offline)];
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(urls))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((name) => name.startsWith("rulesite-shell-") && name !== SHELL_CACHE).map((name) => caches.delete(name))
        )
      )
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (/^\/(admin|api)\//.test(url.pathname)) return;
    event.respondWith(page(event, request, url));
  } else if (url.pathname.startsWith(STATIC_URL)) {
    event.respondWith(staticFile(request, url));
  } else if (url.pathname === "/api/v1/entries/preview/") {
    event.respondWith(preview(request, url));
  }
});

function uiLanguage(url) {
  const prefix = url.pathname.split("/")[1];
  return LANGUAGES.includes(prefix) ? prefix : LANGUAGES[0];
}

function offlinePage(url) {
  return caches.match(CONFIG.offline[uiLanguage(url)], { cacheName: SHELL_CACHE });
}

function keepable(response) {
  const control = response.headers.get("Cache-Control") || "";
  return (
    response.status === 200 &&
    response.type === "basic" &&
    (response.headers.get("Content-Type") || "").startsWith("text/html") &&
    !/private|no-store/.test(control)
  );
}

async function keep(url, response) {
  const cache = await caches.open(store.PAGES_CACHE);
  await cache.delete(url, { ignoreVary: true }); // put it last: the most recently opened
  await cache.put(url, response);
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map((key) => cache.delete(key)));
}

// Whether the saved copy answers this address better than a page kept when opened: an
// entry of a saved game (a page kept earlier may be older than the copy), a search.
async function fromSavedCopy(url) {
  try {
    const entry = ENTRY.exec(url.pathname);
    if (entry) return Boolean(await store.gameFor(decodeURIComponent(entry[2]), entry[1]));
    if (SEARCH.test(url.pathname)) return (await store.games()).length > 0;
  } catch (error) {
    // No IndexedDB here: pages kept, then the offline page.
  }
  return false;
}

async function page(event, request, url) {
  try {
    const response = await fetch(request);
    if (keepable(response)) {
      const path = url.pathname + url.search;
      event.waitUntil(keep(path, response.clone()).catch(() => {}));
    }
    return response;
  } catch (error) {
    if (await fromSavedCopy(url)) {
      const reader = await offlinePage(url);
      if (reader) return reader;
    }
    const cache = await caches.open(store.PAGES_CACHE);
    const kept = await cache.match(url.pathname + url.search, { ignoreVary: true });
    return kept || (await offlinePage(url)) || Response.error();
  }
}

async function staticFile(request, url) {
  const shell = await caches.open(SHELL_CACHE);
  const kept = await shell.match(request, { ignoreVary: true });
  if (kept) return kept;
  try {
    return await fetch(request);
  } catch (error) {
    // A page kept from an older deploy names files by their old hashes: the same file now.
    const name = url.pathname.slice(STATIC_URL.length).replace(/\.[0-9a-f]{12}(\.[a-z0-9]+)$/, "$1");
    const current = CONFIG.shell[name];
    const same = current && (await shell.match(current, { ignoreVary: true }));
    if (same) return same;
    throw error;
  }
}

async function preview(request, url) {
  try {
    return await fetch(request);
  } catch (error) {
    const found = await store.preview(url.searchParams, self.location.origin).catch(() => null);
    if (!found) throw error;
    return new Response(JSON.stringify(found), { headers: { "Content-Type": "application/json" } });
  }
}
