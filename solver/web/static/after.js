// After a game in the Play view: the grid players share, the player's own
// statistics (kept in this browser), and each guess against the best one, with the
// exact values /api/next gave during the game.
import { listsId } from "./api.js";
import { $, el, fmt, num, pct, plural } from "./dom.js";
import { L, S, feedback, listsLabel, patText } from "./state.js";
import { wordTiles } from "./tiles.js";

// localStorage: { [statsKey()]: { played, won, streak, best, dist } }, one set of
// statistics per word lists, mode and cap: a game on other lists or under other
// rules is another game
const STATS = "wordle-dp.stats";

// the analyses the game got, by problem and position: a finished game is judged
// under the rules it was played with; and the guesses valued from their feedbacks
const analyses = new Map(), valued = new Map();
export const seenKey = (pos) => `${S.mode}|${S.cap}|${pos}`;
export function remember(pos, res, full) {
  const k = seenKey(pos), old = analyses.get(k);
  if (full || !old || !old.full) analyses.set(k, { res, full });
}
const seen = (pos) => { const x = analyses.get(seenKey(pos)); return x ? x.res : null; };
// the position's alternatives were ranked (a full analysis)
export const seenFull = (pos) => { const x = analyses.get(seenKey(pos)); return x != null && x.full; };
export function forgetGame() { analyses.clear(); valued.clear(); }
const positionOf = (rows) => rows.map((r) => `${r.word}:${patText(r.colours)}`).join(",") || "-";

// ------------------------------------------------------------------ share
// the squares of each colour: grey, yellow, green (the high-contrast palette's blue
// and orange where the player chose it, as the tiles show them)
function squares() {
  return document.documentElement.dataset.palette === "contrast" ? ["⬛", "🟦", "🟧"] : ["⬛", "🟨", "🟩"];
}

// "wordle-dp 4/6*": guesses taken (X: not solved) of the cap (∞: none); a star for a
// game under a stricter rule than easy (hard, or strict), then a row of squares per guess
export function shareText(won) {
  const sq = squares();
  const head = `wordle-dp ${won ? S.rows.length : "X"}/${S.cap > 0 ? S.cap : "∞"}` +
    (S.mode === "easy" ? "" : "*");
  return [head, ...S.rows.map((r) => r.colours.map((c) => sq[c]).join(""))].join("\n");
}

async function copy(text, said) {
  let ok = false;
  try { await navigator.clipboard.writeText(text); ok = true; } catch (_) {
    // no clipboard API (a page over plain http on another host): select and copy
    const area = el("textarea", { class: "offscreen" });
    area.value = text;
    document.body.append(area);
    area.select();
    try { ok = document.execCommand("copy"); } catch (_e) { ok = false; }
    area.remove();
  }
  said.textContent = ok ? "Copied: paste it where you post." : "Copy did not work here: select the grid and copy it.";
}

// ------------------------------------------------------------------ statistics
// the lists by their content (both lists' sha256, whatever the server calls them),
// then the mode and the cap
export function statsKey() {
  const l = S.info.lists;
  return `${l.answers.sha256.slice(0, 16)}.${l.guesses.sha256.slice(0, 16)}|${S.mode}|${S.cap}`;
}

// "Today's NYT Wordle, hard mode" (", at most 4 guesses" when the cap is not 6)
function statsFor() {
  const entry = S.lists.find((x) => x.id === listsId()) || S.lists.find((x) => x.served);
  const cap = S.cap === 6 ? "" : S.cap > 0 ? `, at most ${S.cap} guesses` : ", no guess cap";
  return `${entry ? listsLabel(entry) : `${L()} letters`}, ${S.mode} mode${cap}`;
}

function allStats() {
  try {
    const all = JSON.parse(localStorage.getItem(STATS) || "null");
    // (one set for every game, before: its lists and mode were not kept)
    if (all && typeof all === "object" && typeof all.played !== "number") return all;
  } catch (_) { /* none, or private mode */ }
  return {};
}

export function loadStats() {
  const s = allStats()[statsKey()];
  if (s && typeof s.played === "number") return s;
  return { played: 0, won: 0, streak: 0, best: 0, dist: {} };
}

function record(won) {
  const s = loadStats();
  s.played++;
  if (won) {
    s.won++; s.streak++; s.best = Math.max(s.best, s.streak);
    s.dist[S.rows.length] = (s.dist[S.rows.length] || 0) + 1;
  } else s.streak = 0;
  const all = allStats();
  all[statsKey()] = s;
  try { localStorage.setItem(STATS, JSON.stringify(all)); } catch (_) { /* private mode */ }
  return s;
}

