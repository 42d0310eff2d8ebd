"""The word lists one server offers: the served lists and every built-in list, each
with its own `Service` (lists, table, workers, jobs), made when a page first asks
for it (issue 33: the page switches length and lists itself).

The served lists' service lives as long as the server. Another lists' service is
made on first use (its table loaded from the cache, or built) and kept while it is
among the `keep` most recently used; past that the least recently used one is
closed (its jobs cancelled, its workers ended), so a server never holds more than
`keep` + 1 sets of worker processes. Job ids are shared: one id names one job
whatever lists it is for.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict

from ..errors import UsageError, quote
from ..words import BUILTIN, WordLists
from .service import NotFound, Service

KEEP = 1  # services of lists other than the served ones kept at once


class Catalog:
    """Services by lists id: `get(id)`, `offered()`, `job(id)`."""

    def __init__(self, served: Service, keep: int = KEEP, extra_workers: int = 1):
        self.served = served
        self.keep = keep
        self.extra_workers = extra_workers  # background and quick workers of the others
        self.ids = itertools.count(1_000_000)  # the others' job numbers (see job())
        self._others: OrderedDict[str, Service] = OrderedDict()
        self._lock = threading.Lock()  # held while a service is made: one at a time
        self._closed = False

    def offered(self) -> list[dict]:
        """Every lists id the page may choose: the served lists first, then the
        built-in lists (whatever words.BUILTIN holds: lists added later appear)."""
        s = self.served
        out = [{"id": s.id, "name": s.lists.name or None, "length": s.lists.length,
                "answers": len(s.lists.answers), "guesses": len(s.lists.guesses),
                "about": "the lists this server was started with" if not s.lists.name
                else BUILTIN[s.lists.name].about, "served": True,
                "title": BUILTIN[s.lists.name].title if s.lists.name else ""}]
        for b in BUILTIN.values():
            if b.name != s.id:
                out.append({"id": b.name, "name": b.name, "length": b.length,
                            "answers": None, "guesses": None, "about": b.about,
                            "served": False, "title": b.title})
        return out

    def get(self, lists_id: str | None) -> Service:
        """The service of `lists_id` (None: the served lists), made on first use."""
        if lists_id is None or lists_id == self.served.id:
            return self.served
        if lists_id not in BUILTIN:
            known = ", ".join(d["id"] for d in self.offered())
            raise NotFound(f"no lists {quote(lists_id)} (offered: {known})")
        with self._lock:
            if self._closed:
                raise UsageError("the server is stopping")
            svc = self._others.get(lists_id)
            if svc is None:
                svc = self._make(lists_id)
                self._others[lists_id] = svc
                while len(self._others) > self.keep:
                    _old_id, old = self._others.popitem(last=False)
                    old.close()  # its jobs end as cancelled
            self._others.move_to_end(lists_id)
            return svc

    def _make(self, lists_id: str) -> Service:
        opts = dict(self.served.options)
        opts.update(workers=self.extra_workers, quick_workers=self.extra_workers)
        lists = WordLists.load(lists=lists_id, quiet=True)
        return Service(lists, job_ids=self.ids, **opts)

    def live(self) -> list[Service]:
        with self._lock:
            return [self.served, *self._others.values()]

    def job(self, jid: str):
        """(service, job) of a job id, or NotFound."""
        for svc in self.live():
            job = svc.jobs.get(jid)
            if job is not None:
                return svc, job
        raise NotFound(f"no job {jid!r} (finished jobs are kept for 10 minutes)")

    def close(self) -> None:
        """Close every service made here (the served one is its owner's to close)."""
        with self._lock:
            self._closed = True
            others, self._others = list(self._others.values()), OrderedDict()
        for svc in others:
            svc.close()
