"""`solver serve`: the page (solver.web) on a local server."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable

import click

from patterndb.cli.common import FiniteFloatRange, UserError, data_dir_option, guarded

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("serve", short_help="A page to look at, move, solve and compare boards.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (the default lets in this computer only; 0.0.0.0: every network).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0: any free one).",
)
@click.option(
    "--max-seconds",
    type=FiniteFloatRange(min=0, min_open=True),
    default=600.0,
    show_default=True,
    help="The longest a search may run before it stops with what it proved.",
)
@click.option(
    "--max-searches",
    type=click.IntRange(min=1, max=64),
    default=2,
    show_default=True,
    help="Searches run at once over all pages (one per page; others are refused with a message).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1, max=1024),
    default=None,
    help="IDA* threads per search [default: every core].",
)
@data_dir_option
@guarded
def serve(
    host: str, port: int, max_seconds: float, max_searches: int, jobs: int | None, data_dir
) -> None:
    """Serve a page to look at a board, move its tiles, solve it with the tables built here,
    watch the solution play, stop a long search, and compare algorithms on small boards.
    Ctrl-C stops the server. Needs the web extra: pip install 'patterndb[web]'."""
    try:
        import uvicorn
    except ImportError:
        raise UserError(
            "solver serve needs the web extra: pip install 'patterndb[web]'", 2
        ) from None
    from ..web.app import create_app
    from ..web.requests import Limits

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # (before the address is printed: a client that reads it may connect at once)
        sock.listen(128)
    except (OSError, UnicodeError) as e:
        raise UserError(
            f"cannot listen on {host}:{port}: {getattr(e, 'strerror', None) or e}", 2
        ) from None
    bound = sock.getsockname()[1]
    loopback = host in LOOPBACK
    app = create_app(
        data_dir, Limits(seconds=max_seconds, searches=max_searches), jobs, loopback=loopback
    )
    threading.Thread(target=app.state.searches.warm, daemon=True, name="warm-up").start()
    shown = f"[{host}]" if ":" in host else host
    who = (
        "this computer only (--host 0.0.0.0 lets in other computers)"
        if loopback
        else "every computer that can reach this one: there is no password"
    )
    click.echo(f"serving http://{shown}:{bound}/ to {who}; Ctrl-C stops", err=True)
    sys.stderr.flush()
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, access_log=False)
    server = _stopping_server(uvicorn, config, app.state.searches.stop_all)
    try:
        server.run(sockets=[sock])
    finally:
        app.state.searches.stop_all()


def _stopping_server(uvicorn, config, stop_searches: Callable[[], None]):
    """uvicorn's server, whose Ctrl-C or SIGTERM first stops every search: each page's stream then
    ends with its "stopped" event, and the shutdown waits for none of them (a search left
    running holds its connection past the graceful time, and uvicorn cancels it with a
    traceback). (uvicorn is imported only by the command: the web extra is optional.)"""

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            stop_searches()
            super().handle_exit(sig, frame)

    return Server(config)
