// wordle-dp web page: three views over the JSON API (no framework, no CDN).
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
};
const SVGNS = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, text) => {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
};
const fmt = (x, d = 4) => (x == null ? "–" : Number(x).toFixed(d));

async function api(path, opts = {}) {
  const r = await fetch(path, opts);
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) throw new Error((body && body.error) || `HTTP ${r.status}`);
  return body;
}

// ------------------------------------------------------------------ state
const S = {
  info: null, guesses: new Set(), answers: [], mode: "easy", cap: 6, top: 8,
  rows: [], cur: { letters: "", colours: [] }, analysis: null, solved: false,
  secret: null, fixedSecret: null,  // Play: the hidden answer; Assist: null
  absurd: false, advBusy: false, advGame: 0, advStart: null,  // Absurdle (the adversary)
  strategy: null, store: null, sort: "total", desc: false, offset: 0, limit: 100,
};
const PAT = "BYG";
// letters per word: the served lists' (3 to 10), from /api/info
const L = () => (S.info ? S.info.length : 5);
const greys = () => new Array(L()).fill(0);
const patText = (cols) => cols.map((c) => PAT[c]).join("");
const position = () => S.rows.map((r) => `${r.word}:${patText(r.colours)}`).join(",") || "-";
const maxRows = () => (S.cap > 0 && !S.absurd ? S.cap : Math.max(6, S.rows.length + 1));

// ------------------------------------------------------------------ jobs
// A job runs on the server; the page polls it and never waits on it.
class JobRunner {
  constructor(box) { this.box = box; this.id = null; this.seq = 0; }
  async run(body, onDone, onError) {
    await this.cancel();
    const seq = ++this.seq;
    let job;
    try {
      job = await api("/api/jobs", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
    } catch (e) { onError(e.message); return; }
    if (seq !== this.seq) return;
    this.id = job.id;
    this.show(job);
    const t0 = performance.now();
    while (seq === this.seq) {
      if (job.state === "done") { this.hide(); this.id = null; onDone(job.result); return; }
      if (job.state === "error") { this.hide(); this.id = null; onError(job.error); return; }
      if (job.state === "cancelled") { this.hide(); this.id = null; return; }
      const wait = performance.now() - t0 < 2000 ? 80 : 400;
      await new Promise((res) => setTimeout(res, wait));
      if (seq !== this.seq) return;
      try { job = await api(`/api/jobs/${job.id}`); } catch (e) {
        if (seq === this.seq) onError(e.message);
        return;
      }
      if (seq !== this.seq) return;  // cancelled while the poll was in flight: stay hidden
      this.show(job);
    }
  }
  async cancel() {
    this.seq++;
    const id = this.id;
    this.id = null;
    this.hide();
    if (id) { try { await api(`/api/jobs/${id}`, { method: "DELETE" }); } catch (_) { /* gone */ } }
  }
  show(job) {
    const p = job.progress || {};
    const frac = p.total ? p.done / p.total : null;
    const bar = el("div", { class: "bar" + (frac == null ? " indet" : "") }, el("i"));
    if (frac != null) bar.firstChild.style.width = `${(100 * frac).toFixed(1)}%`;
    const what = job.state === "queued" ? "waiting for a free worker…" :
      (p.total ? `${p.done}/${p.total} ${p.message || ""}` : (p.message ? `${p.message}…` : "searching…"));
    let secs = job.elapsed != null ? ` ${job.elapsed.toFixed(1)} s` : "";
    if (job.elapsed && p.total && p.done > 0 && p.done < p.total) {
      secs += `, about ${Math.ceil(job.elapsed * (p.total - p.done) / p.done)} s left`;
    }
    this.box.replaceChildren(el("span", { class: "spin" }), el("span", { text: what + secs }), bar,
      el("button", { text: "Cancel", class: "cancel", onclick: () => this.cancel() }));
    this.box.hidden = false;
  }
  hide() { this.box.hidden = true; this.box.replaceChildren(); }
}

// ------------------------------------------------------------------ tiles
function tile(letter, colour, extra = "") {
  const cls = ["tile", extra];
  if (colour != null) cls.push(`c${colour}`);
  return el("div", { class: cls.join(" ").trim(), text: letter || "" });
}
function wordTiles(word, cols) {
  const w = el("div", { class: "word" });
  for (let i = 0; i < word.length; i++) w.append(tile(word[i], cols ? cols[i] : null));
  return w;
}
const colsOf = (text) => [...text].map((c) => PAT.indexOf(c));
function patIcon(text) {
  const p = el("span", { class: "pat", title: text });
  for (const c of colsOf(text)) p.append(el("i", { class: `c${c}` }));
  return p;
}

// ------------------------------------------------------------------ play
// The feedback rule (as solver/feedback.py): greens first, then yellows left to
// right while the answer has unmatched copies of the letter.
function feedback(guess, answer) {
  const cols = new Array(guess.length).fill(0), left = {};
  for (let i = 0; i < guess.length; i++) {
    if (guess[i] === answer[i]) cols[i] = 2;
    else left[answer[i]] = (left[answer[i]] || 0) + 1;
  }
  for (let i = 0; i < guess.length; i++) {
    if (cols[i] !== 2 && left[guess[i]] > 0) { cols[i] = 1; left[guess[i]]--; }
  }
  return cols;
}

const playJob = new JobRunner($("#job-play"));

function renderBoard() {
  const board = $("#board");
  board.replaceChildren();
  document.documentElement.style.setProperty("--len", L());  // every word's tiles
  S.rows.forEach((r, ri) => {
    const row = el("div", { class: "row done", "data-row": ri });
    for (let i = 0; i < L(); i++) row.append(tile(r.word[i], r.colours[i]));
    board.append(row);
  });
  if (!S.solved && S.rows.length < maxRows()) {
    const row = el("div", { class: "row current", "data-row": S.rows.length });
    for (let i = 0; i < L(); i++) {
      const ch = S.cur.letters[i];
      const t = tile(ch, ch ? S.cur.colours[i] : null, ch ? "" : "empty");
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
  $("#btn-submit").disabled = S.solved || S.cur.letters.length !== L();
}

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
      if (ch === "<") row.append(el("button", { class: "wide", text: "⌫", onclick: () => key("Backspace") }));
      else if (ch === ">") row.append(el("button", { class: "wide", text: "enter", onclick: () => key("Enter") }));
      else row.append(el("button", { class: known[ch] != null ? `k${known[ch]}` : "", text: ch,
        onclick: () => key(ch) }));
    }
    kb.append(row);
  }
}

