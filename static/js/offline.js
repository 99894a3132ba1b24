/* rulesite: install the service worker, "Save for offline" on a game's page, and keep
 * saved games up to date (README "At the table without a signal").
 *
 * data-worker: the worker's address; data-store: static/js/offline-store.js, loaded
 * only on a game's page or once a game is saved.
 * - Every page registers /sw.js (data-worker on the script tag; static/js/service-worker.js).
 * - A game's page has a hidden box with a button [data-offline-save] naming the game, its
 *   content language and its bulk file (data-url), and its translated texts (data-label-*).
 *   The script shows it and keeps its data-offline-state: "" (not saved), "saving", then
 *   "saved" or "failed". Saving downloads the bulk file into IndexedDB
 *   (static/js/offline-store.js), with the bytes received as it comes; a 503 "being
 *   prepared" is asked again after its Retry-After. When saved, the game's page and the
 *   home page are kept too, so they open offline. "Remove" frees it all.
 * - On any page with a connection, each saved game last checked an hour ago or more
 *   catches up through the change feed; <html data-offline-checked> is set when that is
 *   done, and as soon as it is known that there is nothing to do (no game saved, or no
 *   storage): the page is then as its scripts leave it (tests wait for it).
 */
(function () {
  "use strict";

  const script = document.currentScript;
  if (!script || !("serviceWorker" in navigator) || !window.indexedDB) return;
  let store = null; // static/js/offline-store.js, loaded only where needed (below)

  const MAX_TRIES = 12; // a file being prepared is asked again up to this many times

  navigator.serviceWorker.register(script.dataset.worker).catch(() => {
    // No worker (a private window may refuse it): pages still work online.
  });

  // -- sizes and dates in the reader's language --------------------------------------------

  const language = document.documentElement.lang || "en";

  function size(bytes) {
    const units = [
      [1024 * 1024, "megabyte"],
      [1024, "kilobyte"],
    ];
    for (const [unit, name] of units) {
      if (bytes >= unit) {
        return new Intl.NumberFormat(language, { style: "unit", unit: name, maximumFractionDigits: 1 }).format(
          bytes / unit
        );
      }
    }
    return new Intl.NumberFormat(language, { style: "unit", unit: "byte" }).format(bytes);
  }

  function date(timestamp) {
    return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(timestamp));
  }

  function fill(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
  }

  // -- the save button -------------------------------------------------------------------------

  function saveButton() {
    const button = document.querySelector("[data-offline-save]");
    if (!button) return;
    const box = button.closest("[data-offline-box]");
    const remove = box.querySelector("[data-offline-remove]");
    const status = box.querySelector("[data-offline-status]");
    const labels = button.dataset;
    const key = `${labels.game}/${labels.language}`;
    box.hidden = false;

    function show(state, message) {
      button.dataset.offlineState = state;
      button.textContent = state === "saved" ? labels.labelSaved : state === "saving" ? labels.labelSaving : labels.labelSave;
      button.disabled = state === "saving";
      remove.hidden = state !== "saved";
      status.textContent = message || "";
    }

    function savedMessage(meta) {
      return fill(labels.labelDone, {
        date: date(meta.updatedAt || meta.savedAt),
        size: size(meta.size),
        download: size(meta.download || 0),
      });
    }

    async function keepPages() {
      // The game's page and the home page open offline too (the worker keeps every page
      // opened from now on; these two were opened before it ran, or not at all).
      const home = document.querySelector("a.brand");
      try {
        const cache = await caches.open(store.PAGES_CACHE);
        await cache.addAll([location.pathname, home ? home.getAttribute("href") : "/"]);
      } catch (error) {
        // Storage refused: entries still open from the saved game.
      }
    }

    async function save(tries) {
      show("saving", fill(labels.labelProgress, { received: size(0) }));
      try {
        const meta = await store.save(labels.url, (received) => {
          status.textContent = fill(labels.labelProgress, { received: size(received) });
        });
        await Promise.race([navigator.serviceWorker.ready, new Promise((resolve) => setTimeout(resolve, 5000))]);
        await keepPages();
        show("saved", savedMessage(meta));
      } catch (error) {
        if (error instanceof store.Preparing && tries < MAX_TRIES) {
          button.dataset.offlinePreparing = "";
          status.textContent = fill(labels.labelPreparing, { seconds: error.seconds });
          setTimeout(() => save(tries + 1), error.seconds * 1000);
          return;
        }
        show("failed", labels.labelFailed);
      }
      delete button.dataset.offlinePreparing;
    }

    button.addEventListener("click", () => {
      if (button.dataset.offlineState !== "saving") save(0);
    });
    remove.addEventListener("click", async () => {
      await store.remove(key);
      show("", "");
      button.focus();
    });

    store.game(key).then(
      (meta) => (meta ? show("saved", savedMessage(meta)) : show("", "")),
      () => show("failed", labels.labelUnsupported)
    );
    return { key, refresh: () => store.game(key).then((meta) => meta && show("saved", savedMessage(meta))) };
  }

  // -- catching up -------------------------------------------------------------------------------

  let running = null;
  async function catchUp(button) {
    if (!navigator.onLine) return;
    const games = await store.games();
    for (const meta of games) {
      if (!store.due(meta)) continue;
      try {
        await store.catchUp(meta);
      } catch (error) {
        // Offline again, or the server failed: the next page after the hour tries again.
      }
    }
    if (button) await button.refresh();
    checked();
  }

  function checked() {
    document.documentElement.dataset.offlineChecked = String(Date.now());
  }

  function start(button) {
    if (!running) running = catchUp(button).finally(() => (running = null));
    return running;
  }

  // The store (6.7 KB compressed) is loaded only on a game's page or when a game is saved:
  // most pages of most readers need nothing but the worker's registration.
  async function needed() {
    if (document.querySelector("[data-offline-save]")) return true;
    if (!indexedDB.databases) return true;
    const databases = await indexedDB.databases();
    return databases.some((database) => database.name === "rulesite-offline");
  }

  function loadStore() {
    if (window.rulesiteOffline) return Promise.resolve(window.rulesiteOffline);
    return new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = script.dataset.store;
      tag.onload = () => resolve(window.rulesiteOffline);
      tag.onerror = reject;
      document.head.appendChild(tag);
    });
  }

  needed()
    .then((yes) => (yes ? loadStore() : null))
    .then((loaded) => {
      if (!loaded) {
        checked(); // no game saved here: nothing to catch up
        return;
      }
      store = loaded;
      const button = saveButton();
      start(button);
      window.addEventListener("online", () => start(button));
    })
    .catch(() => {
      // No storage here (a private window may refuse it): the site works online.
      checked();
    });
})();
