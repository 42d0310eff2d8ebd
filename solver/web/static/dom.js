// Small DOM and formatting helpers shared by every view.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

const SVGNS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}

// a number with d decimals, "–" when unknown
export const fmt = (x, d = 4) => (x == null ? "–" : Number(x).toFixed(d));
// an integer with its digits grouped: 28,646,911,902,960; a BigInt keeps every digit
export const num = (x) => (x == null ? "–" :
  (typeof x === "bigint" ? x : Number(x)).toLocaleString("en-US"));
// "1 guess", "2 guesses"; the count grouped (a number or a BigInt)
export const plural = (n, one, many = `${one}s`) =>
  `${num(n)} ${n == 1 ? one : many}`;  // eslint-disable-line eqeqeq -- 1n == 1
// k of n as a share a player reads: "83 %" (a no-break space); never "100 %" or "0 %" unless it is
// (3,157 of 3,158 is "99.97 %"), as the terminal says it (game/analysis.py, percent)
export function pct(k, n) {
  const p = 100 * k / n;
  let text = p.toFixed(0);
  if ((text === "100" && k < n) || (text === "0" && k > 0)) {
    text = p >= 0.01 && p <= 99.99 ? p.toFixed(2) : p.toFixed(4);
  }
  return `${text}\u00a0%`;  // never "83" at a line's end and "%" on the next
}
// seconds as "42 s", "3 min 07 s", "1 h 05 min"
export function duration(s) {
  s = Math.max(0, Math.round(s));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}
// a toggle button's state: shown (class "on") and said (aria-pressed) alike
export function press(button, on) {
  button.classList.toggle("on", on);
  button.setAttribute("aria-pressed", on ? "true" : "false");
}
