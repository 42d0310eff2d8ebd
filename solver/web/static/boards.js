// Several boards (issue 18): k boards at once (easy mode, cap k + 5). Rows: {word,
// codes: [per board colours, or null once the board was solved]}; the server's
// /api/boards reads `word:F1/F2/...` per guess ('-' for a solved board).
import { api } from "./api.js";
import { $, $$, el, fmt, num, plural, press } from "./dom.js";
import { JobRunner } from "./jobs.js";
import { L, S, feedback, greys, patText } from "./state.js";
import { tile } from "./tiles.js";

const B = { k: 4, kind: "assist", rows: [], cur: [], secrets: null, res: null, seq: 0 };
export const boardsJob = new JobRunner($("#job-boards"));

const bSolvedAt = (i) => {
  const r = B.rows.findIndex((row) => row.codes[i] && row.codes[i].every((c) => c === 2));
  return r < 0 ? null : r + 1;
};
export const bPosition = () => B.rows.map((r) =>
  `${r.word}:${r.codes.map((c) => (c ? patText(c) : "-")).join("/")}`).join(",") || "-";
const bOpen = (i, upto) => { const s = bSolvedAt(i); return s == null || s > upto; };
// every board solved: known from the rows, whatever the server can still answer
const bDone = () => B.rows.length > 0 && Array.from({ length: B.k }, (_, i) => bSolvedAt(i)).every((s) => s != null);
const bCap = () => B.k + 5;  // the server's default cap: the page sends no other
const bSay = (text, kind = "") => { $("#boards-msg").textContent = text; $("#boards-msg").className = `msg ${kind}`; };

function renderBoards() {
  const grid = $("#boards-grid");
  grid.replaceChildren();
  grid.dataset.k = B.k;
  // as many columns as fit the count: 2 and 4 boards in one row, 8 as 4 + 4, 16 and 32
  // in rows of 4 (style.css narrows them to 2 on small screens)
  grid.style.setProperty("--cols", Math.min(B.k, 4));
  const word = $("#boards-guess").value.trim().toLowerCase();
  for (let i = 0; i < B.k; i++) {
    const solved = bSolvedAt(i);
    const info = B.res && B.res.board ? B.res.board[i] : null;
    const head = el("h3", {}, el("span", { text: `Board ${i + 1}` }),
      el("span", { class: "st", text: solved ? `solved at guess ${solved}` :
        (info ? plural(info.candidates, "candidate") : "") }));
    const card = el("div", { class: "bcard" + (solved ? " solved" : ""), "data-board": i }, head);
    card.style.setProperty("--len", L());
    B.rows.forEach((r) => {
      if (!r.codes[i]) return;  // solved earlier: no tiles
      const row = el("div", { class: "row done" });
      for (let j = 0; j < L(); j++) row.append(tile(r.word[j], r.codes[i][j]));
      card.append(row);
    });
    if (!solved && B.kind === "assist" && word.length === L()) {
      const row = el("div", { class: "row current" });
      for (let j = 0; j < L(); j++) {
        const t = tile(word[j], B.cur[i][j]);
        t.addEventListener("click", () => { B.cur[i][j] = (B.cur[i][j] + 1) % 3; renderBoards(); });
        row.append(t);
      }
      card.append(row);
    }
    if (!solved && info && info.words.length) {
      card.append(el("div", { class: "cands", text: info.words.join(" ") +
        (info.candidates > info.words.length ? " …" : "") }));
    }
    grid.append(card);
  }
  $("#boards-undo").disabled = B.rows.length === 0;
  renderBoardsKeyboard(word);
}

// ------------------------------------------------------------------ keyboard
// One key per letter, coloured board by board: a cell per open board (2 x 2 for four
// boards, 4 x 2 for eight, ...) in the letter's best colour on that board so far
// (green over yellow over grey); a solved board's cell stays blank. The label says
// the same in words.
const QCOLS = { 2: 2, 4: 2, 8: 4, 16: 4, 32: 8 };
const COLOUR = ["grey", "yellow", "green"];

function keyStates() {
  const known = {};  // letter -> [board -> best colour]
  const n = B.rows.length;
  for (const r of B.rows) {
    r.codes.forEach((c, i) => {
      if (!c || !bOpen(i, n)) return;
      [...r.word].forEach((ch, j) => {
        const k = (known[ch] ||= []);
        k[i] = Math.max(k[i] ?? -1, c[j]);
      });
    });
  }
  return known;
}

