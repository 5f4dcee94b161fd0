"""``kernel-tui --serve``: the explorer's page over HTTP through textual-serve, and nothing listens without it."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from test_ui_support import ADD_RELU, REPO

from kernel_tui import cli
from kernel_tui.ui import launch, serve

START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch_when_up(url: str, process: subprocess.Popen, timeout: float) -> str:
    """The page at ``url`` once the server answers; fails if the server exits or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}: {process.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing answered at {url} within {timeout:.0f} s") from None
            time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    """End the server and anything it started: its whole process group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_serve_answers_with_the_textual_serve_page_for_kernel_tui(tmp_path):
    port = free_port()
    env = {**os.environ, "KERNEL_TUI_STATE_DIR": str(tmp_path / "state")}
    process = subprocess.Popen(
        [sys.executable, "-m", "kernel_tui", str(ADD_RELU), "--serve", "--port", str(port), "--no-predict"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        page = fetch_when_up(f"http://127.0.0.1:{port}/", process, START_TIMEOUT_S)
    finally:
        stop(process)
    assert "textual.js" in page and "textual-terminal" in page, "the textual-serve page"
    assert "<div>kernel-tui</div>" in page, "titled for kernel-tui"
    assert f"ws://127.0.0.1:{port}/ws" in page, "its websocket on the address it listens on"


def test_serve_options_reach_the_server_and_never_the_served_app(monkeypatch):
    served, ran = [], []
    monkeypatch.setattr(serve, "serve_app", lambda paths, **options: served.append((paths, options)) or 0)
    monkeypatch.setattr(launch, "run_app", lambda paths, **options: ran.append(options) or 0)
    assert cli.main([str(ADD_RELU), "--serve", "--host", "0.0.0.0", "--port", "8123", "--no-predict"]) == 0
    assert cli.main([str(ADD_RELU), "--serve"]) == 0
    assert [options for _, options in served] == [
        {"device": "auto", "predict": False, "host": "0.0.0.0", "port": 8123},
        {"device": "auto", "predict": True, "host": "127.0.0.1", "port": 8000},
    ]
    assert cli.main([str(ADD_RELU)]) == 0
    assert len(served) == 2 and len(ran) == 1, "without --serve the app runs here and nothing listens"


def test_the_served_command_is_the_explorer_without_serve():
    command = shlex.split(serve.app_command([ADD_RELU], device="cpu", predict=False))
    assert command[:3] == [sys.executable, "-m", "kernel_tui"]
    assert command[3:] == [str(ADD_RELU.resolve()), "--device", "cpu", "--no-predict"]
    assert serve.public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert serve.public_url("0.0.0.0", 80).startswith("http://") and "0.0.0.0" not in serve.public_url("0.0.0.0", 80)
