/* tafl-companion page, shared part (window.T): the page's language, words built from data,
   and the board drawing used by the live view and the review. No framework, no build step.
   Sentences come from the catalogue the server sends (/i18n/<lang>.js, gettext .po files):
   _("..."), ngettext(...), pgettext(ctx, ...) and N_ (mark only) are what `pybabel extract`
   collects; placeholders are {name}. The catalogue is keyed by a hash of the English text
   (FNV-1a over its UTF-16 code units, base 36; companion/i18n key_hash), not the text itself. */
"use strict";
(function () {
  const I = window.TAFL_I18N || { lang: "en", plural: { one: 0, other: 1 }, m: {} };
  const M = I.m;
  const PR = window.Intl && Intl.PluralRules ? new Intl.PluralRules(I.lang) : null;
  /* Dates and times as the browser's own locale writes them, when it speaks the page's language
     (en-GB: "21:56", not en-US's "09:56 PM"); else the page's language. */
  const LOCALE = (navigator.languages || [navigator.language || ""]).find((l) =>
    String(l).toLowerCase().split("-")[0] === I.lang) || I.lang;
  const fmt = (s, a) => (a ? s.replace(/\{(\w+)\}/g, (m, k) => (k in a ? a[k] : m)) : s);
  const H = new Map();
  function hash(k) {
    let h = H.get(k);
    if (h === undefined) {
      h = 0x811c9dc5;
      for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193) >>> 0;
      h = h.toString(36);
      H.set(k, h);
    }
    return h;
  }
  const tr = (k, s) => { const t = M[hash(k)]; return typeof t === "string" ? t : s; };
  const _ = (s, a) => fmt(tr(s, s), a);
  const N_ = (s) => s;
  const pgettext = (c, s, a) => fmt(tr(c + "\u0004" + s, s), a);
  function ngettext(s, p, n, a) {
    const forms = M[hash(s)];
    let t = n === 1 ? s : p;
    if (Array.isArray(forms)) {
      const i = I.plural[PR ? PR.select(n) : n === 1 ? "one" : "other"];
      t = forms[i === undefined ? forms.length - 1 : i];
    }
    return fmt(t, Object.assign({ n: n }, a));
  }
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");

  /* A number as the page's language writes it ("3.2", "3,2"), with a real minus sign;
     `digits` decimals (default 1), at least `least` of them (default: as many). */
  const NF = {};
  function num(v, digits, least) {
    const d = digits === undefined ? 1 : digits, l = least === undefined ? d : least, k = d + ":" + l;
    if (!NF[k]) {
      try { NF[k] = new Intl.NumberFormat(I.lang, { minimumFractionDigits: l, maximumFractionDigits: d }); }
      catch (e) { NF[k] = { format: (x) => x.toFixed(d) }; }
    }
    const text = NF[k].format(+v);
    return /^-0([.,]0*)?$/.test(text) ? text.slice(1) : text.replace(/^-/, "\u2212");
  }
  const signed = (v, digits) => (+v > 0 && num(v, digits) !== num(0, digits) ? "+" : "") + num(v, digits);

  /* The names the daemon gives a side nobody named, in this page's language (a name a person
     typed is shown as typed). */
  const DEFAULT_NAME = { "Player 1": N_("Player 1"), "Player 2": N_("Player 2"), Computer: N_("Computer") };
  const playerName = (name) => (DEFAULT_NAME[name] ? _(DEFAULT_NAME[name]) : name);
  const sqName = (f, r) => String.fromCharCode(97 + f) + (r + 1);
  const other = (side) => (side === "attackers" ? "defenders" : "attackers");

  /* ---- words from data ---- */
  const SIDE = { attackers: N_("Attackers"), defenders: N_("Defenders") };
  const sideName = (side) => (SIDE[side] ? _(SIDE[side]) : side);
  const TO_MOVE = { attackers: N_("Attackers to move"), defenders: N_("Defenders to move") };
  const WIN = { attackers: N_("Attackers win"), defenders: N_("Defenders win") };
  const REASON = {
    king_captured: N_("the king was captured"),
    escape: N_("the king escaped"),
    exit_fort: N_("the king built an unbreakable exit fort"),
    encirclement: N_("the attackers encircled every defender"),
    repetition: N_("the position occurred a third time"),
    no_moves: N_("the side to move had no legal move"),
    agreement: N_("both players agreed to a draw"),
    abandoned: N_("abandoned: a new game was started"),
    imported: N_("imported, unfinished"),
  };
  const RESIGNED = { attackers: N_("the attackers resigned"), defenders: N_("the defenders resigned") };
  const TIMED_OUT = { attackers: N_("the attackers ran out of time"), defenders: N_("the defenders ran out of time") };
  const PIECE = { t: N_("attacker"), T: N_("defender"), K: N_("king") };

  /* Why a game ended, from the reason code (older daemons sent English: shown as it is). */
  function reasonText(reason, result) {
    if (!reason) return "";
    const loser = result === "attackers" ? "defenders" : "attackers";
    if (reason === "resignation") return result === "draw" ? "" : _(RESIGNED[loser]);
    if (reason === "time") return _(TIMED_OUT[loser]);
    return REASON[reason] ? _(REASON[reason]) : reason;
  }

  /* "Defenders win: the king escaped" / "Draw: ..." / "" while the game goes on. */
  function resultText(result, reason) {
    if (!result || result === "ongoing") return reason ? reasonText(reason, result) : "";
    const head = result === "draw" ? _("Draw") : _(WIN[result]);
    const why = reasonText(reason, result);
    return why ? _("{result}: {reason}", { result: head, reason: why }) : head;
  }

  function pieceCount(piece, n) {
    if (piece === "K") return _("the king");
    return piece === "t" ? ngettext("{n} attacker", "{n} attackers", n)
      : ngettext("{n} defender", "{n} defenders", n);
  }

  /* "2 defenders and the king" from piece letters */
  function piecesText(letters) {
    const count = { t: 0, T: 0, K: 0 };
    letters.forEach((p) => { count[p] = (count[p] || 0) + 1; });
    const parts = ["t", "T", "K"].filter((p) => count[p]).map((p) => pieceCount(p, count[p]));
    return listText(parts);
  }

  /* A game's house rules (the options changed from its variant's), a few words each. */
  const HOUSE = {
    sheltered_king: { true: N_("sheltered king"), false: N_("no sheltered king") },
    chain_capture: { true: N_("chain capture"), false: N_("no chain capture") },
    king_armed: { true: N_("armed king"), false: N_("unarmed king") },
    escape: { corners: N_("escape to the corners"), edge: N_("escape to any edge square") },
    repetition: { off: N_("repetition allowed"), draw: N_("repetition is a draw"), defenders_lose: N_("repetition loses for the defenders") },
  };
  /* Rules an imported game may differ in from its preset besides the house rules (an OpenTafl
     file's rules string, docs/rules.md): shown, never offered for a new game. */
  const IMPORTED = {
    first: { attackers: N_("the attackers move first"), defenders: N_("the defenders move first") },
    encirclement: { true: N_("encirclement wins"), false: N_("no encirclement") },
    no_moves: { loss: N_("no moves loses"), draw: N_("no moves is a draw") },
    exit_fort: { true: N_("exit forts win"), false: N_("no exit forts") },
    linnaean_capture: { true: N_("Linnaean capture"), false: N_("no Linnaean capture") },
    shieldwall: { off: N_("no shieldwall"), on: N_("shieldwall"), corners: N_("shieldwall closed by corners") },
    king_strength: { strong: N_("strong king"), strong_by_throne: N_("king strong by the throne"), weak: N_("weak king") },
    hostile_throne_empty: { "": N_("the empty throne hostile to nobody") },
    hostile_corners: { "": N_("corners hostile to nobody") },
  };
  function houseRulesText(options) {
    const keys = Object.keys(options || {}), order = Object.keys(HOUSE).concat(Object.keys(IMPORTED));
    keys.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
    const parts = keys.map((k) => {
      const words = HOUSE[k] || IMPORTED[k];
      const w = words && words[String(options[k])];
      return w ? _(w) : k + ": " + options[k];
    });
    return parts.length ? _("House rules: {rules}", { rules: listText(parts) }) : "";
  }

  function listText(parts) {
    if (parts.length < 2) return parts.join("");
    return _("{first} and {last}", { first: parts.slice(0, -1).join(", "), last: parts[parts.length - 1] });
  }

  const VARIANT = {
    copenhagen: N_("Copenhagen Hnefatafl"), fetlar: N_("Fetlar Hnefatafl"),
    koenigszabel: N_("Königszabel Hnefatafl"), "helmfrid-11": N_("Helmfrid Hnefatafl"),
    "helmfrid-9": N_("Helmfrid Hnefatafl"), tablut: N_("Tablut"),
    "tablut-linnaeus": N_("Tablut, weak king"), brandubh: N_("Brandubh"), "ard-ri": N_("Ard Rí"),
    tawlbwrdd: N_("Tawlbwrdd"), "copenhagen-13": N_("Copenhagen Hnefatafl"),
    "alea-evangelii": N_("Alea Evangelii"),
    "hnefatafl-org": N_("Copenhagen Hnefatafl (hnefatafl.org)"), "hnefatafl-org-13": N_("Hnefatafl 13×13 (hnefatafl.org)"),
    "hnefatafl-org-7": N_("Brandubh (hnefatafl.org)"),
  };
  const variantName = (id, fallback) => (VARIANT[id] ? _(VARIANT[id]) : fallback || id);
  const variantLabel = (id, size, fallback) => variantName(id, fallback) + (size ? " · " + size + "×" + size : "");

  /* ---- positions ---- */
  /* OTN: records separated by "/", the first record is rank 1; digits count empty squares. */
  function parseOtn(otn, n) {
    const out = {};
    const rows = otn.split("/").filter((x, i, a) => !(x === "" && (i === 0 || i === a.length - 1)));
    rows.forEach((row, r) => {
      let f = 0;
      for (const m of row.match(/\d+|[tTK]/g) || []) {
        if (/\d/.test(m)) f += parseInt(m, 10);
        else { if (f < n && r < n) out[sqName(f, r)] = m; f += 1; }
      }
    });
    return out;
  }

  /* ---- the board drawing ----
     g: {size, throne, corners, pos (square -> piece), occ (Set of sensed squares, live only),
         leds {square: role}, last {from, to}, taken [{square, piece}] (pieces the last move
         captured, drawn faded), threat {king, squares}, pick {from, to: [{to, captures}]} (a
         chosen piece and its legal targets), back [{piece, from, to}] (pieces a takeback
         carries back: drawn where they stand, with an arrow home), clear [squares] (a set-up
         asks to empty them: an unknown piece there is marked ×, not ?), flip} */
  function drawBoard(svg, g) {
    const n = g.size, flip = g.flip;
    const xy = (sq) => {
      const f = sq.charCodeAt(0) - 97, r = parseInt(sq.slice(1), 10) - 1;
      return flip ? [n - 1 - f, r] : [f, n - 1 - r];
    };
    const pos = g.pos, leds = g.leds || {}, occ = g.occ;
    const special = new Set(g.corners.concat(g.throne ? [g.throne] : []));
    const o = [];
    for (let f = 0; f < n; f++) {
      for (let r = 0; r < n; r++) {
        const sq = sqName(f, r), [x, y] = xy(sq);
        o.push(`<rect class="sq${special.has(sq) ? " special" : ""}" x="${x}" y="${y}" width="1" height="1"/>`);
        if (special.has(sq)) {
          o.push(`<path class="cross" d="M${x + .15} ${y + .15}L${x + .85} ${y + .85}M${x + .85} ${y + .15}L${x + .15} ${y + .85}"/>`);
        }
      }
    }
    // coordinates
    for (let i = 0; i < n; i++) {
      const f = flip ? n - 1 - i : i, r = flip ? i : n - 1 - i;
      o.push(`<text class="coord" x="${i + .5}" y="${n + .25}">${String.fromCharCode(97 + f)}</text>`);
      o.push(`<text class="coord" x="-.28" y="${i + .5}">${r + 1}</text>`);
    }
    const last = g.last;
    if (last) {
      const [x1, y1] = xy(last.from), [x2, y2] = xy(last.to);
      o.push(`<rect class="lmsq" x="${x1 + .06}" y="${y1 + .06}" width=".88" height=".88"/>`);
      o.push(`<rect class="lmsq" x="${x2 + .06}" y="${y2 + .06}" width=".88" height=".88"/>`);
      o.push(`<line class="lm" x1="${x1 + .5}" y1="${y1 + .5}" x2="${x2 + .5}" y2="${y2 + .5}"/>`);
    }
    // raichi / tuichi: the king's free lines
    if (g.threat) {
      const [kx, ky] = xy(g.threat.king);
      for (const sq of g.threat.squares) {
        const [x, y] = xy(sq);
        o.push(`<line class="threat" x1="${kx + .5}" y1="${ky + .5}" x2="${x + .5}" y2="${y + .5}"/>`);
        o.push(`<circle class="threat" cx="${x + .5}" cy="${y + .5}" r=".3"/>`);
      }
    }
    // the LED mirror
    for (const sq in leds) {
      // drawn with the piece (a ring: lift it)
      if (leds[sq] === "capture") continue;
      const [x, y] = xy(sq);
      o.push(`<rect class="led ${esc(leds[sq])}" x="${x + .05}" y="${y + .05}" width=".9" height=".9" rx=".12"/>`);
    }
    const squares = new Set(Object.keys(pos));
    if (occ) occ.forEach((s) => squares.add(s));
    const taken = {}, back = {}, clear = new Set(g.clear || []);
    (g.taken || []).forEach((c) => { taken[c.square] = c.piece; });
    (g.back || []).forEach((b) => { back[b.from] = b; });
    squares.forEach((sq) => {
      const [x, y] = xy(sq), cx = x + .5, cy = y + .5;
      let piece = pos[sq];
      if (!piece && leds[sq] === "capture" && taken[sq]) {
        // captured, still standing on the board: lift it
        piece = taken[sq];
      // a takeback: this piece goes home
      } else if (!piece && back[sq]) {
        const [tx, ty] = xy(back[sq].to);
        o.push(`<line class="backline" x1="${cx}" y1="${cy}" x2="${tx + .5}" y2="${ty + .5}"/>` +
          `<circle class="p ${back[sq].piece} moving" cx="${cx}" cy="${cy}" r=".38"/>`);
        if (back[sq].piece === "K") o.push(`<path class="kc" d="M${cx - .18} ${cy}H${cx + .18}M${cx} ${cy - .18}V${cy + .18}"/>`);
        return;
      // the sensors see a piece where the game has none
      } else if (!piece) {
        o.push(`<circle class="p ghost" cx="${cx}" cy="${cy}" r=".36"/><text class="q" x="${cx}" y="${cy}">${clear.has(sq) ? "×" : "?"}</text>`);
        return;
      }
      const lifted = occ && !occ.has(sq) ? " lifted" : "";
      o.push(`<circle class="p ${piece}${lifted}" cx="${cx}" cy="${cy}" r=".38"/>`);
      if (piece === "K") o.push(`<path class="kc" d="M${cx - .18} ${cy}H${cx + .18}M${cx} ${cy - .18}V${cy + .18}"/>`);
      if (leds[sq] === "capture") {
        o.push(`<circle class="liftring" cx="${cx}" cy="${cy}" r=".46"/>` +
          `<path class="lift" d="M${cx} ${cy + .2}V${cy - .2}M${cx - .13} ${cy - .07}L${cx} ${cy - .2}L${cx + .13} ${cy - .07}"/>`);
      }
    });
    // review: the pieces the move took, faded and struck
    if (!occ) {
      for (const sq in taken) {
        if (pos[sq]) continue;
        const [x, y] = xy(sq), cx = x + .5, cy = y + .5;
        o.push(`<circle class="p ${taken[sq]} gone" cx="${cx}" cy="${cy}" r=".38"/>` +
          `<path class="gonemark" d="M${cx - .22} ${cy + .22}L${cx + .22} ${cy - .22}"/>`);
      }
    }
    // a remote player's choice: the piece and its targets
    if (g.pick) {
      const [x, y] = xy(g.pick.from);
      o.push(`<rect class="pick" x="${x + .04}" y="${y + .04}" width=".92" height=".92" rx=".1"/>`);
      for (const t of g.pick.to) {
        const [tx, ty] = xy(t.to);
        o.push(`<circle class="tgt${t.captures && t.captures.length ? " cap" : ""}" cx="${tx + .5}" cy="${ty + .5}" r=".17"/>`);
      }
    }
    // illegal: a cross on the square
    for (const sq in leds) {
      if (leds[sq] !== "illegal") continue;
      const [x, y] = xy(sq);
      o.push(`<path class="mark" d="M${x + .25} ${y + .25}L${x + .75} ${y + .75}M${x + .75} ${y + .25}L${x + .25} ${y + .75}"/>`);
    }
    svg.setAttribute("viewBox", `-.56 -.06 ${n + .62} ${n + .62}`);
    /* The click targets on top are kept from one drawing to the next (moved and retitled in
       place): a tap whose press and release straddle a redraw (a live update) would otherwise
       land on a node that is gone, and be lost. */
    let art = svg.querySelector("g.art"), hits = svg.querySelector("g.hits");
    if (!art || !hits || hits.childElementCount !== n * n) {
      const h = [];
      for (let f = 0; f < n; f++) {
        for (let r = 0; r < n; r++) h.push(`<rect class="hit" data-sq="${sqName(f, r)}" width="1" height="1"><title></title></rect>`);
      }
      svg.innerHTML = `<g class="art"></g><g class="hits">${h.join("")}</g>`;
      art = svg.querySelector("g.art"); hits = svg.querySelector("g.hits");
    }
    art.innerHTML = o.join("");
    for (const rect of hits.children) {
      const sq = rect.dataset.sq, [x, y] = xy(sq), title = rect.firstChild;
      const what = pos[sq] ? _("{piece} on {square}", { piece: _(PIECE[pos[sq]]), square: sq }) : sq;
      if (rect.getAttribute("x") !== String(x)) rect.setAttribute("x", x);
      if (rect.getAttribute("y") !== String(y)) rect.setAttribute("y", y);
      if (title.textContent !== what) title.textContent = what;
    }
  }

  /* ---- scripts loaded on demand (review, analysis, rules cards, the owner's forms), with the
     translations only they use (/i18n/<lang>-more.js) ---- */
  const HTML = document.documentElement.dataset;
  const loading = {};
  function script(src) {
    if (!loading[src]) {
      loading[src] = new Promise((ok, fail) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = ok;
        s.onerror = () => { delete loading[src]; fail(new Error(src)); };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }
  /* A small script of the first page (its words in the first catalogue, its rules in app.css),
     loaded only when needed: the board's panel (panel.js). */
  function loadSmall(name) { return script("/static/" + name + ".js?v=" + HTML.v); }
  let css = null;
  function styles() {
    if (!css) {
      css = new Promise((ok) => {
        const l = document.createElement("link");
        l.rel = "stylesheet";
        l.href = "/static/more.css?v=" + HTML.v;
        l.onload = l.onerror = ok;
        document.head.appendChild(l);
      });
    }
    return css;
  }
  function load(name) {
    const more = I.lang === "en" ? Promise.resolve() : script("/i18n/" + I.lang + "-more.js?v=" + HTML.i18nV);
    return Promise.all([more, styles()]).then(() => script("/static/" + name + ".js?v=" + HTML.v));
  }

  /* ---- small helpers shared by the views ---- */
  function getJSON(url) {
    return fetch(url, { cache: "no-store" }).then((r) => r.json().catch(() => ({})).then((j) => {
      if (!r.ok) throw new Error(j.error || r.status + " " + r.statusText);
      return j;
    }));
  }

  const store = {
    get(k, d) { try { const v = localStorage.getItem("tafl-" + k); return v === null ? d : JSON.parse(v); } catch (e) { return d; } },
    set(k, v) { try { localStorage.setItem("tafl-" + k, JSON.stringify(v)); } catch (e) { /* private mode */ } },
  };

  function dateText(t) {
    if (!t) return "";
    try {
      return new Date(t * 1000).toLocaleString(LOCALE, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) { return new Date(t * 1000).toLocaleString(); }
  }

  window.T = {
    I, LOCALE, _, N_, ngettext, pgettext, hash, fmt, esc, num, signed, playerName, sqName, other, sideName, TO_MOVE, WIN, reasonText,
    resultText, pieceCount, piecesText, listText, houseRulesText, HOUSE_RULES: Object.keys(HOUSE), PIECE, variantName, variantLabel, parseOtn,
    drawBoard, getJSON, store, dateText, load, loadSmall, flip: store.get("flip", false),
  };
})();
