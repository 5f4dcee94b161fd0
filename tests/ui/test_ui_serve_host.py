"""``--serve`` checks Host as well as Origin: a DNS-rebinding page (its name now pointing at 127.0.0.1, its Host
and Origin agreeing on that name) is refused even with the token."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from test_ui_serve import START_TIMEOUT_S, fetch_when_up, free_port, printed_address, start_server, status_of, stop

from kernel_tui.ui.app.serve import host_is_own


def handshake_as(url: str, host: str, origin: str) -> int:
    import aiohttp

    async def attempt() -> int:
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(
                    url, headers={"Host": host, "Origin": origin}, timeout=aiohttp.ClientWSTimeout(ws_close=5)
                ) as ws:
                    await ws.close()
                    return 101
            except aiohttp.WSServerHandshakeError as error:
                return error.status

    return asyncio.run(attempt())


def test_host_is_own_takes_addresses_and_this_machines_names_on_its_port() -> None:
    assert host_is_own("127.0.0.1:8000", "127.0.0.1", 8000)
    assert host_is_own("localhost:8000", "127.0.0.1", 8000)
    assert host_is_own("[::1]:8000", "::1", 8000)
    assert host_is_own(f"{socket.gethostname()}:8000", "0.0.0.0", 8000)
    assert not host_is_own("evil.example:8000", "127.0.0.1", 8000)
    assert not host_is_own("127.0.0.1:8001", "127.0.0.1", 8000)
    assert not host_is_own("127.0.0.1", "127.0.0.1", 8000)
    assert not host_is_own(None, "127.0.0.1", 8000)
    assert not host_is_own("[::1:8000", "::1", 8000)


@pytest.mark.engine
def test_serve_refuses_a_rebound_name_with_the_token(tmp_path: Path) -> None:
    port = free_port()
    process = start_server(tmp_path, port)
    try:
        address = printed_address(process, START_TIMEOUT_S)
        token = address.split("?token=", 1)[1]
        fetch_when_up(address, process, START_TIMEOUT_S)
        rebound = f"evil.example:{port}"
        page = status_of(address, Host=rebound)
        socket_status = handshake_as(f"ws://127.0.0.1:{port}/ws/{token}", rebound, f"http://{rebound}")
        own = handshake_as(f"ws://127.0.0.1:{port}/ws/{token}", f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")
    finally:
        stop(process)
    assert (page, socket_status, own) == (403, 403, 101)
