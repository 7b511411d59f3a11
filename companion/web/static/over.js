/* tafl-companion page: after a game (window.T.over), loaded when a game ends. Under the result
   (app.js writes it) the match's standing and what to do next, in view on a phone: the owner
   gets the next game of the match, or a new game (or match) with the same players, variant and
   clock in one tap, and the way to other settings; a player learns who starts the next game. */
"use strict";
(function () {
  const T = window.T;
  const { _, esc } = T;
  const $ = (id) => document.getElementById(id);

  function render(S, me) {
    const m = S.match;
    $("overmatch").hidden = !m;
    if (m) $("overmatch").textContent = T.play.matchText(m);
    const row = $("overrow"), key = [S.game, me.role, !!(m && m.next), !!(m && m.finished)].join(":");
    if (row.dataset.key === key) return;
    row.dataset.key = key;
    const btn = (act, text, cls) => `<button type="button" data-over="${act}"${cls ? ` class="${cls}"` : ""}>${esc(text)}</button>`;
    let html = "";
    if (me.role === "owner") {
      const again = _("New game, same players"), settings = _("Other settings…");
      if (m && m.next) html = btn("next", _("Next game of the match"), "main");
      else if (m) html = btn("match", _("New match, same players"), "main") + btn("again", again);
      else html = btn("again", again, "main");
      html += btn("settings", settings, "link");
    } else if (me.role === "player") {
      const who = m && m.next ? _("The owner starts the next game of the match.") : _("The owner starts the next game.");
      html = `<span class="small">${esc(who)}</span>`;
    }
    row.innerHTML = html;
  }

  const DONE = {
    next: () => _("The next game of the match has started."),
    match: () => _("A new match has started."),
    again: () => _("New game started."),
  };

  $("overrow").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-over]");
    if (!b) return;
    const act = b.dataset.over;
    if (act === "settings") {
      $("controls").open = true;
      $("newgame").open = true;
      $("newgame").scrollIntoView({ block: "start", behavior: "smooth" });
      return;
    }
    b.disabled = true;
    const call = act === "next" ? T.api("/api/next", {}) : T.api("/api/new", act === "match" ? { match: true } : {});
    call.then(() => T.live.ctlMsg(DONE[act]())).catch(T.refused).then(() => { b.disabled = false; });
  });

  T.over = { render };
})();
