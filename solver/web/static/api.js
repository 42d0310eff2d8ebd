// The JSON API: every call names the word lists the page plays (GET /api/lists).

let lists = null;  // the lists id the page plays; null: the server's own

export const setLists = (id) => { lists = id; };
export const listsId = () => lists;

// the path with the lists' id added (the server ignores it where it does not apply)
export function url(path, params = {}) {
  const [base, query] = path.split("?");
  const q = new URLSearchParams(query || "");
  for (const [k, v] of Object.entries(params)) q.set(k, v);
  if (lists != null && !q.has("lists")) q.set("lists", lists);
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

export async function api(path, opts = {}, params = {}) {
  const r = await fetch(url(path, params), opts);
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) throw new Error((body && body.error) || `HTTP ${r.status}`);
  return body;
}

export const post = (path, body) => api(path, {
  method: "POST", headers: { "Content-Type": "application/json" },
  body: JSON.stringify(lists != null ? { lists, ...body } : body) });
