// The Play view: one board in Assist mode (the player enters the real game's
// colours), Play mode (a hidden answer colours the tiles) or Absurdle (absurdle.js),
// and the next guess with its exact value and alternatives. Each game kind is an
// object (assist and play here, absurdle in absurdle.js, boards in boards.js):
//   start()      a new game of this kind (its answer, its greeting)
//   enter(word)  play a word the guess list has
//   advise()     fill the panel for the position now
//   undo()       take the last row back
// and, for the kinds of this view, `title` (the panel's), `scored` (the player
// sets the colours) and `rules` (the page's mode and cap apply, and the panel is
// the solver's). main.js picks the kind; nothing here asks which one it is.
import { $, $$, el, fmt, num, pct, plural, press } from "./dom.js";
import { JobRunner } from "./jobs.js";
import {
  L, S, backspace, block, cycleColour, feedback, fixSecret, markRecorded, markSolved, newRows,
  nextGameId, patText, pushRow, setAnalysis, setSecret, takeBack, typeLetter, typeWord,
} from "./state.js";
import { tile, wordTiles } from "./tiles.js";
import { forgetGame, remember, renderAfter, seenFull, setValue, toValue } from "./after.js";

export const playJob = new JobRunner($("#job-play"));

export const position = () => S.rows.map((r) => `${r.word}:${patText(r.colours)}`).join(",") || "-";
const maxRows = () => (S.cap > 0 && kind.rules ? S.cap : Math.max(6, S.rows.length + 1));
let analysisSeq = 0;

export function renderBoard() {
  const board = $("#board");
  board.replaceChildren();
  document.documentElement.style.setProperty("--len", L());  // every word's tiles
  S.rows.forEach((r, ri) => {
    const row = el("div", { class: "row done", "data-row": ri });
    for (let i = 0; i < L(); i++) row.append(tile(r.word[i], r.colours[i]));
    board.append(row);
  });
  const scored = kind.scored;  // Assist: the player sets the colours
  if (!S.solved && S.rows.length < maxRows()) {
    const row = el("div", { class: "row current" + (scored ? "" : " typing"), "data-row": S.rows.length });
    for (let i = 0; i < L(); i++) {
      const ch = S.cur.letters[i];
      // in Play and Absurdle the colours come after Enter: typed letters stay unscored
      const t = tile(ch, ch && scored ? S.cur.colours[i] : null, ch ? (scored ? "" : "typed") : "empty");
      t.dataset.i = i;
      t.addEventListener("click", () => cycle(i));
      row.append(t);
    }
    board.append(row);
  }
  for (let k = board.children.length; k < maxRows(); k++) {
    const row = el("div", { class: "row future" });
    for (let i = 0; i < L(); i++) row.append(tile("", null));
    board.append(row);
  }
  renderKeyboard();
  $("#btn-undo").disabled = S.rows.length === 0;
  $("#btn-submit").disabled = S.solved || S.cur.letters.length !== L() || S.blocked != null;
}

const KEY_STATE = ["not in the word", "in the word", "placed"];

// Each letter's best colour so far (green over yellow over grey): rows are
// consistent (a row no answer fits is refused before another is taken)
function renderKeyboard() {
  const known = {};
  for (const r of S.rows) [...r.word].forEach((ch, i) => {
    known[ch] = Math.max(known[ch] ?? -1, r.colours[i]);
  });
  const kb = $("#kbd");
  kb.replaceChildren();
  for (const line of ["qwertyuiop", "asdfghjkl", "<zxcvbnm>"]) {
    const row = el("div", { class: "krow" });
    for (const ch of line) {
      if (ch === "<") row.append(el("button", { class: "wide", text: "⌫", "aria-label": "backspace", onclick: () => key("Backspace") }));
      else if (ch === ">") row.append(el("button", { class: "wide", text: "enter", "aria-label": "enter", onclick: () => key("Enter") }));
      else row.append(el("button", { class: known[ch] != null ? `k${known[ch]}` : "", text: ch,
        "aria-label": ch.toUpperCase() + (known[ch] != null ? `, ${KEY_STATE[known[ch]]}` : ""),
        onclick: () => key(ch) }));
    }
    kb.append(row);
  }
}

