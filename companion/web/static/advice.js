/* tafl-companion page: the computer's thoughts and hints in words (window.T.advice), loaded
   when the computer first thinks or a hint is asked for. A score is the engine's estimate in
   soldiers (one soldier: one piece) from one side's point of view; the page says which side
   stands better and by how much, never a bare signed number. */
"use strict";
(function () {
  const T = window.T;
  const { _, num } = T;
  const per = T.play.per;

  /* An engine score in words: which side stands better and by how many soldiers (the
     engine's unit: one soldier is one piece). `v` is from `side`'s point of view; beyond
     ±900 it is a forced result. */
  function evalText(v, side) {
    if (v === undefined || v === null) return "";
    const better = v >= 0 ? side : T.other(side), n = Math.abs(v);
    if (n >= 900) return per(better, _("the attackers can force a win"), _("the defenders can force a win"));
    if (n < 0.25) return _("the position is about even");
    const a = { n: num(n, 1) };
    return per(better, _("the attackers stand better by {n} soldiers", a), _("the defenders stand better by {n} soldiers", a));
  }
  function thoughtText(th) {
    const a = { move: th.best || "?", depth: th.depth || "?", eval: evalText(th.score, th.side) };
    return a.eval ? _("Best move so far {move} (depth {depth}): {eval}.", a) : _("Best move so far {move} (depth {depth}).", a);
  }
  function hintText(h) {
    const a = { from: h.from, to: h.to, eval: evalText(h.score, h.side) };
    if (h.side === "attackers") return a.eval ? _("Hint for the attackers: {from} to {to}; {eval}.", a) : _("Hint for the attackers: {from} to {to}.", a);
    return a.eval ? _("Hint for the defenders: {from} to {to}; {eval}.", a) : _("Hint for the defenders: {from} to {to}.", a);
  }
  const hintsUsedText = (u) => _("Hints used: attackers {a}, defenders {d}", { a: u.attackers || 0, d: u.defenders || 0 });


  T.advice = { evalText, thoughtText, hintText, hintsUsedText };
})();
