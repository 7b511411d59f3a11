/* The opening explorer beside the board (GET /api/explorer, docs/coach.md): the moves played in
   the position on the board in real games and in this board's own, with how those games ended.
   Loaded when the reader opens it; follows the game while it stays open. */
(function () {
  "use strict";
  const { _ } = T;
  let asked = "";

  function key(S) { return S.variant + "|" + (S.moves || []).join(","); }

  function row(m) {
    const tr = document.createElement("tr");
    const pct = (n) => (m.games ? Math.round((100 * n) / m.games) + "%" : "–");
    const games = T.ngettext("{n} game", "{n} games", m.games, { n: m.games });
    const cells = [m.move, games,
      _("attackers {p}", { p: pct(m.attackers) }), _("defenders {p}", { p: pct(m.defenders) })];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    return tr;
  }

  function render(S) {
    const box = document.getElementById("explorer");
    if (!box.open || !S || key(S) === asked) return;
    asked = key(S);
    const moves = (S.moves || []).map((m) => m.split("x")[0]).join(",");
    const url = "/api/explorer?variant=" + encodeURIComponent(S.variant) + "&moves=" + encodeURIComponent(moves);
    T.getJSON(url).then((j) => {
      const body = document.querySelector("#explorertable tbody");
      body.replaceChildren(...j.moves.map(row));
      const src = document.getElementById("explorersrc");
      if (j.note) src.textContent = _("No games of this variant are known yet: the explorer fills as you play.");
      else if (!j.moves.length) src.textContent = _("No game reached this position.");
      else src.textContent = _("From: {sources}", { sources: j.sources.join("; ") });
    }, () => { asked = ""; });
  }

  T.explorer = { render };
})();
