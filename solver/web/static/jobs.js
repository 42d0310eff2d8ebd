// A job runs on the server; the page polls it and never waits on it. The box shows
// what is counted, a bar, the time spent, an estimate of the time left, and Cancel.
import { api, post } from "./api.js";
import { duration, el } from "./dom.js";

// seconds left: the server's estimate (counted down since it was made), else the
// rate so far; null when nothing says
export function timeLeft(job) {
  const p = job.progress || {};
  if (p.eta != null && job.elapsed != null) {
    return p.eta - Math.max(0, job.elapsed - (p.at ?? job.elapsed));
  }
  if (job.elapsed && p.total && p.done > 0 && p.done < p.total) {
    return job.elapsed * (p.total - p.done) / p.done;
  }
  return null;
}

export class JobRunner {
  constructor(box) { this.box = box; this.id = null; this.seq = 0; }

  // Start a job (POST /api/jobs). onDone(result), onError(message), onCancel(): at
  // most one of them, once.
  async run(body, onDone, onError, onCancel = null) {
    await this.cancel(false);
    const seq = ++this.seq;
    let job;
    try { job = await post("/api/jobs", body); } catch (e) { onError(e.message); return; }
    if (seq !== this.seq) return;
    this.poll(job, seq, onDone, onError, onCancel);
  }

  // Ask a quick question (GET; POST with `posted`, for fields too long for a URL): the
  // answer at once, or past the server's request budget a job (202), followed here
  // like one started by run()
  async ask(path, params, onDone, onError, onCancel = null, posted = false) {
    await this.cancel(false);
    const seq = ++this.seq;
    let res;
    try { res = posted ? await post(path, params) : await api(path, {}, params); } catch (e) {
      if (seq === this.seq) onError(e.message);
      return;
    }
    if (seq !== this.seq) return;
    if (res && res.id && res.state && res.kind) this.poll(res, seq, onDone, onError, onCancel);
    else onDone(res);
  }

  async poll(job, seq, onDone, onError, onCancel) {
    this.onCancel = onCancel;
    this.id = job.id;
    this.show(job);
    const t0 = performance.now();
    while (seq === this.seq) {
      if (job.state === "done") { this.end(); onDone(job.result); return; }
      if (job.state === "error") { this.end(); onError(job.error); return; }
      if (job.state === "cancelled") { this.end(); if (onCancel) onCancel(); return; }
      const wait = performance.now() - t0 < 2000 ? 80 : 400;
      await new Promise((res) => setTimeout(res, wait));
      if (seq !== this.seq) return;
      try { job = await api(`/api/jobs/${job.id}`); } catch (e) {
        if (seq === this.seq) { this.end(); onError(e.message); }
        return;
      }
      if (seq !== this.seq) return;  // cancelled while the poll was in flight: stay hidden
      this.show(job);
    }
  }

  // Stop the job; `told`: the player pressed Cancel (onCancel says so on the page)
  async cancel(told = true) {
    this.seq++;
    const id = this.id, onCancel = this.onCancel;
    this.end();
    // said at once, with the box hidden: the DELETE below can take a moment on a busy
    // server, and the page must not look as if nothing happened meanwhile
    if (told && id && onCancel) onCancel();
    if (id) { try { await api(`/api/jobs/${id}`, { method: "DELETE" }); } catch (_) { /* gone */ } }
  }

  end() { this.id = null; this.onCancel = null; this.box.hidden = true; this.box.replaceChildren(); }

  show(job) {
    const p = job.progress || {};
    const frac = p.total ? p.done / p.total : null;
    const bar = el("div", { class: "bar" + (frac == null ? " indet" : "") }, el("i"));
    if (frac != null) bar.firstChild.style.width = `${(100 * frac).toFixed(1)}%`;
    const what = job.state === "queued" ? "waiting for a free worker…" :
      (p.total ? `${p.done}/${p.total} ${p.message || ""}` : (p.message ? `${p.message}…` : "searching…"));
    let secs = job.elapsed != null ? ` · ${job.elapsed.toFixed(1)} s` : "";
    const left = job.state === "running" ? timeLeft(job) : null;
    if (left != null) {
      secs += left >= 1 ? `, about ${duration(left)} left` : ", taking longer than estimated";
    }
    this.box.replaceChildren(el("span", { class: "spin" }), el("span", { class: "what", text: what + secs }), bar,
      el("button", { text: "Cancel", class: "cancel", onclick: () => this.cancel() }));
    this.box.hidden = false;
  }
}
