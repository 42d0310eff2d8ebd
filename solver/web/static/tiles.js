// Tiles: one letter and its colour; a word as a row of them; a pattern as squares.
// Every tile says its letter and colour in words (aria-label), so that colour is
// never the only signal.
import { el } from "./dom.js";
import { colsOf } from "./state.js";

export const COLOUR_NAMES = ["grey", "yellow", "green"];
// what a colour means, for a reader of the label
const MEANING = ["not in the word", "elsewhere in the word", "in place"];

export function tileLabel(letter, colour) {
  if (!letter) return "empty";
  const L = letter.toUpperCase();
  return colour == null ? `${L}, not scored` : `${L}, ${COLOUR_NAMES[colour]}: ${MEANING[colour]}`;
}

// `colour`: 0-2, or null for a tile not scored yet
export function tile(letter, colour, extra = "") {
  const cls = ["tile", extra];
  if (colour != null) cls.push(`c${colour}`);
  return el("div", { class: cls.join(" ").trim(), text: letter || "", role: "img",
    "aria-label": tileLabel(letter, colour) });
}

export function wordTiles(word, cols) {
  const w = el("div", { class: "word", role: "group", "aria-label": word.toUpperCase() });
  for (let i = 0; i < word.length; i++) w.append(tile(word[i], cols ? cols[i] : null));
  return w;
}

export function patIcon(text) {
  const cols = colsOf(text);
  const p = el("span", { class: "pat", title: text, role: "img",
    "aria-label": cols.map((c) => COLOUR_NAMES[c]).join(" ") });
  for (const c of cols) p.append(el("i", { class: `c${c}` }));
  return p;
}
