/* rulesite: the header search box.
 *
 * - "/" focuses the search box (not while typing in a field).
 * - Suggestions as you type, from /api/v1/search/suggest/, as an ARIA 1.2 combobox:
 *   arrow keys move, Enter opens the highlighted suggestion (or submits the form when
 *   none is), Escape closes, a click opens one.
 *
 * Plain JavaScript, no dependencies. Without it the form is an ordinary GET form.
 * The form carries what the script needs: data-suggest-url, data-language (the UI
 * language), data-game (on a game's pages) and the translated labels (data-label-*).
 */
(function () {
  "use strict";

  var DEBOUNCE_MS = 150;
  var MAX_LENGTH = 200;

  var form = document.querySelector("form.search-form[data-suggest-url]");
  var input = form && form.querySelector("input[name=q]");
  if (!form || !input) return;

  var data = form.dataset;
  var listbox = document.createElement("ul");
  var status = document.createElement("div");
  var suggestions = [];
  var active = -1;
  var timer = null;
  var controller = null;
  var sequence = 0;

  // -- "/" focuses the search box -------------------------------------------------------

  function isTyping(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    var tag = element.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (isTyping(event.target) || isTyping(document.activeElement)) return;
    event.preventDefault();
    input.focus();
    input.select();
  });

  // -- the combobox -----------------------------------------------------------------------

  listbox.id = input.id + "-suggestions";
  listbox.className = "search-suggestions";
  listbox.setAttribute("role", "listbox");
  listbox.setAttribute("aria-label", data.labelSuggestions || "Suggestions");
  listbox.hidden = true;
  (input.parentNode === form ? form : input.parentNode).appendChild(listbox);

  status.className = "visually-hidden";
  status.setAttribute("role", "status");
  form.appendChild(status);

  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", listbox.id);

  function isOpen() {
    return !listbox.hidden;
  }

  function open() {
    listbox.hidden = false;
    input.setAttribute("aria-expanded", "true");
    form.classList.add("has-suggestions");
  }

  function close() {
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    form.classList.remove("has-suggestions");
    active = -1;
    status.textContent = "";
  }

  function cancelPending() {
    window.clearTimeout(timer);
    if (controller) controller.abort();
    controller = null;
    sequence += 1; // whatever is still in flight is now stale
  }

  function highlight(index) {
    var options = listbox.children;
    if (active >= 0 && options[active]) options[active].setAttribute("aria-selected", "false");
    active = index;
    if (active < 0) {
      input.removeAttribute("aria-activedescendant");
      return;
    }
    var option = options[active];
    option.setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", option.id);
    if (option.scrollIntoView) option.scrollIntoView({ block: "nearest" });
  }

  function go(index) {
    var suggestion = suggestions[index];
    if (!suggestion || !suggestion.url) return;
    close();
    window.location.assign(suggestion.url);
  }

  function typeLabel(type) {
    return { entry: data.labelEntry, erratum: data.labelErratum, question: data.labelQuestion }[type] || "";
  }

  function render(results) {
    suggestions = results.filter(function (result) {
      return result && result.url && result.title;
    });
    listbox.textContent = "";
    active = -1;
    input.removeAttribute("aria-activedescendant");
    if (!suggestions.length) {
      close();
      return;
    }
    suggestions.forEach(function (result, index) {
      var option = document.createElement("li");
      option.id = listbox.id + "-" + index;
      option.className = "search-suggestion";
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");

      var title = document.createElement("span");
      title.className = "search-suggestion-title";
      title.textContent = result.title;
      if (result.language && result.language !== data.language) title.lang = result.language;
      if (result.alias) {
        // Typed an alias ("Dein"): show it, then the entry it belongs to.
        var alias = document.createElement("span");
        alias.className = "search-suggestion-alias";
        alias.textContent = result.alias + " → ";
        if (title.lang) alias.lang = title.lang;
        option.appendChild(alias);
      }
      option.appendChild(title);

      var label = typeLabel(result.type);
      if (label) {
        var type = document.createElement("span");
        type.className = "search-suggestion-type search-suggestion-type-" + result.type;
        type.textContent = label;
        option.appendChild(type);
      }
      listbox.appendChild(option);
    });
    open();
    status.textContent = data.labelAvailable || "";
  }

  function fetchSuggestions(query) {
    if (controller) controller.abort();
    controller = new AbortController();
    var mine = ++sequence;
    var params = new URLSearchParams({ q: query });
    if (data.language) params.set("language", data.language);
    if (data.game) params.set("game", data.game);
    fetch(data.suggestUrl + "?" + params.toString(), {
      signal: controller.signal,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (body) {
        // A newer request was made, or the box changed meanwhile: this answer is stale.
        if (mine !== sequence || input.value.trim() !== query) return;
        render((body && Array.isArray(body.results) && body.results) || []);
      })
      .catch(function () {
        // Aborted (a newer request replaced it) or offline: the form still works.
      });
  }

  input.addEventListener("input", function () {
    var query = input.value.trim();
    cancelPending();
    if (!query || query.length > MAX_LENGTH) {
      suggestions = [];
      close();
      return;
    }
    timer = window.setTimeout(function () {
      fetchSuggestions(query);
    }, DEBOUNCE_MS);
  });

  input.addEventListener("keydown", function (event) {
    if (event.isComposing) return;
    var count = suggestions.length;
    switch (event.key) {
      case "ArrowDown":
        if (!count) return;
        event.preventDefault();
        if (!isOpen()) {
          open();
          highlight(0);
        } else {
          highlight(active + 1 >= count ? 0 : active + 1);
        }
        break;
      case "ArrowUp":
        if (!count) return;
        event.preventDefault();
        if (!isOpen()) {
          open();
          highlight(count - 1);
        } else {
          highlight(active <= 0 ? count - 1 : active - 1);
        }
        break;
      case "Enter":
        if (isOpen() && active >= 0) {
          event.preventDefault();
          go(active);
        } else {
          cancelPending();
          close(); // the form submits as usual
        }
        break;
      case "Escape":
        if (isOpen()) {
          event.preventDefault(); // keep the text; a second Escape clears it
          cancelPending();
          close();
        }
        break;
      case "Tab":
        close();
        break;
    }
  });

  // Keep the focus in the box while the pointer is on the list, then open what was clicked.
  listbox.addEventListener("mousedown", function (event) {
    event.preventDefault();
  });
  listbox.addEventListener("click", function (event) {
    var option = event.target.closest("[role=option]");
    if (option) go(Array.prototype.indexOf.call(listbox.children, option));
  });
  listbox.addEventListener("mousemove", function (event) {
    var option = event.target.closest("[role=option]");
    var index = option ? Array.prototype.indexOf.call(listbox.children, option) : -1;
    if (index >= 0 && index !== active) highlight(index);
  });

  input.addEventListener("blur", function () {
    cancelPending();
    close();
  });

  // Back from a suggestion's page (bfcache): start closed.
  window.addEventListener("pageshow", function () {
    cancelPending();
    close();
  });
})();
