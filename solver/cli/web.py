"""`wordle-dp serve`: the local web app (the framework is imported only here,
and only when the command runs)."""

from __future__ import annotations

import asyncio
import socket
import sys

from ..errors import UsageError
from .common import add_backend, add_lists, add_memo, add_problem, load_lists


def register(sub) -> None:
    """Add serve to the CLI's subparsers."""
    s = sub.add_parser(
        "serve", help="local web app: play/assist, strategies, result tables",
        description="Start the web app: a play/assist board with the optimal next guess, "
        "the optimal strategy of any opener, and the opener tables of result stores. The "
        "same data is a JSON API under /api/ (see README). Listens on localhost unless "
        "--host says otherwise. Needs the web extra: pip install -e '.[web]'.",
    )
    s.add_argument("--store", action="append", default=[], metavar="PATH",
                   help="result store to browse (repeatable); a store for the served lists "
                   "also gives the opening move without a search")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on "
                   "(default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any "
                   "free port)")
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

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0..65535")
    if args.max_guesses < 0 or args.max_guesses > 20:
        raise UsageError("--max-guesses must be 0..20 (0 = no cap)")
    if args.memo_mb <= 0:
        raise UsageError("--memo-mb must be > 0")
    sock = _listen(args.host, args.port)  # bind first: a busy port fails at once
    lists = load_lists(args)
    service = Service(lists, stores=args.store, mode=args.mode, max_guesses=args.max_guesses,
                      memo_entries=memo_entries_for(args.memo_mb), cache_dir=args.cache_dir,
                      backend=args.backend)
    app = create_app(service)
    config = uvicorn.Config(app, log_level="warning")
    server = uvicorn.Server(config)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"wordle-dp: serving on http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
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
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
