/* rulesite: an old deep link to a rule ("…/rules/combat/#7.3a") still finds its rule.
 *
 * A rule's number is its id on the page that shows it. When a release renumbers rules,
 * a citation written before may name a number the page no longer has. The fragment
 * never reaches the server, so this script asks it: if the page has no element with
 * that id and the fragment reads as a rule number, it goes to the game's contents with
 * ?rule=<number> (data-rules on the script tag), which leads to the rule numbered so
 * or to the one that had the number until a release (rules.pages.rulebook_views).
 * Anything else in the fragment is left alone.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var rules = script && script.getAttribute("data-rules");
  var RULE = /^\d{1,4}(?:\.\d{1,4})*[a-z]?$/;

  function follow() {
    var wanted;
    try {
      wanted = decodeURIComponent(location.hash.slice(1));
    } catch (error) {
      return;
    }
    if (!rules || !RULE.test(wanted) || document.getElementById(wanted)) return;
    location.replace(rules + "?rule=" + encodeURIComponent(wanted));
  }

  follow();
  window.addEventListener("hashchange", follow);
})();