function keyLabel(ch, states) {
  const parts = [];
  for (const c of [2, 1, 0]) {
    const boards = (states || []).map((s, i) => (s === c ? i + 1 : null)).filter((i) => i != null);
    if (boards.length) parts.push(`${COLOUR[c]} on board${boards.length > 1 ? "s" : ""} ${boards.join(", ")}`);
  }
  return `${ch.toUpperCase()}: ${parts.length ? parts.join("; ") : "not played on an open board"}`;
}

function renderBoardsKeyboard(word) {
  const known = keyStates();
  const kb = $("#bkbd");
  kb.style.setProperty("--qc", QCOLS[B.k] || 4);
  kb.replaceChildren();
  for (const line of ["qwertyuiop", "asdfghjkl", "<zxcvbnm>"]) {
    const row = el("div", { class: "krow" });
    for (const ch of line) {
      if (ch === "<") {
        row.append(el("button", { type: "button", class: "wide", text: "⌫", "aria-label": "backspace", onclick: () => bKey("Backspace") }));
      } else if (ch === ">") {
        row.append(el("button", { type: "button", class: "wide", text: "enter", "aria-label": "enter", onclick: () => bKey("Enter") }));
      } else {
        const cells = el("span", { class: "kq", "aria-hidden": "true" });
        for (let i = 0; i < B.k; i++) {
          const c = known[ch] ? known[ch][i] : undefined;
          cells.append(el("i", { class: c != null ? `c${c}` : "" }));
        }
        row.append(el("button", { type: "button", "data-key": ch, "aria-label": keyLabel(ch, known[ch]),
          onclick: () => bKey(ch) }, cells, el("span", { class: "kl", text: ch })));
      }
    }
    kb.append(row);
  }
  // the word typed so far, above the keyboard (on a phone the input is out of sight)
  const shown = $("#bdock-word");
  shown.replaceChildren();
  for (let j = 0; j < L(); j++) shown.append(tile(word[j] || "", null));
}

// a key of the page's keyboard (or of the computer's, outside the input)
function bKey(k) {
  const input = $("#boards-guess");
  if (k === "Enter") { boardsEnter(); return; }
  input.value = k === "Backspace" ? input.value.slice(0, -1) : (input.value + k).slice(0, L());
  bTyped();
}

function renderBoardsAdvice() {
  const box = $("#boards-advice");
  const r = B.res, cap = bCap();
  if (bDone()) {
    box.replaceChildren(el("p", { class: "msg ok", text: `Every board solved in ${plural(B.rows.length, "guess", "guesses")}` +
      (B.rows.length > cap ? ` (${B.rows.length - cap} over the cap of ${cap})` : "") }));
    return;
  }
  if (B.rows.length >= cap) {
    box.replaceChildren(el("p", { class: "msg info", text: `The cap of ${cap} guesses is reached: the game is lost, ` +
      "but you may play on to solve the other boards." }));
    return;
  }
  if (!r) { box.replaceChildren(el("p", { class: "muted", text: "…" })); return; }
  const b = r.best;
  // the count exactly: past 2^53 a JSON number loses digits, so the server sends its text
  const tuples = r.tuples_text != null ? BigInt(r.tuples_text) : r.tuples;
  const kids = [el("h2", { text: "Next guess" })];
  if (!b) kids.push(el("p", { class: "msg err", text: "no strategy solves every board within the cap" }));
  else {
    const why = b.status === "exact" ?
      `exact: ${plural(b.total, "guess", "guesses")} over ${plural(tuples, "answer combination")} (${fmt(b.average)} more on average, worst ${b.worst})` :
      (b.why ? `${b.why}: its answer now` : "the guess that tells the most about the answers (not proven best)");
    kids.push(el("p", {}, el("button", { class: "primary", id: "boards-take", text: b.guess.toUpperCase(),
      onclick: () => { $("#boards-guess").value = b.guess; bTyped(); } }), " ", el("span", { class: "muted", text: why })));
    if (r.alternatives && r.alternatives.length) {
      kids.push(el("p", { class: "muted small", text: "also: " + r.alternatives.map((a) => a.guess).join(", ") }));
    }
  }
  kids.push(el("p", { class: "muted small", text: `${r.tuples_exact ? "" : "at most "}${plural(tuples, "answer combination")}; guess ${B.rows.length + 1} of ${r.max_guesses}` }));
  box.replaceChildren(...kids);
}

