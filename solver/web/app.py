"""The HTTP layer: FastAPI routes over `Service` (see README, 'Web app').

No search runs in this process: the routes that need one hand it to the worker
processes and wait for it without blocking the event loop, at most the request
budget. Every error is JSON `{"error": "..."}` with a 4xx status (503 when the
server cannot take the work; 500 only for bugs, still without a traceback), and
no answer names a path on the server.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Literal, get_args

from fastapi import Body, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import UsageError, WordleDPError
from ..status import STORED
from ..variant import MAX_LENGTH, MODES, check_mode
from ..variant import Mode as GameMode
from . import adapter
from .catalog import Catalog
from .service import MAX_ADVERSARY_TOP, MAX_TOP, Busy, NotFound, QueueFull, Service

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 16 * 1024  # bytes: every request body here is a few hundred bytes
MAX_POSITION = 400  # characters: 30 guesses of 'word:PATTERN,'
MAX_BOARDS = 32  # game.boards.MAX_BOARDS (not imported: it loads the game layer)
BOARDS_CAP = MAX_BOARDS + 5  # the longest default cap of a several-board game


def boards_position_chars(boards: int, length: int, cap: int) -> int:
    """The longest position of `boards` boards of `length` letters within `cap`
    guesses: per guess 'word:' and one feedback per board ('/' between them; a
    solved board's '-' is shorter), ',' after; no cap (0) counts as BOARDS_CAP."""
    return (cap or BOARDS_CAP) * (length + 1) * (boards + 1)


# 32 boards of 10 letters within 37 guesses: 13,431 characters, which fits a POST
# body (MAX_BODY) but not every URL (the page posts them)
MAX_BOARDS_POSITION = boards_position_chars(MAX_BOARDS, MAX_LENGTH, BOARDS_CAP)
log = logging.getLogger("wordle-dp.web")

Mode = Literal["easy", "hard", "strict"]  # variant.MODES (mypy reads literals only)
Cap = Annotated[int | None, Query(ge=0, le=20, description="guess cap; 0 = no cap")]
Position = Annotated[str, Query(max_length=MAX_POSITION,
                                description="'-' or 'salet:BBYBG,drone:YBBBG'")]
BoardsPositionQ = Annotated[str, Query(max_length=MAX_BOARDS_POSITION,
                                       description="'-' or 'salet:BBYBG/BBBBB,...'")]
Word = Annotated[str, Query(min_length=1, max_length=20)]
ListsId = Annotated[str | None, Query(max_length=40, pattern="^[A-Za-z0-9_.-]+$",
                                      description="lists id (GET /api/lists); default: "
                                      "the lists the server was started with")]
SORTS = Literal["total", "opener", "rank", "status", "depth", "cpu_seconds", "wall_seconds",
                "nodes"]
STATUSES = Literal["pending", "exact", "infeasible", "lower_bound", "upper_bound", "failed"]
# one list each: the literals must be those of variant.MODES and status.STORED
if get_args(Mode) != MODES or get_args(STATUSES) != tuple(s.value for s in STORED):
    raise ImportError("web/app.py's Mode and STATUSES differ from variant.MODES and "
                      "status.STORED")


class JobRequest(BaseModel):
    """Body of POST /api/jobs."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["next", "strategy", "adversary"]
    lists: str | None = Field(None, max_length=40, pattern="^[A-Za-z0-9_.-]+$")
    position: str = Field("-", max_length=MAX_POSITION)
    opener: str | None = Field(None, min_length=1, max_length=20)
    mode: Mode | None = None
    max_guesses: int | None = Field(None, ge=0, le=20)
    top: int = Field(5, ge=0, le=MAX_TOP)


class BoardsRequest(BaseModel):
    """Body of POST /api/boards: the fields of GET /api/boards."""

    model_config = ConfigDict(extra="forbid")
    lists: str | None = Field(None, max_length=40, pattern="^[A-Za-z0-9_.-]+$")
    position: str = Field("-", max_length=MAX_BOARDS_POSITION)
    boards: int = Field(4, ge=2, le=MAX_BOARDS)
    max_guesses: int | None = Field(None, ge=0, le=20)
    top: int = Field(3, ge=0, le=MAX_TOP)


def _check_boards_position(where: str, position: str, boards: int, length: int,
                           cap: int | None) -> None:
    """422 for a position longer than any game of these boards can make (the
    cap k + 5 unless given): the bound that MAX_POSITION is for one board."""
    c = boards + 5 if cap is None else cap
    limit = boards_position_chars(boards, length, c)
    if len(position.strip()) > limit:
        within = f"within {c} guesses" if c else f"no cap, counted as {BOARDS_CAP} guesses"
        raise RequestValidationError([{
            "loc": (where, "position"),
            "msg": f"String should have at most {limit} characters ({boards} boards of "
                   f"{length} letters, {within})"}])


class BodyLimit:
    """ASGI middleware: refuse request bodies over `limit` bytes with 413."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(self.limit)(scope, receive, send)
        seen = 0
        chunks = []
        more = True
        while more:  # read the body (also chunked ones) up to the limit, then replay it
            msg = await receive()
            if msg["type"] != "http.request":
                chunks.append(msg)
                break
            seen += len(msg.get("body", b""))
            if seen > self.limit:
                return await _too_large(self.limit)(scope, receive, send)
            chunks.append(msg)
            more = msg.get("more_body", False)

        async def replay():
            return chunks.pop(0) if chunks else await receive()

        return await self.app(scope, replay, send)


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)