function say(text, kind = "") {
  const m = $("#play-msg");
  m.textContent = text;
  m.className = `msg ${kind}`;
}

function cycle(i) {
  if (S.solved || S.secret || S.absurd || i >= S.cur.letters.length) return;
  S.cur.colours[i] = (S.cur.colours[i] + 1) % 3;
  renderBoard();
}

function setGuess(word) {
  if (S.solved) return;
  S.cur = { letters: word.slice(0, L()), colours: greys() };
  say("");
  renderBoard();
}

function key(k) {
  if (S.solved) return;
  if (k === "Enter") return submitRow();
  if (k === "Backspace") {
    S.cur.letters = S.cur.letters.slice(0, -1);
    S.cur.colours[S.cur.letters.length] = 0;
  } else if (/^[0-9]$/.test(k)) {  // the digit of a tile (0: the tenth)
    const i = (Number(k) + 9) % 10;
    return i < L() ? cycle(i) : undefined;
  } else if (/^[a-z]$/i.test(k) && S.cur.letters.length < L()) {
    S.cur.letters += k.toLowerCase();
  } else return;
  say("");
  renderBoard();
}

function submitRow() {
  const w = S.cur.letters;
  if (w.length !== L()) { say(`Type ${L()} letters first.`, "err"); return; }
  if (!S.guesses.has(w)) { say(`${w.toUpperCase()} is not in the guess list.`, "err"); return; }
  if (S.absurd) { advSubmit(w); return; }
  if (S.secret) S.cur.colours = feedback(w, S.secret);
  S.rows.push({ word: w, colours: S.cur.colours.slice() });
  S.cur = { letters: "", colours: greys() };
  if (S.rows[S.rows.length - 1].colours.every((c) => c === 2)) {
    S.solved = true;
    playJob.cancel();
    say(`Solved in ${S.rows.length} guess${S.rows.length > 1 ? "es" : ""}!`, "ok");
    renderBoard();
    $("#analysis-body").replaceChildren(el("p", { class: "solved", text: "All green. New game?" }));
    return;
  }
  say("");
  renderBoard();
  analyse();
}

// The opening move is known or searched in seconds: a store for this problem proves
// the best opener, or the lists are small enough to search.
function openingKnown() {
  const i = S.info;
  return i.answers <= i.opening_search_limit || i.stores.some((st) =>
    st.proves_best && st.mode === S.mode && st.max_guesses === S.cap);
}

function analyse() {
  if (S.absurd) { advAnalyse(); return; }
  const body = $("#analysis-body");
  if (S.cap > 0 && S.rows.length >= S.cap) {
    const reveal = S.secret ? ` The answer was ${S.secret.toUpperCase()}.` : "";
    body.replaceChildren(el("p", { class: "msg err", text: `No guesses left (cap ${S.cap}).${reveal}` }));
    return;
  }
  const pos = position();
  if (pos === "-" && !openingKnown()) {  // the server would refuse it: say so, ask nothing
    playJob.cancel();
    body.classList.remove("stale");
    body.dataset.position = pos;
    body.replaceChildren(el("p", { class: "msg info", text: `Choosing the opener over ${S.info.answers} answers ` +
      "is a cluster job (wordle-dp run, then serve --store; or an opening book: wordle-dp book " +
      "build): type your first guess." }));
    return;
  }
  body.classList.add("stale");
  body.dataset.position = "";  // what the panel shows (scripts and tests wait on it)
  playJob.run({ kind: "next", position: pos, mode: S.mode, max_guesses: S.cap, top: S.top },
    (res) => {
      body.classList.remove("stale"); S.analysis = res; renderAnalysis(res);
      body.dataset.position = pos;
    },
    (msg) => {
      body.classList.remove("stale");
      body.dataset.position = pos;
      if (pos === "-") body.replaceChildren(el("p", { class: "msg info", text: msg }));
      else body.replaceChildren(el("p", { class: "msg err", text: msg }),
        el("p", { class: "muted", text: "Check the colours of the last row (Undo row)." }));
    });
}

