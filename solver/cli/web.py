"""`wordle-dp serve`: the local web app (the framework is imported only here,
and only when the command runs)."""

from __future__ import annotations

import argparse
import socket
import sys

from ..errors import UsageError, quote
from .common import add_backend, add_lists, add_memo, add_problem, int_range, load_lists, path_arg

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
                   "also gives the opening move without a search")
    s.add_argument("--host", type=host_arg, default="127.0.0.1", help="address to listen on "
                   "(default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int_range(0, 65535), default=8000, metavar="N",
                   help="port (0..65535, default 8000; 0 = any free port)")
    add_lists(s)
    add_problem(s)
    add_backend(s)
    add_memo(s)
    s.set_defaults(func=_cmd_serve)


def _cmd_serve(args) -> int:
    try:
        import uvicorn

        from ..web.app import create_app
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
        lists = load_lists(args)
        service = Service(lists, stores=args.store, mode=args.mode,
                          max_guesses=args.max_guesses,
                          memo_entries=memo_entries_for(args.memo_mb),
                          cache_dir=args.cache_dir, backend=args.backend)
    except BaseException:
        sock.close()
        raise
    app = create_app(service)
    config = uvicorn.Config(app, log_level="warning")
    server = uvicorn.Server(config)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"wordle-dp: serving on http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
    import asyncio  # here, not at the top: 0.03 s that every other command would pay

    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled: a normal stop
        pass
    finally:
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
