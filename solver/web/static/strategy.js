// The Strategy view: an opener's optimal decision tree, the histogram of guesses
// needed and the path of any answer, computed as a job (minutes for bad openers).
import { $, el, fmt, num, pct, plural, svg } from "./dom.js";
import { JobRunner } from "./jobs.js";
import { currentKind, setGuess } from "./play.js";
import { L, S, colsOf, feedback, patText } from "./state.js";
import { patIcon, wordTiles } from "./tiles.js";

export const stratJob = new JobRunner($("#job-strategy"));
let wanted = null;  // the strategy asked for: {opener, mode, cap}, until it is shown
let strategy = null;  // the one shown (the server's answer)

const same = (a, b) => a && b && a.opener === b.opener && a.mode === b.mode && a.cap === b.cap;

// Show `opener`'s strategy for the page's problem, unless it is shown or on its way
export function showStrategy(opener, again = false) {
  opener = (opener || "").trim().toLowerCase();
  $("#opener").value = opener;
  if (!opener) return;
  const want = { opener, mode: S.mode, cap: S.cap };
  const shown = strategy && { opener: strategy.opener, mode: strategy.mode, cap: strategy.max_guesses };
  if (same(want, wanted) && stratJob.id) return;  // on its way
  if (!again && !wanted && same(want, shown)) return;  // shown
  wanted = want;
  // nothing of another opener stays on screen while this one computes, and what is
  // hidden is no longer shown: asked again after an error, it is computed again
  $("#strategy-out").hidden = true;
  strategy = null;
  $("#strategy-msg").textContent = "";
  $("#strategy-problem").textContent = `${opener.toUpperCase()}: ${S.mode}, cap ${S.cap || "none"}`;
  stratJob.run({ kind: "strategy", opener, mode: S.mode, max_guesses: S.cap },
    (res) => { wanted = null; strategy = res; renderStrategy(res); },
    (msg) => { wanted = null; say(msg, "err"); },
    () => {
      wanted = null;
      say(`Cancelled: ${opener.toUpperCase()}'s strategy was not computed. Show strategy starts it again.`, "info");
    });
}

function say(text, kind) {
  const m = $("#strategy-msg");
  m.textContent = text;
  m.className = `msg ${kind}`;
}

// the strategy shown is another problem's (mode or cap switched): none until asked
export function forgetStrategy() {
  stratJob.cancel(false);
  wanted = null;
  strategy = null;
  $("#strategy-out").hidden = true;
}

function renderStrategy(res) {
  $("#strategy-out").hidden = false;
  $("#strategy-msg").textContent = "";
  $("#strategy-problem").textContent = `${res.opener.toUpperCase()}: ${res.mode}, cap ${res.max_guesses || "none"}`;
  const wins = res.wins != null;  // no strategy wins every answer: the best chance
  $("#st-total-k").textContent = wins ? "total over answers won" : "total";
  $("#st-avg-k").textContent = wins ? "average over answers won" : "average";
  $("#st-depth-k").textContent = wins ? "chance to win" : "worst case";
  $("#st-total").textContent = num(res.total);
  $("#st-avg").textContent = fmt(res.average, 4);
  $("#st-depth").textContent = wins ? pct(res.wins, res.answers) : plural(res.depth, "guess", "guesses");
  $("#st-n").textContent = wins ? `${num(res.wins)} of ${num(res.answers)} won` : num(res.answers);
  $("#st-wins").hidden = !wins;
  if (wins) {
    renderWins(res);
    $("#st-hist").replaceChildren(el("p", { class: "muted", text: "Not shown: the answers of " +
      `${lostText(res)} have no strategy built here, so the guesses they need are not known.` }));
  } else {
    $("#st-hist").replaceChildren(histogram(res.histogram, res.answers));
  }
  $("#tree").replaceChildren(treeNode(res.tree, null, true));
  $("#path-answer").value = "";
  $("#path-out").replaceChildren();
}

// the classes after the opener that lose answers, as the tree shows them
const lostText = (res) => res.lost_classes.map((c) =>
  `${res.opener.toUpperCase()} ${c.pattern} (${plural(c.answers, "answer")})`).join(", ");

