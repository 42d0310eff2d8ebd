// The Results view: for each result store (and opening book) of the played lists,
// the run's progress, the distribution of opener values and the opener table.
import { api } from "./api.js";
import { $, $$, el, fmt, num, svg } from "./dom.js";
import { S } from "./state.js";

// the view's own state: the store shown, its info, and the table's order and page
const R = { store: null, storeInfo: null, sort: "total", desc: false, offset: 0, limit: 100 };
let resultsTimer = null;
let current = () => "results";  // the view shown (main.js tells)

// the played lists changed: their stores are others
export function forgetStore() { R.store = null; R.storeInfo = null; }

// `wanted`: the store a link names (#results?store=ID), shown if the lists have it
export function loadStores(wanted = null) {
  if (wanted) R.store = wanted;
  const sel = $("#store-select");
  const stores = S.info.stores;
  $("#results-empty").hidden = stores.length > 0;
  $("#results-out").hidden = stores.length === 0;
  $("#store-picker").hidden = stores.length === 0;  // no empty dropdown
  sel.replaceChildren(...stores.map((s) => el("option", { value: s.id,
    text: s.kind === "book" ? `opening book (${s.mode}, max ${s.max_guesses})` : s.id })));
  if (R.store && !stores.some((s) => s.id === R.store)) R.store = null;
  if (stores.length && !R.store) R.store = stores[0].id;
  if (R.store) sel.value = R.store;
}

