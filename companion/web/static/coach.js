/* tafl-companion page: the coach's warnings in words (window.T.coach), loaded with the first
   warning. A warning (/api/state coach.warning) says which move of the coached side loses,
   how (the king escapes, the king is captured, another forced loss, or a drop of the
   evaluation in soldiers), how many of the opponent's moves it takes and an example reply. */
"use strict";
(function () {
  const T = window.T;
  const { _, num } = T;

  function warningText(w) {
    const a = { played: w.move, square: w.target || "?", move: w.reply || "?", n: w.moves || 0,
      drop: num(w.drop || 0, 1) };
    const once = w.moves === 1;
    switch (w.kind) {
      case "escape":
        return once ? _("Careful: {played} lets the king reach {square} at once, with {move}.", a)
          : T.ngettext("Careful: {played} lets the king reach {square} in {n} move, e.g. {move}.",
            "Careful: {played} lets the king reach {square} in {n} moves, e.g. {move}.", a.n, a);
      case "capture":
        return once ? _("Careful: {played} lets the attackers capture the king at once, with {move}.", a)
          : T.ngettext("Careful: {played} lets the attackers capture the king in {n} move, e.g. {move}.",
            "Careful: {played} lets the attackers capture the king in {n} moves, e.g. {move}.", a.n, a);
      case "loss":
        return T.ngettext("Careful: {played} loses by force in {n} move, e.g. after {move}.",
          "Careful: {played} loses by force in {n} moves, e.g. after {move}.", a.n, a);
      default:
        return _("Careful: {played} gives away about {drop} soldiers' worth; see the answer {move}.", a);
    }
  }

  T.coach = { warningText };
})();