// An opener after which no strategy wins every answer within the cap: what the best
// chance is (the objective wins), what is not built, and where to play it
function renderWins(res) {
  const O = res.opener.toUpperCase();
  const lost = res.lost_classes.map((c) =>
    `after ${c.pattern}, ${plural(c.answers, "answer")}: ${c.guess.toUpperCase()} wins ${num(c.wins)}`);
  $("#st-wins").replaceChildren(
    el("p", { class: "msg wins", id: "st-wins-msg", text: `No strategy after ${O} wins every answer within ` +
      `${plural(res.max_guesses, "guess", "guesses")} in ${res.mode} mode. Its best chance: ${O} wins ` +
      `${num(res.wins)} of the ${num(res.answers)} answers (${pct(res.wins, res.answers)}), then ` +
      `${fmt(res.average, 2)} guesses on average over those.` }),
    el("p", { class: "muted", text: `The tree below is the optimal one wherever every answer can be won; ` +
      `it is not built below the classes that lose answers (${lost.join("; ")}). The Play view plays ` +
      "for the most wins wherever it must, one guess at a time." }),
    el("button", { class: "primary", id: "st-play", text: `Play ${O} in the Play view`, onclick: () => {
      location.hash = "#play";
      if (S.rows.length === 0 && currentKind().rules) setGuess(res.opener);
    } }));
}

function histogram(hist, n) {
  const keys = Object.keys(hist).map(Number).sort((a, b) => a - b);
  // the count and its share on two lines above each bar: on one line, 4-digit counts
  // (3158 NYT answers) ran into the next bar's label
  const W = 460, H = 200, pad = 28, top = 40;
  const bw = Math.min(70, (W - 2 * pad) / keys.length - 10);
  const maxc = Math.max(...keys.map((k) => hist[k]));
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "hist" });
  keys.forEach((k, i) => {
    const c = hist[k], h = (H - top - pad) * c / maxc;
    const x = pad + i * ((W - 2 * pad) / keys.length) + 5, y = H - pad - h;
    s.append(svg("rect", { x, y, width: bw, height: h, rx: 4, fill: "#3f9b5a" }));
    s.append(svg("text", { x: x + bw / 2, y: y - 19, "text-anchor": "middle", "font-size": 12,
      fill: "#1d2330" }, num(c)));
    s.append(svg("text", { x: x + bw / 2, y: y - 5, "text-anchor": "middle", "font-size": 11,
      fill: "#6b7280" }, `${(100 * c / n).toFixed(1)}%`));
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
  const won = node.wins == null ? `${plural(n, "answer")} · ${fmt(node.total / n, 3)} avg` :
    `wins ${num(node.wins)} of ${plural(n, "answer")} (${pct(node.wins, n)}) · ` +
    `${fmt(node.wins ? node.total / node.wins : null, 3)} avg won` +
    (node.not_built ? " · not built: play it in the Play view" : "");
  head.append(el("span", { class: "g", text: node.guess }), el("span", { class: "n", text: won }));
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

function showPath() {
  const a = $("#path-answer").value.trim().toLowerCase();
  const out = $("#path-out");
  out.replaceChildren();
  if (!strategy || a.length < L()) return;
  const steps = strategy.games[a];
  if (steps === null) {  // in a class that loses answers: no tree built below it
    const O = strategy.opener.toUpperCase();
    out.append(el("p", { class: "msg wins", text: `${a.toUpperCase()} gives ${O} ` +
      `${patText(feedback(strategy.opener, a))}, a feedback after which no strategy wins every ` +
      "answer: its game is not built here. Play it in the Play view." }));
    return;
  }
  if (!steps) { out.append(el("p", { class: "msg err", text: `${a.toUpperCase()} is not an answer.` })); return; }
  const p = el("div", { class: "path" });
  steps.forEach((st, i) => {
    const [g, pat] = st.split(":");
    p.append(el("div", { class: "step" }, wordTiles(g, colsOf(pat)), el("span", { text: `guess ${i + 1}` })));
  });
  out.append(p);
}

export function bindStrategy() {
  $("#strategy-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const w = $("#opener").value.trim().toLowerCase();
    const hash = `#strategy?opener=${w}`;
    // the same link again (Cancel, then Show strategy) changes no hash: start it here
    if (location.hash === hash) showStrategy(w, true);
    else location.hash = hash;
  });
  $("#path-answer").addEventListener("input", showPath);
}