function boardsAnalyse() {
  const seq = ++B.seq;
  B.res = null;
  renderBoardsAdvice();
  if (bDone() || B.rows.length >= bCap()) { boardsJob.cancel(false); return; }  // nothing to advise
  // posted: 32 boards make positions of thousands of characters, too long for a URL
  boardsJob.ask("/api/boards", { position: bPosition(), boards: B.k, top: 3 }, (r) => {
    if (seq !== B.seq) return;
    B.res = r;
    bSay("");
    renderBoardsAdvice();
    renderBoards();
  }, (msg) => { if (seq === B.seq) bSay(msg, "err"); },
  () => { if (seq === B.seq) bSay("Cancelled: type the next guess yourself.", "info"); }, true);
}

function bTyped() {
  B.cur = Array.from({ length: B.k }, () => greys());
  renderBoards();
}

function boardsEnter(ev) {
  if (ev) ev.preventDefault();
  let word = $("#boards-guess").value.trim().toLowerCase();
  if (!word && B.res && B.res.best) word = B.res.best.guess;
  if (bDone()) { bSay("every board is solved: New game", "info"); return; }
  if (word.length !== L() || !S.guesses.has(word)) { bSay(`${word || "(empty)"}: not in the guess list`, "err"); return; }
  const n = B.rows.length;
  const codes = [];
  for (let i = 0; i < B.k; i++) {
    if (!bOpen(i, n)) codes.push(null);
    else if (B.kind === "play") codes.push(feedback(word, B.secrets[i]));
    else codes.push(B.cur[i] && B.cur[i].length === L() ? B.cur[i].slice() : greys());
  }
  B.rows.push({ word, codes });
  $("#boards-guess").value = "";
  bTyped();
  boardsAnalyse();
}

function boardsNew() {
  B.k = Number($("#boards-k").value);
  B.rows = [];
  B.secrets = null;
  if (B.kind === "play") {
    const pool = S.answers.slice();
    B.secrets = [];
    for (let i = 0; i < B.k; i++) B.secrets.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
  }
  $("#boards-guess").maxLength = L();
  $("#boards-hint").hidden = B.kind !== "assist";  // the tiles are clicked in Assist only
  bTyped();
  bSay("");
  boardsAnalyse();
}

function boardsUndo() { B.rows.pop(); bTyped(); boardsAnalyse(); }

// the game kind (play.js says the interface); Assist or Play here is B.kind, the
// view's own switch
const boards = {
  name: "boards", start: boardsNew, advise: boardsAnalyse, undo: boardsUndo,
  enter(word) { $("#boards-guess").value = word; boardsEnter(); },
};

// the view opened (#boards?k=K): a game started (or finished: no answer to ask for
// then) is kept, unless K boards are asked for and it has others
export function openBoards(k) {
  if (k && ["2", "4", "8", "16", "32"].includes(k)) $("#boards-k").value = k;
  if ((!B.res && !B.rows.length) || (k && Number(k) !== B.k)) boards.start();
}
// the played lists changed: the next visit starts a game on them
export function forgetBoards() { B.res = null; B.rows = []; }

export function bindBoards() {
  $("#boards-form").addEventListener("submit", boardsEnter);
  document.addEventListener("keydown", (ev) => {
    if ($("#view-boards").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
    if (ev.key === "Enter" || ev.key === "Backspace" || /^[a-zA-Z]$/.test(ev.key)) {
      ev.preventDefault();
      if (document.activeElement.tagName === "BUTTON") document.activeElement.blur();
      bKey(ev.key.length === 1 ? ev.key.toLowerCase() : ev.key);
    }
  });
  $("#boards-guess").addEventListener("input", bTyped);
  $("#boards-new").addEventListener("click", boardsNew);
  $("#boards-k").addEventListener("change", boardsNew);
  $("#boards-undo").addEventListener("click", boardsUndo);
  $$("#boards-kind button").forEach((b) => b.addEventListener("click", () => {
    B.kind = b.dataset.kind;
    $$("#boards-kind button").forEach((x) => press(x, x === b));
    boardsNew();
  }));
}