function renderAnalysis(res) {
  const body = $("#analysis-body");
  const kids = [];
  const n = res.candidates;
  kids.push(el("p", { class: "cands" }, el("b", { text: `${n}` }),
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
  const more = b.average;
  kids.push(el("div", { class: "best big" },
    wordTiles(b.guess),
    el("div", { class: "value" },
      el("div", {}, el("b", { id: "best-avg", text: fmt(more, 3) }), " guesses per answer from here ",
        el("span", { class: `badge ${b.status}`, text: b.status.replace("_", " ") })),
      el("div", { text: `total ${b.total} over ${n} answer${n === 1 ? "" : "s"}` +
        (res.source ? ` · ${res.source}` : "") })),
    el("button", { class: "primary", id: "take", text: "Use this guess", onclick: () => setGuess(b.guess) })));
  const alts = res.alternatives || [];
  if (alts.length) {
    const tb = el("tbody");
    for (const a of alts) {
      const d = a.total - b.total;
      tb.append(el("tr", { class: "pick", onclick: () => setGuess(a.guess), title: "play this guess" },
        el("td", { class: "w", text: a.guess }), el("td", { class: "num", text: a.total }),
        el("td", { class: "num", text: fmt(a.total / n, 3) }),
        el("td", { class: "num", text: d ? `+${d}` : "=" }),
        el("td", {}, el("span", { class: `badge ${a.status}`, text: a.status.replace("_", " ") }))));
    }
    kids.push(el("h2", { text: "Alternatives" }), el("table", { class: "alts" },
      el("thead", {}, el("tr", {}, el("th", { text: "guess" }), el("th", { class: "num", text: "total" }),
        el("th", { class: "num", text: "avg" }), el("th", { class: "num", text: "vs best" }), el("th"))), tb));
  }
  if (res.note) kids.push(el("p", { class: "muted small note", text: `Note: ${res.note}` }));
  body.replaceChildren(...kids);
}

function newGame() {
  S.rows = []; S.solved = false; S.cur = { letters: "", colours: greys() };
  S.advGame++;  // an adversary's reply still on its way belongs to the old game
  if (S.secret !== null) S.secret = S.fixedSecret || S.answers[Math.floor(Math.random() * S.answers.length)];
  say(S.secret ? "Guess the hidden answer." : (S.absurd ? "Beat the adversary: type a guess." : ""));
  renderBoard(); analyse();
}

// Assist: the player enters the real game's colours. Play: a hidden answer (random,
// or fixed by #play?answer=WORD) colours the tiles.
// Absurdle: no hidden answer; the server's adversary answers every guess.
function setKind(kind, secret = null) {
  document.querySelectorAll("#game-kind button").forEach((b) => b.classList.toggle("on", b.dataset.kind === kind));
  $("#hint-assist").hidden = kind !== "assist";
  $("#hint-play").hidden = kind !== "play";
  $("#hint-absurdle").hidden = kind !== "absurdle";
  S.fixedSecret = secret;
  S.secret = kind === "play" ? "" : null;
  S.absurd = kind === "absurdle";
  $("#analysis-title").textContent = S.absurd ? "Against the adversary" : "Next guess";
  showControls();
  newGame();
}
document.querySelectorAll("#game-kind button").forEach((b) => b.addEventListener("click", () => {
  if (b.classList.contains("on")) return;
  setKind(b.dataset.kind);
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
$("#btn-undo").addEventListener("click", () => {
  if (!S.rows.length) return;
  const r = S.rows.pop();
  S.solved = false;
  S.advGame++;  // Absurdle: a reply still on its way was for the row undone
  S.cur = { letters: r.word, colours: r.colours.slice() };
  say(""); renderBoard(); analyse();
});

// ------------------------------------------------------------------ Absurdle
// Issue 18: the adversary keeps the largest class of answers after each guess (ties:
// the server's documented rule). Its replies come at once from GET /api/adversary;
// the exact fewest guesses that still beat it is a search: a job (kind "adversary")
// with progress and Cancel, while the player may go on typing.
const advPosition = (extra) => [...S.rows.map((r) => r.word), ...(extra ? [extra] : [])].join(",") || "-";

async function advSubmit(w) {
  if (S.advBusy) return;
  S.advBusy = true;
  const game = S.advGame;
  let st;
  try {
    st = await api(`/api/adversary?${new URLSearchParams({ position: advPosition(w) })}`);
  } catch (e) {
    if (game === S.advGame) say(e.message, "err");
    return;
  } finally { S.advBusy = false; }
  if (game !== S.advGame || !S.absurd) return;  // a new game meanwhile
  const last = st.rows[st.rows.length - 1];
  S.rows.push({ word: last.guess, colours: colsOf(last.reply) });
  S.cur = { letters: "", colours: greys() };
  if (st.won) {
    S.solved = true;
    const n = st.guesses;
    say(`Won in ${n} guess${n === 1 ? "" : "es"}: ${last.guess.toUpperCase()} was the only answer left.`, "ok");
  } else say("");
  renderBoard();
  advShow(st);
}

async function advAnalyse() {  // a new game, an undone row: the state of the rows left
  const body = $("#analysis-body");
  body.classList.add("stale");
  body.dataset.position = "";
  const game = S.advGame, pos = advPosition();
  let st;
  try { st = await api(`/api/adversary?${new URLSearchParams({ position: pos })}`); } catch (e) {
    if (game === S.advGame) { body.classList.remove("stale"); body.replaceChildren(el("p", { class: "msg err", text: e.message })); }
    return;
  }
  if (game === S.advGame && S.absurd && advPosition() === pos) advShow(st);
}

// The candidates at once, then the exact value from a job.
function advShow(st) {
  const body = $("#analysis-body");
  body.classList.remove("stale");
  renderAdversary(st, null);
  body.dataset.position = st.position;  // what the panel shows (tests wait on it)
  body.dataset.analysed = "";
  if (st.won) { playJob.cancel(); return; }
  playJob.run({ kind: "adversary", position: st.position, top: 3 },
    (res) => {
      if (res.position !== ($("#analysis-body").dataset.position)) return;
      if (res.position === "-") S.advStart = res.analysis.guesses;
      renderAdversary(res, res.analysis);
      body.dataset.analysed = res.position;
    },
    (msg) => { if (body.dataset.position === st.position) body.append(el("p", { class: "msg err", text: msg })); });
}

function renderAdversary(st, an) {
  const body = $("#analysis-body");
  const n = st.candidates;
  const kids = [el("p", { class: "cands" }, el("b", { id: "adv-cands", text: `${n}` }),
    ` answer${n === 1 ? "" : "s"} still possible` + (st.guesses ? " (the adversary kept the largest class)" : ""))];
  if (st.words && !st.won) {
    const chips = el("div", { class: "chips", id: "adv-words" });
    for (const w of st.words) chips.append(el("button", { class: "chip", text: w, onclick: () => setGuess(w) }));
    kids.push(chips);
  }
  if (st.won) {
    const best = S.advStart != null ? ` The fewest that beat the adversary from the start: ${S.advStart}.` : "";
    kids.push(el("p", { class: "msg ok", id: "adv-won", text: `Won in ${st.guesses} guess${st.guesses === 1 ? "" : "es"}.${best}` }));
  } else if (!an) {
    kids.push(el("p", { class: "muted", text: "Searching the fewest guesses that still beat the adversary…" }));
  } else if (!an.best) {
    kids.push(el("p", { class: "msg err", text: `No win found (${an.status.replace("_", " ")}).` }));
  } else {
    const more = an.guesses;
    kids.push(el("div", { class: "best big" }, wordTiles(an.best),
      el("div", { class: "value" },
        el("div", {}, el("b", { id: "adv-value", text: `${more}` }), ` more guess${more === 1 ? "" : "es"} beat it from here `,
          el("span", { class: `badge ${an.status}`, text: an.status.replace("_", " ") })),
        el("div", { text: `the game ends at guess ${an.total_guesses}; proof ${an.seconds.toFixed(2)} s, ${an.nodes} node${an.nodes === 1 ? "" : "s"}` })),
      el("button", { class: "primary", id: "take", text: "Use this guess", onclick: () => setGuess(an.best) })));
    const line = el("div", { class: "path adv-line" });
    for (const step of an.line) {
      const [w, p] = step.split(":");
      line.append(el("div", { class: "step" }, wordTiles(w, colsOf(p))));
    }
    kids.push(el("h2", { text: "A winning line" }), line);
    if (an.alternatives && an.alternatives.length) {
      const chips = el("div", { class: "chips" });
      for (const a of an.alternatives) chips.append(el("button", { class: "chip", text: a.guess, onclick: () => setGuess(a.guess) }));
      kids.push(el("p", { class: "muted small", text: "Other first guesses as fast:" }), chips);
    }
  }
  kids.push(el("p", { class: "muted small note", text: `Tie rule: ${st.tie_rule}.` }));
  body.replaceChildren(...kids);
}

// ------------------------------------------------------------------ strategy
const stratJob = new JobRunner($("#job-strategy"));

function showStrategy(opener) {
  opener = (opener || "").trim().toLowerCase();
  $("#opener").value = opener;
  if (!opener) return;
  $("#strategy-problem").textContent = `${S.mode}, cap ${S.cap || "none"}`;
  stratJob.run({ kind: "strategy", opener, mode: S.mode, max_guesses: S.cap },
    (res) => { S.strategy = res; renderStrategy(res); },
    (msg) => { $("#strategy-out").hidden = true; $("#strategy-problem").textContent = msg; });
}

function renderStrategy(res) {
  $("#strategy-out").hidden = false;
  $("#st-total").textContent = res.total;
  $("#st-avg").textContent = fmt(res.average, 4);
  $("#st-depth").textContent = `${res.depth} guesses`;
  $("#st-n").textContent = res.answers;
  $("#st-hist").replaceChildren(histogram(res.histogram, res.answers));
  const tree = $("#tree");
  tree.replaceChildren(treeNode(res.tree, null, true));
  $("#path-answer").value = "";
  $("#path-out").replaceChildren();
}

function histogram(hist, n) {
  const keys = Object.keys(hist).map(Number).sort((a, b) => a - b);
  const W = 460, H = 190, pad = 28, bw = Math.min(70, (W - 2 * pad) / keys.length - 10);
  const maxc = Math.max(...keys.map((k) => hist[k]));
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "hist" });
  keys.forEach((k, i) => {
    const c = hist[k], h = (H - 2 * pad) * c / maxc;
    const x = pad + i * ((W - 2 * pad) / keys.length) + 5, y = H - pad - h;
    s.append(svg("rect", { x, y, width: bw, height: h, rx: 4, fill: "#3f9b5a" }));
    s.append(svg("text", { x: x + bw / 2, y: y - 5, "text-anchor": "middle", "font-size": 12,
      fill: "#1d2330" }, `${c} (${(100 * c / n).toFixed(1)}%)`));
    s.append(svg("text", { x: x + bw / 2, y: H - pad + 16, "text-anchor": "middle",
      "font-size": 12, fill: "#6b7280" }, `${k}`));
  });
  s.append(svg("line", { x1: pad, x2: W - pad, y1: H - pad, y2: H - pad, stroke: "#c5cbd5" }));
  return s;
}

function treeNode(node, pattern, open) {
  const n = node.answers;
  const head = el("summary", {}, el("span", { class: "tw", text: "▶" }));
  if (pattern) head.append(patIcon(pattern));
  head.append(el("span", { class: "g", text: node.guess }),
    el("span", { class: "n", text: `${n} answer${n === 1 ? "" : "s"} · ${fmt(node.total / n, 3)} avg` }));
  const d = el("details", { class: node.children.length ? "" : "leaf" }, head);
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true;
    for (const c of node.children) d.append(treeNode(c, c.pattern, false));
  };
  d.addEventListener("toggle", () => { if (d.open) fill(); });
  if (open) { d.open = true; fill(); }
  return d;
}

$("#strategy-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const w = $("#opener").value.trim().toLowerCase();
  location.hash = `#strategy?opener=${w}`;
});
$("#path-answer").addEventListener("input", () => {
  const a = $("#path-answer").value.trim().toLowerCase();
  const out = $("#path-out");
  out.replaceChildren();
  if (!S.strategy || a.length < L()) return;
  const steps = S.strategy.games[a];
  if (!steps) { out.append(el("p", { class: "msg err", text: `${a.toUpperCase()} is not an answer.` })); return; }
  const p = el("div", { class: "path" });
  steps.forEach((st, i) => {
    const [g, pat] = st.split(":");
    p.append(el("div", { class: "step" }, wordTiles(g, colsOf(pat)), el("span", { text: `guess ${i + 1}` })));
  });
  out.append(p);
});

// ------------------------------------------------------------------ results
let resultsTimer = null;

async function loadStores() {
  const sel = $("#store-select");
  const stores = S.info.stores;
  $("#results-empty").hidden = stores.length > 0;
  $("#results-out").hidden = stores.length === 0;
  sel.replaceChildren(...stores.map((s) => el("option", { value: s.id,
    text: s.kind === "book" ? `opening book (${s.mode}, max ${s.max_guesses})` : s.id })));
  if (stores.length && !S.store) S.store = stores[0].id;
  if (S.store) sel.value = S.store;
}

async function refreshResults(all = true) {
  clearTimeout(resultsTimer);
  if (!S.store || currentView() !== "results") return;
  const id = encodeURIComponent(S.store);
  try {
    if (all) {
      const [info, dist] = await Promise.all([api(`/api/stores/${id}`), api(`/api/stores/${id}/distribution`)]);
      renderProgress(info);
      renderDistribution(dist);
      if (info.progress.remaining > 0) resultsTimer = setTimeout(() => refreshResults(true), 5000);
    }
    await loadTable();
  } catch (e) {
    $("#store-desc").textContent = e.message;
  }
}

function renderProgress(info) {
  S.storeInfo = info;
  const p = info.progress;
  $("#store-desc").textContent = `${info.answers} answers × ${info.guesses} guesses · ${info.mode}` +
    ` · cap ${info.max_guesses || "none"}` + (info.cutoff != null ? ` · cutoff ${info.cutoff}` : "");
  const frac = p.selected ? p.done / p.selected : 0;
  const counts = el("div", { class: "counts" });
  for (const [k, v] of Object.entries(p.counts)) if (v) counts.append(el("span", { class: `badge ${k}`, text: `${v} ${k.replace("_", " ")}` }));
  const run = p.run || {};
  const bar = el("div", { class: "pbar" }, el("i"));
  bar.firstChild.style.width = `${(100 * frac).toFixed(1)}%`;
  const state = info.kind === "book"
    ? `opening book built ${String(run.built_at || "").slice(0, 10)}; ranks proven for the ` +
      `${info.proven_ranks} best openers (every other opener has a proven bound above them)`
    : run.state ? `run ${run.state}` + (run.updated_at ? `, updated ${Math.max(0, Date.now() / 1000 - run.updated_at).toFixed(0)} s ago` : "") : "";
  $("#progress").replaceChildren(
    el("div", { id: "progress-text" }, el("b", { text: `${p.done} / ${p.selected}` }), ` selected openers done (${(100 * frac).toFixed(1)}%)`),
    bar, counts,
    p.best ? el("p", {}, "Best: ", el("b", { class: "w", text: p.best.opener.toUpperCase() }), ` ${p.best.total} (${fmt(p.best.average)} avg)`) : null,
    state ? el("p", { class: "muted small", text: state }) : null);
}

function renderDistribution(d) {
  const box = $("#dist");
  if (!d.bins.length) { box.replaceChildren(el("p", { class: "muted", text: "No exact values yet." })); return; }
  const W = 480, H = 200, L = 36, R = 12, T = 22, B = 30;
  const maxc = Math.max(...d.bins.map((b) => b.count));
  const lo = d.bins[0].from, hi = d.bins[d.bins.length - 1].to + 1;
  const X = (v) => L + (W - L - R) * (v - lo) / (hi - lo);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "dist" });
  for (const b of d.bins) {
    const h = (H - T - B) * b.count / maxc;
    const r = svg("rect", { x: X(b.from) + 0.5, y: H - B - h, width: Math.max(1, X(b.to + 1) - X(b.from) - 1), height: h, fill: "#2f6fde" });
    r.append(svg("title", {}, `${b.from}–${b.to}: ${b.count} openers`));
    s.append(r);
  }
  s.append(svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#c5cbd5" }));
  for (const v of [lo, Math.round((lo + hi) / 2), hi - 1]) {
    s.append(svg("text", { x: X(v), y: H - B + 16, "text-anchor": "middle", "font-size": 11, fill: "#6b7280" }, `${(v / d.n_answers).toFixed(2)}`));
  }
  s.append(svg("text", { x: L - 6, y: T + 4, "text-anchor": "end", "font-size": 11, fill: "#6b7280" }, `${maxc}`));
  s.append(svg("text", { x: (L + W - R) / 2, y: H - 2, "text-anchor": "middle", "font-size": 11, fill: "#6b7280" }, "average guesses (exact openers)"));
  if (d.best) {
    const x = X(d.best.total) + 1;
    s.append(svg("line", { x1: x, x2: x, y1: T - 4, y2: H - B, stroke: "#3f9b5a", "stroke-width": 2, "stroke-dasharray": "4 3" }));
    s.append(svg("text", { x: x + 4, y: T + 2, "font-size": 12, fill: "#236b3a", "font-weight": 700 }, `best ${d.best.opener.toUpperCase()} ${fmt(d.best.average, 4)}`));
  }
  const other = d.counts.lower_bound + d.counts.infeasible;
  box.replaceChildren(s, el("p", { class: "muted small", text: `${d.values} exact/upper-bound values` + (other ? `; not shown: ${d.counts.lower_bound} lower bounds, ${d.counts.infeasible} infeasible` : "") }));
}