export function say(text, kind = "") {
  const m = $("#play-msg");
  m.textContent = text;
  m.className = `msg ${kind}`;
}

function cycle(i) {
  if (S.solved || !kind.scored || i >= S.cur.letters.length) return;
  cycleColour(i);
  renderBoard();
}

export function setGuess(word) {
  if (S.solved) return;
  typeWord(word);
  say("");
  renderBoard();
}

export function key(k) {
  if (S.solved) return;
  if (k === "Enter") return submitRow();
  if (k === "Backspace") {
    backspace();
  } else if (/^[0-9]$/.test(k)) {  // the digit of a tile (0: the tenth)
    const i = (Number(k) + 9) % 10;
    return i < L() ? cycle(i) : undefined;
  } else if (/^[a-z]$/i.test(k) && S.cur.letters.length < L()) {
    typeLetter(k.toLowerCase());
  } else return;
  if (!S.blocked) say("");
  renderBoard();
}

function submitRow() {
  const w = S.cur.letters;
  if (S.blocked) {  // a row the server refused: mend it before adding another
    say(S.blocked.kind === "word" ? "Undo the last row: its word is not allowed here." :
      "Undo the last row: no answer gives those colours.", "err");
    return;
  }
  if (w.length !== L()) { say(`Type ${L()} letters first.`, "err"); return; }
  if (!S.guesses.has(w)) { say(`${w.toUpperCase()} is not in the guess list.`, "err"); return; }
  kind.enter(w);
}

// Assist and Play: a row played (its colours the player's or the hidden answer's)
export function addRow(w, colours) {
  pushRow(w, colours);
  if (colours.every((c) => c === 2)) {
    markSolved();
    playJob.cancel(false);
    say(`Solved in ${plural(S.rows.length, "guess", "guesses")}!`, "ok");
    renderBoard();
    $("#analysis-body").replaceChildren(el("p", { class: "solved", text: "All green. New game?" }));
    finish(true);
    return;
  }
  say("");
  renderBoard();
  analyse();
}

// The opening move is known or searched in seconds: a store for this problem proves
// the best opener, the lists are small enough to search, or a best known opener
// (not proven) answers it.
function openingKnown() {
  const i = S.info;
  const here = (x) => x.mode === S.mode && x.max_guesses === S.cap;
  return i.answers <= i.opening_search_limit || i.stores.some((st) => st.proves_best && here(st)) ||
    (i.known_openings || []).some(here);
}

// the problem the panel is about: mode and cap, and Play's answer
const nextParams = (pos, top) => ({ position: pos, mode: S.mode, max_guesses: S.cap, top });

export const analyse = () => kind.advise();

