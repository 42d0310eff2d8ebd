// wordle-dp web page: four views over the JSON API (no framework, no build step,
// no CDN). This module routes between the views, holds the header's switches (word
// lists, mode, cap) and starts the page; each view is its own module. The game
// kinds (play.js says their interface) are chosen here, by name, and nowhere else.
import { absurdle } from "./absurdle.js";
import { statsKey } from "./after.js";
import { api, listsId, setLists } from "./api.js";
import { $, $$, el, num, press } from "./dom.js";
import { bPosition, bindBoards, boardsJob, forgetBoards, openBoards } from "./boards.js";
import { analyse, assist, bindPlay, currentKind, key, newGame, play, playJob, renderBoard, say,
  setKind } from "./play.js";
import { bindResults, forgetStore, loadStores, refreshResults } from "./results.js";
import { bindStrategy, forgetStrategy, showStrategy, stratJob } from "./strategy.js";
import { S, block, exampleAnswer, feedback, listsLabel, setOffered, setRules, setWords } from "./state.js";

const STORED = "wordle-dp.lists";  // localStorage: the lists the player chose last
const KINDS = { assist, play, absurdle };  // the Play view's game kinds, by the buttons' names

function currentView() { return (location.hash.slice(1).split("?")[0]) || "play"; }

function setProblem(mode, cap, replay = true) {
  const changed = mode !== S.mode || cap !== S.cap;
  setRules(mode, cap);
  $$("#mode button").forEach((b) => press(b, b.dataset.mode === mode));
  if (![...$("#cap").options].some((o) => o.value === String(cap))) {
    $("#cap").append(el("option", { value: cap, text: cap }));
  }
  $("#cap").value = String(cap);
  if (changed && replay) {
    block(null);  // the last row is judged again under the new rules
    if (currentKind().rules) say("");
    renderBoard();
    if (!S.solved) analyse();
  }
  return changed;
}

// mode and cap: not for the Results and Boards views, nor Absurdle (easy, no cap);
// hidden, not just invisible, so that a phone's header has no empty band
function showControls() {
  const view = currentView();
  $("#problem-controls").hidden = view === "results" || view === "boards" || (view === "play" && !currentKind().rules);
}

function route() {
  const view = currentView();
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  for (const v of ["play", "boards", "strategy", "results"]) $(`#view-${v}`).hidden = v !== view;
  $$("#tabs a").forEach((a) => a.classList.toggle("active", a.dataset.view === view));
  showControls();
  if (view === "strategy") {
    if (params.get("mode") || params.get("cap")) {
      setProblem(params.get("mode") || S.mode, params.has("cap") ? Number(params.get("cap")) : S.cap);
    }
    const opener = params.get("opener") || $("#opener").value ||
      (S.analysis && S.rows.length === 0 && S.analysis.best ? S.analysis.best.guess : "") ||
      S.info.default_opener;  // never an empty view
    showStrategy(opener);
  } else if (view === "play") {
    const ans = (params.get("answer") || "").toLowerCase();
    if (ans && S.answers.includes(ans) && ans !== S.fixedSecret) { setKind(play, ans); return true; }
    if (params.get("game") === "absurdle" && currentKind() !== absurdle) { setKind(absurdle); return true; }
  } else if (view === "boards") {
    openBoards(params.get("k"));
  } else if (view === "results") {
    loadStores(params.get("store"));
    refreshResults();
  }
  return false;
}

// ------------------------------------------------------------------ word lists

function footer(info) {
  const sha = (l) => l.sha256.slice(0, 12);
  const lists = info.name
    ? `${info.name} lists: ${num(info.answers)} answers, ${num(info.guesses)} guesses (sha256 ` +
      `${sha(info.lists.answers)}, ${sha(info.lists.guesses)})`
    : [info.lists.answers, info.lists.guesses].map((l) =>
      `${l.name}: ${num(l.words)} words, sha256 ${sha(l)}`).join(" · ");
  return `${lists} · wordle-dp ${info.version}`;
}