async function loadTable() {
  const params = new URLSearchParams({ sort: S.sort, desc: S.desc, offset: S.offset, limit: S.limit });
  const q = $("#q").value.trim();
  if (q) params.set("q", q);
  const st = $("#status-filter").value;
  if (st) params.set("status", st);
  const res = await api(`/api/stores/${encodeURIComponent(S.store)}/openers?${params}`);
  const info = S.storeInfo || {};
  const tb = $("#openers tbody");
  tb.replaceChildren();
  for (const r of res.rows) {
    const rel = { lower_bound: "≥ ", upper_bound: "≤ " }[r.status] || "";
    const link = info.matches_lists && r.status !== "infeasible"
      ? el("a", { href: `#strategy?opener=${r.opener}&mode=${info.mode}&cap=${info.max_guesses}`, text: r.opener, title: "optimal strategy" })
      : r.opener;
    tb.append(el("tr", {},
      el("td", { class: "num", text: r.rank ?? "" }), el("td", { class: "w" }, link),
      el("td", {}, el("span", { class: `badge ${r.status}`, text: r.status.replace("_", " ") })),
      el("td", { class: "num", text: r.total != null ? rel + r.total : "" }),
      el("td", { class: "num", text: r.average != null ? rel + fmt(r.average) : "" }),
      el("td", { class: "num", text: r.depth ?? "" }),
      el("td", { class: "num", text: r.cpu_seconds != null ? r.cpu_seconds.toFixed(2) : "" })));
  }
  const end = Math.min(res.offset + res.rows.length, res.total_rows);
  $("#rows-info").textContent = res.total_rows ? `${res.offset + 1}–${end} of ${res.total_rows}` : "no openers match";
  $("#prev").disabled = res.offset === 0;
  $("#next").disabled = end >= res.total_rows;
  document.querySelectorAll("#openers th").forEach((th, i) => {
    const on = th.dataset.sort === S.sort && (S.sort !== "total" || i === 3);
    th.classList.toggle("sorted", on);
    th.classList.toggle("desc", on && S.desc);
  });
}