// Assist and Play: the solver's next guess for the position, under the page's rules
function advise() {
  const body = $("#analysis-body");
  const seq = ++analysisSeq;
  block(null);
  if (S.cap > 0 && S.rows.length >= S.cap) {
    playJob.cancel(false);
    const reveal = S.secret ? ` The answer was ${S.secret.toUpperCase()}.` : "";
    body.replaceChildren(el("p", { class: "msg err", text: `No guesses left (cap ${S.cap}).${reveal}` }));
    finish(false);
    return;
  }
  const pos = position();
  if (pos === "-" && !openingKnown()) {  // the server would refuse it: say so, ask nothing
    playJob.cancel(false);
    body.classList.remove("stale");
    body.dataset.position = pos;
    body.replaceChildren(el("p", { class: "msg info", text: `Choosing the opener over ${num(S.info.answers)} answers ` +
      "is a cluster job (wordle-dp run, then serve --store; or an opening book: wordle-dp book " +
      "build): type your first guess." }));
    return;
  }
  body.classList.add("stale");
  bar(null);
  body.dataset.position = "";  // what the panel shows (scripts and tests wait on it)
  body.dataset.alternatives = "";
  const failed = (msg) => {
    if (seq !== analysisSeq) return;
    body.classList.remove("stale");
    body.dataset.position = pos;
    if (pos === "-") { body.replaceChildren(el("p", { class: "msg info", text: msg })); return; }
    // what the server refused: the word (hard or strict mode) or the colours
    const word = /is not allowed in (hard|strict) mode/.test(msg);
    block({ kind: word ? "word" : "colours", message: msg });
    body.replaceChildren(el("p", { class: "msg err", text: msg }),
      el("p", { class: "muted", text: word ? `That word breaks ${S.mode} mode's rule: Undo row and play another.` :
        "Check the colours of the last row (Undo row)." }));
    renderBoard();
  };
  const full = (onError) => playJob.ask("/api/next", nextParams(pos, S.top), (res) => {
    if (seq !== analysisSeq) return;
    remember(pos, res, true);
    body.classList.remove("stale"); setAnalysis(res); renderAnalysis(res);
    body.dataset.position = pos; body.dataset.alternatives = pos;
  }, onError, () => {
    if (seq !== analysisSeq) return;
    body.classList.remove("stale");
    const wait = $("#alts-wait");
    if (wait) wait.textContent = "Alternatives not ranked (cancelled).";
  });
  if (pos === "-") { full(failed); return; }
  // the next guess first (cheap, the quick lane), then the ranked alternatives
  playJob.ask("/api/next", nextParams(pos, 0), (res) => {
    if (seq !== analysisSeq) return;
    remember(pos, res, false);
    body.classList.remove("stale"); setAnalysis(res); renderAnalysis(res, true);
    body.dataset.position = pos;
    full((msg) => {  // the next guess stands; only the ranking failed
      const wait = $("#alts-wait");
      if (seq === analysisSeq && wait) { wait.textContent = msg; wait.className = "msg err small"; }
    });
  }, failed);
}

export function renderAnalysis(res, more = false) {
  const body = $("#analysis-body");
  const kids = [];
  const n = res.candidates;
  kids.push(el("p", { class: "cands" }, el("b", { text: num(n) }),
    ` possible answer${n === 1 ? "" : "s"} left`));
  if (res.words) {
    const chips = el("div", { class: "chips" });
    for (const w of res.words) chips.append(el("button", { class: "chip", text: w, onclick: () => setGuess(w) }));
    kids.push(chips);
  }
  if (!res.best || !res.best.guess) {
    kids.push(el("p", { class: "msg err", text: "No strategy solves every answer within the cap from here." }));
    body.replaceChildren(...kids);
    return;
  }
  const b = res.best;
  if (b.wins != null) { renderWins(res, kids, more); return; }
  const known = res.source === "known";  // an exact value, not a proven best
  bar(res);
  // where the value came from (a store, a book, a search) is for analysts: a tooltip
  kids.push(el("div", { class: "best big" },
    wordTiles(b.guess),
    el("div", { class: "value", title: res.source ? `from: ${res.source}` : "" },
      el("div", {}, el("b", { id: "best-avg", text: fmt(b.average, 3) }), " guesses per answer from here ",
        el("span", { class: `badge ${b.status}`, text: b.status.replace("_", " ") }),
        known ? el("span", { class: "badge pending", text: "not proven best" }) : null),
      el("div", { text: `total ${num(b.total)} over ${plural(n, "answer")}` +
        (known ? " · best known opener" : "") })),
    el("button", { class: "primary", id: "take", text: "Use this guess", onclick: () => setGuess(b.guess) })));
  const alts = res.alternatives || [];
  if (alts.length) {
    const tb = el("tbody");
    for (const a of alts) {
      const d = a.total - b.total;
      tb.append(el("tr", { class: "pick", onclick: () => setGuess(a.guess), title: "play this guess" },
        el("td", { class: "w", text: a.guess }), el("td", { class: "num", text: num(a.total) }),
        el("td", { class: "num", text: fmt(a.total / n, 3) }),
        el("td", { class: "num", text: d ? `+${num(d)}` : "=" }),
        el("td", {}, el("span", { class: `badge ${a.status}`, text: a.status.replace("_", " ") }))));
    }
    const why = tieReason(b, alts);
    if (why) kids.push(el("p", { class: "small why", id: "tie-reason", text: why }));
    kids.push(el("h2", { text: "Alternatives" }), el("table", { class: "alts" },
      el("thead", {}, el("tr", {}, el("th", { text: "guess" }), el("th", { class: "num", text: "total" }),
        el("th", { class: "num", text: "avg" }), el("th", { class: "num", text: "vs best" }), el("th"))), tb));
  } else if (more) {
    kids.push(el("p", { class: "muted small", id: "alts-wait", text: "Ranking the alternatives…" }));
  }
  if (res.note) kids.push(el("p", { class: "muted small note", text: `Note: ${res.note}` }));
  body.replaceChildren(...kids);
}

