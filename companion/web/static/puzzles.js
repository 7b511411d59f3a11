/* Puzzles on the real board (GET /api/puzzles, POST /api/puzzle, docs/coach.md): the library of
   a variant with goal, length and rating, the player's rating, and while a puzzle is played what
   the board said of each move. Loaded when the list is opened or a puzzle is on. */
(function () {
  "use strict";
  const { _ } = T;
  const $ = (id) => document.getElementById(id);
  let asked = "";
  let variants = null;

  /* the list's parts, made once (kept out of the page's first load) */
  const box = $("puzzles");
  const vrow = document.createElement("p");
  vrow.className = "row";
  const vlabel = document.createElement("label");
  vlabel.htmlFor = "puzzlevariant";
  vlabel.textContent = _("Variant");
  const vsel = document.createElement("select");
  vsel.id = "puzzlevariant";
  vrow.append(vlabel, " ", vsel);
  const player = document.createElement("p");
  player.id = "puzzleplayer";
  player.className = "small";
  const table = document.createElement("table");
  table.id = "puzzletable";
  table.className = "explorer";
  table.appendChild(document.createElement("tbody"));
  box.append(vrow, player, table);
  const line = document.createElement("p");   // what the board says while a puzzle is on
  line.id = "puzzleline";
  line.hidden = true;
  document.getElementById("matchline").after(line);

  function sideText(side) { return side === "attackers" ? _("the attackers") : _("the defenders"); }

  function goalText(goal, n) {
    if (goal === "escape") return T.ngettext("the king escapes in {n} move", "the king escapes in {n} moves", n, { n });
    if (goal === "capture") return T.ngettext("capture the king in {n} move", "capture the king in {n} moves", n, { n });
    return T.ngettext("win in {n} move", "win in {n} moves", n, { n });
  }

  function whyText(why) {
    if (why === "escape") return _("the king escapes");
    if (why === "capture") return _("the king is captured");
    if (why === "win") return _("the other side wins");
    return _("the goal cannot be reached in the moves left");
  }

  function playerText(p) {
    if (p.rating === null || p.rating === undefined) return _("Your puzzle rating: none yet (Elo, from 1500).");
    return _("Your puzzle rating: {r} ({solved} of {attempts} solved).",
      { r: Math.round(p.rating), solved: p.solved, attempts: p.attempts });
  }

  function row(p, owner) {
    const tr = document.createElement("tr");
    tr.dataset.puzzle = p.id;
    for (const c of [sideText(p.side) + ": " + goalText(p.goal, p.moves), String(p.rating)]) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    if (owner) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = _("Start");
      b.addEventListener("click", () => T.api("/api/puzzle", { id: p.id }).catch(T.refused));
      td.appendChild(b);
    }
    tr.appendChild(td);
    return tr;
  }

  function fillVariants(S) {
    const sel = $("puzzlevariant");
    if (variants === null) {
      variants = [];
      T.getJSON("/api/variants").then((j) => {
        variants = j.variants;
        sel.replaceChildren(...variants.map((v) => new Option(v.name, v.id)));
        sel.value = S.variant;
        list(S, T.live.me().role === "owner", true);
      }, () => { variants = null; });
    }
  }

  function list(S, owner, force) {
    const box = $("puzzles");
    if (!box.open) return;
    fillVariants(S);
    const variant = $("puzzlevariant").value || S.variant;
    const key = variant + "|" + owner + "|" + (S.puzzle ? S.puzzle.status : "");
    if (!force && key === asked) return;
    asked = key;
    T.getJSON("/api/puzzles?variant=" + encodeURIComponent(variant)).then((j) => {
      $("puzzletable").querySelector("tbody").replaceChildren(...j.puzzles.slice(0, 50).map((p) => row(p, owner)));
      $("puzzleplayer").textContent = (j.puzzles.length ? "" : _("No puzzles for this variant yet.") + " ") + playerText(j.player);
    }, () => { asked = ""; });
  }

  function status(S) {
    const p = S.puzzle;
    line.hidden = !p;
    if (!p) return;
    const head = _("Puzzle: {side} to play, {goal}.", { side: sideText(p.side), goal: goalText(p.goal, p.moves) });
    const last = p.last;
    let text;
    if (p.status === "playing" && p.setup) text = _("Set the position up as the lights show.");
    else if (p.status === "playing" && !last) text = _("Your move.");
    else if (p.status === "playing") text = _("Right: {move}. The answer: {answer}. Your move.", { move: last.move, answer: last.answer });
    else if (p.status === "solved") text = _("Solved with {move}!", { move: last.move });
    else if (p.status === "failed") {
      text = last.answer
        ? _("Not the solution: {move}. The answer {answer} shows why: {why}. The solution was {solution}.",
          { move: last.move, answer: last.answer, why: whyText(last.why), solution: last.solution })
        : _("Not the solution: {move}. The solution was {solution}.", { move: last.move, solution: last.solution });
    } else text = _("The puzzle was left: its answer was not made.");
    const rating = p.player_rating !== null ? " " + _("Your puzzle rating: {r}.", { r: Math.round(p.player_rating) }) : "";
    line.textContent = head + " " + text + rating + (p.comment ? " — " + p.comment : "");
    line.className = "matchline puzzle-" + p.status;
  }

  function render(S) {
    status(S);
    list(S, T.live.me().role === "owner", false);
  }

  $("puzzlevariant").addEventListener("change", () => { const S = T.live.state(); if (S) list(S, T.live.me().role === "owner", true); });
  T.puzzles = { render };
})();