document.querySelectorAll("#openers th[data-sort]").forEach((th) => th.addEventListener("click", () => {
  const k = th.dataset.sort;
  S.desc = S.sort === k ? !S.desc : false;
  S.sort = k; S.offset = 0;
  loadTable();
}));
let qTimer = null;
$("#q").addEventListener("input", () => { clearTimeout(qTimer); qTimer = setTimeout(() => { S.offset = 0; loadTable(); }, 150); });
$("#status-filter").addEventListener("change", () => { S.offset = 0; loadTable(); });
$("#prev").addEventListener("click", () => { S.offset = Math.max(0, S.offset - S.limit); loadTable(); });
$("#next").addEventListener("click", () => { S.offset += S.limit; loadTable(); });
$("#store-select").addEventListener("change", (ev) => { S.store = ev.target.value; S.offset = 0; refreshResults(); });

// ------------------------------------------------------------------ several boards
// Issue 18: k boards at once (easy mode, cap k + 5). Rows: {word, codes: [per board
// colours or null once the board was solved]}; the server's /api/boards reads
// `word:F1/F2/...` per guess ('-' for a solved board).
const B = { k: 4, kind: "assist", rows: [], cur: [], secrets: null, res: null, seq: 0 };
const bSolvedAt = (i) => {
  const r = B.rows.findIndex((row) => row.codes[i] && row.codes[i].every((c) => c === 2));
  return r < 0 ? null : r + 1;
};
const bPosition = () => B.rows.map((r) =>
  `${r.word}:${r.codes.map((c) => (c ? patText(c) : "-")).join("/")}`).join(",") || "-";