// Why this guess of several with the same total: the server breaks the tie by the
// fewest further guesses any answer needs (best.worst), as the terminal says it
export function tieReason(b, alts) {
  const ties = alts.filter((a) => a.total === b.total && a.guess !== b.guess);
  if (!ties.length) return "";
  const others = ties.length === 1 ? `${ties[0].guess.toUpperCase()} has the same total` :
    `${num(ties.length)} other guesses have the same total`;
  if (b.worst == null) return `${others}: as good as ${b.guess.toUpperCase()} on average.`;
  return `${others}; ${b.guess.toUpperCase()} is suggested because with it every candidate is ` +
    `solved within ${plural(b.worst, "more guess", "more guesses")}.`;
}

// The phone's bar above the keyboard: the next guess in one line, always in view
// (the panel itself is below the board and the keyboard there); null: on its way
function bar(res) {
  const nb = $("#next-bar");
  if (res === undefined || !kind.rules) { nb.replaceChildren(); return; }
  if (res == null) { nb.replaceChildren(el("span", { class: "muted", text: "Next guess: …" })); return; }
  const b = res.best;
  if (!b || !b.guess) { nb.replaceChildren(el("span", { class: "muted", text: "No strategy from here." })); return; }
  const value = b.wins != null ? `${pct(b.wins, res.candidates)} to win` : `${fmt(b.average, 2)} guesses on average`;
  barGuess(b.guess, value, position());
}

// The bar's suggestion: "Next: WORD value [Use]" (Play and Assist above, Absurdle too)
export function barGuess(guess, value, pos) {
  const nb = $("#next-bar");
  nb.replaceChildren(el("span", { class: "lead", text: "Next:" }), wordTiles(guess),
    el("span", { class: "v", id: "bar-value", text: value }),
    el("button", { class: "primary", id: "bar-take", text: "Use", "aria-label": `use ${guess}`,
      onclick: () => setGuess(guess) }));
  nb.dataset.position = pos;
}

export function barText(text, muted = true) {
  const nb = $("#next-bar");
  nb.replaceChildren(el("span", { class: muted ? "muted" : "", text }));
  nb.dataset.position = "";
}

// Hide the suggestions while playing (remembered): the panel, its job box and the
// phone's bar; they come back, with the comparison, when the game ends
const HIDE = "wordle-dp.hide-hints";
let hideHints = false;  // the switch, as this browser remembers it
export function applyHints() {
  const over = !$("#after").hidden;
  const off = hideHints && !over && kind.rules;
  document.body.classList.toggle("hints-off", off);
  $("#hints-off").hidden = !off;
}

