"""``kernel-tui --serve``: the explorer's page over HTTP through textual-serve, and nothing listens without it."""

from __future__ import annotations

import asyncio
import os
import queue
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import overdue
from support.locations import REPO
from support.ui_support import ADD_RELU

from kernel_tui.commands import cli
from kernel_tui.ui.app import launch, serve

START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def fetch_when_up(url: str, process: subprocess.Popen[str], timeout: float) -> str:
    """The page at ``url`` once the server answers; fails if the server exits or ``timeout`` passes."""
    started = time.monotonic()
    while True:
        if process.poll() is not None:
            assert process.stderr is not None
            raise AssertionError(f"the server exited with {process.returncode}: {process.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page: bytes = response.read()
                return page.decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if overdue(started, timeout):
                raise AssertionError(f"nothing answered at {url} within {timeout:.0f} s, scaled") from None
            time.sleep(0.2)


def stop(process: subprocess.Popen[str]) -> None:
    """End the server and anything it started: its whole process group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def start_server(tmp_path: Path, port: int, output: Any = subprocess.PIPE) -> subprocess.Popen[str]:
    env = {**os.environ, "KERNEL_TUI_STATE_DIR": str(tmp_path / "state")}
    return subprocess.Popen(
        [sys.executable, "-m", "kernel_tui", str(ADD_RELU), "--serve", "--port", str(port), "--no-predict"],
        cwd=REPO,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT if output is not subprocess.PIPE else subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def printed_address(process: subprocess.Popen[str], timeout: float) -> str:
    """The address with its token that ``--serve`` prints when it is ready."""
    lines: queue.Queue[str] = queue.Queue()

    def read_lines() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read_lines, daemon=True).start()
    started = time.monotonic()
    while not overdue(started, timeout):
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            if process.poll() is not None:
                assert process.stderr is not None
                raise AssertionError(f"the server exited: {process.stderr.read()[-2000:]}") from None
            continue
        if "?token=" in line:
            return line.split("open ", 1)[1].strip()
    raise AssertionError(f"no address printed within {timeout:.0f} s")


def status_of(url: str, **headers: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code


def handshake(url: str, origin: str | None) -> int:
    """The HTTP status of a websocket handshake at ``url`` (101: accepted) sent with this Origin."""
    import aiohttp

    async def attempt() -> int:
        headers = {"Origin": origin} if origin else {}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(url, headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=5)) as ws:
                    await ws.close()
                    return 101
            except aiohttp.WSServerHandshakeError as error:
                return error.status

    return asyncio.run(attempt())


@pytest.mark.engine
def test_serve_answers_with_the_textual_serve_page_for_kernel_tui(tmp_path: Path) -> None:
    port = free_port()
    process = start_server(tmp_path, port)
    try:
        address = printed_address(process, START_TIMEOUT_S)
        page = fetch_when_up(address, process, START_TIMEOUT_S)
    finally:
        stop(process)
    assert address.startswith(f"http://127.0.0.1:{port}/?token=")
    token = address.split("?token=", 1)[1]
    assert len(token) >= 32
    assert "textual.js" in page and "textual-terminal" in page, "the textual-serve page"
    assert "<div>kernel-tui</div>" in page, "titled for kernel-tui"
    assert f"ws://127.0.0.1:{port}/ws/{token}" in page, "its websocket on the address it listens on"


@pytest.mark.engine
def test_the_token_is_printed_once_and_never_in_the_access_log(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "served.log"
    with log.open("w") as output:
        process = start_server(tmp_path, port, output)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "?token=" not in log.read_text() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        address = log.read_text().split("open ", 1)[1].split()[0]
        fetch_when_up(address, process, START_TIMEOUT_S)
        token = address.split("?token=", 1)[1]
        assert status_of(f"http://127.0.0.1:{port}/?token={token}x") == 403
        handshake(f"ws://127.0.0.1:{port}/ws/{token}", origin="https://evil.example")
    finally:
        stop(process)
    logged = log.read_text().replace(address, "", 1)
    assert "GET /?token=<token>" in logged and "/ws/<token>" in logged, logged[-2000:]
    assert token not in logged, "printed again after the address"


@pytest.mark.engine
def test_serve_refuses_a_missing_token_and_a_foreign_origin(tmp_path: Path) -> None:
    port = free_port()
    process = start_server(tmp_path, port)
    base = f"http://127.0.0.1:{port}"
    try:
        address = printed_address(process, START_TIMEOUT_S)
        token = address.split("?token=", 1)[1]
        fetch_when_up(address, process, START_TIMEOUT_S)
        pages = {
            "no token": status_of(f"{base}/"),
            "wrong token": status_of(f"{base}/?token=guess"),
            "token": status_of(address),
            "script": status_of(f"{base}/static/js/textual.js"),
        }
        sockets = {
            "foreign origin": handshake(f"ws://127.0.0.1:{port}/ws/{token}", "https://evil.example"),
            "no origin": handshake(f"ws://127.0.0.1:{port}/ws/{token}", None),
            "other port": handshake(f"ws://127.0.0.1:{port}/ws/{token}", f"http://127.0.0.1:{port + 1}"),
            "no token": handshake(f"ws://127.0.0.1:{port}/ws", base),
            "wrong token": handshake(f"ws://127.0.0.1:{port}/ws/guess", base),
            "own page": handshake(f"ws://127.0.0.1:{port}/ws/{token}", base),
            "own page by name": handshake(f"ws://localhost:{port}/ws/{token}", f"http://localhost:{port}"),
        }
    finally:
        stop(process)
    assert pages == {"no token": 403, "wrong token": 403, "token": 200, "script": 200}
    assert sockets == {
        "foreign origin": 403,
        "no origin": 403,
        "other port": 403,
        "no token": 404,
        "wrong token": 403,
        "own page": 101,
        "own page by name": 101,
    }


def test_serve_options_reach_the_server_and_never_the_served_app(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[tuple[list[Path], dict[str, Any]]] = []
    ran: list[dict[str, Any]] = []

    def fake_serve(paths: list[Path], **options: Any) -> int:
        served.append((paths, options))
        return 0

    def fake_run(paths: list[Path], **options: Any) -> int:
        ran.append(options)
        return 0

    monkeypatch.setattr(serve, "serve_app", fake_serve)
    monkeypatch.setattr(launch, "run_app", fake_run)
    assert cli.main([str(ADD_RELU), "--serve", "--host", "0.0.0.0", "--port", "8123", "--no-predict"]) == 0
    assert cli.main([str(ADD_RELU), "--serve"]) == 0
    assert cli.main([str(ADD_RELU), "--serve", "--device", "cuda-preview", "--arch", "80"]) == 0
    assert [options for _, options in served] == [
        {"device": "auto", "predict": False, "arch": None, "host": "0.0.0.0", "port": 8123},
        {"device": "auto", "predict": True, "arch": None, "host": "127.0.0.1", "port": 8000},
        {"device": "cuda-preview", "predict": True, "arch": 80, "host": "127.0.0.1", "port": 8000},
    ]
    assert cli.main([str(ADD_RELU)]) == 0
    assert len(served) == 3 and len(ran) == 1, "without --serve the app runs here and nothing listens"


@pytest.mark.engine
def test_the_served_command_is_the_explorer_without_serve(tmp_path: Path) -> None:
    command = shlex.split(serve.app_command([ADD_RELU], device="cpu", predict=False))
    assert command[:2] == [sys.executable, "-c"] and "'kernel_tui'" in command[2]
    assert command[3:] == [str(ADD_RELU.resolve()), "--device", "cpu", "--no-predict"]
    # Started from a folder holding a learner's random.py, the explorer still runs: that folder is not on
    # its import path.
    (tmp_path / "random.py").write_text("raise SystemExit('the learner\\'s random.py was imported')\n")
    (tmp_path / "argparse.py").write_text("raise SystemExit('the learner\\'s argparse.py was imported')\n")
    help_command = shlex.split(serve.app_command([ADD_RELU]))[:3] + ["--help"]
    result = subprocess.run(help_command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--serve" in result.stdout
    assert serve.public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert serve.public_url("0.0.0.0", 80).startswith("http://") and "0.0.0.0" not in serve.public_url("0.0.0.0", 80)


def test_a_traceback_logged_for_a_rejected_request_keeps_no_token() -> None:
    """aiohttp logs a rejected request's exception with the request line in it: the token was printed there."""
    import io
    import logging

    from kernel_tui.ui.app.serve import TokenRedacted

    token = "s3cr3t-token-value"
    out = io.StringIO()
    logger = logging.getLogger("kernel-tui-test.redacted")
    handler = logging.StreamHandler(out)
    logger.addHandler(handler)
    logger.addFilter(TokenRedacted(token))
    try:
        try:
            raise ValueError(f"Bad request line: GET /ws/{token} HTTP/1.1")
        except ValueError:
            logger.exception("Error handling request from 127.0.0.1 for /ws/%s", token)
    finally:
        logger.removeHandler(handler)
    logged = out.getvalue()
    assert "Traceback" in logged and "Bad request line" in logged
    assert token not in logged and "/ws/<token>" in logged