export async function refreshResults(all = true) {
  clearTimeout(resultsTimer);
  if (!R.store || current() !== "results") return;
  const id = encodeURIComponent(R.store);
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
  R.storeInfo = info;
  const p = info.progress;
  $("#store-desc").textContent = `${num(info.answers)} answers × ${num(info.guesses)} guesses · ${info.mode}` +
    ` · cap ${info.max_guesses || "none"}` + (info.table && info.table.complete
      ? " · complete table"  // the book's cutoff no longer bounds anything shown
      : info.cutoff != null ? ` · cutoff ${num(info.cutoff)}` : "");
  const frac = p.selected ? p.done / p.selected : 0;
  const counts = el("div", { class: "counts" });
  for (const [k, v] of Object.entries(p.counts)) if (v) counts.append(el("span", { class: `badge ${k}`, text: `${num(v)} ${k.replace("_", " ")}` }));
  const run = p.run || {};
  const bar = el("div", { class: "pbar" }, el("i"));
  bar.firstChild.style.width = `${(100 * frac).toFixed(1)}%`;
  const state = info.kind === "book"
    ? `opening book built ${String(run.built_at || "").slice(0, 10)}; ` +
      (info.table && info.table.complete
        ? `every opener exact from the complete table (${info.table.cpu_hours} CPU-h), ` +
          `so every rank is proven`
        : `ranks proven for the ${info.proven_ranks} best openers (every other opener ` +
          `has a proven bound above them)` + (!info.table ? ""
          : `; ${num(info.table.valued)} openers exact from the table computed so far ` +
            `(${info.table.cpu_hours} CPU-h, ${String(info.table.written_at).slice(0, 10)})`))
    : run.state ? `run ${run.state}` + (run.updated_at ? `, updated ${Math.max(0, Date.now() / 1000 - run.updated_at).toFixed(0)} s ago` : "") : "";
  $("#progress").replaceChildren(
    el("div", { id: "progress-text" }, el("b", { text: `${num(p.done)} / ${num(p.selected)}` }), ` selected openers done (${(100 * frac).toFixed(1)}%)`),
    bar, counts,
    p.best ? el("p", {}, "Best: ", el("b", { class: "w", text: p.best.opener.toUpperCase() }), ` ${num(p.best.total)} (${fmt(p.best.average)} avg)`) : null,
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
    r.append(svg("title", {}, `${num(b.from)}–${num(b.to)}: ${num(b.count)} openers`));
    s.append(r);
  }
  s.append(svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#c5cbd5" }));
  for (const v of [lo, Math.round((lo + hi) / 2), hi - 1]) {
    s.append(svg("text", { x: X(v), y: H - B + 16, "text-anchor": "middle", "font-size": 11, fill: "#6b7280" }, `${(v / d.n_answers).toFixed(2)}`));
  }
  s.append(svg("text", { x: L - 6, y: T + 4, "text-anchor": "end", "font-size": 11, fill: "#6b7280" }, num(maxc)));
  s.append(svg("text", { x: (L + W - R) / 2, y: H - 2, "text-anchor": "middle", "font-size": 11, fill: "#6b7280" }, "average guesses (exact openers)"));
  if (d.best) {
    const x = X(d.best.total) + 1;
    s.append(svg("line", { x1: x, x2: x, y1: T - 4, y2: H - B, stroke: "#3f9b5a", "stroke-width": 2, "stroke-dasharray": "4 3" }));
    s.append(svg("text", { x: x + 4, y: T + 2, "font-size": 12, fill: "#236b3a", "font-weight": 700 }, `best ${d.best.opener.toUpperCase()} ${fmt(d.best.average, 4)}`));
  }
  const other = d.counts.lower_bound + d.counts.infeasible;
  const upper = d.counts.upper_bound || 0;
  box.replaceChildren(s, el("p", { class: "muted small", text: `${num(d.values - upper)} exact values` +
    (upper ? ` and ${num(upper)} upper bounds` : "") +
    (other ? `; not shown: ${num(d.counts.lower_bound)} lower bounds, ${num(d.counts.infeasible)} infeasible` : "") }));
}

async function loadTable() {
  const params = { sort: R.sort, desc: R.desc, offset: R.offset, limit: R.limit };
  const q = $("#q").value.trim();
  if (q) params.q = q;
  const st = $("#status-filter").value;
  if (st) params.status = st;
  const res = await api(`/api/stores/${encodeURIComponent(R.store)}/openers`, {}, params);
  const info = R.storeInfo || {};
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
      el("td", { class: "num", text: r.total != null ? rel + num(r.total) : "" }),
      el("td", { class: "num", text: r.average != null ? rel + fmt(r.average) : "" }),
      el("td", { class: "num", text: r.depth ?? "" }),
      el("td", { class: "num", text: r.cpu_seconds != null ? r.cpu_seconds.toFixed(2) : "" })));
  }
  const end = Math.min(res.offset + res.rows.length, res.total_rows);
  $("#rows-info").textContent = res.total_rows ? `${num(res.offset + 1)}–${num(end)} of ${num(res.total_rows)}` : "no openers match";
  $("#prev").disabled = res.offset === 0;
  $("#next").disabled = end >= res.total_rows;
  $$("#openers th").forEach((th, i) => {
    const on = th.dataset.sort === R.sort && (R.sort !== "total" || i === 3);
    th.classList.toggle("sorted", on);
    th.classList.toggle("desc", on && R.desc);
  });
}

export function bindResults(currentView) {
  current = currentView;
  $$("#openers th[data-sort]").forEach((th) => th.addEventListener("click", () => {
    const k = th.dataset.sort;
    R.desc = R.sort === k ? !R.desc : false;
    R.sort = k; R.offset = 0;
    loadTable();
  }));
  let qTimer = null;
  $("#q").addEventListener("input", () => { clearTimeout(qTimer); qTimer = setTimeout(() => { R.offset = 0; loadTable(); }, 150); });
  $("#status-filter").addEventListener("change", () => { R.offset = 0; loadTable(); });
  $("#prev").addEventListener("click", () => { R.offset = Math.max(0, R.offset - R.limit); loadTable(); });
  $("#next").addEventListener("click", () => { R.offset += R.limit; loadTable(); });
  $("#store-select").addEventListener("change", (ev) => { R.store = ev.target.value; R.offset = 0; refreshResults(); });
}