// Load the played lists' info and words, and reset every view to them
async function loadLists() {
  const [info, words] = await Promise.all([api("/api/info"), api("/api/words")]);
  setWords(info, words);
  forgetStore();  // (the strategy: switchLists forgets it)
  forgetBoards();
  for (const id of ["#opener", "#path-answer", "#q", "#boards-guess"]) $(id).maxLength = info.length;
  $("#last-digit").textContent = String(info.length % 10);  // the tenth tile is 0
  $("#answers-list").replaceChildren(...words.answers.map((w) => el("option", { value: w })));
  $("#path-answer").placeholder = `answer, e.g. ${exampleAnswer()}`;
  $("#opener").placeholder = info.default_opener;
  $("#opener").value = "";
  $("#strategy-out").hidden = true;
  $("#footer").textContent = footer(info);
  document.documentElement.style.setProperty("--len", info.length);
  setProblem(info.mode, info.max_guesses, false);
}

async function switchLists(id) {
  for (const job of [playJob, stratJob, boardsJob]) job.cancel(false);
  forgetStrategy();
  const served = S.lists.find((l) => l.served);
  setLists(served && id === served.id ? null : id);
  try { localStorage.setItem(STORED, id); } catch (_) { /* private mode */ }
  document.body.dataset.lists = "";
  $("#analysis-body").replaceChildren(el("p", { class: "muted", text: "Loading the word lists…" }));
  try {
    await loadLists();
  } catch (e) {
    $("#analysis-body").replaceChildren(el("p", { class: "msg err", text: e.message }));
    return;
  }
  document.body.dataset.lists = id;
  if (currentView() === "play") { if (!route()) newGame(); } else { renderBoard(); analyse(); route(); }
}

function fillListsPicker(chosen) {
  const sel = $("#lists");
  sel.replaceChildren(...S.lists.map((l) => el("option", { value: l.id, text: listsLabel(l),
    title: l.about })));
  sel.value = chosen;
  $("#lists-picker").hidden = S.lists.length < 2;
}

// the high-contrast palette (orange and blue), remembered on this browser
const PALETTE = "wordle-dp.contrast";
function setContrast(on, keep = true) {
  if (on) document.documentElement.dataset.palette = "contrast";
  else delete document.documentElement.dataset.palette;
  press($("#btn-contrast"), on);
  if (keep) try { localStorage.setItem(PALETTE, on ? "1" : "0"); } catch (_) { /* private mode */ }
}

// ------------------------------------------------------------------ start
function bind() {
  let contrast = false;
  try { contrast = localStorage.getItem(PALETTE) === "1"; } catch (_) { /* no storage */ }
  setContrast(contrast, false);
  $("#btn-contrast").addEventListener("click", () =>
    setContrast(document.documentElement.dataset.palette !== "contrast"));
  bindPlay(currentView, (name) => KINDS[name]);
  bindStrategy();
  bindResults(currentView);
  bindBoards();
  $$("#mode button").forEach((b) => b.addEventListener("click", () => {
    setProblem(b.dataset.mode, S.cap);
    if (currentView() === "strategy" && $("#opener").value) showStrategy($("#opener").value);
  }));
  $("#cap").addEventListener("change", (ev) => {
    setProblem(S.mode, Number(ev.target.value));
    if (currentView() === "strategy" && $("#opener").value) showStrategy($("#opener").value);
  });
  $("#lists").addEventListener("change", (ev) => switchLists(ev.target.value));
  document.addEventListener("wordle-dp:controls", showControls);
  window.addEventListener("hashchange", route);
  // Leaving the page (closing it, reloading) cancels its jobs: nobody will read them.
  window.addEventListener("pagehide", () => {
    for (const r of [playJob, stratJob, boardsJob]) {
      if (r.id) fetch(`/api/jobs/${r.id}`, { method: "DELETE", keepalive: true });
    }
  });
}

async function init() {
  bind();
  try {
    setOffered(await api("/api/lists"));
    const served = S.lists.find((l) => l.served) || S.lists[0];
    let chosen = served.id;
    try {
      const stored = localStorage.getItem(STORED);
      if (stored && S.lists.some((l) => l.id === stored)) chosen = stored;
    } catch (_) { /* no storage */ }
    setLists(chosen === served.id ? null : chosen);
    fillListsPicker(chosen);
    await loadLists();
    document.body.dataset.lists = chosen;
  } catch (e) {
    $("#analysis-body").replaceChildren(el("p", { class: "msg err", text: `Server not reachable: ${e.message}` }));
    return;
  }
  document.body.dataset.ready = "1";
  renderBoard();
  if (!route()) analyse();  // route() starts the game itself for #play?answer=...
}

// for scripts and the browser tests: the rule and the keys the page uses
window.wordleDP = { feedback, key, bPosition, listsId, statsKey };
init();
