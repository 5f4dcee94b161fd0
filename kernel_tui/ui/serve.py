"""``kernel-tui --serve``: the explorer in a browser, through textual-serve.

textual-serve is a small web server: the page it serves opens a websocket, and each browser tab gets its
own ``kernel-tui`` process (the same explorer, started with the same scenarios, device and options),
drawn in the page. By default it listens on 127.0.0.1 only; ``--host`` picks another address, which
lets anyone who can reach it use the explorer, snippet editor included, and so run Python on this
machine: there is no login. Nothing listens unless ``--serve`` is given.
"""

from __future__ import annotations

import shlex
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
TITLE = "kernel-tui"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD = ("0.0.0.0", "::", "")


def app_command(paths: Sequence[Path], *, device: str = "auto", predict: bool = True) -> str:
    """The shell command each browser tab runs: this interpreter, the explorer, the same options.

    Built from the parsed options rather than copied from the command line, so ``--serve`` (or an
    abbreviation of it) can never reach the child and start a server of its own.
    """
    args = [sys.executable, "-m", "kernel_tui", *(str(Path(path).resolve()) for path in paths), "--device", device]
    if not predict:
        args.append("--no-predict")
    return shlex.join(args)


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
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
) -> int:
    """Serve the explorer on ``host:port`` until Ctrl+C (or SIGTERM); the exit code for the command line."""
    from textual_serve.server import Server

    if host not in LOOPBACK:
        print(
            f"kernel-tui: serving on {host}: anyone who can reach it can use the explorer, including the "
            "snippet editor, which runs Python on this machine. There is no login.",
            file=sys.stderr,
        )
    server = Server(app_command(paths, device=device, predict=predict), host=host, port=port, title=TITLE,
                    public_url=public_url(host, port))
    try:
        server.serve()
    except OSError as error:  # the port is taken, or the address is not this machine's
        print(f"kernel-tui: cannot serve on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