def _err(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _adversary_problem(mode: str | None, cap: int | None) -> None:
    """The adversary is played in easy mode without a cap: a job asking otherwise
    is refused rather than answered for another problem."""
    if mode not in (None, "easy"):
        raise UsageError(f"the adversary is played in easy mode only (not mode {mode!r})")
    if cap is not None:
        raise UsageError("max_guesses does not apply to the adversary (its value is the "
                         "fewest guesses that beat it)")


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("query", "body", "path"))
        parts.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def create_app(service: Service | Catalog) -> FastAPI:
    """The ASGI application for one service (tests build it with small lists), or
    for a catalog of them (the served lists and every built-in list)."""
    app = FastAPI(title="wordle-dp", version="1", docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    cat = service if isinstance(service, Catalog) else Catalog(service)
    app.state.catalog = cat
    app.add_middleware(GZipMiddleware, minimum_size=2048)  # a strategy is ~400 kB of JSON
    app.add_middleware(BodyLimit, limit=MAX_BODY)

    @app.exception_handler(WordleDPError)
    async def user_error(_req: Request, exc: WordleDPError):
        status = (404 if isinstance(exc, NotFound) else 429 if isinstance(exc, QueueFull)
                  else 503 if isinstance(exc, Busy) else 400)
        return _err(status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_req: Request, exc: RequestValidationError):
        return _err(422, _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_req: Request, exc: StarletteHTTPException):
        return _err(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def bug(_req: Request, exc: Exception):
        log.exception("internal error")
        return _err(500, f"internal error ({type(exc).__name__}); see the server log")

    def problem(svc: Service, mode: Mode | None, cap: int | None) -> tuple[GameMode, int]:
        return check_mode(mode or svc.mode), svc.max_guesses if cap is None else cap

    @app.get("/api/lists")
    def lists_offered() -> list[dict]:
        """The word lists the page may switch to: the served ones, then every
        built-in list (a service for one is made when first asked for)."""
        return cat.offered()

    @app.get("/api/info")
    def info(lists: ListsId = None) -> dict:
        """The lists' size, defaults and stores (the served lists unless `lists`)."""
        return cat.get(lists).info()

    @app.get("/api/words")
    def words(lists: ListsId = None) -> dict:
        """Both word lists (the page checks typed guesses locally)."""
        svc = cat.get(lists)
        return {"answers": svc.lists.answers, "guesses": svc.lists.guesses}

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "?"

    async def answer(request: Request, svc: Service, plan: tuple):
        status, body = await svc.answer(plan, client_of(request), request.is_disconnected)
        return body if status == 200 else JSONResponse(body, status_code=status)

    async def service_of(lists: str | None) -> Service:
        return await run_in_threadpool(cat.get, lists)  # made on first use: seconds

    @app.get("/api/next")
    async def next_guess(request: Request, position: Position = "-", mode: Mode | None = None,
                         max_guesses: Cap = None,
                         top: Annotated[int, Query(ge=0, le=MAX_TOP)] = 5,
                         lists: ListsId = None) -> dict:
        """Optimal next guess from a position, with the `top` best alternatives. Past
        the request budget: 202 with a job to poll."""
        svc = await service_of(lists)
        m, c = problem(svc, mode, max_guesses)
        return await answer(request, svc, await run_in_threadpool(svc.plan_next, position,
                                                                  m, c, top))

    async def boards_answer(request: Request, where: str, position: str, boards: int,
                            cap: int | None, top: int, lists: str | None):
        svc = await service_of(lists)
        _check_boards_position(where, position, boards, svc.lists.length, cap)
        return await answer(request, svc, await run_in_threadpool(
            svc.plan_boards, position, boards, cap, top))

    @app.get("/api/boards")
    async def boards_next(request: Request, position: BoardsPositionQ = "-",
                          boards: Annotated[int, Query(ge=2, le=MAX_BOARDS)] = 4,
                          max_guesses: Cap = None,
                          top: Annotated[int, Query(ge=0, le=MAX_TOP)] = 3,
                          lists: ListsId = None) -> dict:
        """Several boards (issue 18): the next guess at a position of `boards` boards
        ('salet:BBBBB/BYBBG/-/GGGGG,...', one feedback per board, '-' once solved;
        easy mode, cap boards + 5 unless given). Past the request budget: 202. A
        position may be as long as the game can make it (boards_position_chars);
        POST the same fields where a URL would be too long (Duotrigordle)."""
        return await boards_answer(request, "query", position, boards, max_guesses, top,
                                   lists)

    @app.post("/api/boards")
    async def boards_next_posted(request: Request,
                                 req: Annotated[BoardsRequest, Body()]) -> dict:
        """GET /api/boards with its fields in a JSON body: a 32-board position runs to
        thousands of characters, past what a URL safely carries."""
        return await boards_answer(request, "body", req.position, req.boards,
                                   req.max_guesses, req.top, req.lists)

    @app.get("/api/strategy")
    async def strategy(request: Request, opener: Word, mode: Mode | None = None,
                       max_guesses: Cap = None, lists: ListsId = None) -> dict:
        """The optimal decision tree after an opener, its histogram and every game.
        Past the request budget: 202 with a job to poll."""
        svc = await service_of(lists)
        m, c = problem(svc, mode, max_guesses)
        return await answer(request, svc, svc.plan_strategy(opener, m, c))

    @app.get("/api/adversary")
    async def adversary(request: Request, position: Position = "-", analyse: bool = False,
                        top: Annotated[int, Query(ge=0, le=MAX_ADVERSARY_TOP)] = 3,
                        lists: ListsId = None) -> dict:
        """Against the adversary (issue 18: Absurdle; easy mode, no cap): its reply to
        every guess of `position` ('raise,acold', or 'raise:BBBBB,...' to check the
        replies) and the answers it still keeps, at once. With `analyse`, also the
        exact fewest guesses that still beat it, a winning line and up to `top` other
        first guesses as fast: a search in the workers (past the budget: 202)."""
        svc = await service_of(lists)
        if not analyse:
            pos = await run_in_threadpool(svc.adversary_position, position)
            return adapter.adversary_state(pos)
        return await answer(request, svc, await run_in_threadpool(svc.plan_adversary,
                                                                  position, top))

    @app.post("/api/jobs", status_code=202)
    def submit(request: Request, req: Annotated[JobRequest, Body()]) -> dict:
        """Start a next-guess, strategy or adversary computation; poll GET
        /api/jobs/{id}."""
        svc = cat.get(req.lists)
        m, c = problem(svc, req.mode, req.max_guesses)
        if req.kind == "next":
            plan = svc.plan_next(req.position, m, c, req.top)  # bad input fails now
        elif req.kind == "adversary":
            _adversary_problem(req.mode, req.max_guesses)
            plan = svc.plan_adversary(req.position, req.top)
        else:
            if not req.opener:
                raise RequestValidationError([{"loc": ("body", "opener"),
                                               "msg": "required for kind 'strategy'"}])
            plan = svc.plan_strategy(req.opener, m, c)
        return svc.submit(plan, client_of(request)).to_dict()

    @app.get("/api/jobs/{jid}")
    def job_state(jid: str) -> dict:
        """A job's state, progress and (when done) result."""
        _svc, job = cat.job(jid)
        return job.to_dict()

    @app.delete("/api/jobs/{jid}")
    def job_cancel(jid: str) -> dict:
        """Cancel a job: its search stops (its worker is free within a second) unless
        another client waits for the same computation."""
        svc, _job = cat.job(jid)
        job = svc.jobs.cancel(jid)
        if job is None:
            raise NotFound(f"no job {jid!r}")
        return job.to_dict()

    @app.get("/api/workers")
    def workers(lists: ListsId = None) -> dict:
        """The worker processes (busy, lane, memory), queues and result cache."""
        return cat.get(lists).sched.state()

    @app.get("/api/stores")
    def stores(lists: ListsId = None) -> list[dict]:
        """Every store given to `serve --store` and opening book, with its progress."""
        return [sv.info() for sv in cat.get(lists).stores.values()]

    @app.get("/api/stores/{sid}")
    def store(sid: str, lists: ListsId = None) -> dict:
        return cat.get(lists).store(sid).info()

    @app.get("/api/stores/{sid}/openers")
    def openers(sid: str, q: Annotated[str, Query(max_length=10, pattern="^[A-Za-z]*$")] = "",
                sort: SORTS = "total", desc: bool = False, status: STATUSES | None = None,
                offset: Annotated[int, Query(ge=0)] = 0,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                lists: ListsId = None) -> dict:
        """One page of the opener table, filtered and sorted."""
        return cat.get(lists).store(sid).openers(q.lower(), sort, desc, status, offset, limit)

    @app.get("/api/stores/{sid}/distribution")
    def distribution(sid: str, bins: Annotated[int, Query(ge=1, le=500)] = 60,
                     lists: ListsId = None) -> dict:
        """Histogram of the exact opener totals, and the best opener."""
        return cat.get(lists).store(sid).distribution(bins)

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
