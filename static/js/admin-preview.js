/*
 * The live Markdown preview of a moderated change form (rules/admin/preview.py).
 *
 * The server renders: this script only sends the form's current values (debounced,
 * the stale request aborted) and writes the returned HTML into an iframe whose
 * document links the public site's CSS, so the preview looks like the public page.
 * A failed request keeps the last good preview, dimmed, with a quiet message.
 */
(function () {
  "use strict";

  var DEBOUNCE_MS = 300;

  function init() {
    var configNode = document.getElementById("markdown-preview-config");
    var form = document.querySelector("#content-main form");
    if (!configNode || !form) return;
    var config = JSON.parse(configNode.textContent);
    var labels = config.labels;

    // The pane: a heading, a quiet status line, and the frame.
    var pane = document.createElement("section");
    pane.className = "md-preview";
    pane.setAttribute("aria-label", labels.title);
    var header = document.createElement("div");
    header.className = "md-preview-header";
    var title = document.createElement("h2");
    title.textContent = labels.title;
    var hint = document.createElement("span");
    hint.className = "md-preview-hint";
    hint.textContent = labels.hint;
    var status = document.createElement("p");
    status.className = "md-preview-status";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    header.append(title, hint);
    var frame = document.createElement("iframe");
    frame.className = "md-preview-frame";
    frame.title = labels.frame;
    // No scripts in the frame; this page writes into it (same origin). Links open in a new tab.
    frame.setAttribute("sandbox", "allow-same-origin allow-popups allow-popups-to-escape-sandbox");
    frame.srcdoc =
      '<!DOCTYPE html><html><head><meta charset="utf-8"><base target="_blank">' +
      '<link rel="stylesheet" href="' + escapeAttribute(config.stylesheet) + '">' +
      '</head><body class="md-preview-document"><main id="content" class="wrap"></main></body></html>';
    pane.append(header, status, frame);

    // Beside the field: in its row, after the text box (label | text | preview).
    var row = form.querySelector(".form-row.field-" + config.anchor);
    if (row) {
      row.classList.add("md-preview-row");
      (row.querySelector(".flex-container") || row).appendChild(pane);
    } else {
      var submitRow = form.querySelector(".submit-row");
      form.insertBefore(pane, submitRow || null);
    }

    var frameReady = new Promise(function (resolve) {
      frame.addEventListener("load", resolve, { once: true });
    });
    var controller = null;
    var timer = null;

    function formData() {
      var data = new FormData(form);
      var files = [];
      data.forEach(function (value, key) {
        if (value instanceof File) files.push(key);
      });
      files.forEach(function (key) { data.delete(key); });
      data.set(config.objectIdField, config.objectId);
      return data;
    }

    function show(html, lang) {
      return frameReady.then(function () {
        var doc = frame.contentDocument;
        if (!doc) return;
        if (lang) doc.documentElement.lang = lang;
        doc.getElementById("content").innerHTML = html; // rendered and sanitised by the server
        fit();
      });
    }

    function fit() {
      var doc = frame.contentDocument;
      if (!doc) return;
      var height = doc.documentElement.scrollHeight;
      var most = Math.max(320, Math.round(window.innerHeight * 0.8));
      frame.style.height = Math.min(Math.max(height, 160), most) + "px";
    }

    function fail(message) {
      pane.classList.add("is-stale");
      status.textContent = message || labels.failed;
    }

    function update() {
      if (controller) controller.abort(); // the newer values win
      controller = new AbortController();
      var mine = controller;
      pane.classList.add("is-updating");
      pane.setAttribute("aria-busy", "true");
      fetch(config.url, {
        method: "POST",
        body: formData(),
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-Requested-With": "XMLHttpRequest" },
        signal: mine.signal,
      })
        .then(function (response) {
          var isJson = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
          if (!isJson) throw new Error(labels.failed); // e.g. the login page after a timeout
          return response.json().then(function (body) {
            if (!response.ok || typeof body.html !== "string") throw new Error(body.error || labels.failed);
            return show(body.html, body.lang).then(function () {
              pane.classList.remove("is-stale");
              status.textContent = "";
            });
          });
        })
        .catch(function (error) {
          if (error && error.name === "AbortError") return;
          fail(error && error.message);
        })
        .finally(function () {
          if (controller === mine) {
            controller = null;
            pane.classList.remove("is-updating");
            pane.removeAttribute("aria-busy");
          }
        });
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(update, DEBOUNCE_MS);
    }

    form.addEventListener("input", schedule);
    form.addEventListener("change", schedule);
    window.addEventListener("resize", function () { frameReady.then(fit); });
    update();
  }

  function escapeAttribute(text) {
    return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
