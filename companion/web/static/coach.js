/* tafl-companion page: the coach's warning (window.T.coach), loaded with the first warning.
   A warning (/api/state coach.warning) says which move of the coached side loses, how (the
   king escapes, the king is captured, another forced loss, or a drop of the evaluation in
   soldiers), in how many of the opponent's moves, and an example reply; the owner is offered
   the takeback (POST /api/takeback). docs/coach.md */
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

  let box = null, text = null, back = null;
  function render() {
    const S = T.live.state(), me = T.live.me(), w = S.coach && S.coach.warning;
    if (!box) {   // under the guidance, beside the raichi line
      box = document.createElement("div");
      box.id = "coachbox";
      box.className = "coachbox";
      box.setAttribute("role", "alert");
      document.getElementById("threat").after(box);
      text = document.createElement("p");
      back = document.createElement("button");
      back.type = "button";
      back.id = "coachback";
      back.textContent = _("Take the move back");
      back.addEventListener("click", () => { T.api("/api/takeback", {}).catch(T.refused); });
      const row = document.createElement("div");
      row.className = "row";
      row.appendChild(back);
      box.append(text, row);
    }
    box.hidden = !w;
    if (!w) return;
    text.textContent = warningText(w);
    back.hidden = me.role !== "owner" || S.result !== "ongoing";
  }

  T.coach = render;   // app.js calls it at each state
  T.coach.text = warningText;
})();
