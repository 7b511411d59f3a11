/* tafl-companion page: a check of the pieces' kinds (window.T.check), loaded when the daemon
   asks for one. A board with reed switches cannot tell attackers from defenders, so at set-up,
   after a takeback by hand and after a restart the tracker's guidance (check_pieces, above the
   board) names where the game believes the defenders and the king stand, and the LEDs (drawn on
   the board here too) light them; a player or the owner answers here (POST /api/colours), and
   the next move answers it too. */
"use strict";
(function () {
  const T = window.T;
  const { _, esc } = T;
  const $ = (id) => document.getElementById(id);

  function render(S, me) {
    const box = $("colourcheck"), asked = !!S.guidance && S.guidance.kind === "check_pieces";
    const can = me.role === "owner" || me.role === "player";
    box.hidden = !(asked && can);
    if (box.hidden || box.childElementCount) return;
    const ok = _("The pieces are right");
    box.innerHTML = `<button type="button" data-check="ok">${esc(ok)}</button>`;
  }

  $("colourcheck").addEventListener("click", (ev) => {
    if (!ev.target.closest("button[data-check]")) return;
    T.api("/api/colours", {}).catch(T.refused);
  });

  T.check = { render };
})();