const bOpen = (i, upto) => { const s = bSolvedAt(i); return s == null || s > upto; };
const bSay = (text, kind = "") => { $("#boards-msg").textContent = text; $("#boards-msg").className = `msg ${kind}`; };

function renderBoards() {
  const grid = $("#boards-grid");
  grid.replaceChildren();
  const word = $("#boards-guess").value.trim().toLowerCase();
  for (let i = 0; i < B.k; i++) {
    const solved = bSolvedAt(i);
    const info = B.res && B.res.board ? B.res.board[i] : null;
    const head = el("h3", {}, el("span", { text: `Board ${i + 1}` }),
      el("span", { class: "st", text: solved ? `solved at guess ${solved}` :
        (info ? `${info.candidates} candidate${info.candidates === 1 ? "" : "s"}` : "") }));
    const card = el("div", { class: "bcard" + (solved ? " solved" : ""), "data-board": i }, head);
    card.style.setProperty("--len", L());
    B.rows.forEach((r, ri) => {
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
}

function renderBoardsAdvice() {
  const box = $("#boards-advice");
  const r = B.res;
  if (!r) { box.replaceChildren(el("p", { class: "muted", text: "…" })); return; }
  if (r.done) {
    box.replaceChildren(el("p", { class: "msg ok", text: `Every board solved in ${B.rows.length} guesses` +
      (B.rows.length > r.max_guesses ? ` (${B.rows.length - r.max_guesses} over the cap of ${r.max_guesses})` : "") }));
    return;
  }
  const b = r.best;
  const kids = [el("h2", { text: "Next guess" })];
  if (!b) kids.push(el("p", { class: "msg err", text: "no strategy solves every board within the cap" }));
  else {
    const why = b.status === "exact" ?
      `exact: ${b.total} guesses over ${r.tuples} answer tuples (${fmt(b.average)} more on average, worst ${b.worst})` :
      (b.why ? `${b.why} (heuristic)` : "heuristic (entropy of the joint feedback), not exact");
    kids.push(el("p", {}, el("button", { class: "primary", id: "boards-take", text: b.guess.toUpperCase(),
      onclick: () => { $("#boards-guess").value = b.guess; bTyped(); } }), " ", el("span", { class: "muted", text: why })));
    if (r.alternatives && r.alternatives.length) {
      kids.push(el("p", { class: "muted small", text: "also: " + r.alternatives.map((a) => a.guess).join(", ") }));
    }
  }
  kids.push(el("p", { class: "muted small", text: `${r.tuples_exact ? "" : "at most "}${r.tuples} answer tuples; guess ${B.rows.length + 1} of ${r.max_guesses}` }));
  box.replaceChildren(...kids);
}

async function boardsAnalyse() {
  const seq = ++B.seq;
  B.res = null;
  renderBoardsAdvice();
  const q = new URLSearchParams({ position: bPosition(), boards: String(B.k), top: "3" });
  try {
    let r = await api(`/api/boards?${q}`);
    while (r && r.state && r.id && r.state !== "done") {  // past the request budget: a job
      if (r.state === "error") throw new Error(r.error);
      if (r.state === "cancelled") return;
      await new Promise((res) => setTimeout(res, 300));
      if (seq !== B.seq) return;
      r = await api(`/api/jobs/${r.id}`);
    }
    if (r && r.state === "done") r = r.result;
    if (seq !== B.seq) return;
    B.res = r;
    bSay("");
  } catch (e) {
    if (seq === B.seq) bSay(e.message, "err");
    return;
  }
  renderBoardsAdvice();
  renderBoards();
}

function bTyped() {
  B.cur = Array.from({ length: B.k }, () => greys());
  renderBoards();
}

function boardsEnter(ev) {
  if (ev) ev.preventDefault();
  let word = $("#boards-guess").value.trim().toLowerCase();
  if (!word && B.res && B.res.best) word = B.res.best.guess;
  if (B.res && B.res.done) { bSay("every board is solved: New game", "info"); return; }
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
  bTyped();
  bSay("");
  boardsAnalyse();
}

$("#boards-form").addEventListener("submit", boardsEnter);
$("#boards-guess").addEventListener("input", bTyped);
$("#boards-new").addEventListener("click", boardsNew);
$("#boards-k").addEventListener("change", boardsNew);
$("#boards-undo").addEventListener("click", () => { B.rows.pop(); bTyped(); boardsAnalyse(); });
document.querySelectorAll("#boards-kind button").forEach((b) => b.addEventListener("click", () => {
  B.kind = b.dataset.kind;
  document.querySelectorAll("#boards-kind button").forEach((x) => x.classList.toggle("on", x === b));
  boardsNew();
}));

// ------------------------------------------------------------------ routing, switches
function currentView() { return (location.hash.slice(1).split("?")[0]) || "play"; }

function setProblem(mode, cap, replay = true) {
  const changed = mode !== S.mode || cap !== S.cap;
  S.mode = mode; S.cap = cap;
  document.querySelectorAll("#mode button").forEach((b) => b.classList.toggle("on", b.dataset.mode === mode));
  $("#cap").value = String(cap);
  if (changed && replay) { renderBoard(); if (!S.solved) analyse(); }
  return changed;
}

// mode and cap: not for the Results and Boards views, nor Absurdle (easy, no cap)
function showControls() {
  const view = currentView();
  const off = view === "results" || view === "boards" || (view === "play" && S.absurd);
  $("#problem-controls").style.visibility = off ? "hidden" : "visible";
}

function route() {
  const view = currentView();
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  for (const v of ["play", "boards", "strategy", "results"]) $(`#view-${v}`).hidden = v !== view;
  document.querySelectorAll("#tabs a").forEach((a) => a.classList.toggle("active", a.dataset.view === view));
  showControls();
  if (view === "strategy") {
    if (params.get("mode") || params.get("cap")) {
      setProblem(params.get("mode") || S.mode, params.has("cap") ? Number(params.get("cap")) : S.cap);
    }
    const opener = params.get("opener") || $("#opener").value ||
      (S.analysis && S.rows.length === 0 && S.analysis.best ? S.analysis.best.guess : "") ||
      S.info.default_opener;  // never an empty view
    if (opener && (!S.strategy || S.strategy.opener !== opener || S.strategy.mode !== S.mode || S.strategy.max_guesses !== S.cap)) showStrategy(opener);
  } else if (view === "play") {
    const ans = (params.get("answer") || "").toLowerCase();
    if (ans && S.answers.includes(ans) && ans !== S.fixedSecret) { setKind("play", ans); return true; }
    if (params.get("game") === "absurdle" && !S.absurd) { setKind("absurdle"); return true; }
  } else if (view === "boards") {
    const k = params.get("k");
    if (k && ["2", "4", "8"].includes(k)) $("#boards-k").value = k;
    if (!B.res || (k && Number(k) !== B.k)) boardsNew();
  } else if (view === "results") {
    if (params.get("store")) S.store = params.get("store");
    loadStores().then(() => refreshResults());
  }
}

document.querySelectorAll("#mode button").forEach((b) => b.addEventListener("click", () => {
  setProblem(b.dataset.mode, S.cap);
  if (currentView() === "strategy" && $("#opener").value) showStrategy($("#opener").value);
}));
$("#cap").addEventListener("change", (ev) => {
  setProblem(S.mode, Number(ev.target.value));
  if (currentView() === "strategy" && $("#opener").value) showStrategy($("#opener").value);
});
window.addEventListener("hashchange", route);
// Leaving the page (closing it, reloading) cancels its jobs: nobody will read them.
window.addEventListener("pagehide", () => {
  for (const r of [playJob, stratJob]) {
    if (r.id) fetch(`/api/jobs/${r.id}`, { method: "DELETE", keepalive: true });
  }
});

async function init() {
  try {
    const [info, words] = await Promise.all([api("/api/info"), api("/api/words")]);
    S.info = info;
    S.cur.colours = greys();
    for (const id of ["#opener", "#path-answer", "#q"]) $(id).maxLength = info.length;
    $("#last-digit").textContent = String(info.length % 10);  // the tenth tile is 0
    S.guesses = new Set(words.guesses);
    S.answers = words.answers;
    $("#answers-list").replaceChildren(...words.answers.map((w) => el("option", { value: w })));
    if (![...$("#cap").options].some((o) => o.value === String(info.max_guesses))) {
      $("#cap").append(el("option", { value: info.max_guesses, text: info.max_guesses }));
    }
    setProblem(info.mode, info.max_guesses, false);
    const list = (l) => `${l.name}: ${l.words} words, sha256 ${l.sha256.slice(0, 12)}`;
    $("#footer").textContent = `${list(info.lists.answers)} · ${list(info.lists.guesses)} · wordle-dp ${info.version}`;
    $("#opener").placeholder = info.default_opener;
  } catch (e) {
    $("#analysis-body").replaceChildren(el("p", { class: "msg err", text: `Server not reachable: ${e.message}` }));
    return;
  }
  document.body.dataset.ready = "1";
  renderBoard();
  if (!route()) analyse();  // route() starts the game itself for #play?answer=...
}
init();