function statsBox(s, won) {
  const box = el("div", { class: "stats", id: "stats" });
  const cell = (v, k, id) => el("div", { class: "stat-cell" }, el("b", { id, text: v }), el("span", { text: k }));
  box.append(el("div", { class: "stat-row" }, cell(num(s.played), "played", "st-played"),
    cell(s.played ? pct(s.won, s.played) : "–", "won", "st-winpct"),
    cell(num(s.streak), "streak", "st-streak"), cell(num(s.best), "best streak", "st-best")));
  const most = Math.max(1, ...Object.values(s.dist));
  const last = Math.max(6, S.cap, ...Object.keys(s.dist).map(Number));
  const dist = el("div", { class: "dist", id: "st-dist", role: "list", "aria-label": "guess distribution" });
  for (let g = 1; g <= last; g++) {
    const k = s.dist[g] || 0;
    const bar = el("i", { class: won && g === S.rows.length ? "now" : "" });
    bar.style.width = `${Math.max(6, (100 * k) / most)}%`;
    bar.textContent = num(k);
    dist.append(el("div", { class: "drow", role: "listitem", "aria-label": `${plural(k, "game")} in ${g}` },
      el("span", { text: String(g) }), bar));
  }
  box.append(dist);
  return box;
}

// ------------------------------------------------------------------ against best play
// A guess's value: the exact total of guesses over the candidates, this one included,
// when /api/next gave it (the best guess, or one of the alternatives it ranked), or
// when the page valued it from its feedbacks (valueAt: no endpoint values a guess)
const valKey = (pos, word) => `${seenKey(pos)}|${word}`;
function valueOf(res, word, pos) {
  if (!res || !res.best || res.best.wins != null || res.best.total == null) return null;
  if (res.best.guess === word) return { total: res.best.total, status: res.best.status, best: true };
  const a = (res.alternatives || []).find((x) => x.guess === word);
  if (a && a.total != null && a.wins == null) return { total: a.total, status: a.status, best: false };
  const v = valued.get(valKey(pos, word));
  return v ? { ...v, best: false, derived: true } : null;
}

const MAX_CLASSES = 150;  // feedbacks asked about to value one guess, at most
// the answers every row's feedback fits
const candidates = (rows) => S.answers.filter((a) => rows.every((r) =>
  feedback(r.word, a).every((c, i) => c === r.colours[i])));

// The rows whose guess /api/next did not rank, and how to value each: a guess's total
// is n plus, over each of its feedbacks but all green, the best total of the position
// that feedback leaves (what /api/next says of it). `classes`: those positions.
export function toValue(rows) {
  const out = [];
  rows.forEach((r, i) => {
    const before = rows.slice(0, i), pos = positionOf(before), res = seen(pos);
    if (!res || !res.best || res.best.wins != null || res.best.total == null) return;
    if (valueOf(res, r.word, pos)) return;
    const left = candidates(before);
    if (left.length !== res.candidates) return;  // not the server's answers: no value
    const green = "G".repeat(L()), pats = new Set(left.map((a) => patText(feedback(r.word, a))));
    const classes = [...pats].filter((p) => p !== green).sort()
      .map((p) => `${pos === "-" ? "" : `${pos},`}${r.word}:${p}`);
    if (classes.length <= MAX_CLASSES) out.push({ key: valKey(pos, r.word), word: r.word, n: left.length, classes });
  });
  return out;
}
export const setValue = (key, total, status) => valued.set(key, { total, status });

// Each row: the expected guesses left after the player's guess against after the
// best guess (total − n) / n, exact; and the luck of the feedback: the guesses the
// guess was expected to leave against those its feedback left with best play
// (the next position's best total over its candidates; 0 once solved). The guess's
// total is n plus the best totals after each of its feedbacks, so both are exact.
export function judge(rows) {
  const out = [];
  rows.forEach((r, i) => {
    const res = seen(positionOf(rows.slice(0, i)));
    const row = { word: r.word, colours: r.colours, res, mine: null, luck: null };
    if (res && res.best && res.best.total != null && res.best.wins == null) {
      const n = res.candidates;
      row.n = n;
      row.bestWord = res.best.guess;
      row.bestLeft = (res.best.total - n) / n;
      row.mine = valueOf(res, r.word, positionOf(rows.slice(0, i)));
      if (row.mine) {
        row.left = (row.mine.total - n) / n;
        const solved = r.colours.every((c) => c === 2);
        const next = solved ? null : seen(positionOf(rows.slice(0, i + 1)));
        const nb = next && next.best;
        let after = null;  // the guesses still needed after the feedback, with best play
        if (solved) after = 0;
        else if (nb && nb.total != null && nb.wins == null && nb.status === "exact") after = nb.total / next.candidates;
        if (after != null && row.mine.status === "exact" && res.best.status === "exact") row.luck = row.left - after;
      }
    }
    out.push(row);
  });
  return out;
}

