// Absurdle (issue 18): the adversary keeps the largest class of answers after each
// guess (ties: the server's documented rule). Its replies come at once from GET
// /api/adversary; the exact fewest guesses that still beat it is a search: a job
// (kind "adversary") with progress and Cancel, while the player may go on typing.
import { api } from "./api.js";
import { $, el, num, plural } from "./dom.js";
import { barGuess, barText, playJob, renderBoard, say, setGuess, undoRow } from "./play.js";
import { S, colsOf, markSolved, pushRow, setSecret } from "./state.js";
import { wordTiles } from "./tiles.js";

let busy = false;  // a guess sent, its reply not come yet
let fewest = null;  // the fewest guesses that beat the adversary from the start, once searched

const advPosition = (extra) => [...S.rows.map((r) => r.word), ...(extra ? [extra] : [])].join(",") || "-";

// A reply for another game (a new one, a row undone, another kind: resume() counts
// them in S.gameId) is dropped
async function advSubmit(w) {
  if (busy) return;
  busy = true;
  const game = S.gameId;
  let st;
  try {
    st = await api("/api/adversary", {}, { position: advPosition(w) });
  } catch (e) {
    if (game === S.gameId) say(e.message, "err");
    return;
  } finally { busy = false; }
  if (game !== S.gameId) return;  // a new game meanwhile
  const last = st.rows[st.rows.length - 1];
  pushRow(last.guess, colsOf(last.reply));
  if (st.won) {
    markSolved();
    say(`Won in ${plural(st.guesses, "guess", "guesses")}: ${last.guess.toUpperCase()} was the only answer left.`, "ok");
  } else say("");
  renderBoard();
  advShow(st);
}

async function advAnalyse() {  // a new game, an undone row: the state of the rows left
  const body = $("#analysis-body");
  body.classList.add("stale");
  body.dataset.position = "";
  const game = S.gameId, pos = advPosition();
  let st;
  try { st = await api("/api/adversary", {}, { position: pos }); } catch (e) {
    if (game === S.gameId) { body.classList.remove("stale"); body.replaceChildren(el("p", { class: "msg err", text: e.message })); }
    return;
  }
  if (game === S.gameId && advPosition() === pos) advShow(st);
}

// the game kind (play.js says the interface): easy, no cap, no hidden answer
export const absurdle = {
  name: "absurdle", title: "Against the adversary", scored: false, rules: false,
  start() { setSecret(null); say("Beat the adversary: type a guess."); },
  enter: advSubmit, advise: advAnalyse, undo: undoRow,
};

// The candidates at once, then the exact value from a job.
function advShow(st) {
  const body = $("#analysis-body");
  body.classList.remove("stale");
  renderAdversary(st, null);
  body.dataset.position = st.position;  // what the panel shows (tests wait on it)
  body.dataset.analysed = "";
  // on a phone the bar above the keyboard says it too (play.js: bar)
  if (st.won) { barText("Won!", false); playJob.cancel(false); return; }
  barText("Next guess: …");
  playJob.run({ kind: "adversary", position: st.position, top: 3 },
    (res) => {
      if (res.position !== ($("#analysis-body").dataset.position)) return;
      if (res.position === "-") fewest = res.analysis.guesses;
      renderAdversary(res, res.analysis);
      body.dataset.analysed = res.position;
      const an = res.analysis;
      if (an.best) barGuess(an.best, `${an.guesses} more guess${an.guesses === 1 ? " beats" : "es beat"} it`, res.position);
      else barText("No win found.");
    },
    (msg) => { if (body.dataset.position === st.position) body.append(el("p", { class: "msg err", text: msg })); },
    () => {
      const wait = $("#adv-wait");
      if (wait && body.dataset.position === st.position) wait.textContent = "Search cancelled.";
    });
}

function renderAdversary(st, an) {
  const body = $("#analysis-body");
  const n = st.candidates;
  // won: the one answer left is the one guessed, said by the win below, not counted
  const kids = st.won ? [] : [el("p", { class: "cands" }, el("b", { id: "adv-cands", text: num(n) }),
    ` answer${n === 1 ? "" : "s"} still possible` + (st.guesses ? " (the adversary kept as many as it could)" : ""))];
  if (st.words && !st.won) {
    const chips = el("div", { class: "chips", id: "adv-words" });
    for (const w of st.words) chips.append(el("button", { class: "chip", text: w, onclick: () => setGuess(w) }));
    kids.push(chips);
  }
  if (st.won) {
    const best = fewest != null ? ` The fewest that beat the adversary from the start: ${fewest}.` : "";
    kids.push(el("p", { class: "msg ok", id: "adv-won", text: `Won in ${plural(st.guesses, "guess", "guesses")}.${best}` }));
  } else if (!an) {
    kids.push(el("p", { class: "muted", id: "adv-wait", text: "Searching the fewest guesses that still beat the adversary…" }));
  } else if (!an.best) {
    kids.push(el("p", { class: "msg err", text: `No win found (${an.status.replace("_", " ")}).` }));
  } else {
    const more = an.guesses;
    kids.push(el("div", { class: "best big" }, wordTiles(an.best),
      el("div", { class: "value" },
        el("div", {}, el("b", { id: "adv-value", text: `${more}` }),
          ` more guess${more === 1 ? " beats" : "es beat"} it from here `,
          el("span", { class: `badge ${an.status}`, text: an.status.replace("_", " ") })),
        // the proof's cost is for analysts: a tooltip
        el("div", { text: `the game ends at guess ${an.total_guesses}`,
          title: `proof ${an.seconds.toFixed(2)} s, ${plural(an.nodes, "node")}` })),
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
  // the rule in a player's words (the API's tie_rule says it in the search's)
  kids.push(el("p", { class: "muted small note", text: "The adversary answers with the colours " +
    "that keep the most answers possible; on a tie, the fewest greens, then the fewest " +
    "yellows, then a fixed order of the colours." }));
  body.replaceChildren(...kids);
}
