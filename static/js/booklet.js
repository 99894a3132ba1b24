// The booklet page's "Print" button (rules/booklet.html): shown only where script runs.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector(".booklet-print");
    if (!button) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      window.print();
    });
  });
})();
