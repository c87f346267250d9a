"""The page's HTTP layer: Starlette routes over the checks of requests and the searches of
searches. A search answers as a stream of JSON lines (one event a line) that ends with its
answer; the stream's end, a stop request or a closed connection ends the search.

Nothing a request says reaches the file system: the page's three files are read into memory
when the app is made, and tables are found by name in the server's data directory only."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from patterndb import Board, Shape, __version__, make_goal, random_board, scramble

from .requests import (
    COMPARE_CELLS,
    GOALS,
    MAX_BODY,
    Limits,
    RequestError,
    board_of,
    client_of,
    random_request,
    solve_request,
)
from .searches import Searches

STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
ENDS = ("solution", "stopped", "error", "done")  # the events that end a stream
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]


def create_app(
    data_dir: Path | None = None,
    limits: Limits | None = None,
    jobs: int | None = None,
    loopback: bool = True,
) -> Starlette:
    """The page's app. loopback: accept only requests addressed to this computer by name (a web
    page elsewhere cannot reach the server through a name of its own: DNS rebinding)."""
    limits = limits or Limits()
    searches = Searches(data_dir, limits, jobs)
    pages = {
        name: (files(__package__).joinpath("static", name).read_bytes(), kind)
        for name, kind in STATIC.items()
    }

    def page(request: Request) -> Response:
        name = request.path_params.get("name", "index.html")
        if name not in pages:
            raise HTTPException(404, f"no such file: {name[:60]}")
        body, kind = pages[name]
        return Response(body, media_type=kind, headers={"Cache-Control": "no-cache"})

    async def info(request: Request) -> Response:
        return JSONResponse(
            {
                "version": __version__,
                "goals": list(GOALS),
                "compare_cells": COMPARE_CELLS,
                "max_seconds": limits.seconds,
                "max_nodes": limits.nodes,
                "searches": limits.searches,
            }
        )

    async def board(request: Request) -> Response:
        b, frame, _ = board_of(await read_json(request))
        return JSONResponse(shown(b, frame.goal))

    async def random(request: Request) -> Response:
        rows, cols, goal, moves = random_request(await read_json(request))
        shape = Shape(rows, cols)
        goal_board = make_goal(shape, goal)
        rng = np.random.default_rng()
        b = (
            random_board(shape, goal_board, rng)
            if moves is None
            else scramble(goal_board, moves, rng)
        )
        return JSONResponse(shown(b, goal_board))

    async def stop(request: Request) -> Response:
        return JSONResponse({"stopped": searches.stop(client_of(await read_json(request)))})

    def streamed(job: Callable) -> Callable:
        async def endpoint(request: Request) -> Response:
            req = solve_request(await read_json(request), limits)
            flag = searches.begin(req.client)
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue = asyncio.Queue()

            def emit(event: dict) -> None:
                loop.call_soon_threadsafe(queue.put_nowait, event)

            threading.Thread(
                target=job,
                args=(searches, req, flag, emit),
                daemon=True,
                name=f"search {req.client}",
            ).start()

            async def lines():
                ended = False
                try:
                    while not ended:
                        try:
                            event = await asyncio.wait_for(queue.get(), 0.5)
                        except TimeoutError:
                            if await request.is_disconnected():
                                return
                            continue
                        ended = event["event"] in ENDS
                        yield json.dumps(event) + "\n"
                finally:
                    if not ended:  # the page went away (a closed tab): its search ends with it
                        flag.request("stopped")

            return StreamingResponse(
                lines(),
                media_type="application/x-ndjson",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )

        return endpoint

    async def gone(request: Request, exc: Exception) -> Response:
        """A client that closed its connection before its request's body came: nobody to
        answer, nothing to log."""
        return Response(status_code=400)

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, RequestError):
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/static/{name}", page, methods=["GET"]),
        Route("/api/info", info, methods=["GET"]),
        Route("/api/board", board, methods=["POST"]),
        Route("/api/random", random, methods=["POST"]),
        Route("/api/solve", streamed(Searches.solve), methods=["POST"]),
        Route("/api/compare", streamed(Searches.compare), methods=["POST"]),
        Route("/api/stop", stop, methods=["POST"]),
    ]
    middleware = (
        [Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS)] if loopback else []
    )
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            RequestError: refused,
            HTTPException: refused,
            ClientDisconnect: gone,
        },
    )
    app.state.searches = searches
    return app


async def read_json(request: Request) -> dict:
    """The request's JSON object, refused unless it is one, is sent as JSON (a page elsewhere
    cannot send that without the browser asking us first, which we never allow) and is small."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise RequestError("send the request as JSON (Content-Type: application/json)", 415)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise RequestError(f"a request is at most {MAX_BODY:,} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(f"a request is at most {MAX_BODY:,} bytes", 413)
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        raise RequestError("the request is not JSON") from None
    if not isinstance(value, dict):
        raise RequestError("the request must be a JSON object")
    return value


def shown(board: Board, goal: Board) -> dict:
    """A board as the page draws it: its shape, its tiles and its goal's (0 = the blank)."""
    return {
        "rows": board.shape.rows,
        "cols": board.shape.cols,
        "tiles": board.tiles.tolist(),
        "goal_tiles": goal.tiles.tolist(),
        "text": str(board),
    }