// The game is over (all green, or no guesses left): share, statistics, comparison.
// Positions the page has no full analysis of (the player typed ahead of it) are
// asked now, one after another, and the comparison drawn again after each.
function finish(won) {
  const game = S.gameId;
  const recordIt = S.secret != null && S.secret !== "" && !S.recorded;
  if (recordIt) markRecorded();
  const rows = S.rows.slice();
  const wanted = [];
  for (let i = 0; i <= rows.length; i++) {
    if (i === rows.length && (won || (S.cap > 0 && i >= S.cap))) break;  // no move after the end
    const pos = rows.slice(0, i).map((r) => `${r.word}:${patText(r.colours)}`).join(",") || "-";
    if (!seenFull(pos)) wanted.push(pos);
  }
  const VALUING = "Valuing the guesses…";
  renderAfter(won, { recordIt, waiting: VALUING });
  $("#analysis-title").textContent = "How you played";
  bar(undefined);
  $("#next-bar").replaceChildren(el("span", { text: won ? "Solved!" : "Game over." }),
    el("button", { id: "bar-after", text: "See how you played", onclick: () => $("#after").scrollIntoView() }));
  applyHints();
  // then the guesses the server did not rank: each from the positions its feedbacks leave
  const value = (items) => {
    const it = items.shift();
    if (game !== S.gameId) return;
    if (!it) { renderAfter(won, { recordIt: false, waiting: null }); return; }
    let total = it.n, status = "exact", k = 0;
    const step = () => {
      if (game !== S.gameId) return;
      if (k === it.classes.length) { setValue(it.key, total, status); value(items); return; }
      renderAfter(won, { recordIt: false, waiting: `Valuing ${it.word.toUpperCase()}: ` +
        `${k} of ${plural(it.classes.length, "feedback")}…` });
      playJob.ask("/api/next", nextParams(it.classes[k], 0), (res) => {
        const b = res && res.best;
        if (!b || b.total == null || b.wins != null) { value(items); return; }  // no value
        total += b.total;
        if (b.status !== "exact") status = b.status;
        k++;
        step();
      }, () => value(items));
    };
    step();
  };
  const next = () => {
    const pos = wanted.shift();
    if (game !== S.gameId) return;
    if (pos === undefined) { value(toValue(rows)); return; }
    const drawn = () => {  // valued, or refused: drawn again, then the next one
      if (game !== S.gameId) return;
      renderAfter(won, { recordIt: false, waiting: VALUING });
      next();
    };
    playJob.ask("/api/next", nextParams(pos, S.top), (res) => {
      if (game === S.gameId) remember(pos, res, true);
      drawn();
    }, drawn);
  };
  next();
}

// No strategy wins every answer from here (the server fell back to the objective
// wins): the best chance, in a player's words, then the guesses over the answers won
function renderWins(res, kids, more) {
  const body = $("#analysis-body");
  const b = res.best, n = res.candidates;
  const start = S.rows.length === 0;
  bar(res);
  const all = b.wins >= n;
  const sentence = all ? `This guess wins every answer, ${fmt(b.average, 1)} guesses on average.` :
    (start ? `No strategy wins every answer within ${plural(S.cap, "guess", "guesses")}; this opener ` :
      "No strategy wins every answer from here; this guess ") +
    `wins ${num(b.wins)} of the ${num(n)} (${pct(b.wins, n)}), then ${fmt(b.average, 1)} more ` +
    "guesses on average over those.";
  kids.push(el("p", { class: "msg wins", id: "wins-msg", text: sentence }));
  kids.push(el("div", { class: "best big" },
    wordTiles(b.guess),
    el("div", { class: "value", title: res.source ? `from: ${res.source}` : "" },
      el("div", {}, el("b", { id: "best-chance", text: pct(b.wins, n) }), " chance to win ",
        el("span", { class: `badge ${b.status}`, text: b.status.replace("_", " ") }),
        el("span", { class: "badge pending", text: "best chance" })),
      el("div", { text: `wins ${num(b.wins)} of ${plural(n, "answer")} · ` }, el("b", { id: "best-avg",
        class: "inline", text: fmt(b.average, 3) }), ` guesses per answer won · total ${num(b.total)}`)),
    el("button", { class: "primary", id: "take", text: "Use this guess", onclick: () => setGuess(b.guess) })));
  const alts = res.alternatives || [];
  if (alts.length) {
    const tb = el("tbody");
    for (const a of alts) {
      const lost = b.wins - a.wins, d = a.total - b.total;
      const vs = lost ? `−${plural(lost, "win")}` : (d ? `+${num(d)}` : "=");
      tb.append(el("tr", { class: "pick", onclick: () => setGuess(a.guess), title: "play this guess" },
        el("td", { class: "w", text: a.guess }),
        el("td", { class: "num chance", text: pct(a.wins, n), title: `wins ${num(a.wins)} of ${num(n)}` }),
        el("td", { class: "num", text: a.wins ? fmt(a.total / a.wins, 3) : "–" }),
        el("td", { class: "num", text: vs }),
        el("td", {}, el("span", { class: `badge ${a.status}`, text: a.status.replace("_", " ") }))));
    }
    kids.push(el("h2", { text: "Alternatives" }), el("table", { class: "alts" },
      el("thead", {}, el("tr", {}, el("th", { text: "guess" }), el("th", { class: "num", text: "chance" }), el("th", { class: "num", text: "avg won" }),
        el("th", { class: "num", text: "vs best" }), el("th"))), tb));
  } else if (more) {
    kids.push(el("p", { class: "muted small", id: "alts-wait", text: "Ranking the alternatives…" }));
  }
  if (res.note) kids.push(el("p", { class: "muted small note", text: `Note: ${res.note}` }));
  body.replaceChildren(...kids);
}

