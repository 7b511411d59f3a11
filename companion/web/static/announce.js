/* tafl-companion page: announcements, so players can keep their eyes on the board.
   Sounds made with WebAudio (no sound files), moves and messages spoken by the browser's
   speech synthesis in the page's language, vibration on phones, and raichi/tuichi warnings.
   Each is a setting of this browser (localStorage); sound, speech and vibration start off. */
"use strict";
(function () {
  const { _, I, store, sideName, resultText, listText } = window.T;
  const DEFAULTS = { sound: false, speech: false, vibrate: false, threats: true, thoughts: false };
  const settings = Object.assign({}, DEFAULTS, store.get("announce", {}));
  const log = (window.taflAnnounced = []);   // what was announced (tests read it)
  let ctx = null;

  function audio() {
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }

  /* notes: [[frequency Hz, start s, length s, wave], ...] */
  function play(notes) {
    const a = audio();
    if (!a) return;
    const t0 = a.currentTime + 0.01;
    for (const [f, at, len, wave] of notes) {
      const o = a.createOscillator(), g = a.createGain();
      o.type = wave || "sine";
      o.frequency.value = f;
      g.gain.setValueAtTime(0.0001, t0 + at);
      g.gain.exponentialRampToValueAtTime(0.25, t0 + at + 0.01);
      g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      o.connect(g).connect(a.destination);
      o.start(t0 + at);
      o.stop(t0 + at + len + 0.02);
    }
  }

  const SOUNDS = {
    move: [[660, 0, 0.08, "triangle"]],
    capture: [[880, 0, 0.09, "triangle"], [520, 0.1, 0.16, "triangle"]],
    illegal: [[160, 0, 0.22, "square"], [160, 0.3, 0.22, "square"]],
    end: [[523, 0, 0.18], [659, 0.18, 0.18], [784, 0.36, 0.4]],
    threat: [[1175, 0, 0.07], [1175, 0.12, 0.07]],
  };
  const BUZZ = { move: 30, capture: [40, 60, 40], illegal: [200, 100, 200], end: [400], threat: [60, 60, 60] };

  function speak(text, lang) {
    const s = window.speechSynthesis;
    if (!s || !window.SpeechSynthesisUtterance) return;
    const u = new SpeechSynthesisUtterance(text);
    u.lang = lang || I.lang;
    const voice = s.getVoices().find((v) => v.lang && v.lang.toLowerCase().startsWith(u.lang));
    if (voice) u.voice = voice;
    s.speak(u);
  }

  /* One announcement: a sound, a vibration and/or words, as the settings say. A board with a
     voice (its state's "voice") says its own sentences: the page then speaks those (below)
     instead of its own words, so both say the same. */
  let boardVoice = false;
  function announce(kind, text) {
    log.push({ kind: kind, text: text });
    if (log.length > 50) log.shift();
    if (settings.sound) play(SOUNDS[kind] || SOUNDS.move);
    if (settings.vibrate && navigator.vibrate) navigator.vibrate(BUZZ[kind] || 30);
    if (settings.speech && text && !boardVoice) speak(text);
  }

  /* The board's voice: what it said since the last state (voice.said, oldest first), spoken by
     this browser when speech is on, and put in the live region a screen reader announces. */
  let saidUpTo = null;
  function followVoice(S) {
    const voice = S.voice;
    boardVoice = !!voice;
    const region = document.getElementById("voicesaid");
    if (!voice) { saidUpTo = null; return; }
    const said = voice.said || [];
    const fresh = saidUpTo === null ? [] : said.filter((x) => x.t > saidUpTo);
    if (said.length) saidUpTo = Math.max(saidUpTo || 0, said[said.length - 1].t);
    for (const x of fresh) {
      log.push({ kind: "voice", text: x.text });
      if (log.length > 50) log.shift();
      if (settings.speech) speak(x.text, voice.language);
    }
    if (region && fresh.length) region.textContent = fresh.map((x) => x.text).join(" ");
  }

  function moveWords(last) {
    const words = _("{side}: {from} to {to}", { side: sideName(last.side), from: last.from, to: last.to });
    return last.captured && last.captured.length
      ? _("{move}, captures {squares}", { move: words, squares: listText(last.captured) }) : words;
  }

  const threatWords = (t) => (t.kind === "tuichi"
    ? _("Tuichi: the king has free lines to {squares}", { squares: listText(t.squares) })
    : _("Raichi: the king has a free line to {squares}", { squares: listText(t.squares) }));

  /* Compare two live states and announce what happened between them. */
  function onState(prev, S, message, illegal) {
    followVoice(S);
    if (!prev || prev.game !== S.game) return;
    const over = S.result !== "ongoing";
    if (S.moves.length > prev.moves.length && S.last) {
      announce(S.last.captured && S.last.captured.length ? "capture" : "move", moveWords(S.last));
    }
    if (illegal && !onState.illegal) announce("illegal", message);
    onState.illegal = illegal;
    if (over && prev.result === "ongoing") announce("end", resultText(S.result, S.reason));
    const t = settings.threats && !over ? S.threat : null;
    const key = t ? t.kind + t.squares.join() : "";
    if (key && key !== onState.threat) announce("threat", threatWords(t));
    onState.threat = key;
  }

  function set(name, on) {
    settings[name] = !!on;
    store.set("announce", settings);
    if (on && name === "sound") { audio(); play(SOUNDS.move); }   // a user gesture unlocks audio
    if (on && name === "speech") speak(_("Spoken announcements are on."));
    if (on && name === "vibrate" && navigator.vibrate) navigator.vibrate(BUZZ.move);
  }

  window.T.announce = { settings, set, onState, announce, threatWords };
})();
