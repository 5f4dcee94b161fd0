"""``kernel-tui --serve``: the explorer in a browser, through textual-serve.

textual-serve is a small web server: the page it serves opens a websocket, and each browser tab gets its
own ``kernel-tui`` process (the same explorer, started with the same scenarios, device and options),
drawn in the page. The explorer's snippet editor runs Python, so whoever can open that websocket can run
code on this machine. Two locks, on every address it listens on (127.0.0.1 by default):

- a secret token, printed at start in the address to open (as Jupyter does): the page and the websocket
  are refused without it;
- the websocket handshake's ``Origin`` must be the page's own: a page on any other site the user visits
  cannot open it, even if it guessed the token;
- every request's ``Host`` must name this server (an IP address, ``localhost``, the address it listens on or this
  machine's name, and its port): a DNS-rebinding page, whose Host and Origin agree with each other on the
  attacker's name, is refused before either is compared.

Nothing listens unless ``--serve`` is given.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import secrets
import shlex
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernel_tui.transport.boot import python_command

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
TITLE = "kernel-tui"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD = ("0.0.0.0", "::", "")


def app_command(paths: Sequence[Path], *, device: str = "auto", predict: bool = True, arch: int | None = None) -> str:
    """The shell command each browser tab runs: this interpreter, the explorer, the same options.

    Built from the parsed options rather than copied from the command line, so ``--serve`` (or an
    abbreviation of it) can never reach the child and start a server of its own.
    """
    args = [*(str(Path(path).resolve()) for path in paths), "--device", device]
    if not predict:
        args.append("--no-predict")
    if arch is not None:
        args += ["--arch", str(arch)]
    # Not ``python -m``: the server's current folder must not be first on the explorer's import path.
    return shlex.join(python_command("kernel_tui", *args))


def public_url(host: str, port: int) -> str:
    """Where the browser finds the server (and its websocket): a wildcard address by this machine's name."""
    shown = socket.gethostname() if host in WILDCARD else host
    if ":" in shown:  # an IPv6 address
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def serve_app(
    paths: Sequence[Path],
    *,
    device: str = "auto",
    predict: bool = True,
    arch: int | None = None,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
) -> int:
    """Serve the explorer on ``host:port`` until Ctrl+C (or SIGTERM); the exit code for the command line."""
    if host not in LOOPBACK:
        print(
            f"kernel-tui: serving on {host}: anyone who can reach it and has the address printed below, token "
            "included, can use the explorer, including the snippet editor, which runs Python on this machine.",
            file=sys.stderr,
        )
    server = guarded_server(
        app_command(paths, device=device, predict=predict, arch=arch),
        host=host,
        port=port,
        token=secrets.token_urlsafe(32),
    )
    try:
        server.serve()
    except OSError as error:  # the port is taken, or the address is not this machine's
        print(f"kernel-tui: cannot serve on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def origin_is_own(origin: str | None, scheme: str, host: str | None) -> bool:
    """The handshake comes from a page this server served: its Origin is this server's scheme and address."""
    if not origin or not host:
        return False
    return origin.rstrip("/").lower() == f"{scheme}://{host}".lower()


def host_is_own(host_header: str | None, listening_on: str, port: int) -> bool:
    """The request names this server: an IP address (a DNS-rebinding page cannot make its own name one) or a
    name this machine answers to, with the port it listens on."""
    if not host_header:
        return False
    name, _, given_port = host_header.strip().rpartition(":")
    if not name or given_port != str(port) or name.endswith("]") is not name.startswith("["):
        return False
    name = name.strip("[]").lower().rstrip(".")
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(name)
        return True
    own = {"localhost", listening_on.lower(), socket.gethostname().lower(), socket.getfqdn().lower()}
    return name in own - {""}


def token_matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


LOGGERS_THAT_QUOTE_REQUESTS = ("aiohttp.access", "aiohttp.server", "aiohttp.web", "aiohttp.websocket", "textual-serve")


class TokenRedacted(logging.Filter):
    """Every log record with the token replaced by ``<token>``, wherever it appears (path, query, Referer)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._token in message:
            record.msg, record.args = message.replace(self._token, "<token>"), None
        # A rejected request's traceback (aiohttp logs the exception with the request line in it) is formatted by
        # the handler after every filter: formatted here instead, so that its text can be redacted too.
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        for field in ("exc_text", "stack_info"):
            text = getattr(record, field)
            if text and self._token in text:
                setattr(record, field, text.replace(self._token, "<token>"))
        return True


def guarded_server(command: str, *, host: str, port: int, token: str) -> Any:
    """A textual-serve server whose page wants the token and whose websocket wants the token and the page's
    own Origin. textual-serve has neither; they are added here, around its handlers."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server, to_int

    refused = "kernel-tui: open the address that kernel-tui --serve printed, token included.\n"
    wrong_host = "kernel-tui: this server answers to its own address only (the Host named another).\n"

    class GuardedServer(Server):
        def initialize_logging(self) -> None:
            super().initialize_logging()
            # aiohttp logs each request line and its Referer: both hold the token, which a log must not keep.
            for name in LOGGERS_THAT_QUOTE_REQUESTS:
                logging.getLogger(name).addFilter(TokenRedacted(token))

        async def _make_app(self) -> web.Application:
            app = web.Application()
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            # Only what the page needs: its script and styles are public, the page and the websocket are not.
            app.add_routes(
                [
                    web.get("/", self.handle_index, name="index"),
                    web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                    web.static("/static", self.statics_path, name="static"),
                ]
            )
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def on_startup(self, app: web.Application) -> None:
            print(f"kernel-tui: serving the explorer; open {self.public_url}/?token={token}", flush=True)
            print("Press Ctrl+C to stop.", flush=True)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if not host_is_own(request.headers.get("Host"), host, port):
                raise web.HTTPForbidden(text=wrong_host)
            if not token_matches(request.query.get("token"), token):
                raise web.HTTPForbidden(text=refused)
            # Addresses as the browser asked for the page, so that the websocket's Origin is its own.
            base = f"{request.scheme}://{request.host}"
            socket_scheme = "wss" if request.scheme == "https" else "ws"
            context = {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": f"{socket_scheme}://{request.host}/ws/{token}",
                "config": {"static": {"url": f"{base}/static/"}},
                "application": {"name": self.title},
            }
            response = aiohttp_jinja2.render_template("app_index.html", request, context)
            response.headers["Cache-Control"] = "no-store"
            response.headers["Referrer-Policy"] = "no-referrer"
            return response

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            if not host_is_own(request.headers.get("Host"), host, port):
                raise web.HTTPForbidden(text=wrong_host)
            if not token_matches(request.match_info.get("token"), token):
                raise web.HTTPForbidden(text=refused)
            if not origin_is_own(request.headers.get("Origin"), request.scheme, request.host):
                raise web.HTTPForbidden(text="kernel-tui: this page may not open the explorer.\n")
            return await super().handle_websocket(request)

    return GuardedServer(command, host=host, port=port, title=TITLE, public_url=public_url(host, port))
