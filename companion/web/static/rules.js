/* tafl-companion page: the short rules card of a rule set (board, who starts, moving,
   capturing, how each side wins), written from the rule set's values, so every preset and any
   imported rule set gets one, in the page's language. */
"use strict";
(function () {
  const { _, ngettext, esc, parseOtn, variantName } = window.T;

  function counts(rules) {
    const c = { t: 0, T: 0, K: 0 };
    const pos = parseOtn(rules.start, rules.size);
    for (const sq in pos) c[pos[sq]] += 1;
    return c;
  }

  function hostileTo(list) {
    const who = [];
    if (list.includes("attackers")) who.push(_("the attackers"));
    if (list.includes("defenders")) who.push(_("the defenders"));
    if (list.includes("king")) who.push(_("the king"));
    return window.T.listText(who);
  }

  /* [[heading, [sentence, ...]], ...] */
  function sections(r) {
    const c = counts(r);
    const board = [
      _("A board of {n}×{n} squares.", { n: r.size }),
      _("{attackers} against {defenders} and their king.", {
        attackers: ngettext("{n} attacker", "{n} attackers", c.t),
        defenders: ngettext("{n} defender", "{n} defenders", c.T),
      }),
      r.first === "attackers" ? _("The attackers move first.") : _("The defenders move first."),
    ];
    const move = [_("Every piece moves like a rook in chess: any number of empty squares along a row or column, never jumping.")];
    if (r.throne_stop === "anyone") move.push(_("There is no throne: the centre is an ordinary square."));
    else {
      move.push({
        king: _("Only the king may stop on the throne, the centre square."),
        king_once: _("Only the king may stop on the throne, and once he has left it nobody may stop there again."),
        nobody: _("The king starts on the throne and may never return to it."),
      }[r.throne_stop]);
      move.push({
        all: _("Any piece may pass over the empty throne."),
        king: _("Only the king may pass over the empty throne."),
        nobody: _("No piece may pass over the empty throne."),
      }[r.throne_pass]);
    }
    if (r.corners === "single") move.push(_("Only the king may enter the four corner squares."));
    if (r.corners === "block") move.push(_("Only the king may enter the 2×2 blocks in the corners."));
    const capture = [_("A piece is captured when the opponent moves to enclose it between two of his pieces along a row or column. Moving between two enemies is safe.")];
    if (r.corners !== "none" && r.hostile_corners.length) {
      capture.push(_("The corner squares count as enemy pieces against {whom}.", { whom: hostileTo(r.hostile_corners) }));
    }
    if (r.throne_stop !== "anyone" && r.hostile_throne_empty.length) {
      capture.push(_("The empty throne counts as an enemy piece against {whom}.", { whom: hostileTo(r.hostile_throne_empty) }));
    }
    capture.push({
      strong: _("The king is captured by attackers on all four sides (three beside the throne, the throne being the fourth); never on the edge."),
      strong_by_throne: _("On or beside the throne the king must be surrounded on all four sides (the throne counts as one); elsewhere two attackers capture him like any piece."),
      weak: _("The king is captured like any piece, between two attackers."),
    }[r.king_strength]);
    capture.push(r.king_armed ? _("The king helps to capture.") : _("The king is unarmed: he cannot help to capture."));
    if (r.shieldwall !== "off") {
      capture.push(r.shieldwall === "corners"
        ? _("Shieldwall: a row of pieces along the edge, each with an enemy in front of it, is captured by closing both ends of the row; a corner may close one end.")
        : _("Shieldwall: a row of pieces along the edge, each with an enemy in front of it, is captured by closing both ends of the row."));
    }
    if (r.linnaean_capture) capture.push(_("A defender beside the king on the throne is captured against the throne when attackers enclose the king on his three other sides."));
    if (r.sheltered_king) capture.push(_("Option: the king and a defender sheltering him are captured together when both are completely surrounded."));
    if (r.chain_capture) capture.push(_("Option: in a row of alternating pieces, the move that closes the row captures every enemy piece in it."));
    const win = [];
    const goal = r.escape === "edge" ? _("any square on the edge of the board")
      : r.corners === "block" ? _("a corner block") : _("a corner square");
    win.push(_("The defenders win when the king reaches {goal}.", { goal: goal }));
    if (r.exit_fort) win.push(_("The defenders also win when the king stands on the edge, can move, and is enclosed by defenders that can never be captured (an exit fort)."));
    win.push(_("The attackers win by capturing the king."));
    if (r.encirclement) win.push(_("The attackers also win by surrounding all the defenders so that none can reach the edge."));
    if (r.repetition === "draw") win.push(_("A position repeated for the third time is a draw."));
    if (r.repetition === "defenders_lose") win.push(_("If the defenders repeat a position for the third time, the attackers win."));
    win.push(r.no_moves === "draw" ? _("A side that cannot move draws the game.") : _("A side that cannot move loses."));
    win.push(_("The players may agree to a draw at any time."));
    return [[_("Board"), board], [_("Moving"), move], [_("Capturing"), capture], [_("Winning"), win]];
  }

  /* The card of a rule set; ``house``: the game's house rules (options changed from the
     variant's), named in the title, the sentences written from them. */
  function rulesCard(rules, id, house) {
    const changed = house && Object.keys(house).length;
    const name = variantName(id || rules.id, rules.name);
    const title = changed ? _("{variant} with house rules", { variant: name }) : name;
    if (changed) rules = Object.assign({}, rules, house);
    return `<h2>${esc(title)}</h2>` + sections(rules).map(([head, list]) =>
      `<h3>${esc(head)}</h3><ul>${list.filter(Boolean).map((s) => `<li>${esc(s)}</li>`).join("")}</ul>`).join("");
  }

  let cache = null;
  /* Open the rules card dialog for a preset id (or a rules object, e.g. a review's). */
  function showRules(what, house) {
    const dlg = document.getElementById("rulescard");
    const fill = (rules) => {
      document.getElementById("rulestext").innerHTML = rulesCard(rules, typeof what === "string" ? what : rules.id, house);
      if (dlg.showModal) { if (!dlg.open) dlg.showModal(); } else dlg.setAttribute("open", "");
    };
    if (typeof what === "object") { fill(what); return; }
    (cache ? Promise.resolve(cache) : window.T.getJSON("/api/rules").then((j) => (cache = j.rules)))
      .then((all) => { if (all[what]) fill(all[what]); });
  }

  window.T.rulesCard = rulesCard;
  window.T.showRules = showRules;
})();
