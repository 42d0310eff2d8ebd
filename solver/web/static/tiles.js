// Tiles: one letter and its colour; a word as a row of them; a pattern as squares.
import { el } from "./dom.js";
import { colsOf } from "./state.js";

// `colour`: 0-2, or null for a tile not scored yet
export function tile(letter, colour, extra = "") {
  const cls = ["tile", extra];
  if (colour != null) cls.push(`c${colour}`);
  return el("div", { class: cls.join(" ").trim(), text: letter || "" });
}

export function wordTiles(word, cols) {
  const w = el("div", { class: "word" });
  for (let i = 0; i < word.length; i++) w.append(tile(word[i], cols ? cols[i] : null));
  return w;
}

export function patIcon(text) {
  const p = el("span", { class: "pat", title: text });
  for (const c of colsOf(text)) p.append(el("i", { class: `c${c}` }));
  return p;
}
