/* rulesite: the offline page reads the saved copy (templates/rules/offline.html).
 *
 * The service worker shows the offline page for an address it has no network for. This
 * script reads that address:
 *
 * - an entry of a saved game (/<lang>/games/<game>/rules/<slug>/): the entry page from
 *   the saved copy, in the page's own markup (the <template>s of the offline page repeat
 *   rules/entry_detail.html's): text with its errata applied, errata, FAQ rulings, see
 *   also, referenced by, previous and next, source and date;
 * - a saved game's page or contents: its entries A–Z;
 * - a search (/<lang>/search/?q=): the saved games' entries matching, labelled
 *   "Offline results";
 * - anything else, or an entry the saved copy does not have (removed or unpublished
 *   since): "You are offline" with the games saved on this device.
 *
 * Links in saved texts are made site-relative when saved and here take the reader's UI
 * language, as the server's ui_links filter does.
 */
(function () {
  "use strict";

  const root = document.querySelector("[data-offline-reader]");
  if (!root) return;
  let store;

  const labels = root.dataset;
  const main = document.getElementById("content");
  const ui = document.documentElement.lang || "en";
  const ENTRY = /^\/([a-z]{2})\/games\/([^/]+)\/rules\/([^/]+)\/$/;
  const GAME = /^\/([a-z]{2})\/games\/([^/]+)\/(?:rules\/)?$/;
  const SEARCH = /^\/([a-z]{2})\/search\/$/;

  const fill = (text, values) => String(text || "").replace(/\{(\w+)\}/g, (all, name) => (name in values ? values[name] : all));
  const when = (value, options) => new Intl.DateTimeFormat(ui, options || { dateStyle: "medium" }).format(new Date(value));
  const entryUrl = (game, slug) => `/${ui}/games/${encodeURIComponent(game)}/rules/${encodeURIComponent(slug)}/`;
  const gameUrl = (game) => `/${ui}/games/${encodeURIComponent(game)}/`;

  function clone(id) {
    return document.getElementById(id).content.cloneNode(true);
  }

  function slot(fragment, name) {
    return fragment.querySelector(`[data-slot="${name}"]`);
  }

  function link(href, text, className, language) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    if (className) a.className = className;
    if (language && language !== ui) a.lang = language;
    return a;
  }

  function listItem(child) {
    const li = document.createElement("li");
    li.appendChild(child);
    return li;
  }

  function displayTitle(item) {
    return item.number ? `${item.number}. ${item.title}` : item.title;
  }

  // Entry links in stored HTML in the reader's UI language (rules_tags.ui_links).
  function uiLinks(container) {
    container.querySelectorAll('a[href^="/"]').forEach((a) => {
      const href = a.getAttribute("href");
      const moved = href.replace(/^\/[a-z]{2}\/games\//, `/${ui}/games/`);
      if (moved !== href) a.setAttribute("href", moved);
    });
  }

  function savedNotice(element, meta) {
    element.textContent = fill(labels.labelSaved, { date: when(meta.updatedAt || meta.savedAt, { dateStyle: "medium", timeStyle: "short" }) });
  }

  function show(fragment) {
    main.textContent = "";
    main.appendChild(fragment);
    uiLinks(main);
    // The language switcher names this address in each language, not the offline page's.
    document.querySelectorAll(".language-switcher a[hreflang]").forEach((a) => {
      a.href = location.pathname.replace(/^\/[a-z]{2}\//, `/${a.hreflang}/`) + location.search;
    });
  }

  // -- an entry ----------------------------------------------------------------------------

  async function entryPage(meta, slug) {
    const entry = await store.item(meta.key, "entry", slug);
    if (!entry) return false;
    const [errata, questions] = await Promise.all([
      store.itemsById(meta.key, "erratum", entry.errata),
      store.itemsById(meta.key, "question", entry.questions),
    ]);
    const page = clone("offline-entry");
    const game = slot(page, "game");
    game.href = gameUrl(meta.game);
    game.textContent = meta.name;
    slot(page, "here").textContent = displayTitle(entry);
    savedNotice(slot(page, "saved"), meta);

    page.querySelector("article.entry").lang = entry.language;
    const parent = slot(page, "parent");
    if (entry.parent) {
      const a = parent.querySelector("a");
      a.href = entryUrl(meta.game, entry.parent.slug);
      a.textContent = displayTitle(entry.parent);
    } else parent.remove();
    const number = slot(page, "number");
    if (entry.number) number.textContent = `${entry.number}. `;
    else number.remove();
    slot(page, "title").textContent = entry.title;
    const aliases = slot(page, "aliases");
    if (entry.aliases.length) aliases.lastElementChild.textContent = entry.aliases.join(", ");
    else aliases.remove();
    if (!entry.fragment) slot(page, "fragment").remove();

    const body = slot(page, "body");
    if (entry.corrected) {
      const versions = clone("offline-corrected");
      const applied = versions.querySelector(".errata-applied");
      entry.applied
        .filter((erratum) => erratum.footnote)
        .forEach((erratum) => {
          const li = listItem(link(`#erratum-${erratum.id}`, erratum.title, "", entry.language));
          li.value = erratum.footnote;
          applied.appendChild(li);
        });
      versions.querySelector(".body-corrected").innerHTML = entry.corrected;
      versions.querySelector(".body-printed").insertAdjacentHTML("beforeend", entry.printed);
      body.replaceWith(versions);
    } else {
      body.innerHTML = entry.body;
    }

    const children = slot(page, "children");
    entry.children.forEach((child) => children.appendChild(listItem(link(entryUrl(meta.game, child.slug), displayTitle(child)))));
    if (!entry.children.length) children.remove();

    const errataBox = slot(page, "errata");
    errata.forEach((erratum) => {
      const article = document.createElement("article");
      article.className = "erratum";
      article.id = `erratum-${erratum.id}`;
      article.lang = erratum.language;
      const heading = document.createElement("h3");
      heading.appendChild(link(`/${ui}/games/${meta.game}/errata/#${erratum.slug}`, erratum.title));
      const text = document.createElement("div");
      text.className = "prose";
      text.innerHTML = erratum.html;
      article.append(heading, text);
      errataBox.appendChild(article);
    });
    if (!errata.length) errataBox.remove();

    const faq = slot(page, "faq");
    questions.forEach((question) => {
      const details = document.createElement("details");
      details.className = "question";
      details.lang = question.language;
      const summary = document.createElement("summary");
      summary.textContent = question.question;
      const answer = document.createElement("div");
      answer.className = "prose";
      answer.innerHTML = question.html;
      details.append(summary, answer);
      faq.appendChild(details);
    });
    if (!questions.length) faq.remove();

    const seeAlso = slot(page, "see-also");
    const seeList = seeAlso.querySelector("ul");
    seeList.lang = entry.language;
    entry.seeAlso.forEach((ref) => {
      if (ref.slug) seeList.appendChild(listItem(link(entryUrl(meta.game, ref.slug), ref.label, "xref")));
      else {
        const span = document.createElement("span");
        span.className = "xref xref-wanted";
        span.textContent = ref.label;
        seeList.appendChild(listItem(span));
      }
    });
    if (!entry.seeAlso.length) seeAlso.remove();
    const referenced = slot(page, "referenced-by");
    entry.referencedBy.forEach((other) =>
      referenced.querySelector("ul").appendChild(listItem(link(entryUrl(meta.game, other.slug), displayTitle(other), "xref", entry.language)))
    );
    if (!entry.referencedBy.length) referenced.remove();

    const steps = slot(page, "steps");
    const navigation = entry.navigation;
    if (navigation && (navigation.previous || navigation.next)) {
      if (navigation.sequence === "rules") steps.setAttribute("aria-label", steps.dataset.labelRulebook);
      for (const side of ["previous", "next"]) {
        const item = slot(page, side);
        const target = navigation[side];
        if (!target) {
          item.remove();
          continue;
        }
        const a = item.querySelector("a");
        a.href = entryUrl(meta.game, target.slug);
        a.querySelector(".step-title").textContent = displayTitle(target);
        a.querySelector(".step-title").lang = entry.language;
      }
    } else steps.remove();

    const source = slot(page, "source");
    if (entry.source) {
      source.lang = entry.language;
      source.textContent = entry.source.title + (entry.source.page ? `, ${entry.source.page}` : "");
    } else {
      source.remove();
      slot(page, "source-term").remove();
    }
    const changed = slot(page, "changed");
    changed.dateTime = entry.updated;
    changed.textContent = when(entry.updated);

    document.title = `${displayTitle(entry)} · ${meta.name} · rulesite`;
    show(page);
    if (location.hash) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
    return true;
  }

  // -- a game's entries ---------------------------------------------------------------------

  async function contentsPage(meta) {
    const record = await store.searchRecord(meta.key);
    const rows = (record && record.rows) || [];
    const page = clone("offline-contents");
    slot(page, "here").textContent = meta.name;
    slot(page, "title").textContent = meta.name;
    savedNotice(slot(page, "saved"), meta);
    const list = slot(page, "entries");
    list.lang = meta.language;
    const collator = new Intl.Collator(meta.language);
    rows
      .slice()
      .sort((a, b) => collator.compare(a[1], b[1]))
      .forEach(([slug, title, number]) => list.appendChild(listItem(link(entryUrl(meta.game, slug), number ? `${number}. ${title}` : title))));
    document.title = `${meta.name} · rulesite`;
    show(page);
    return true;
  }

  // -- search -----------------------------------------------------------------------------------

  async function searchPage(params) {
    const query = (params.get("q") || "").trim();
    const hits = await store.search(query, params.get("game") || null);
    const page = clone("offline-results");
    const heading = slot(page, "heading");
    if (query) heading.textContent = fill(labels.labelSearchTitle, { query });
    slot(page, "count").textContent = hits.length
      ? fill(labels.labelResultsCount, { count: hits.length })
      : fill(labels.labelNothing, { query });
    const list = slot(page, "results");
    const shown = hits.slice(0, 50);
    // Snippets from the shown entries' texts (the search record keeps only their words).
    const texts = await Promise.all(shown.map(({ game, row }) => store.item(game.key, "entry", row[0])));
    shown.forEach(({ game, row }, index) => {
      const [slug, title, number, language] = row;
      const text = texts[index] ? store.plainText(texts[index].body).replace(/\s+/g, " ").trim() : "";
      const snippet = text.length > 200 ? text.slice(0, 200).replace(/\s\S*$/, "") + "…" : text;
      const li = document.createElement("li");
      li.className = "result result-entry";
      const head = document.createElement("div");
      head.className = "result-head";
      const a = link(entryUrl(game.game, slug), "", "result-title", language);
      if (number) {
        const span = document.createElement("span");
        span.className = "result-number";
        span.textContent = `${number}.`;
        a.append(span, " ");
      }
      a.append(title);
      const type = document.createElement("span");
      type.className = "result-type result-type-entry";
      type.textContent = labels.labelRule;
      head.append(a, type);
      const where = document.createElement("p");
      where.className = "result-meta meta";
      where.textContent = game.name;
      li.append(head, where);
      if (snippet) {
        const text = document.createElement("p");
        text.className = "snippet";
        if (language !== ui) text.lang = language;
        text.textContent = snippet;
        li.appendChild(text);
      }
      list.appendChild(li);
    });
    if (!hits.length) list.remove();
    document.title = `${query ? fill(labels.labelSearchTitle, { query }) : labels.labelResults} · rulesite`;
    const box = document.getElementById("site-search");
    if (box) box.value = query;
    show(page);
    return true;
  }

  // -- "You are offline" ------------------------------------------------------------------------

  async function savedGames() {
    const list = root.querySelector("[data-offline-games]");
    const none = root.querySelector("[data-offline-none]");
    const games = await store.games();
    games.sort((a, b) => a.name.localeCompare(b.name, ui));
    games.forEach((meta) => {
      const li = listItem(link(gameUrl(meta.game), meta.name, "", meta.language));
      const note = document.createElement("span");
      note.className = "meta";
      note.textContent = ` · ${meta.language.toUpperCase()} · ${fill(labels.labelSaved, { date: when(meta.updatedAt || meta.savedAt) })}`;
      li.appendChild(note);
      list.appendChild(li);
    });
    none.hidden = games.length > 0;
    list.hidden = !games.length;
  }

  async function read() {
    store = window.rulesiteOffline;
    if (!store) return "offline";
    const path = location.pathname;
    let match = ENTRY.exec(path);
    if (match) {
      const meta = await store.gameFor(decodeURIComponent(match[2]), ui);
      if (meta && (await entryPage(meta, decodeURIComponent(match[3])))) return "entry";
    }
    match = GAME.exec(path);
    if (match) {
      const meta = await store.gameFor(decodeURIComponent(match[2]), ui);
      if (meta && (await contentsPage(meta))) return "contents";
    }
    if (SEARCH.test(path) && (await store.games()).length) {
      await searchPage(new URLSearchParams(location.search));
      return "search";
    }
    await savedGames();
    return "offline";
  }

  // As soon as the page is parsed (the store's script comes just before this one). The
  // time written is from the start of the navigation to the text on the page.
  read()
    .catch(() => savedGames().then(() => "offline"))
    .then((view) => {
      document.documentElement.dataset.offlineView = view;
      document.documentElement.dataset.offlineRenderMs = String(Math.round(performance.now()));
    });
})();
