/* rulesite: previews of linked entries, on our pages and embedded in other sites.
 *
 * A preview is the linked entry's title and first lines, from our API
 * (/api/v1/entries/preview/ and /lookup/), in a box beside the link:
 *
 * - Mouse: resting on a link for a moment opens it; the pointer may move into it; it
 *   closes soon after the pointer leaves both.
 * - Keyboard: focusing a link (Tab) opens it, Escape closes it, leaving the link closes
 *   it. While open, the link is aria-describedby the box (role="tooltip"), so a screen
 *   reader reads the title and first lines after the link's own name.
 * - Touch: the first tap on a link opens the preview (role="dialog") with a link to
 *   the entry; a second tap on the same link, or the link in the box, opens the entry;
 *   a tap elsewhere closes it. If the preview cannot be had, the tap opens the entry.
 * - Nothing is asked of the server until a reader points at, focuses or taps a link;
 *   each answer is kept for the page's life. The box is a new absolutely positioned
 *   element each time, placed before it is first drawn: nothing on the page moves.
 *
 * On our pages (the script tag has data-site): links with class "xref" (cross-
 * references in texts, see-also and referenced-by lists, errata and FAQ entries)
 * preview; data-label-open is the translated "Open entry".
 *
 * Anywhere else (the embed; README "Embedding previews"), the script also turns
 * [[Game: Term]] and [[Game: Term|shown text]] written in the page's text into links to
 * our entries (one lookup per game and 50 terms for the whole page: a GET, or a POST
 * when the URL would be long), and previews every link to an entry of ours. A term we
 * do not know, or an API that does not answer, leaves the text as it was. Options are data- attributes of the script tag: data-game (the game of a
 * plain [[Term]]), data-language (else the page's lang), data-label-open.
 *
 * The styles are the script's own (one constructed stylesheet, no file and no <style>
 * text: so nothing else is loaded from our host, and a Content-Security-Policy without
 * 'unsafe-inline', ours included, allows them). Plain JavaScript, no dependencies.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var root = document.documentElement;
  if (!script || !script.src || !window.fetch || root.hasAttribute("data-rulesite-previews")) return;
  root.setAttribute("data-rulesite-previews", ""); // included twice: the first one works

  var HOVER_DELAY = 300; // ms resting on a link before its preview opens
  var HIDE_DELAY = 300; // ms after the pointer leaves before it closes
  var MAX_TERMS = 50; // per lookup (the API's limit)
  // A lookup's GET URL up to this many characters; a longer one is POSTed instead (the
  // server refuses request lines over 8190 bytes, and some proxies far less). The GET is
  // kept for short lookups: it is cached and revalidated, a POST is not.
  var MAX_GET_URL = 2000;
  var LANGUAGES = ["en", "de", "pl", "nl", "fr", "es", "it"];
  var ENTRY_PATH = /^\/([a-z]{2})\/games\/([^\/]+)\/rules\/([^\/]+)\/$/;
  var RULE = /^\d{1,4}(?:\.\d{1,4})*[a-z]?$/;
  var BOX_ID = "rulesite-preview";

  var data = script.dataset;
  var site = "site" in data;
  // Our pages ask their own origin; an embedding page, the origin the script came from.
  var origin = site ? location.origin : new URL(script.src, location.href).origin;
  var api = origin + "/api/v1/entries/";
  var openLabel = data.labelOpen || new URL(origin).host;

  var answers = {}; // API URL → promise of a preview (or null)
  var made = new WeakMap(); // link made from [[Game: Term]] → its preview
  var box = null; // the open preview
  var boxMode = ""; // "hover", "focus" or "tap"
  var current = null; // the link whose preview is open or on its way
  var described = null; // [link, its own aria-describedby] while the box describes it
  var dismissed = null; // the link whose preview Escape closed
  var sequence = 0; // newer requests make older answers stale
  var showTimer = 0;
  var hideTimer = 0;
  var touch = false; // the last pointer down was a finger
  var pointer = null; // where the pointer last was (to pick a wrapped link's line)

  // -- which links, and what to ask the API ---------------------------------------------

  function entryAddress(link) {
    var url;
    try {
      url = new URL(link.href);
    } catch (error) {
      return null;
    }
    var match = url.origin === origin && ENTRY_PATH.exec(url.pathname);
    if (!match) return null;
    var params = new URLSearchParams();
    try {
      params.set("game", decodeURIComponent(match[2]));
      params.set("slug", decodeURIComponent(match[3]));
    } catch (error) {
      return null;
    }
    var language = url.searchParams.get("content") || match[1];
    if (LANGUAGES.indexOf(language) >= 0) params.set("language", language);
    // A numbered rule's deep link (#601.2a, rules/anchors.py): the preview starts there.
    var rule = url.hash.slice(1);
    if (RULE.test(rule)) params.set("rule", rule);
    return api + "preview/?" + params.toString();
  }

  function previewable(target) {
    var link = target && target.closest ? target.closest("a[href]") : null;
    if (!link || (box && box.contains(link))) return null;
    if (made.has(link)) return link;
    if (site && !link.classList.contains("xref")) return null;
    return entryAddress(link) ? link : null;
  }

  function getJSON(url, options) {
    options = options || {};
    options.headers = { Accept: "application/json" };
    if (options.body) options.headers["Content-Type"] = "application/json";
    return fetch(url, options).then(function (response) {
      return response.ok ? response.json() : null;
    });
  }

  function load(link) {
    if (made.has(link)) return Promise.resolve(made.get(link));
    var url = entryAddress(link);
    if (!answers[url]) {
      answers[url] = getJSON(url).catch(function () {
        delete answers[url]; // offline: ask again next time
        return null;
      });
    }
    return answers[url];
  }

  // -- the box ----------------------------------------------------------------------------

  function element(tag, className, text) {
    var node = document.createElement(tag);
    node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function build(preview, link, mode) {
    var node = element("div", "rulesite-preview");
    node.id = BOX_ID;
    node.lang = preview.language;
    var title = element("p", "rulesite-preview-title");
    title.id = BOX_ID + "-title";
    if (preview.number) title.appendChild(element("span", "rulesite-preview-number", preview.number + "."));
    title.appendChild(document.createTextNode(preview.title));
    node.appendChild(title);
    if (!site) node.appendChild(element("p", "rulesite-preview-meta", preview.game_name + " · " + new URL(origin).host));
    if (preview.excerpt) node.appendChild(element("p", "rulesite-preview-excerpt", preview.excerpt));
    if (mode === "tap") {
      node.setAttribute("role", "dialog");
      node.setAttribute("aria-labelledby", title.id);
      var open = element("a", "rulesite-preview-open", openLabel + " →");
      open.href = made.has(link) ? preview.url : link.href;
      open.lang = root.lang || "";
      node.appendChild(open);
    } else {
      node.setAttribute("role", "tooltip");
    }
    return node;
  }

  // The link's line box nearest the pointer (a link may wrap onto two lines).
  function anchorRect(link) {
    var rects = link.getClientRects();
    if (!rects.length) return link.getBoundingClientRect();
    var best = rects[0];
    if (pointer) {
      for (var i = 0; i < rects.length; i++) {
        if (pointer.y >= rects[i].top && pointer.y <= rects[i].bottom) best = rects[i];
      }
    }
    return best;
  }

  // Where (0, 0) of the box's containing block is, in viewport coordinates.
  function containerOrigin(node) {
    var parent = node.offsetParent;
    if (!parent || (parent === document.body && getComputedStyle(parent).position === "static")) {
      return { x: -window.scrollX, y: -window.scrollY };
    }
    var rect = parent.getBoundingClientRect();
    return { x: rect.left + parent.clientLeft - parent.scrollLeft, y: rect.top + parent.clientTop - parent.scrollTop };
  }

  function place(node, link) {
    var rect = anchorRect(link);
    var width = node.offsetWidth;
    var height = node.offsetHeight;
    var viewWidth = root.clientWidth;
    var viewHeight = window.innerHeight;
    var left = Math.max(8, Math.min(rect.left, viewWidth - width - 8));
    var below = rect.bottom + 6;
    var above = rect.top - 6 - height;
    var top = below + height <= viewHeight - 8 || above < 8 ? below : above;
    var base = containerOrigin(node);
    node.style.left = Math.round(left - base.x) + "px";
    node.style.top = Math.round(top - base.y) + "px";
  }

  function describe(link) {
    var own = link.getAttribute("aria-describedby");
    described = [link, own];
    link.setAttribute("aria-describedby", own ? own + " " + BOX_ID : BOX_ID);
  }

  function undescribe() {
    if (!described) return;
    var link = described[0];
    if (described[1]) link.setAttribute("aria-describedby", described[1]);
    else link.removeAttribute("aria-describedby");
    described = null;
  }

  function show(link, preview, mode) {
    removeBox();
    box = build(preview, link, mode);
    boxMode = mode;
    // Added, measured and placed in one go, before the browser draws a frame: the box
    // appears where it belongs, and being new (not moved), shifts nothing.
    document.body.appendChild(box);
    place(box, link);
    if (mode !== "tap") describe(link);
  }

  function open(link, mode) {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    if (link === current && box && (boxMode === mode || mode !== "tap")) return;
    var mine = ++sequence;
    current = link;
    load(link).then(function (preview) {
      if (mine !== sequence) return; // closed, or another link since
      if (preview) show(link, preview, mode);
      else if (mode === "tap") window.location.assign(link.href);
      else close(); // and the previous link's box with it
    });
  }

  function removeBox() {
    undescribe();
    if (box && box.parentNode) box.parentNode.removeChild(box);
    box = null;
    boxMode = "";
  }

  function close() {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    sequence += 1;
    current = null;
    removeBox();
  }

  function closeSoon() {
    window.clearTimeout(showTimer);
    window.clearTimeout(hideTimer);
    hideTimer = window.setTimeout(close, HIDE_DELAY);
  }

  function inside(node, container) {
    return !!(node && container && container.contains(node));
  }

  // -- events -----------------------------------------------------------------------------

  document.addEventListener("pointerover", function (event) {
    if (event.pointerType === "touch") return;
    pointer = { x: event.clientX, y: event.clientY };
    if (inside(event.target, box)) {
      window.clearTimeout(hideTimer);
      return;
    }
    var link = previewable(event.target);
    if (!link || link === dismissed) return;
    window.clearTimeout(hideTimer);
    if (link === current) return;
    window.clearTimeout(showTimer);
    showTimer = window.setTimeout(function () {
      open(link, "hover");
    }, HOVER_DELAY);
  });

  document.addEventListener("pointerout", function (event) {
    if (event.pointerType === "touch") return;
    var link = previewable(event.target);
    var to = event.relatedTarget;
    if (link && inside(to, link)) return;
    if (link === dismissed && !inside(to, link)) dismissed = null;
    if ((link && link === current) || inside(event.target, box)) {
      if (!inside(to, box) && !inside(to, current) && boxMode !== "tap" && boxMode !== "focus") closeSoon();
    } else if (link) {
      window.clearTimeout(showTimer); // passed over on the way elsewhere
    }
  });

  document.addEventListener("focusin", function (event) {
    var link = previewable(event.target);
    if (!link || link === dismissed) return;
    var keyboard = true;
    try {
      keyboard = link.matches(":focus-visible");
    } catch (error) {} // older browsers: every focus
    if (!keyboard) return;
    pointer = null; // place it by the link's first line
    open(link, "focus");
  });

  document.addEventListener("focusout", function (event) {
    if (event.target === dismissed) dismissed = null;
    if (event.target === current && boxMode !== "tap" && !inside(event.relatedTarget, box)) close();
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !current) return;
    dismissed = current;
    close();
  });

  document.addEventListener("pointerdown", function (event) {
    touch = event.pointerType === "touch";
    if (current && !inside(event.target, box) && !inside(event.target, current)) close();
  });

  document.addEventListener("click", function (event) {
    // event.detail 0: Enter on a focused link (or a screen reader's activation) goes.
    if (!touch || event.defaultPrevented || event.button !== 0 || event.detail === 0) return;
    var link = previewable(event.target);
    if (!link || (link === current && boxMode === "tap")) return; // second tap: go
    event.preventDefault();
    open(link, "tap");
  });

  var viewWidth = root.clientWidth;
  window.addEventListener("resize", function () {
    // Not when only the height changes: a phone's toolbars come and go as it scrolls.
    if (root.clientWidth !== viewWidth) close();
    viewWidth = root.clientWidth;
  });
  window.addEventListener("pagehide", close);

  // -- styles -----------------------------------------------------------------------------

  var CSS = [
    ".rulesite-preview{position:absolute;z-index:2147483000;box-sizing:border-box;width:max-content;" +
      "max-width:min(24rem,calc(100vw - 16px));margin:0;padding:10px 13px 11px;text-align:left;" +
      "background:var(--rulesite-preview-paper,#fff);color:var(--rulesite-preview-ink,#1c2430);" +
      "border:1px solid var(--rulesite-preview-line,#d6d1c6);border-radius:10px;" +
      "box-shadow:0 10px 28px rgba(28,36,48,.22);font:400 15px/1.5 system-ui,-apple-system," +
      '"Segoe UI",Roboto,"Noto Sans","Liberation Sans",sans-serif;letter-spacing:normal;' +
      "text-transform:none;white-space:normal;overflow-wrap:anywhere}",
    ".rulesite-preview p{margin:0;padding:0;font:inherit;color:inherit;text-align:left}",
    ".rulesite-preview .rulesite-preview-title{font-weight:700;font-size:16px;line-height:1.3}",
    ".rulesite-preview .rulesite-preview-number{margin-right:.35em;color:var(--rulesite-preview-muted,#5b6675)}",
    ".rulesite-preview .rulesite-preview-meta{font-size:13px;color:var(--rulesite-preview-muted,#5b6675)}",
    ".rulesite-preview .rulesite-preview-excerpt{margin-top:6px;white-space:pre-line}",
    ".rulesite-preview .rulesite-preview-open{display:inline-block;margin-top:8px;padding:4px 0;" +
      "font-weight:600;color:var(--rulesite-preview-link,#1f4e79);text-decoration:underline}",
    "@media (prefers-reduced-motion:no-preference){.rulesite-preview{animation:rulesite-preview-in .12s ease-out}}",
    "@keyframes rulesite-preview-in{from{opacity:0}to{opacity:1}}",
  ];

  function addStyles() {
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS.join("\n"));
      document.adoptedStyleSheets = Array.prototype.slice.call(document.adoptedStyleSheets).concat([sheet]);
    } catch (error) {
      // No constructed stylesheets (Safari before 16.4): rules added one by one.
      var style = document.createElement("style");
      document.head.appendChild(style);
      CSS.forEach(function (rule) {
        try {
          style.sheet.insertRule(rule, style.sheet.cssRules.length);
        } catch (ignored) {}
      });
    }
  }

  // -- the embed: [[Game: Term]] in the page's text becomes a link ------------------------

  var WRITTEN = /\[\[([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]/g;
  var SKIP = /^(A|BUTTON|CODE|KBD|NOSCRIPT|OPTION|PRE|SAMP|SCRIPT|SELECT|STYLE|TEMPLATE|TEXTAREA)$/;

  function pageLanguage() {
    var language = (data.language || root.lang || "").toLowerCase().split("-")[0];
    return LANGUAGES.indexOf(language) >= 0 ? language : "";
  }

  // Every [[…]] in the text under body, outside links, code and form fields.
  function written() {
    var found = [];
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        if (node.nodeValue.indexOf("[[") < 0) return NodeFilter.FILTER_REJECT;
        for (var parent = node.parentNode; parent && parent !== document.body; parent = parent.parentNode) {
          if (SKIP.test(parent.nodeName) || parent.isContentEditable) return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      WRITTEN.lastIndex = 0;
      for (var match = WRITTEN.exec(node.nodeValue); match; match = WRITTEN.exec(node.nodeValue)) {
        var label = match[1].trim();
        var colon = label.lastIndexOf(":");
        var game = colon > 0 ? label.slice(0, colon).trim() : data.game || "";
        var term = colon > 0 ? label.slice(colon + 1).trim() : label;
        if (!game || !term) continue;
        found.push({
          node: node,
          start: match.index,
          end: match.index + match[0].length,
          game: game,
          term: term,
          shown: (match[2] || term).trim(),
        });
      }
    }
    return found;
  }

  function lookup(game, terms, language) {
    var params = new URLSearchParams({ game: game });
    terms.forEach(function (term) {
      params.append("term", term);
    });
    if (language) params.set("language", language);
    var url = api + "lookup/?" + params.toString();
    var asked;
    if (url.length <= MAX_GET_URL) {
      asked = getJSON(url);
    } else {
      var body = { game: game, terms: terms };
      if (language) body.language = language;
      asked = getJSON(api + "lookup/", { method: "POST", body: JSON.stringify(body) });
    }
    return asked.catch(function () {
      return null; // the API did not answer: the text stays as written
    });
  }

  function linkTerms() {
    var found = written();
    if (!found.length) return;
    var language = pageLanguage();
    var byGame = {};
    found.forEach(function (item) {
      var terms = (byGame[item.game] = byGame[item.game] || []);
      if (terms.indexOf(item.term) < 0) terms.push(item.term);
    });
    var asked = [];
    Object.keys(byGame).forEach(function (game) {
      for (var i = 0; i < byGame[game].length; i += MAX_TERMS) {
        asked.push(lookup(game, byGame[game].slice(i, i + MAX_TERMS), language).then(function (answer) {
          var previews = {};
          ((answer && answer.results) || []).forEach(function (result) {
            if (result && result.entry && result.entry.url) previews[result.term] = result.entry;
          });
          return { game: game, previews: previews };
        }));
      }
    });
    Promise.all(asked).then(function (answers) {
      var previews = {};
      answers.forEach(function (answer) {
        Object.keys(answer.previews).forEach(function (term) {
          previews[answer.game + "\n" + term] = answer.previews[term];
        });
      });
      // Last match first, so the earlier offsets in the same text node stay right.
      found.reverse().forEach(function (item) {
        var preview = previews[item.game + "\n" + item.term];
        if (!preview) return;
        var rest = item.node.splitText(item.start);
        rest.splitText(item.end - item.start);
        var link = element("a", "rulesite-xref", item.shown);
        link.href = preview.url;
        link.lang = preview.language;
        made.set(link, preview);
        rest.parentNode.replaceChild(link, rest);
      });
    });
  }

  addStyles();
  if (!site) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", linkTerms);
    else linkTerms();
  }
})();
