/* rulesite: the games saved for offline, in the browser's IndexedDB.
 *
 * Shared by the pages (static/js/offline.js saves and catches up, offline-reader.js
 * renders and searches) and the service worker (service-worker.js reads which games are
 * saved and answers previews from them), as self.rulesiteOffline.
 *
 * - A game is saved from its bulk file (/api/v1/bulk/<game>/<language>.json, made by the
 *   server's background worker; 503 with Retry-After while it is being made): each
 *   entry, erratum and FAQ question becomes one record holding what its page shows
 *   (stored HTML, cross-references, errata applied, navigation), and one search record
 *   per game holds every entry's title, aliases and text folded for searching.
 * - Catching up: at most once an hour per game, /api/v1/changes/?since=<cursor>&game=&language=
 *   gives what changed; each item changed is fetched again from its API address, a
 *   deleted or unpublished one removed. A cursor too old (410) or a new slug for the
 *   game means the bulk file again.
 * - Folding for search is the server's (rules/search/normalize.py: anyascii, lower
 *   case): NFKC, lower case, diacritics removed, and the Latin letters that do not
 *   decompose (ł, ß, ø …) as anyascii writes them (FOLDED; tests/pages/test_offline.py
 *   holds the two to the same result for every Latin letter). Search matches prefixes
 *   of words, so a query with a wrong or missing diacritic still finds its entry.
 *
 * Modern JavaScript: it runs only where service workers and IndexedDB exist.
 */
