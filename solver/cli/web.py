"""`wordle-dp serve`: the local web app (the framework is imported only here,
and only when the command runs)."""

from __future__ import annotations

import argparse
import signal
import socket
import sys

from ..errors import UsageError, quote
from .common import (
    add_backend,
    add_lists,
    add_memo,
    add_problem,
    int_range,
    load_lists,
    path_arg,
    player_lists,
)

# without the web framework: `serve --help` must not import it
DEFAULT_REQUEST_SECONDS = 10.0
MAX_REQUEST_SECONDS = 3600.0

WEB_MAX_GUESSES = 20  # the web API's cap on --max-guesses (0 = no cap)


def host_arg(text: str) -> str:
    """argparse type for --host: a name or address, not empty, at most 253 characters."""
    t = text.strip()
    if not t or len(t) > 253 or not t.isascii() or any(c.isspace() or c == "\0" for c in t):
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a host name or address")
    return t


def register(sub) -> None:
    """Add serve to the CLI's subparsers."""
    s = sub.add_parser(
        "serve", help="local web app: play/assist, strategies, result tables",
        description="Start the web app: a play/assist board with the optimal next guess, "
        "the optimal strategy of any opener, and the opener tables of result stores. The "
        "same data is a JSON API under /api/ (see README). Listens on localhost unless "
        "--host says otherwise. Needs the web extra: pip install -e '.[web]'.",
    )
    s.add_argument("--store", action="append", default=[], type=path_arg, metavar="PATH",
                   help="result store to browse (repeatable); a store for the served lists "
                   "also gives the opening move without a search. Without list options "
                   "the page serves the first store's lists when they are built in")
    s.add_argument("--host", type=host_arg, default="127.0.0.1", help="address to listen on "
                   "(default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int_range(0, 65535), default=8000, metavar="N",
                   help="port (0..65535, default 8000; 0 = any free port)")
    s.add_argument("--workers", type=int_range(1, 256), default=None, metavar="N",
                   help="worker processes for searches running at once (1..256; default: "
                   "one less than the cores, at least 1, so that slow searches never hold "
                   "every core); two more are always kept for quick answers")
    s.add_argument("--request-seconds", type=seconds_arg, default=DEFAULT_REQUEST_SECONDS,
                   metavar="S", help="how long a request waits for its answer (default 10); "
                   "past that it answers 202 with a job to poll, or 503 when the client "
                   "already has its limit of 4 jobs")
    add_lists(s, player=True)
    add_problem(s)
    add_backend(s)
    add_memo(s)
    s.set_defaults(func=_cmd_serve)


def _store_lists(path) -> str | None:
    """The built-in lists a result store was computed on, or None (not built in, or
    no readable store: the service says so in its own words)."""
    from ..errors import WordleDPError
    from ..store import Store
    from ..words import builtin_of

    try:
        p = Store.open(path).problem
    except (WordleDPError, OSError, ValueError, KeyError):
        return None
    return builtin_of(p.answers_sha256, p.guesses_sha256, p.length)


def seconds_arg(text: str) -> float:
    """argparse type for --request-seconds: a number of seconds in (0, 3600]."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v <= MAX_REQUEST_SECONDS:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number of seconds above 0 "
                                         f"and at most {MAX_REQUEST_SECONDS:g}")
    return v


def _cmd_serve(args) -> int:
    try:
        import uvicorn

        from ..web.app import create_app
        from ..web.catalog import Catalog
        from ..web.service import Service
    except ImportError as exc:
        raise UsageError(f"the web app needs the web extra (pip install -e '.[web]'): "
                         f"{exc}") from None
    from ..search.engine import memo_entries_for

    if args.max_guesses > WEB_MAX_GUESSES:
        raise UsageError(f"--max-guesses {args.max_guesses}: the web app allows "
                         f"0..{WEB_MAX_GUESSES} (0 = no cap)")
    sock = _listen(args.host, args.port)  # bind first: a busy port fails at once
    try:
        if args.store and not (args.answers or args.guesses or args.lists or args.length):
            args.lists = _store_lists(args.store[0])  # the store's game, not the players'
        player_lists(args)
        lists = load_lists(args)
        service = Service(lists, stores=args.store, mode=args.mode,
                          max_guesses=args.max_guesses,
                          memo_entries=memo_entries_for(args.memo_mb),
                          cache_dir=args.cache_dir, backend=args.backend,
                          workers=args.workers, request_seconds=args.request_seconds)
    except BaseException:
        sock.close()
        raise
    catalog = Catalog(service)  # the page may switch to the built-in lists too
    app = create_app(catalog)
    # a request still open at a stop gets 2 s (those waiting on a search end at once:
    # stopping cancels every search first)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):  # SIGINT, SIGTERM
            for svc in catalog.live():
                svc.sched.close()
            super().handle_exit(sig, frame)
            if sig == signal.SIGTERM:  # a clean stop: uvicorn would re-raise it at the
                # end and die by it, before the shared table is unlinked below
                captured = getattr(self, "_captured_signals", None)
                if isinstance(captured, list) and sig in captured:
                    captured.remove(sig)

    server = Server(config)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"wordle-dp: serving on http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    import asyncio  # here, not at the top: 0.03 s that every other command would pay

    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled: a normal stop
        pass
    finally:
        catalog.close()
        service.close()
        sock.close()
    print("wordle-dp: server stopped", file=sys.stderr)
    return 0


def _listen(host: str, port: int) -> socket.socket:
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.create_server((host, port), family=family)
    except (OSError, UnicodeError, ValueError) as exc:  # UnicodeError: a bad IDNA label
        why = getattr(exc, "strerror", None) or exc
        raise UsageError(f"cannot listen on {host}:{port}: {why}") from None
    return sock