function compareTable(judged) {
  const tb = el("tbody");
  for (const j of judged) {
    let yours = "–", vs = "not ranked", luck = "–";
    if (!j.res) vs = "no analysis";
    else if (j.bestLeft == null) vs = "no value (no strategy wins every answer)";
    else if (j.mine) {
      yours = fmt(j.left, 3);
      if (j.mine.derived) yours += "*";
      const d = j.left - j.bestLeft;
      vs = j.mine.best ? "best" : (Math.abs(d) < 1e-9 ? "as good as the best" : `+${fmt(d, 3)}`);
    } else vs = `not among the ${plural(1 + (j.res.alternatives || []).length, "best guess", "best guesses")}`;
    if (j.luck != null) luck = Math.abs(j.luck) < 5e-4 ? "none" : `${j.luck > 0 ? "+" : "−"}${fmt(Math.abs(j.luck), 3)}`;
    tb.append(el("tr", { class: j.mine && j.mine.best ? "was-best" : "" },
      el("td", {}, wordTiles(j.word, j.colours)),
      el("td", { class: "num", text: yours }),
      el("td", { class: "bestcell" }, j.bestWord ? el("span", { class: "w", text: j.bestWord }) : "–",
        j.bestLeft != null ? ` ${fmt(j.bestLeft, 3)}` : ""),
      el("td", { class: "vs", text: vs }),
      el("td", { class: `num luck${j.luck > 5e-4 ? " good" : j.luck < -5e-4 ? " bad" : ""}`, text: luck })));
  }
  return el("table", { class: "compare", id: "compare" },
    el("thead", {}, el("tr", {}, el("th", { text: "guess" }),
      el("th", { class: "num", text: "left after", title: "expected guesses still needed after this guess, with best play" }),
      el("th", { text: "best guess", title: "the best guess here, and the guesses left after it" }), el("th", { text: "vs best" }),
      el("th", { class: "num", text: "luck", title: "guesses the feedback saved (+) or cost (−) against this guess's expectation" }))),
    tb);
}

// The panel after the game: `won` (all green), `afterFetch` a function that asks
// /api/next for the positions of the game the page has no full analysis of yet
// (the player typed ahead of it), calling back to draw the panel again.
export function renderAfter(won, { recordIt, waiting }) {
  const box = $("#after");
  const s = recordIt ? record(won) : (S.secret ? loadStats() : null);
  const kids = [];
  const n = S.rows.length;
  kids.push(el("h2", { text: won ? `Solved in ${plural(n, "guess", "guesses")}` :
    `Not solved${S.secret ? `: the answer was ${S.secret.toUpperCase()}` : ""}` }));
  const text = shareText(won);
  const said = el("span", { class: "muted small", id: "share-said", role: "status" });
  kids.push(el("div", { class: "share" },
    el("pre", { id: "share-text", "aria-label": "the grid to share" }, text),
    el("div", {}, el("button", { class: "primary", id: "btn-share", text: "Share", onclick: () => copy(text, said) }),
      " ", said)));
  if (s) {
    kids.push(el("h2", { text: "Your statistics" }),
      el("p", { class: "muted small", id: "st-for", text: `${statsFor()}; other lists and ` +
        "modes keep their own." }), statsBox(s, won));
  }
  const judged = judge(S.rows);
  kids.push(el("h2", { text: "Your guesses against the best" }));
  const start = judged[0];
  if (start && start.bestLeft != null) {
    kids.push(el("p", { class: "small", id: "compare-sum", text: `With best play from the start: ` +
      `${fmt(start.bestLeft + 1, 3)} guesses on average; you took ${n}. ` +
      `You played the best guess ${judged.filter((j) => j.mine && j.mine.best).length} of ${n} times.` }));
  }
  kids.push(compareTable(judged));
  kids.push(el("p", { class: "muted small", text: "Left after: the exact expected number of guesses " +
    "still needed after a guess, playing best from then on. Luck: what the colours you got saved " +
    "(+) or cost (−) against that expectation. A guess the server did not rank among its best is " +
    "valued (marked *) from the best play after each of its feedbacks." }));
  if (waiting) kids.push(el("p", { class: "muted small", id: "compare-wait", text: waiting }));
  box.replaceChildren(...kids);
  box.hidden = false;
}