(function (scope) {
  "use strict";
  if (scope.rulesiteOffline) return; // named twice on the offline page: once is enough

  const DB_NAME = "rulesite-offline";
  const DB_VERSION = 1;
  const CHECK_EVERY = 60 * 60 * 1000; // the change feed is asked at most once an hour per game
  const MANY_CHANGES = 200; // more changed items than this: the bulk file is cheaper
  const EXCERPT = 300; // characters of a preview, as the API's
  const PAGES_CACHE = "rulesite-pages"; // pages opened, kept by the worker (and the save button)

  // Latin letters NFD does not take apart, as anyascii writes them (see above).
  const FOLDED = {};
  ("ß=ss æ=ae ð=d ø=o þ=th đ=d ħ=h ı=i ĸ=q ł=l ŋ=ng œ=oe ŧ=t ƀ=b ƃ=b ƅ=6 ƈ=c ƌ=d ƍ=z ƒ=f ƕ=hw ƙ=k ƚ=l " +
    "ƛ=l ƞ=n ƣ=gh ƥ=p ƨ=2 ƪ=sh ƫ=t ƭ=t ƴ=y ƶ=z ƺ=zh ƻ=dz ƽ=5 ƾ=ts ƿ=w ǀ=c ǁ=x ǂ=qc ǃ=q ǝ=e ǥ=g ȝ=y ȡ=d " +
    "ȣ=ou ȥ=z ȴ=l ȵ=n ȶ=t ȷ=j ȸ=db ȹ=qp ȼ=c ȿ=s ɀ=z ɇ=e ɉ=j ɋ=q ɍ=r ɏ=y ɓ=b ɔ=o ɖ=d ɗ=d ə=e ɛ=e ɠ=g ɣ=g " +
    "ɨ=i ɩ=i ɯ=w ɲ=n ɵ=o ʀ=r ʃ=sh ʈ=t ʉ=u ʊ=u ʋ=v ʌ=a ʒ=zh ⱥ=a ⱦ=t")
    .split(" ")
    .forEach((pair) => {
      FOLDED[pair[0]] = pair.slice(2);
    });

  function fold(text) {
    return String(text || "")
      .normalize("NFKC")
      .toLowerCase()
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^\u0000-\u007f]/g, (letter) => FOLDED[letter] || letter);
  }

  function words(text) {
    return fold(text).split(/[^a-z0-9]+/).filter(Boolean);
  }

  // " word word " (each once): a query word is found as a prefix by indexOf(" " + word).
  function haystack(text) {
    return " " + Array.from(new Set(words(text))).join(" ") + " ";
  }

  // -- IndexedDB ---------------------------------------------------------------------------

  function done(request) {
    return new Promise((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  function finished(transaction) {
    return new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve();
      transaction.onerror = transaction.onabort = () => reject(transaction.error);
    });
  }

  let opening = null;
  function open() {
    if (!opening) {
      opening = new Promise((resolve, reject) => {
        const request = indexedDB.open(DB_NAME, DB_VERSION);
        request.onupgradeneeded = () => {
          const db = request.result;
          db.createObjectStore("games", { keyPath: "key" }); // one per game and language
          const items = db.createObjectStore("items", { keyPath: "key" }); // entries, errata, questions
          items.createIndex("game", "game");
          items.createIndex("slug", ["game", "kind", "slug"]);
          db.createObjectStore("search", { keyPath: "game" });
        };
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      opening.catch(() => {
        opening = null;
      });
    }
    return opening;
  }

  async function games() {
    const db = await open();
    return done(db.transaction("games").objectStore("games").getAll());
  }

  async function game(key) {
    const db = await open();
    return done(db.transaction("games").objectStore("games").get(key));
  }

  // The saved copy of a game to read in this UI language: that language's, else any.
  async function gameFor(slug, language) {
    const all = (await games()).filter((saved) => saved.game === slug);
    return all.find((saved) => saved.language === language) || all[0] || null;
  }

  async function item(gameKey, kind, slug) {
    const db = await open();
    return done(db.transaction("items").objectStore("items").index("slug").get([gameKey, kind, slug]));
  }

  async function itemsById(gameKey, kind, ids) {
    const db = await open();
    const store = db.transaction("items").objectStore("items");
    const found = await Promise.all(ids.map((id) => done(store.get(`${gameKey}/${kind}/${id}`))));
    return found.filter(Boolean);
  }

  async function searchRecord(gameKey) {
    const db = await open();
    return done(db.transaction("search").objectStore("search").get(gameKey));
  }

  async function remove(gameKey) {
    const db = await open();
    const transaction = db.transaction(["games", "items", "search"], "readwrite");
    const items = transaction.objectStore("items");
    const keys = await done(items.index("game").getAllKeys(gameKey));
    keys.forEach((key) => items.delete(key));
    transaction.objectStore("search").delete(gameKey);
    transaction.objectStore("games").delete(gameKey);
    return finished(transaction);
  }

  // -- from the API's JSON to records ----------------------------------------------------

  // The API's HTML and addresses name the site's configured address; the records keep
  // site-relative ones, so they work whatever host the reader came by.
  function relative(html, origin) {
    return origin && html ? html.split(origin + "/").join("/") : html || "";
  }

  const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: "\u00a0" };

  function plainText(html) {
    if (typeof document === "undefined") {
      // The worker has no DOM: tags out, line breaks kept, the entities sanitised HTML has.
      return String(html || "")
        .replace(/<\/(p|li|h\d|div)>/g, "\n")
        .replace(/<[^>]*>/g, "")
        .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (all, name) => ENTITIES[name]);
    }
    const template = document.createElement("template");
    template.innerHTML = (html || "").replace(/<\/(p|li|h\d|div)>/g, "</$1>\n");
    return template.content.textContent || "";
  }

  function excerptOf(text) {
    const lines = text.split("\n").map((line) => line.replace(/\s+/g, " ").trim()).filter(Boolean).join("\n");
    if (lines.length <= EXCERPT) return { excerpt: lines, truncated: false };
    const cut = lines.slice(0, EXCERPT);
    return { excerpt: cut.slice(0, Math.max(cut.lastIndexOf(" "), EXCERPT - 40)) + "…", truncated: true };
  }

  const summary = (other) => (other ? { slug: other.slug, title: other.title, number: other.number || "" } : null);

  function entryRecord(gameKey, entry, origin) {
    const corrections = entry.corrections;
    return {
      key: `${gameKey}/entry/${entry.id}`,
      game: gameKey,
      kind: "entry",
      id: entry.id,
      slug: entry.slug,
      title: entry.title,
      number: entry.number || "",
      aliases: entry.aliases || [],
      language: entry.language,
      body: relative(entry.body_html, origin),
      corrected: corrections && corrections.corrected_html ? relative(corrections.corrected_html, origin) : "",
      printed: corrections && corrections.printed_html ? relative(corrections.printed_html, origin) : "",
      applied: corrections
        ? corrections.errata.map((e) => ({ id: e.id, title: e.title, footnote: e.footnote, places: e.places }))
        : [],
      parent: summary(entry.parent),
      children: (entry.children || []).map(summary),
      seeAlso: (entry.cross_references || [])
        .filter((ref) => !ref.in_body)
        .map((ref) => ({ label: ref.label, slug: ref.target ? ref.target.slug : null })),
      referencedBy: (entry.referenced_by || []).map(summary),
      errata: (entry.errata || []).map((e) => e.id),
      questions: (entry.faq_questions || []).map((q) => q.id),
      source: entry.source ? { title: entry.source.title, page: entry.page || "" } : null,
      navigation: entry.navigation
        ? {
            sequence: entry.navigation.sequence,
            previous: summary(entry.navigation.previous),
            next: summary(entry.navigation.next),
            ancestors: (entry.navigation.ancestors || []).map(summary),
          }
        : null,
      fragment: Boolean(entry.is_fragment),
      updated: entry.updated_at,
    };
  }

  function erratumRecord(gameKey, erratum, origin) {
    return {
      key: `${gameKey}/erratum/${erratum.id}`,
      game: gameKey,
      kind: "erratum",
      id: erratum.id,
      slug: erratum.slug,
      title: erratum.title,
      language: erratum.language,
      html: relative(erratum.corrected_html, origin),
      publishedOn: erratum.published_on || null,
    };
  }

  function questionRecord(gameKey, question, origin) {
    return {
      key: `${gameKey}/question/${question.id}`,
      game: gameKey,
      kind: "question",
      id: question.id,
      slug: question.slug,
      question: question.question,
      language: question.language,
      html: relative(question.answer_html, origin),
    };
  }

  const RECORDS = { entry: entryRecord, erratum: erratumRecord, question: questionRecord };

  // What search reads: one record per game, every entry's words ready to match.
  // (The text itself is not kept twice: its words are, here.)
  function searchRows(entries) {
    return entries.map((entry) => [
      entry.slug,
      entry.title,
      entry.number,
      entry.language,
      haystack(entry.title),
      haystack(entry.aliases.join(" ")),
      haystack(plainText(entry.body)),
    ]);
  }

  function siteOrigin(document) {
    const first = (document.games || [])[0];
    try {
      return first ? new URL(first.html_url).origin : "";
    } catch (error) {
      return "";
    }
  }

  function bytes(value) {
    return new Blob([JSON.stringify(value)]).size;
  }

  // Replace a game's saved copy with a bulk file's content, in one transaction.
  async function store(file, extra) {
    const gameKey = `${file.game}/${file.language}`;
    const origin = siteOrigin(file);
    const entries = (file.entries || []).map((entry) => entryRecord(gameKey, entry, origin));
    const records = [
      ...entries,
      ...(file.errata || []).map((erratum) => erratumRecord(gameKey, erratum, origin)),
      ...(file.questions || []).map((question) => questionRecord(gameKey, question, origin)),
    ];
    const search = { game: gameKey, rows: searchRows(entries) };
    const info = (file.games || [])[0] || {};
    const now = Date.now();
    const meta = Object.assign(
      {
        key: gameKey,
        game: file.game,
        language: file.language,
        name: (info.localized_names && info.localized_names[file.language]) || info.name || file.game,
        origin,
        cursor: file.cursor,
        madeAt: file.made_at,
        savedAt: now,
        checkedAt: now,
        updatedAt: now,
        entries: entries.length,
        size: bytes(records) + bytes(search),
      },
      extra || {}
    );
    const db = await open();
    const transaction = db.transaction(["games", "items", "search"], "readwrite");
    const items = transaction.objectStore("items");
    const old = await done(items.index("game").getAllKeys(gameKey));
    old.forEach((key) => items.delete(key));
    records.forEach((record) => items.put(record));
    transaction.objectStore("search").put(search);
    transaction.objectStore("games").put(meta);
    await finished(transaction);
    return meta;
  }

  class Preparing extends Error {
    constructor(seconds) {
      super("being prepared");
      this.seconds = seconds;
    }
  }

  // Download a bulk file and save it; onProgress(bytes received so far).
  async function save(url, onProgress) {
    const response = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-cache" });
    if (response.status === 503) {
      const seconds = parseInt(response.headers.get("Retry-After"), 10);
      throw new Preparing(seconds > 0 ? Math.min(seconds, 60) : 5);
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    let text;
    if (response.body && response.body.getReader && onProgress) {
      const reader = response.body.getReader();
      const chunks = [];
      let received = 0;
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        chunks.push(value);
        received += value.length;
        onProgress(received);
      }
      text = new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
    } else {
      text = await response.text();
    }
    const timing = performance.getEntriesByName(response.url).pop();
    const download = timing && timing.encodedBodySize ? timing.encodedBodySize : new Blob([text]).size;
    return store(JSON.parse(text), { download, url });
  }

  // -- catching up ------------------------------------------------------------------------

  function due(meta, now) {
    return (now || Date.now()) - (meta.checkedAt || 0) >= CHECK_EVERY;
  }

  async function putMeta(meta) {
    const db = await open();
    const transaction = db.transaction("games", "readwrite");
    transaction.objectStore("games").put(meta);
    return finished(transaction);
  }

  async function rebuildSearch(gameKey) {
    const db = await open();
    const all = await done(db.transaction("items").objectStore("items").index("game").getAll(gameKey));
    const entries = all.filter((record) => record.kind === "entry");
    const transaction = db.transaction(["search", "games"], "readwrite");
    transaction.objectStore("search").put({ game: gameKey, rows: searchRows(entries) });
    await finished(transaction);
    return entries.length;
  }

  // Bring one saved game up to date; "fresh" when it was checked within the hour.
  async function catchUp(meta) {
    if (!due(meta)) return "fresh";
    const feed = `/api/v1/changes/?since=${meta.cursor}&game=${encodeURIComponent(meta.game)}` +
      `&language=${encodeURIComponent(meta.language)}&limit=1000`;
    let url = feed;
    const changes = new Map();
    let cursor = meta.cursor;
    let again = false;
    let renamed = null; // the game's new slug: its file has a new address
    while (url) {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.status === 410 || response.status === 400) {
        again = true; // the cursor expired (or the site was made anew): start from the file
        break;
      }
      if (!response.ok) {
        await putMeta(Object.assign({}, meta, { checkedAt: Date.now() })); // try again in an hour
        return "failed";
      }
      const page = await response.json();
      page.results.forEach((change) => {
        if (change.kind === "game" && change.action !== "updated") again = true;
        if (change.kind === "game" && change.new_slug && change.new_slug !== meta.game) renamed = change.new_slug;
        if (RECORDS[change.kind]) changes.set(`${change.kind}/${change.id}`, change);
      });
      cursor = page.cursor;
      url = page.next ? new URL(page.next).pathname + new URL(page.next).search : null;
      if (changes.size > MANY_CHANGES || renamed) again = true;
      if (again) break;
    }
    if (again) {
      const slug = renamed || meta.game;
      const saved = await save(`/api/v1/bulk/${encodeURIComponent(slug)}/${meta.language}.json`);
      if (saved.key !== meta.key) await remove(meta.key);
      return "saved again";
    }
    const db = await open();
    const fetched = [];
    for (const change of changes.values()) {
      const key = `${meta.key}/${change.kind}/${change.id}`;
      if (change.action === "deleted" || !change.url) {
        fetched.push([key, null]);
        continue;
      }
      const response = await fetch(new URL(change.url).pathname, { headers: { Accept: "application/json" } });
      if (response.status === 404) fetched.push([key, null]);
      else if (response.ok) fetched.push([key, RECORDS[change.kind](meta.key, await response.json(), meta.origin)]);
      else throw new Error(`HTTP ${response.status}`);
    }
    const transaction = db.transaction("items", "readwrite");
    const items = transaction.objectStore("items");
    fetched.forEach(([key, record]) => (record ? items.put(record) : items.delete(key)));
    await finished(transaction);
    const now = Date.now();
    const entries = changes.size ? await rebuildSearch(meta.key) : meta.entries;
    await putMeta(
      Object.assign({}, meta, { cursor, checkedAt: now, updatedAt: changes.size ? now : meta.updatedAt, entries })
    );
    return changes.size ? "updated" : "unchanged";
  }

  // -- reading ----------------------------------------------------------------------------

  // Entries of the saved games matching every word of the query as a word's prefix:
  // title above aliases above text; [{game, row, score}], best first.
  async function search(query, onlyGame) {
    const wanted = Array.from(new Set(words(query)));
    if (!wanted.length) return [];
    const hits = [];
    for (const meta of await games()) {
      if (onlyGame && meta.game !== onlyGame) continue;
      const record = await searchRecord(meta.key);
      for (const row of (record && record.rows) || []) {
        const [, , , , title, aliases, text] = row;
        let score = 0;
        for (const word of wanted) {
          const needle = " " + word;
          if (title.includes(needle)) score += title.includes(needle + " ") ? 12 : 10;
          else if (aliases.includes(needle)) score += 6;
          else if (text.includes(needle)) score += 1;
          else {
            score = 0;
            break;
          }
        }
        if (score) hits.push({ game: meta, row, score });
      }
    }
    return hits.sort((a, b) => b.score - a.score || a.row[1].localeCompare(b.row[1]));
  }

  // The preview API's answer (/api/v1/entries/preview/) from a saved entry, or null.
  async function preview(params, origin) {
    const slug = params.get("slug");
    const saved = await gameFor(params.get("game"), params.get("language") || "");
    if (!saved || !slug) return null;
    const entry = await item(saved.key, "entry", slug);
    if (!entry) return null;
    const { excerpt, truncated } = excerptOf(plainText(entry.body));
    return {
      id: entry.id,
      title: entry.title,
      number: entry.number,
      language: entry.language,
      game: saved.game,
      game_name: saved.name,
      excerpt,
      truncated,
      url: `${origin}/${entry.language}/games/${saved.game}/rules/${entry.slug}/`,
      api_url: `${origin}/api/v1/entries/${entry.id}/`,
    };
  }

  scope.rulesiteOffline = {
    PAGES_CACHE,
    fold,
    words,
    open,
    games,
    game,
    gameFor,
    item,
    itemsById,
    searchRecord,
    plainText,
    remove,
    save,
    store,
    due,
    catchUp,
    search,
    preview,
    Preparing,
  };
})(self);