function resume() {  // the game goes on: no after-game panel
  nextGameId();
  bar(undefined);
  $("#analysis-title").textContent = kind.title;
  $("#after").hidden = true;
  $("#after").replaceChildren();
  applyHints();
}

export function newGame() {
  newRows(); forgetGame(); resume();  // resume: a new gameId
  kind.start();
  renderBoard(); analyse();
}

// Assist: the player enters the real game's colours. Play: a hidden answer (random,
// or fixed by #play?answer=WORD) colours the tiles.
// Absurdle: no hidden answer; the server's adversary answers every guess.
export function setKind(next, secret = null) {
  kind = next;
  for (const name of ["assist", "play", "absurdle"]) $(`#hint-${name}`).hidden = name !== kind.name;
  $$("#game-kind button").forEach((b) => press(b, b.dataset.kind === kind.name));
  fixSecret(secret);
  $("#analysis-title").textContent = kind.title;
  document.dispatchEvent(new Event("wordle-dp:controls"));
  newGame();
}

// the row taken back is typed again; a reply still on its way (the adversary's, a
// valuation) was for it: resume() starts a new gameId
export function undoRow() {
  if (!S.rows.length) return;
  takeBack();
  resume();
  say(""); renderBoard(); analyse();
}

// Assist: the player enters the real game's colours
export const assist = {
  name: "assist", title: "Next guess", scored: true, rules: true,
  start() { setSecret(null); say(""); },
  enter(w) { addRow(w, S.cur.colours); },
  advise, undo: undoRow,
};

// Play: a hidden answer (random, or fixed by #play?answer=WORD) colours the tiles
export const play = {
  name: "play", title: "Next guess", scored: false, rules: true,
  start() {
    setSecret(S.fixedSecret || S.answers[Math.floor(Math.random() * S.answers.length)]);
    say("Guess the hidden answer.");
  },
  enter(w) { addRow(w, feedback(w, S.secret)); },
  advise, undo: undoRow,
};

let kind = assist;  // the game played (setKind)
export const currentKind = () => kind;

// kindOf: the kind a button names (main.js holds them all)
export function bindPlay(currentView, kindOf) {
  $$("#game-kind button").forEach((b) => b.addEventListener("click", () => {
    if (b.classList.contains("on")) return;
    setKind(kindOf(b.dataset.kind));
  }));
  document.addEventListener("keydown", (ev) => {
    if (currentView() !== "play" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
    if (ev.key === "Enter" || ev.key === "Backspace" || /^[a-zA-Z0-9]$/.test(ev.key)) {
      ev.preventDefault();
      if (ev.key === "Enter" && document.activeElement.tagName === "BUTTON") document.activeElement.blur();
      key(ev.key);
    }
  });
  $("#btn-submit").addEventListener("click", () => key("Enter"));
  $("#btn-new").addEventListener("click", () => newGame());
  $("#btn-undo").addEventListener("click", () => kind.undo());
  try { hideHints = localStorage.getItem(HIDE) === "1"; } catch (_) { /* no storage */ }
  $("#hide-hints").checked = hideHints;
  $("#hide-hints").addEventListener("change", (ev) => {
    hideHints = ev.target.checked;
    try { localStorage.setItem(HIDE, hideHints ? "1" : "0"); } catch (_) { /* private mode */ }
    applyHints();
  });
  applyHints();
}
